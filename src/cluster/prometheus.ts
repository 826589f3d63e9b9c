// The measured traffic's source (--traffic-from): instant queries to a Prometheus HTTP API
// (/api/v1/query), with the API client's rules (http.ts, errors.ts): undici's request() on one
// Agent (any port), TLS verified against the system's CAs or --traffic-ca-file (never skipped
// unless --traffic-insecure-skip-tls-verify is given), a bearer token from --traffic-token-file
// or --traffic-token, --request-timeout for each query (connect included), the answer capped at
// MAX_ANSWER bytes, redirects refused, and one line with a documented exit code per fault
// (docs/exit-codes.md). What the answer means is explain/measured.ts's (pure).
import {readFileSync} from 'node:fs'
import {CliError, ExitCode} from '../errors.js'
import {clip, scrub} from './errors.js'
import {formatDuration} from './duration.js'

/** The largest answer read: one series per zone pair is a few hundred bytes; 8 MiB is thousands of times that. */
const MAX_ANSWER = 8 << 20

export interface PrometheusOptions {
  /** The base URL, e.g. http://127.0.0.1:9090 or https://prom.example/prometheus (a path prefix is kept). */
  url: string
  caFile?: string | undefined
  insecureSkipTLSVerify?: boolean
  token?: string | undefined
  tokenFile?: string | undefined
  /** Per query, connect included (0: none). */
  timeoutMs: number
}

export interface PrometheusClient {
  /** The URL as shown in messages (without credentials). */
  readonly shown: string
  /** An instant query: the answer's JSON (any status; a 4xx with a Prometheus error body included). */
  query(promql: string): Promise<unknown>
  close(): void
}

/** The base URL checked (http or https, no credentials in it, no query or fragment), or a usage error. */
export function checkPrometheusUrl(raw: string): URL {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new CliError(`--traffic-from: "${clip(raw, 200)}" is not a URL: give the Prometheus base URL, e.g. http://127.0.0.1:9090`, ExitCode.USAGE)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new CliError(`--traffic-from: unsupported scheme "${u.protocol.slice(0, -1)}" in ${scrub(raw, 200)}: use http or https`, ExitCode.USAGE)
  }
  if (u.username !== '' || u.password !== '') {
    throw new CliError(
      '--traffic-from: the URL holds a user or password: give a bearer token with --traffic-token-file instead (a URL is shown in messages and process lists)',
      ExitCode.USAGE,
    )
  }
  if (u.search !== '' || u.hash !== '')
    throw new CliError(`--traffic-from: ${u.origin}${u.pathname} with a query or fragment: give the base URL only (the tool adds /api/v1/query)`, ExitCode.USAGE)
  return u
}

function readSmallFile(path: string, flag: string): Buffer {
  try {
    const b = readFileSync(path)
    if (b.length > 1 << 20) throw new CliError(`${flag}: ${path} is larger than 1 MiB: not a certificate or token file`, ExitCode.INPUT)
    return b
  } catch (e) {
    if (e instanceof CliError) throw e
    const code = (e as {code?: string}).code ?? ''
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message
    throw new CliError(`${flag}: cannot read ${path}: ${why}`, ExitCode.INPUT)
  }
}

/** The token: --traffic-token-file's first line, or --traffic-token; one line without control characters. */
function tokenOf(o: PrometheusOptions): string | undefined {
  if (o.token !== undefined && o.tokenFile !== undefined) throw new CliError('--traffic-token and --traffic-token-file: give one of them', ExitCode.USAGE)
  const raw =
    o.tokenFile !== undefined
      ? readSmallFile(o.tokenFile, '--traffic-token-file')
          .toString('utf8')
          .replace(/\r?\n$/, '')
      : o.token
  if (raw === undefined) return undefined
  const flag = o.tokenFile !== undefined ? `--traffic-token-file ${o.tokenFile}` : '--traffic-token'
  if (raw === '') throw new CliError(`${flag}: the token is empty`, ExitCode.USAGE)
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new CliError(`${flag}: the token holds a line break or another control character: a bearer token is one line`, ExitCode.USAGE)
  return raw
}

/** A client for one Prometheus. Reads the CA and token files now (usage and input faults before any query). */
export async function openPrometheus(o: PrometheusOptions): Promise<PrometheusClient> {
  const base = checkPrometheusUrl(o.url)
  const shown = `${base.origin}${base.pathname.replace(/\/$/, '')}`
  const token = tokenOf(o)
  const ca = o.caFile !== undefined ? readSmallFile(o.caFile, '--traffic-ca-file') : undefined
  if (ca !== undefined && o.insecureSkipTLSVerify) throw new CliError('--traffic-ca-file and --traffic-insecure-skip-tls-verify: give one of them', ExitCode.USAGE)
  if (base.protocol === 'http:' && (ca !== undefined || o.insecureSkipTLSVerify)) {
    throw new CliError(`--traffic-from ${shown} is http: --traffic-ca-file and --traffic-insecure-skip-tls-verify are for https`, ExitCode.USAGE)
  }
  const k8s = await import('./k8s.js')
  const connect = {
    ...(ca !== undefined ? {ca} : {}),
    ...(o.insecureSkipTLSVerify ? {rejectUnauthorized: false} : {}),
    ...(o.timeoutMs > 0 ? {timeout: o.timeoutMs} : {}),
  }
  const agent = new k8s.UndiciAgent({connect})
  const endpoint = new URL(`${base.pathname.replace(/\/$/, '')}/api/v1/query`, base)
  const after = o.timeoutMs > 0 ? ` within ${formatDuration(o.timeoutMs)} (--request-timeout)` : ''
  const unreachable = (why: string) => new CliError(`cannot query Prometheus at ${shown} (--traffic-from): ${why}`, ExitCode.UNREACHABLE)

  return {
    shown,
    close: () => {
      agent.destroy().catch(() => {})
    },
    async query(promql) {
      const signal = o.timeoutMs > 0 ? AbortSignal.timeout(o.timeoutMs) : undefined
      let res: Awaited<ReturnType<typeof k8s.undiciRequest>>
      try {
        res = await k8s.undiciRequest(endpoint, {
          method: 'POST',
          headers: {
            accept: 'application/json',
            'content-type': 'application/x-www-form-urlencoded',
            ...(token !== undefined ? {authorization: `Bearer ${token}`} : {}),
          },
          body: new URLSearchParams({query: promql}).toString(),
          dispatcher: agent,
          ...(signal ? {signal} : {}),
        })
      } catch (e) {
        throw connectFault(e, after, unreachable)
      }
      const status = res.statusCode
      // A body not read: ended, and its error (the destroy's own) swallowed, never an unhandled 'error'.
      const discard = () => {
        res.body.on('error', () => {})
        res.body.destroy()
      }
      if (status >= 300 && status < 400) {
        discard()
        const loc = res.headers.location
        const to = typeof loc === 'string' ? ` to ${scrub(loc, 200)}` : ''
        throw unreachable(`it answered ${status} (a redirect${to}): redirects are not followed; give the URL the redirect names`)
      }
      if (status === 401 || status === 403) {
        discard()
        throw new CliError(
          `Prometheus at ${shown} answered ${status} ${status === 401 ? 'Unauthorized' : 'Forbidden'} (--traffic-from): ${token === undefined ? 'give a bearer token with --traffic-token-file' : 'check the token (--traffic-token-file or --traffic-token)'}`,
          ExitCode.FORBIDDEN,
        )
      }
      let text: string
      try {
        text = await readCapped(res.body, MAX_ANSWER)
      } catch (e) {
        if ((e as Error).message === 'too large') throw unreachable(`the answer is larger than ${MAX_ANSWER >> 20} MiB: narrow the query (one series per zone pair)`)
        throw connectFault(e, after, unreachable)
      }
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        if (status < 200 || status >= 300) throw unreachable(`it answered HTTP ${status}${text.trim() === '' ? '' : `: ${scrub(clip(text.trim()), 300)}`}`)
        const type = String(res.headers['content-type'] ?? 'none')
        throw unreachable(`it answered ${status} with a body that is not JSON (Content-Type ${clip(type, 100)}): is ${shown} a Prometheus (the URL without /api/v1/query)?`)
      }
      // Prometheus answers a bad query with 400 or 422 and its error JSON: the caller words it.
      if (status >= 200 && status < 300) return body
      if ((status === 400 || status === 422 || status === 503) && typeof body === 'object' && body !== null && (body as {status?: unknown}).status === 'error') return body
      throw unreachable(`it answered HTTP ${status}`)
    },
  }
}

async function readCapped(body: AsyncIterable<Buffer | string> & {destroy(): void}, max: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const c of body) {
    const b = typeof c === 'string' ? Buffer.from(c) : c
    size += b.length
    if (size > max) {
      ;(body as unknown as {on(e: string, f: () => void): void}).on('error', () => {})
      body.destroy()
      throw new Error('too large')
    }
    chunks.push(b)
  }
  return Buffer.concat(chunks).toString('utf8')
}

const TLS_HINT = 'give the CA that signed its certificate with --traffic-ca-file (or, knowing the risk, --traffic-insecure-skip-tls-verify)'

function connectFault(e: unknown, after: string, unreachable: (why: string) => CliError): CliError {
  if (e instanceof CliError) return e
  const chain: {code?: unknown; name?: unknown; message?: unknown}[] = []
  for (let x: unknown = e; x && typeof x === 'object' && chain.length < 8; x = (x as {cause?: unknown}).cause) chain.push(x as never)
  const codes = chain.map((x) => (typeof x.code === 'string' ? x.code : '')).filter((c) => c !== '')
  if (chain.some((x) => x.name === 'TimeoutError' || x.name === 'AbortError') || codes.includes('UND_ERR_CONNECT_TIMEOUT')) return unreachable(`no answer${after}`)
  if (codes.includes('ECONNREFUSED')) return unreachable('connection refused: is Prometheus running there? (check --traffic-from)')
  if (codes.includes('ENOTFOUND') || codes.includes('EAI_AGAIN')) return unreachable('the host name does not resolve (check --traffic-from)')
  const tls = codes.find((c) => /CERT|SELF_SIGNED|TLS|SSL|UNABLE_TO_VERIFY|ERR_TLS/.test(c))
  if (tls !== undefined) return unreachable(`its TLS certificate is not trusted (${tls}): ${TLS_HINT}`)
  if (codes.includes('ECONNRESET') || codes.includes('UND_ERR_SOCKET') || codes.includes('EPIPE')) return unreachable('the connection was closed before the answer ended')
  const msg = typeof chain[0]?.message === 'string' ? chain[0].message : String(e)
  return unreachable(scrub(msg, 300))
}
