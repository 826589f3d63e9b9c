// Issue 14 class 7: --request-timeout bounds the whole process, not only the message. A server on
// 127.0.0.1 that accepts connections and never answers (not even the TLS handshake); the built
// CLI is timed as a child process. A functional bound, not a benchmark: the margin covers
// start-up on a loaded machine (before the fix, the process lived on for undici's 10 s connect
// timeout). `npm run build` first.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {BIN, ROOT} from './run-cli.js'

const TIMEOUT_S = 1
const MARGIN_S = 3.5
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-net-'))
const held: net.Socket[] = []
let server: net.Server
let kubeconfig = ''

beforeAll(async () => {
  server = net.createServer((c) => held.push(c)) // accept, never answer
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as net.AddressInfo).port
  kubeconfig = path.join(tmp, 'config')
  fs.writeFileSync(
    kubeconfig,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'silent',
      clusters: [{name: 'c', cluster: {server: `https://127.0.0.1:${port}`, 'insecure-skip-tls-verify': true}}],
      contexts: [{name: 'silent', context: {cluster: 'c', user: 'u'}}],
      users: [{name: 'u', user: {token: 't'}}],
    }),
  )
})
afterAll(async () => {
  for (const c of held) c.destroy()
  await new Promise((r) => server.close(r))
  fs.rmSync(tmp, {recursive: true, force: true})
})

function timed(args: string[]): Promise<{code: number | null; stderr: string; seconds: number}> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint()
    const child = spawn(process.execPath, [BIN, ...args, '--kubeconfig', kubeconfig, '--request-timeout', `${TIMEOUT_S}s`], {cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (d) => (stderr += d))
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('close', (code) => {
      clearTimeout(kill)
      resolve({code, stderr, seconds: Number(process.hrtime.bigint() - t0) / 1e9})
    })
  })
}

describe('--request-timeout against a server that never answers', () => {
  for (const args of [['explain', '-A'], ['nodes'], ['watch', 'svc/web', '-n', 'shop']]) {
    it(`${args[0]}: exit 6 within the timeout plus a margin`, async () => {
      const r = await timed(args)
      expect(r.stderr).toMatch(/^error: request to https:\/\/127\.0\.0\.1:\d+ timed out after 1s \(--request-timeout\) while trying to /)
      expect(r.code).toBe(6)
      expect(r.seconds).toBeLessThan(TIMEOUT_S + MARGIN_S)
    }, 40_000)
  }
})
