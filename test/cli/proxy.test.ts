// Issue 14 class 7: a cluster reached through its kubeconfig proxy-url (http, https, socks5), as
// kubectl reaches it. Everything on 127.0.0.1 in this process: a fake API server (HTTP and HTTPS,
// each on a port fetch() blocks), an HTTP proxy (CONNECT and absolute-form forwarding), the same
// proxy over TLS, a SOCKS5 proxy (no auth, or user/password), and a server that accepts and never
// answers. The built CLI runs as a child process (`npm run build` first); the timing bound is
// functional, not a benchmark (the margin covers start-up on a loaded machine).
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {httpProxy as makeHttpProxy, listenOn, proxyLog, silentServer, socks5Proxy} from './proxy-servers.js'
import {BIN, ROOT} from './run-cli.js'

const TIMEOUT_S = 1
const MARGIN_S = 3.5
const PASSWORD = 'pr0xy-s3cret'
// Ports fetch() blocks (fetch spec, "bad port"); the first free ones are used.
const BAD_PORTS = [6666, 6667, 6668, 6669, 6697, 10080, 6000, 5060, 5061]
const tlsDir = path.join(ROOT, 'test/cli/data/tls')
const cert = fs.readFileSync(path.join(tlsDir, 'localhost.crt'))
const key = fs.readFileSync(path.join(tlsDir, 'localhost.key'))
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-proxy-'))

const node = (name: string, zone: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, resourceVersion: '5', labels: {'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})
const api: http.RequestListener = (req, res) => {
  res.setHeader('content-type', 'application/json')
  if (new URL(req.url ?? '/', 'http://x').pathname === '/api/v1/nodes') {
    res.end(JSON.stringify({kind: 'NodeList', apiVersion: 'v1', metadata: {resourceVersion: '7'}, items: [node('n1', 'a'), node('n2', 'b')]}))
    return
  }
  res.statusCode = 404
  res.end('{}')
}

const log = proxyLog()
const seen = log.seen
const httpProxyOn = <S extends http.Server>(server: S) => makeHttpProxy(server, log, 'alice', PASSWORD)
const servers: net.Server[] = []
let httpApi = ''
let httpsApi = ''
let httpProxy = ''
let httpsProxy = ''
let socksProxy = ''
let silent = ''

/** A port on 127.0.0.1 that nothing listens on (just closed: taken right before use, as other tests run alongside). */
async function closedPort(): Promise<number> {
  const gone = http.createServer()
  const port = await listenOn(gone)
  await new Promise((r) => gone.close(r))
  return port
}

beforeAll(async () => {
  const add = <S extends net.Server>(s: S) => {
    servers.push(s)
    return s
  }
  httpApi = `http://127.0.0.1:${await listenOn(add(http.createServer(api)), BAD_PORTS)}`
  httpsApi = `https://127.0.0.1:${await listenOn(add(https.createServer({cert, key}, api)), BAD_PORTS)}`
  httpProxy = `127.0.0.1:${await listenOn(add(httpProxyOn(http.createServer())))}`
  httpsProxy = `127.0.0.1:${await listenOn(add(httpProxyOn(https.createServer({cert, key}))))}`
  socksProxy = `127.0.0.1:${await listenOn(add(socks5Proxy(log, 'alice', PASSWORD)))}`
  silent = `127.0.0.1:${await listenOn(add(silentServer(log)))}` // accepts, never answers
})
afterAll(async () => {
  for (const s of log.sockets) s.destroy()
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))))
  fs.rmSync(tmp, {recursive: true, force: true})
})

let n = 0
/** A kubeconfig for server through proxyUrl; the cluster's CA is the test certificate (verified). */
function kubeconfig(server: string, proxyUrl: string): string {
  const file = path.join(tmp, `config-${n++}`)
  const cluster = {server, 'certificate-authority-data': cert.toString('base64'), ...(proxyUrl === '' ? {} : {'proxy-url': proxyUrl})}
  fs.writeFileSync(
    file,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'proxied',
      clusters: [{name: 'c', cluster}],
      contexts: [{name: 'proxied', context: {cluster: 'c', user: 'u'}}],
      users: [{name: 'u', user: {token: 't'}}],
    }),
  )
  return file
}

interface Run {
  code: number | null
  stdout: string
  stderr: string
  seconds: number
}
function nodes(server: string, proxyUrl: string, extra: string[] = [], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint()
    const args = [BIN, 'nodes', '--kubeconfig', kubeconfig(server, proxyUrl), ...extra]
    const child = spawn(process.execPath, args, {cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, ...env}})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const kill = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.on('close', (code) => {
      clearTimeout(kill)
      resolve({code, stdout, stderr, seconds: Number(process.hrtime.bigint() - t0) / 1e9})
    })
  })
}

const listed = (r: Run) => {
  expect(r.stderr).toBe('')
  expect(r.stdout).toContain('Nodes: 2 (2 counted)')
  expect(r.code).toBe(0)
}
/** One line on stderr, naming no password. */
const oneLine = (r: Run) => {
  expect(r.stderr).not.toContain(PASSWORD)
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
}

describe("kubectl's proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) for a cluster without proxy-url", () => {
  // Go's http.ProxyFromEnvironment (golang.org/x/net/http/httpproxy useProxy), which kubectl uses,
  // never proxies localhost or a loopback IP: this API server on 127.0.0.1 is reached directly, the
  // proxy sees nothing. A name other than localhost would be proxied (test/unit/env-proxy.test.ts
  // checks the choice without a connection: nothing here resolves a name or leaves 127.0.0.1).
  it('HTTPS_PROXY / HTTP_PROXY set, API server on 127.0.0.1: direct, as kubectl', async () => {
    seen.length = 0
    const env = {HTTPS_PROXY: `http://${httpProxy}`, HTTP_PROXY: `http://${httpProxy}`, https_proxy: `http://${httpProxy}`, http_proxy: `http://${httpProxy}`}
    listed(await nodes(httpsApi, '', [], env))
    listed(await nodes(httpApi, '', [], env))
    expect(seen).toEqual([])
  })
  it('a proxy-url in the kubeconfig wins over the variables', async () => {
    seen.length = 0
    listed(await nodes(httpsApi, `http://${httpProxy}`, [], {HTTPS_PROXY: `http://${silent}`}))
    expect(seen).toEqual([`CONNECT ${httpsApi.slice('https://'.length)}`])
  })
})

describe('proxy-url: the API server is reached through the proxy', () => {
  it('http proxy, https server on a blocked port: one CONNECT tunnel, the certificate verified', async () => {
    seen.length = 0
    listed(await nodes(httpsApi, `http://${httpProxy}`))
    expect(seen).toEqual([`CONNECT ${httpsApi.slice('https://'.length)}`])
  })
  it('http proxy, http server on a blocked port: forwarded (absolute-form), as kubectl does', async () => {
    seen.length = 0
    listed(await nodes(httpApi, `http://${httpProxy}`))
    expect(seen).toEqual([`GET ${httpApi}/api/v1/nodes?limit=500`])
  })
  it('http proxy with user:password in proxy-url', async () => {
    listed(await nodes(httpsApi, `http://alice:${PASSWORD}@${httpProxy}`))
  })
  it('https proxy (verified against the cluster certificate authority)', async () => {
    seen.length = 0
    listed(await nodes(httpsApi, `https://${httpsProxy}`))
    expect(seen).toEqual([`CONNECT ${httpsApi.slice('https://'.length)}`])
  })
  it('socks5 proxy, https server on a blocked port', async () => {
    seen.length = 0
    listed(await nodes(httpsApi, `socks5://${socksProxy}`))
    expect(seen).toEqual([`SOCKS5 CONNECT ${httpsApi.slice('https://'.length)}`])
  })
  it('socks5 proxy with user:password, http server', async () => {
    seen.length = 0
    listed(await nodes(httpApi, `socks5://alice:${PASSWORD}@${socksProxy}`))
    expect(seen).toEqual(['SOCKS5 user alice', `SOCKS5 CONNECT ${httpApi.slice('http://'.length)}`])
  })
})

describe('proxy-url: --request-timeout bounds the whole process', () => {
  for (const scheme of ['http', 'https', 'socks5']) {
    it(`a ${scheme} proxy that accepts and never answers: exit 6 within the timeout plus a margin`, async () => {
      const r = await nodes(httpsApi, `${scheme}://alice:${PASSWORD}@${silent}`, ['--request-timeout', `${TIMEOUT_S}s`])
      oneLine(r)
      expect(r.stderr).toMatch(
        /^error: request to https:\/\/127\.0\.0\.1:\d+ through the proxy \S+ \(proxy-url\) timed out after 1s \(--request-timeout\) while trying to list nodes/,
      )
      expect(r.stderr).toContain(`${scheme}://127.0.0.1:`)
      expect(r.code).toBe(6)
      expect(r.seconds).toBeLessThan(TIMEOUT_S + MARGIN_S)
    }, 40_000)
  }
})

describe('proxy-url: failures name the proxy, never its password', () => {
  it('wrong password, https server (CONNECT answered 407): not a timeout', async () => {
    const r = await nodes(httpsApi, `http://alice:wrong-${PASSWORD}@${httpProxy}`)
    oneLine(r)
    expect(r.stderr).toBe(
      `error: Unable to connect to the server ${httpsApi}: the proxy http://${httpProxy} (proxy-url) answered 407 Proxy Authentication Required: check the user and password in proxy-url\n`,
    )
    expect(r.code).toBe(6)
  })
  it('wrong password, http server (forwarded request answered 407)', async () => {
    const r = await nodes(httpApi, `http://alice:wrong-${PASSWORD}@${httpProxy}`, ['--debug'])
    expect(r.stderr).not.toContain(PASSWORD)
    expect(r.stderr.split('\n')[0]).toBe(
      `error: Unable to connect to the server ${httpApi}: the proxy http://${httpProxy} (proxy-url) answered 407 Proxy Authentication Required: check the user and password in proxy-url`,
    )
    expect(r.code).toBe(6)
  })
  it('wrong password, socks5', async () => {
    const r = await nodes(httpsApi, `socks5://alice:wrong-${PASSWORD}@${socksProxy}`)
    oneLine(r)
    expect(r.stderr).toMatch(
      new RegExp(`^error: Unable to connect to the server ${httpsApi} through the proxy socks5://${socksProxy} \\(proxy-url\\): .*authentication failed`, 'i'),
    )
    expect(r.code).toBe(6)
  })
  it('a proxy that refuses connections is named, not the API server', async () => {
    const closed = await closedPort()
    const r = await nodes(httpsApi, `http://alice:${PASSWORD}@127.0.0.1:${closed}`)
    oneLine(r)
    expect(r.stderr).toBe(`error: The connection to the proxy http://127.0.0.1:${closed} (proxy-url) was refused - is the proxy running, and is proxy-url right?\n`)
    expect(r.code).toBe(6)
  })
  it('an http proxy that cannot reach the API server (CONNECT answered 502)', async () => {
    const closed = await closedPort()
    const r = await nodes(`https://127.0.0.1:${closed}`, `http://alice:${PASSWORD}@${httpProxy}`)
    oneLine(r)
    expect(r.stderr).toBe(`error: Unable to connect to the server https://127.0.0.1:${closed}: the proxy http://${httpProxy} (proxy-url) answered 502 Bad Gateway to CONNECT\n`)
    expect(r.code).toBe(6)
  })
  it('a socks5 proxy that cannot reach the API server', async () => {
    const closed = await closedPort()
    const r = await nodes(`https://127.0.0.1:${closed}`, `socks5://alice:${PASSWORD}@${socksProxy}`)
    oneLine(r)
    expect(r.stderr).toBe(
      `error: Unable to connect to the server https://127.0.0.1:${closed} through the proxy socks5://${socksProxy} (proxy-url): Socks5 proxy rejected connection - ConnectionRefused\n`,
    )
    expect(r.code).toBe(6)
  })
  for (const scheme of ['socks4', 'ftp']) {
    it(`an unsupported scheme (${scheme}) is a kubeconfig error, as in kubectl`, async () => {
      const r = await nodes(httpsApi, `${scheme}://alice:${PASSWORD}@${socksProxy}`)
      oneLine(r)
      expect(r.stderr).toMatch(
        new RegExp(`^error: invalid proxy-url "${scheme}://${socksProxy}" for cluster "c" in \\S+: unsupported scheme "${scheme}", must be http, https, or socks5\n$`),
      )
      expect(r.code).toBe(5)
    })
  }
})
