// --traffic-from's HTTP (src/cluster/prometheus.ts) against servers on 127.0.0.1: what is sent
// (POST /api/v1/query, the bearer token) and each fault's one line and exit code.
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkPrometheusUrl, openPrometheus} from '../../src/cluster/prometheus.js'
import {CliError} from '../../src/errors.js'

const TLS = path.join(import.meta.dirname, '../cli/data/tls')
const seen: {url: string; method: string; auth: string | undefined; body: string}[] = []
const VECTOR = JSON.stringify({status: 'success', data: {resultType: 'vector', result: [{metric: {src_zone: 'a'}, value: [1, '1']}]}})

function handler(req: http.IncomingMessage, res: http.ServerResponse): void {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    seen.push({url: req.url ?? '', method: req.method ?? '', auth: req.headers.authorization, body})
    const q = new URLSearchParams(body).get('query') ?? ''
    if (q === 'redirect') {
      res.writeHead(302, {location: 'http://127.0.0.1:1/elsewhere'})
      res.end()
    } else if (q === 'unauthorized') {
      res.writeHead(401)
      res.end('no')
    } else if (q === 'html') {
      res.writeHead(200, {'content-type': 'text/html'})
      res.end('<html>login</html>')
    } else if (q === 'huge') {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(`{"x":"${'a'.repeat(9 << 20)}"}`)
    } else if (q === 'silent') {
      // never answers (the client's timeout ends it)
    } else if (q === 'bad') {
      res.writeHead(400, {'content-type': 'application/json'})
      res.end(JSON.stringify({status: 'error', errorType: 'bad_data', error: 'parse error'}))
    } else if (q === 'boom') {
      res.writeHead(500)
      res.end('oops')
    } else {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(VECTOR)
    }
  })
}

let plain: http.Server
let secure: https.Server
let base: string
let tlsBase: string
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'prom-client-'))
const listen = (s: http.Server) => new Promise<string>((r) => s.listen(0, '127.0.0.1', () => r(`127.0.0.1:${(s.address() as AddressInfo).port}`)))

beforeAll(async () => {
  plain = http.createServer(handler)
  secure = https.createServer({cert: fs.readFileSync(path.join(TLS, 'localhost.crt')), key: fs.readFileSync(path.join(TLS, 'localhost.key'))}, handler)
  base = `http://${await listen(plain)}/prefix/`
  tlsBase = `https://${await listen(secure)}`
})
afterAll(() => {
  plain.closeAllConnections()
  secure.closeAllConnections()
  plain.close()
  secure.close()
  fs.rmSync(dir, {recursive: true, force: true})
})

async function fault(p: Promise<unknown>): Promise<{code: number; message: string}> {
  try {
    await p
  } catch (e) {
    if (e instanceof CliError) return {code: e.exitCode, message: e.message}
    throw e
  }
  throw new Error('no error')
}

describe('Prometheus client', () => {
  it('POSTs the query to <base>/api/v1/query with the token of --traffic-token-file (trailing newline dropped)', async () => {
    const tokenFile = path.join(dir, 'token')
    fs.writeFileSync(tokenFile, 's3cret-token\n')
    const c = await openPrometheus({url: base, tokenFile, timeoutMs: 5000})
    expect(await c.query('sum(x)')).toEqual(JSON.parse(VECTOR))
    c.close()
    expect(seen.at(-1)).toEqual({url: '/prefix/api/v1/query', method: 'POST', auth: 'Bearer s3cret-token', body: 'query=sum%28x%29'})
  })

  it('a Prometheus error answer (400 bad_data) is returned for the caller to word', async () => {
    const c = await openPrometheus({url: base, timeoutMs: 5000})
    expect(await c.query('bad')).toEqual({status: 'error', errorType: 'bad_data', error: 'parse error'})
    c.close()
  })

  it.each([
    ['redirect', 6, 'it answered 302 (a redirect to http://127.0.0.1:1/elsewhere): redirects are not followed'],
    ['unauthorized', 7, 'answered 401 Unauthorized (--traffic-from): give a bearer token with --traffic-token-file'],
    ['html', 6, 'with a body that is not JSON (Content-Type text/html)'],
    ['huge', 6, 'the answer is larger than 8 MiB'],
    ['boom', 6, 'it answered HTTP 500'],
    ['silent', 6, 'no answer within'],
  ])('%s: exit %i, one line', async (q, code, text) => {
    const c = await openPrometheus({url: base, timeoutMs: q === 'silent' ? 300 : 10_000})
    const f = await fault(c.query(q))
    c.close()
    expect(f.code).toBe(code)
    expect(f.message).toContain(text)
    expect(f.message).not.toContain('\n')
  })

  it('connection refused: exit 6, names the URL', async () => {
    const s = http.createServer()
    const port = (await listen(s)).split(':')[1]
    await new Promise((r) => s.close(r))
    const c = await openPrometheus({url: `http://127.0.0.1:${port}`, timeoutMs: 5000})
    expect(await fault(c.query('x'))).toEqual({
      code: 6,
      message: `cannot query Prometheus at http://127.0.0.1:${port} (--traffic-from): connection refused: is Prometheus running there? (check --traffic-from)`,
    })
    c.close()
  })

  it('https: an untrusted certificate is refused unless --traffic-ca-file names its CA or --traffic-insecure-skip-tls-verify is given', async () => {
    const untrusted = await openPrometheus({url: tlsBase, timeoutMs: 5000})
    const f = await fault(untrusted.query('x'))
    untrusted.close()
    expect(f.code).toBe(6)
    expect(f.message).toMatch(/its TLS certificate is not trusted \(.+\): give the CA that signed its certificate with --traffic-ca-file/)
    const withCa = await openPrometheus({url: tlsBase, caFile: path.join(TLS, 'localhost.crt'), timeoutMs: 5000})
    expect(await withCa.query('x')).toEqual(JSON.parse(VECTOR))
    withCa.close()
    const insecure = await openPrometheus({url: tlsBase, insecureSkipTLSVerify: true, timeoutMs: 5000})
    expect(await insecure.query('x')).toEqual(JSON.parse(VECTOR))
    insecure.close()
  })

  it('bad options: before any request, exit 2 or 3', async () => {
    expect(await fault(openPrometheus({url: base, tokenFile: path.join(dir, 'missing'), timeoutMs: 1}))).toEqual({
      code: 3,
      message: `--traffic-token-file: cannot read ${path.join(dir, 'missing')}: no such file`,
    })
    const twoLines = path.join(dir, 'two')
    fs.writeFileSync(twoLines, 'a\nb\n')
    expect(await fault(openPrometheus({url: base, tokenFile: twoLines, timeoutMs: 1}))).toMatchObject({code: 2, message: expect.stringContaining('holds a line break')})
    expect(await fault(openPrometheus({url: base, caFile: path.join(TLS, 'localhost.crt'), timeoutMs: 1}))).toMatchObject({
      code: 2,
      message: expect.stringContaining('are for https'),
    })
    expect(() => checkPrometheusUrl('ftp://127.0.0.1')).toThrow('unsupported scheme "ftp"')
    expect(() => checkPrometheusUrl('http://u:p@127.0.0.1:9090')).toThrow('the URL holds a user or password')
    expect(() => checkPrometheusUrl('http://127.0.0.1:9090/api/v1/query?query=x')).toThrow('give the base URL only')
    expect(() => checkPrometheusUrl('127.0.0.1:9090')).toThrow(/unsupported scheme|is not a URL/)
  })
})
