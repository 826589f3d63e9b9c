// A rotated bearer token file (src/cluster/token-file.ts): read again about once a minute and
// after a 401, as client-go's cachingTokenSource (transport/token_source.go); a failed read keeps
// the last token. And through loadKubeConfig: a kubeconfig's tokenFile refused with 401 is read
// again, so the next API call and the next watch carry the rotated token.
import fs from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {loadKubeConfig} from '../../src/cluster/kubeconfig.js'
import {TOKEN_FILE_PERIOD_MS, TokenFile} from '../../src/cluster/token-file.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-token-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))

function fakeFile(initial: string) {
  const f = {content: initial as string | Error, reads: 0, t: 1_000_000}
  const tf = new TokenFile('/run/token', 'first', {
    now: () => f.t,
    read: () => {
      f.reads++
      if (f.content instanceof Error) throw f.content
      return f.content
    },
  })
  return {f, tf}
}

describe('TokenFile', () => {
  it('keeps the token for 50 s (client-go: a minute less its 10 s leeway), then reads the file again', () => {
    const {f, tf} = fakeFile('second\n')
    expect(tf.token()).toBe('first')
    f.t += TOKEN_FILE_PERIOD_MS - 10_001
    expect(tf.token()).toBe('first')
    expect(f.reads).toBe(0)
    f.t += 1
    expect(tf.token()).toBe('second') // trimmed
    expect(f.reads).toBe(1)
    expect(tf.token()).toBe('second')
    expect(f.reads).toBe(1)
    expect(tf.rereads).toBe(1)
  })

  it('after a 401 with the token held now reads the file again at once; a refusal of a token already replaced changes nothing', () => {
    const {f, tf} = fakeFile('rotated')
    tf.refused('Bearer something-else')
    tf.refused(undefined)
    expect(tf.token()).toBe('first')
    expect(f.reads).toBe(0)
    tf.refused('Bearer first')
    expect(tf.token()).toBe('rotated')
    expect(f.reads).toBe(1)
    // A request sent with the old token comes back 401 after the new one was read: kept.
    tf.refused('Bearer first')
    expect(tf.token()).toBe('rotated')
    expect(f.reads).toBe(1)
  })

  it('an unreadable or empty file keeps the last token and says why (never the token), and heals at the next read', () => {
    const {f, tf} = fakeFile('')
    tf.refused('Bearer first')
    expect(tf.token()).toBe('first')
    expect(tf.lastError).toBe('/run/token is empty')
    f.content = Object.assign(new Error('ENOENT: no such file'), {code: 'ENOENT'})
    expect(tf.token()).toBe('first') // still stale: every request tries again
    expect(tf.lastError).toMatch(/^cannot read \/run\/token: /)
    expect(tf.lastError).not.toContain('first')
    f.content = 'third'
    expect(tf.token()).toBe('third')
    expect(tf.lastError).toBeUndefined()
    expect(f.reads).toBe(3)
  })
})

describe("loadKubeConfig: a kubeconfig's tokenFile is read again after a 401", () => {
  it('the next API call and the next watch carry the rotated token', async () => {
    const tokenPath = path.join(tmp, 'token')
    fs.writeFileSync(tokenPath, 'old-token\n')
    const seen: string[] = []
    const server = http.createServer((req, res) => {
      const auth = String(req.headers.authorization)
      seen.push(`${req.url?.startsWith('/version') ? 'version' : 'watch'} ${auth}`)
      if (auth !== 'Bearer new-token') {
        res.statusCode = 401
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401}))
        return
      }
      res.setHeader('content-type', 'application/json')
      if (req.url?.startsWith('/version')) res.end(JSON.stringify({major: '1', minor: '36', gitVersion: 'v1.36.3'}))
      else res.end(`${JSON.stringify({type: 'BOOKMARK', object: {kind: 'Node', metadata: {resourceVersion: '7'}}})}\n`)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const port = (server.address() as AddressInfo).port
      const kubeconfig = path.join(tmp, 'config')
      fs.writeFileSync(
        kubeconfig,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'x',
          clusters: [{name: 'k', cluster: {server: `http://127.0.0.1:${port}`}}],
          contexts: [{name: 'x', context: {cluster: 'k', user: 'u'}}],
          users: [{name: 'u', user: {tokenFile: 'token'}}],
        }),
      )
      const ctx = await loadKubeConfig({kubeconfig, requestTimeoutMs: 5000})
      expect(ctx.tokenFile?.file).toBe(tokenPath)
      const {VersionApi} = await import('../../src/cluster/k8s.js')
      const version = () => ctx.kc.makeApiClient(VersionApi).getCode({}, ctx.apiOptions)
      await expect(version()).rejects.toMatchObject({code: 401})
      // The kubelet (or a sidecar) writes the new token.
      fs.writeFileSync(tokenPath, 'new-token\n')
      expect((await version()).gitVersion).toBe('v1.36.3')

      // A watch refused with 401 marks the token stale as well.
      fs.writeFileSync(tokenPath, 'old-token\n')
      ctx.tokenFile!.refused('Bearer new-token') // as if refused: the next request reads old-token
      await expect(version()).rejects.toMatchObject({code: 401})
      const watchOnce = () =>
        new Promise<unknown>((resolve) => {
          const events: string[] = []
          ctx.watch!(
            '/api/v1/nodes',
            {},
            (type) => events.push(type),
            (err) => resolve(err ?? events),
          ).catch(resolve)
        })
      fs.writeFileSync(tokenPath, 'stale-again\n')
      expect(await watchOnce()).toMatchObject({statusCode: 401})
      fs.writeFileSync(tokenPath, 'new-token\n')
      expect(await watchOnce()).toEqual(['BOOKMARK'])
      expect(seen).toEqual(['version Bearer old-token', 'version Bearer new-token', 'version Bearer old-token', 'watch Bearer stale-again', 'watch Bearer new-token'])
    } finally {
      server.closeAllConnections()
      await new Promise((r) => server.close(r))
    }
  })
})
