// Issue 14 class 7: the transport (src/cluster/http.ts). An API server on a port that fetch()
// refuses (the WHATWG "bad ports": 6000, 6666, 10080, …) is reached as kubectl reaches it, for
// list calls and for watches, directly and through a kubeconfig proxy-url (src/cluster/proxy.ts:
// an HTTP proxy forwarding, a SOCKS5 proxy with a password). Only 127.0.0.1.
import fs from 'node:fs'
import http from 'node:http'
import type net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {loadKubeConfig, type KubeContext} from '../../src/cluster/kubeconfig.js'
import {readNodes} from '../../src/cluster/nodes.js'
import {httpProxy, listenOn, proxyLog, socks5Proxy} from '../cli/proxy-servers.js'

// Ports fetch() blocks (fetch spec, "bad port"); the first free one is used.
const BAD_PORTS = [6666, 6667, 6668, 6669, 6697, 10080, 6000, 5060, 5061]

const node = (name: string, zone: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, resourceVersion: '5', labels: {'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})

let server: http.Server
let port = 0
let ctx: KubeContext
const proxies = proxyLog()
const proxyServers: net.Server[] = []
const proxied: Record<string, KubeContext> = {}
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-transport-'))

async function listenOnBadPort(s: http.Server): Promise<number> {
  for (const p of BAD_PORTS) {
    const ok = await new Promise<boolean>((resolve) => {
      s.once('error', () => resolve(false))
      s.listen(p, '127.0.0.1', () => resolve(true))
    })
    if (ok) return p
  }
  throw new Error(`none of the ports ${BAD_PORTS.join(', ')} is free on 127.0.0.1`)
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    res.setHeader('content-type', 'application/json')
    if (url.pathname === '/api/v1/nodes' && url.searchParams.get('watch') === 'true') {
      res.write(`${JSON.stringify({type: 'ADDED', object: node('n3', 'c')})}\n`)
      res.end(`${JSON.stringify({type: 'DELETED', object: node('n1', 'a')})}\n`)
      return
    }
    if (url.pathname === '/api/v1/nodes') {
      res.end(JSON.stringify({kind: 'NodeList', apiVersion: 'v1', metadata: {resourceVersion: '7'}, items: [node('n1', 'a'), node('n2', 'b')]}))
      return
    }
    res.statusCode = 404
    res.end('{}')
  })
  port = await listenOnBadPort(server)
  const kc = path.join(tmp, 'config')
  fs.writeFileSync(
    kc,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'bad-port',
      clusters: [{name: 'c', cluster: {server: `http://127.0.0.1:${port}`}}],
      contexts: [{name: 'bad-port', context: {cluster: 'c', user: 'u'}}],
      users: [{name: 'u', user: {token: 't'}}],
    }),
  )
  ctx = await loadKubeConfig({kubeconfig: kc, requestTimeoutMs: 5_000})
  const http1 = httpProxy(http.createServer(), proxies, 'alice', 'pw')
  const socks = socks5Proxy(proxies, 'alice', 'pw')
  const urls = {http: `http://127.0.0.1:${await listenOn(http1)}`, socks5: `socks5://alice:pw@127.0.0.1:${await listenOn(socks)}`}
  proxyServers.push(http1, socks)
  for (const [name, proxyUrl] of Object.entries(urls)) {
    const file = path.join(tmp, `config-${name}`)
    fs.writeFileSync(
      file,
      toYaml({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': name,
        clusters: [{name: 'c', cluster: {server: `http://127.0.0.1:${port}`, 'proxy-url': proxyUrl}}],
        contexts: [{name, context: {cluster: 'c', user: 'u'}}],
        users: [{name: 'u', user: {token: 't'}}],
      }),
    )
    proxied[name] = await loadKubeConfig({kubeconfig: file, requestTimeoutMs: 5_000})
  }
})
afterAll(async () => {
  for (const s of proxies.sockets) s.destroy()
  await Promise.all(proxyServers.map((s) => new Promise((r) => s.close(r))))
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  fs.rmSync(tmp, {recursive: true, force: true})
})

describe('an API server on a port fetch() blocks', () => {
  it('is listed from, as kubectl would', async () => {
    const r = await readNodes(ctx)
    expect(r.nodes.map((n) => n.metadata.name)).toEqual(['n1', 'n2'])
  })
  it('is watched from', async () => {
    const events: string[] = []
    const err = await new Promise<unknown>((resolve, reject) => {
      ctx.watch!('/api/v1/nodes', {resourceVersion: '7'}, (type, obj) => events.push(`${type} ${obj.metadata.name}`), resolve).catch(reject)
    })
    expect(err).toBeNull()
    expect(events).toEqual(['ADDED n3', 'DELETED n1'])
  })
})

describe('the same server behind a proxy-url', () => {
  for (const name of ['http', 'socks5']) {
    it(`${name}: listed from and watched from, through the proxy`, async () => {
      proxies.seen.length = 0
      const c = proxied[name]!
      expect(c.proxy).toMatch(new RegExp(`^${name}://127\\.0\\.0\\.1:\\d+$`)) // no credentials
      const r = await readNodes(c)
      expect(r.nodes.map((n) => n.metadata.name)).toEqual(['n1', 'n2'])
      const events: string[] = []
      const err = await new Promise<unknown>((resolve, reject) => {
        c.watch!('/api/v1/nodes', {resourceVersion: '7'}, (type, obj) => events.push(`${type} ${obj.metadata.name}`), resolve).catch(reject)
      })
      expect(err).toBeNull()
      expect(events).toEqual(['ADDED n3', 'DELETED n1'])
      const target = `127.0.0.1:${port}`
      expect(proxies.seen).toEqual(
        name === 'http'
          ? [`GET http://${target}/api/v1/nodes?limit=500`, `GET http://${target}/api/v1/nodes?watch=true&resourceVersion=7`]
          : ['SOCKS5 user alice', `SOCKS5 CONNECT ${target}`, 'SOCKS5 user alice', `SOCKS5 CONNECT ${target}`],
      )
    })
  }
})
