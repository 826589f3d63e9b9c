// Error mapping for API calls: real sockets on 127.0.0.1 only (closed port, a server that
// never answers, Status bodies), plus the pure mapping of errors client-node/undici throw.
import fs from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {scrub, toCliError} from '../../src/cluster/errors.js'
import {AT_PROXY, PROXY_ERR} from '../../src/cluster/proxy.js'
import {loadKubeConfig, type KubeContext} from '../../src/cluster/kubeconfig.js'
import {readClusterState} from '../../src/cluster/live.js'
import {CliError, ExitCode} from '../../src/errors.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-err-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))

async function contextFor(server: string, requestTimeoutMs?: number): Promise<KubeContext> {
  const p = path.join(tmp, `kc-${Math.random().toString(36).slice(2)}`)
  fs.writeFileSync(
    p,
    toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'test',
      clusters: [{name: 'c', cluster: {server}}],
      contexts: [{name: 'test', context: {cluster: 'c', user: 'u', namespace: 'shop'}}],
      users: [{name: 'u', user: {token: 'super-secret-token-123'}}],
    }),
  )
  return loadKubeConfig({kubeconfig: p, ...(requestTimeoutMs !== undefined ? {requestTimeoutMs} : {})})
}

async function listen(handler: http.RequestListener): Promise<{server: http.Server; url: string}> {
  const server = http.createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
}

async function failure(p: Promise<unknown>): Promise<CliError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(CliError)
    const err = e as CliError
    expect(err.message).not.toContain('\n')
    expect(err.message).not.toContain('super-secret-token')
    return err
  }
  throw new Error('expected a failure')
}

function statusHandler(code: number, status: object): http.RequestListener {
  return (_req, res) => {
    res.writeHead(code, {'content-type': 'application/json'})
    res.end(JSON.stringify({kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code, ...status}))
  }
}

describe('network failures (127.0.0.1)', () => {
  it("a closed port gives UNREACHABLE, quickly, in kubectl's words", async () => {
    const {server, url} = await listen(() => {})
    await close(server) // the port is now closed
    const ctx = await contextFor(url)
    const t0 = Date.now()
    const err = await failure(readClusterState(ctx, {}))
    expect(Date.now() - t0).toBeLessThan(5_000)
    expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
    expect(err.message).toBe(`The connection to the server ${url} was refused - did you specify the right host or port?`)
  })

  it('a server that never answers times out after --request-timeout', async () => {
    const {server, url} = await listen(() => {
      /* never respond */
    })
    try {
      const ctx = await contextFor(url, 300)
      const t0 = Date.now()
      const err = await failure(readClusterState(ctx, {serviceNames: ['web']}))
      const elapsed = Date.now() - t0
      expect(elapsed).toBeGreaterThanOrEqual(250)
      expect(elapsed).toBeLessThan(5_000)
      expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
      // Services are reported first whatever request timed out first.
      expect(err.message).toBe(`request to ${url} timed out after 300ms (--request-timeout) while trying to get services "web" in namespace "shop"`)
    } finally {
      await close(server)
    }
  })

  it('a server that accepts and hangs up: connection reset', async () => {
    const {server, url} = await listen((req) => req.socket.destroy())
    try {
      const err = await failure(readClusterState(await contextFor(url, 5_000), {}))
      expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
      expect(err.message).toMatch(new RegExp(`^Unable to connect to the server ${url}: `))
    } finally {
      await close(server)
    }
  })

  it('https against a plain-http port: TLS handshake failure', async () => {
    const {server, url} = await listen((_req, res) => res.end('hello'))
    try {
      const httpsUrl = url.replace('http:', 'https:')
      const err = await failure(readClusterState(await contextFor(httpsUrl, 5_000), {}))
      expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
      expect(err.message).toMatch(new RegExp(`^Unable to connect to the server ${httpsUrl}: TLS handshake failed \\(`))
    } finally {
      await close(server)
    }
  })
})

describe('Status bodies', () => {
  it("403 gives kubectl's one-line Forbidden message", async () => {
    const {server, url} = await listen(
      statusHandler(403, {
        reason: 'Forbidden',
        message: 'services "web" is forbidden: User "readonly" cannot get resource "services" in API group "" in the namespace "shop"',
        details: {name: 'web', kind: 'services'},
      }),
    )
    try {
      const err = await failure(readClusterState(await contextFor(url, 5_000), {serviceNames: ['web']}))
      expect(err.exitCode).toBe(ExitCode.FORBIDDEN)
      expect(err.message).toBe('Error from server (Forbidden): services "web" is forbidden: User "readonly" cannot get resource "services" in API group "" in the namespace "shop"')
    } finally {
      await close(server)
    }
  })

  it('401 names the context', async () => {
    const {server, url} = await listen(statusHandler(401, {reason: 'Unauthorized', message: 'Unauthorized'}))
    try {
      const err = await failure(readClusterState(await contextFor(url, 5_000), {}))
      expect(err.exitCode).toBe(ExitCode.FORBIDDEN)
      expect(err.message).toMatch(/^Unauthorized: the server rejected the credentials of context "test" \(/)
    } finally {
      await close(server)
    }
  })

  it('400 (a bad label selector) is a usage error', async () => {
    const {server, url} = await listen(statusHandler(400, {reason: 'BadRequest', message: "unable to parse requirement: found '=', expected: identifier"}))
    try {
      const err = await failure(readClusterState(await contextFor(url, 5_000), {labelSelector: '=x'}))
      expect(err.exitCode).toBe(ExitCode.USAGE)
      expect(err.message).toBe("Error from server (BadRequest): unable to parse requirement: found '=', expected: identifier")
    } finally {
      await close(server)
    }
  })

  it('503 without a Status body', async () => {
    const {server, url} = await listen((_req, res) => {
      res.writeHead(503)
      res.end()
    })
    try {
      const err = await failure(readClusterState(await contextFor(url, 5_000), {}))
      expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
      expect(err.message).toMatch(/^Error from server \(HTTP 503\): /)
    } finally {
      await close(server)
    }
  })
})

describe('toCliError (pure)', () => {
  const ctx = {server: 'https://10.0.0.1:6443', contextName: 'prod', requestTimeoutMs: 30_000}
  const fetchFailed = (cause: object) => Object.assign(new TypeError('fetch failed'), {cause})
  const apiException = (code: number, body: unknown) => Object.assign(new Error(`HTTP-Code: ${code}`), {code, body, headers: {}})

  it.each([
    ['ECONNREFUSED', 'The connection to the server https://10.0.0.1:6443 was refused - did you specify the right host or port?'],
    ['ENOTFOUND', 'Unable to connect to the server https://10.0.0.1:6443: no such host "10.0.0.1" (ENOTFOUND)'],
    ['ECONNRESET', 'Unable to connect to the server https://10.0.0.1:6443: connection reset by peer (ECONNRESET)'],
    ['EHOSTUNREACH', 'Unable to connect to the server https://10.0.0.1:6443: host unreachable (EHOSTUNREACH)'],
    ['UND_ERR_CONNECT_TIMEOUT', 'Unable to connect to the server https://10.0.0.1:6443: connection timed out (UND_ERR_CONNECT_TIMEOUT)'],
  ])('%s', (code, message) => {
    const err = toCliError(fetchFailed(Object.assign(new Error(`connect ${code}`), {code})), 'list nodes', ctx)
    expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
    expect(err.message).toBe(message)
  })

  it('certificate errors', () => {
    const cause = Object.assign(new Error('self-signed certificate in certificate chain'), {code: 'SELF_SIGNED_CERT_IN_CHAIN'})
    const err = toCliError(fetchFailed(cause), 'list nodes', ctx)
    expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
    expect(err.message).toBe(
      'Unable to connect to the server https://10.0.0.1:6443: tls: certificate verification failed (SELF_SIGNED_CERT_IN_CHAIN: self-signed certificate in certificate chain): check certificate-authority(-data) of cluster in the kubeconfig',
    )
  })

  it('nested causes and AggregateError (IPv4 and IPv6 both refused)', () => {
    const agg = new AggregateError([Object.assign(new Error('x'), {code: 'ECONNREFUSED'})], 'all failed')
    expect(toCliError(fetchFailed(agg), 'list nodes', ctx).message).toMatch(/was refused/)
  })

  it('timeouts', () => {
    const e = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    expect(toCliError(e, 'list nodes', ctx).message).toBe('request to https://10.0.0.1:6443 timed out after 30s (--request-timeout) while trying to list nodes')
  })

  it('403 without a message falls back to what was being done', () => {
    const err = toCliError(apiException(403, ''), 'patch services "web" in namespace "default"', ctx)
    expect(err.exitCode).toBe(ExitCode.FORBIDDEN)
    expect(err.message).toBe('Error from server (Forbidden): cannot patch services "web" in namespace "default"')
  })

  it('404 and 409', () => {
    const nf = toCliError(apiException(404, JSON.stringify({reason: 'NotFound', message: 'services "web" not found'})), 'get', ctx)
    expect([nf.exitCode, nf.message]).toEqual([ExitCode.NOT_FOUND, 'Error from server (NotFound): services "web" not found'])
    const cf = toCliError(apiException(409, {reason: 'Conflict', message: 'the object has been modified'}), 'patch', ctx)
    expect([cf.exitCode, cf.message]).toEqual([ExitCode.WRITE_FAILED, 'Error from server (Conflict): the object has been modified'])
  })

  it('an exec credential plugin that is not installed', () => {
    const e = Object.assign(new Error('spawn aws ENOENT'), {code: 'ENOENT', syscall: 'spawn aws', path: 'aws'})
    const err = toCliError(e, 'list nodes', {...ctx, execCommand: 'aws'})
    expect(err.exitCode).toBe(ExitCode.KUBECONFIG)
    expect(err.message).toBe('getting credentials for context "prod": exec: aws: executable not found: install it or fix users[].user.exec in the kubeconfig')
  })

  it('an exec credential plugin that fails (client-node rejects with its stderr)', () => {
    const err = toCliError(new Error('\nerror: token expired\nrun aws sso login\n'), 'list nodes', {...ctx, execCommand: 'aws'})
    expect(err.exitCode).toBe(ExitCode.KUBECONFIG)
    expect(err.message).toBe('getting credentials for context "prod": exec plugin "aws" failed: error: token expired')
  })

  it('CliErrors pass through; unknown errors are INTERNAL', () => {
    const c = new CliError('x', ExitCode.USAGE)
    expect(toCliError(c, 'y')).toBe(c)
    expect(toCliError(new RangeError('boom'), 'list nodes').exitCode).toBe(ExitCode.INTERNAL)
  })

  describe('behind a proxy-url (src/cluster/proxy.ts marks its errors)', () => {
    const px = {...ctx, proxy: 'http://proxy.corp:3128'}
    const atProxy = (e: Error) => Object.assign(e, {[AT_PROXY]: true})
    it.each([
      ['ECONNREFUSED', 'The connection to the proxy http://proxy.corp:3128 (proxy-url) was refused - is the proxy running, and is proxy-url right?'],
      ['ENOTFOUND', 'Unable to connect to the proxy http://proxy.corp:3128 (proxy-url): no such host "proxy.corp" (ENOTFOUND)'],
      ['EHOSTUNREACH', 'Unable to connect to the proxy http://proxy.corp:3128 (proxy-url): host unreachable (EHOSTUNREACH)'],
    ])('%s of the connection to the proxy names the proxy', (code, message) => {
      const err = toCliError(atProxy(Object.assign(new Error(`connect ${code}`), {code})), 'list nodes', px)
      expect([err.exitCode, err.message]).toEqual([ExitCode.UNREACHABLE, message])
    })
    it('a failure behind the proxy names both', () => {
      const e = Object.assign(new Error('self-signed certificate'), {code: 'DEPTH_ZERO_SELF_SIGNED_CERT'})
      expect(toCliError(e, 'list nodes', px).message).toMatch(
        /^Unable to connect to the server https:\/\/10\.0\.0\.1:6443 through the proxy http:\/\/proxy\.corp:3128 \(proxy-url\): tls: /,
      )
    })
    it("the proxy's answers to CONNECT, and a 407 to a forwarded request", () => {
      const connect = (statusCode: number, statusText: string) => Object.assign(new Error('x'), {code: PROXY_ERR.CONNECT, statusCode, statusText})
      expect(toCliError(connect(403, 'Forbidden'), 'list nodes', px).message).toBe(
        'Unable to connect to the server https://10.0.0.1:6443: the proxy http://proxy.corp:3128 (proxy-url) answered 403 Forbidden to CONNECT',
      )
      const auth =
        'Unable to connect to the server https://10.0.0.1:6443: the proxy http://proxy.corp:3128 (proxy-url) answered 407 Proxy Authentication Required: check the user and password in proxy-url'
      for (const e of [connect(407, 'Proxy Authentication Required'), apiException(407, '')]) {
        const err = toCliError(e, 'list nodes', px)
        expect([err.exitCode, err.message]).toEqual([ExitCode.UNREACHABLE, auth])
      }
    })
    it('a timeout says which proxy', () => {
      const e = new DOMException('The operation was aborted due to timeout', 'TimeoutError')
      expect(toCliError(e, 'list nodes', px).message).toBe(
        'request to https://10.0.0.1:6443 through the proxy http://proxy.corp:3128 (proxy-url) timed out after 30s (--request-timeout) while trying to list nodes',
      )
    })
  })

  it('scrubs credentials from any message', () => {
    expect(scrub('Authorization: Bearer abcdefghijkl123 failed')).toBe('Authorization: Bearer <redacted> failed')
    expect(scrub('token=abc123secret; next')).toBe('token=<redacted>; next')
    expect(scrub('GET https://admin:pw@host/api')).toBe('GET https://host/api')
    expect(toCliError(new Error('bad header Bearer sk-1234567890abcdef'), 'list nodes').message).not.toContain('sk-1234567890')
  })
})
