// Turning whatever client-node (or undici underneath it) throws into a one-line CliError
// that reads like kubectl's. Never include credentials: messages are built from the
// redacted server URL, the Status body's message and error codes, and scrubbed anyway.

import {CliError, ExitCode, type ExitCodeValue} from '../errors.js'
import {formatDuration} from './duration.js'
import {AT_PROXY, PROXY_ERR} from './proxy.js'

/** The parts of a KubeContext the messages use. */
export interface ErrorContext {
  server?: string
  /** The cluster's proxy-url without credentials (kubeconfig.ts), if it has one. */
  proxy?: string
  contextName?: string
  requestTimeoutMs?: number
  execCommand?: string
}

interface StatusBody {
  kind?: string
  message?: string
  reason?: string
  code?: number
  details?: {name?: string; group?: string; kind?: string}
}

type Errno = Error & {code?: unknown; cause?: unknown; syscall?: string; path?: string; hostname?: string}

const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_CRL',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'ERR_TLS_CERT_ALTNAME_INVALID',
])

/** At most this many characters of one text from a server or a plugin are shown in a message. */
export const MAX_SHOWN = 1024
/** At most this many characters in a whole message (our words around up to a few such texts). */
const MAX_MESSAGE = 4 * MAX_SHOWN

/**
 * The text cut to `max` characters, "... (N bytes more)" telling what was left out (N: UTF-8
 * bytes). Linear, and what every message built from server or plugin text goes through first:
 * per-character work (scrubbing, escaping) then runs on a bounded string whatever was received.
 */
export function clip(text: string, max = MAX_SHOWN): string {
  if (text.length <= max) return text
  // Never split a surrogate pair.
  const end = text.charCodeAt(max - 1) >= 0xd800 && text.charCodeAt(max - 1) <= 0xdbff ? max - 1 : max
  return `${text.slice(0, end)}... (${Buffer.byteLength(text) - Buffer.byteLength(text.slice(0, end))} bytes more)`
}

/**
 * Removes anything that looks like a credential from a message and makes it one line, cut to
 * `max` characters. Only a window of twice that is scrubbed (so a credential that crosses the
 * cut is still recognised), and no pattern backtracks over a long run: each quantifier is
 * followed by something it cannot match (a 100 KB one-line body took 16 s before).
 */
export function scrub(message: string, max = MAX_MESSAGE): string {
  const window = message.length > 2 * max ? message.slice(0, 2 * max) : message
  const clean = window
    .replace(/(authorization:?[ \t]*)(bearer|basic)\s+\S+/gi, '$1$2 <redacted>')
    .replace(/\bbearer\s+[A-Za-z0-9._~+/=-]{8,}/gi, 'Bearer <redacted>')
    .replace(/\b(token|password|client-key-data|access[_-]token|id[_-]token)(["']?[ \t]*[:=][ \t]*["']?)[^\s"',;&}]+/gi, '$1$2<redacted>')
    .replace(/(?<![\w+.-])([a-z][\w+.-]*:\/\/)[^/@\s:]+:[^/@\s]+@/gi, '$1')
    .replace(/\s+/g, (ws) => (ws.includes('\n') || ws.includes('\r') ? ' ' : ws))
    .trim()
  const cut = clip(clean, max)
  const more = Buffer.byteLength(message) - Buffer.byteLength(window)
  if (more === 0) return cut
  // The window was cut already: count what lies beyond it too.
  const m = /\.\.\. \((\d+) bytes more\)$/.exec(cut)
  return m ? cut.replace(/\(\d+ bytes more\)$/, `(${Number(m[1]) + more} bytes more)`) : `${cut}... (${more} bytes more)`
}

/** The first line that is not blank, shown(); linear (one pass over the lines before it). */
function firstLine(text: string): string | undefined {
  let start = 0
  while (start < text.length) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = text.length
    const line = text.slice(start, end)
    if (line.trim() !== '') return shown(line)
    start = end + 1
  }
  return undefined
}

/** One text from the server or a plugin, as a message shows it: scrubbed, one line, at most MAX_SHOWN characters. */
const shown = (text: string): string => scrub(text, MAX_SHOWN)

function parseStatus(body: unknown): StatusBody | undefined {
  let b = body
  if (typeof b === 'string') {
    try {
      b = JSON.parse(b)
    } catch {
      const t = (b as string).trim()
      return t ? {message: t} : undefined
    }
  }
  return typeof b === 'object' && b !== null ? (b as StatusBody) : undefined
}

/** Walks err.cause chains (undici nests the socket error one or two levels down). */
function causes(err: unknown): Errno[] {
  const out: Errno[] = []
  let cur: unknown = err
  for (let i = 0; i < 6 && cur && typeof cur === 'object'; i++) {
    out.push(cur as Errno)
    cur = (cur as Errno).cause
  }
  // AggregateError (happy eyeballs: IPv4 and IPv6 both refused)
  for (const e of [...out]) {
    const errors = (e as unknown as {errors?: unknown[]}).errors
    if (Array.isArray(errors)) for (const x of errors) if (x && typeof x === 'object') out.push(x as Errno)
  }
  return out
}

function isApiException(err: unknown): err is {code: number; body: unknown; message: string} {
  return (
    typeof err === 'object' &&
    err !== null &&
    // Duck-typed: a bundler may rename the class, and this module must not load client-node.
    typeof (err as {code?: unknown}).code === 'number' &&
    'body' in err &&
    'headers' in err
  )
}

/** The HTTP status of an API error (client-node ApiException), else undefined. */
export function apiStatusCode(err: unknown): number | undefined {
  return isApiException(err) ? err.code : undefined
}

function hostOf(server: string | undefined): string {
  if (!server) return 'the API server'
  try {
    return new URL(server).hostname
  } catch {
    return server
  }
}

const fail = (msg: string, code: ExitCodeValue, cause: unknown) => new CliError(scrub(msg), code, {cause})

/**
 * Converts an error from a client-node call into a CliError.
 * @param what what was being done, e.g. 'list endpointslices in namespace "shop"'
 */
export function toCliError(err: unknown, what: string, ctx: ErrorContext = {}): CliError {
  if (err instanceof CliError) return err
  const server = ctx.server ?? 'the API server'
  const contextName = ctx.contextName

  const proxy = ctx.proxy ? `the proxy ${ctx.proxy} (proxy-url)` : undefined
  const proxyAuth = () =>
    fail(`Unable to connect to the server ${server}: ${proxy} answered 407 Proxy Authentication Required: check the user and password in proxy-url`, ExitCode.UNREACHABLE, err)

  // A forwarded request (http:// server, http(s) proxy) that the proxy refused: no API server answers 407.
  if (proxy && apiStatusCode(err) === 407) return proxyAuth()

  if (isApiException(err)) {
    const status = parseStatus(err.body)
    const msg = status?.message === undefined ? undefined : shown(String(status.message))
    const reason = status?.reason ? shown(String(status.reason)) : undefined
    if (err.code >= 300 && err.code < 400) {
      const headers = (err as {headers?: Record<string, unknown>}).headers ?? {}
      const location = typeof headers.location === 'string' ? ` to ${shown(headers.location)}` : ''
      return fail(
        `the API server ${server} answered ${err.code} (a redirect${location}) to ${what}: redirects are not followed; set the kubeconfig's server to the API server's own address`,
        ExitCode.UNREACHABLE,
        err,
      )
    }
    switch (err.code) {
      case 401:
        return fail(
          `Unauthorized: the server rejected the credentials of context "${contextName ?? '?'}" (${what}): log in again or choose another --context`,
          ExitCode.FORBIDDEN,
          err,
        )
      case 403:
        return fail(`Error from server (Forbidden): ${msg || `cannot ${what}`}`, ExitCode.FORBIDDEN, err)
      case 404:
        return fail(`Error from server (NotFound): ${msg || `${what}: not found`}`, ExitCode.NOT_FOUND, err)
      case 400:
      case 422:
        return fail(`Error from server (${reason ?? 'BadRequest'}): ${msg || what}`, ExitCode.USAGE, err)
      case 409:
        return fail(`Error from server (${reason ?? 'Conflict'}): ${msg || what}`, ExitCode.WRITE_FAILED, err)
      default: {
        const text = `Error from server (${reason ?? `HTTP ${err.code}`}): ${msg || `${what} failed`}`
        const code = err.code >= 500 || err.code === 429 || err.code === 410 ? ExitCode.UNREACHABLE : ExitCode.INTERNAL
        return fail(text, code, err)
      }
    }
  }

  const chain = causes(err)
  const codes = chain.map((e) => (typeof e.code === 'string' ? e.code : undefined)).filter((c) => c !== undefined)
  const has = (...cs: string[]) => cs.find((c) => codes.includes(c))
  let c: string | undefined

  // The proxy's own answers (proxy.ts): before the timeout check, as none of them is a timeout.
  if (proxy) {
    const connect = chain.find((e) => e.code === PROXY_ERR.CONNECT) as (Errno & {statusCode?: number; statusText?: string}) | undefined
    if (connect?.statusCode === 407) return proxyAuth()
    if (connect) {
      const answer = connect.statusCode ? `answered ${connect.statusCode}${connect.statusText ? ` ${connect.statusText}` : ''} to CONNECT` : 'did not answer CONNECT with HTTP'
      return fail(`Unable to connect to the server ${server}: ${proxy} ${answer}`, ExitCode.UNREACHABLE, err)
    }
    const socks = chain.find((e) => e.code === PROXY_ERR.SOCKS)
    if (socks) return fail(`Unable to connect to the server ${server} through ${proxy}: ${shown(socks.message)}`, ExitCode.UNREACHABLE, err)
  }

  const through = proxy ? ` through ${proxy}` : ''
  if (chain.some((e) => e.name === 'TimeoutError' || e.name === 'AbortError')) {
    const after = ctx.requestTimeoutMs ? ` after ${formatDuration(ctx.requestTimeoutMs)}` : ''
    return fail(`request to ${server}${through} timed out${after} (--request-timeout) while trying to ${what}`, ExitCode.UNREACHABLE, err)
  }
  // Socket and TLS failures: of the connection to the proxy, or of the one through it.
  const atProxy = proxy !== undefined && chain.some((e) => (e as unknown as Record<symbol, unknown>)[AT_PROXY] === true)
  const unable = atProxy ? `Unable to connect to ${proxy}` : `Unable to connect to the server ${server}${through}`

  // Exec credential plugin that cannot be started.
  const spawn = chain.find((e) => typeof e.syscall === 'string' && e.syscall.startsWith('spawn'))
  if (spawn) {
    const cmd = spawn.path ?? ctx.execCommand ?? 'the credential plugin'
    const why = spawn.code === 'ENOENT' ? 'executable not found' : String(spawn.code ?? spawn.message)
    return fail(`getting credentials for context "${contextName ?? '?'}": exec: ${cmd}: ${why}: install it or fix users[].user.exec in the kubeconfig`, ExitCode.KUBECONFIG, err)
  }

  if (has('ECONNREFUSED')) {
    if (atProxy) return fail(`The connection to ${proxy} was refused - is the proxy running, and is proxy-url right?`, ExitCode.UNREACHABLE, err)
    return fail(`The connection to the server ${server}${through} was refused - did you specify the right host or port?`, ExitCode.UNREACHABLE, err)
  }
  if ((c = has('ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME'))) {
    return fail(`${unable}: no such host "${hostOf(atProxy ? ctx.proxy : ctx.server)}" (${c})`, ExitCode.UNREACHABLE, err)
  }
  if ((c = has('ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ECONNABORTED', 'UND_ERR_CLOSED'))) {
    return fail(`${unable}: connection reset by peer (${c})`, ExitCode.UNREACHABLE, err)
  }
  if ((c = has('EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', PROXY_ERR.TIMEOUT, 'EADDRNOTAVAIL'))) {
    const why = c === 'EHOSTUNREACH' || c === 'ENETUNREACH' || c === 'EADDRNOTAVAIL' ? 'host unreachable' : 'connection timed out'
    return fail(`${unable}: ${why} (${c})`, ExitCode.UNREACHABLE, err)
  }
  if ((c = codes.find((x) => CERT_CODES.has(x)))) {
    const certErr = chain.find((e) => e.code === c)
    const check = atProxy
      ? `check the proxy's certificate (it must be signed by the system's roots or by certificate-authority(-data) of cluster in the kubeconfig)`
      : 'check certificate-authority(-data) of cluster in the kubeconfig'
    return fail(`${unable}: tls: certificate verification failed (${c}: ${shown(certErr?.message ?? '')}): ${check}`, ExitCode.UNREACHABLE, err)
  }
  if ((c = codes.find((x) => x === 'EPROTO' || x.startsWith('ERR_SSL') || x.startsWith('ERR_TLS')))) {
    const url = atProxy ? ctx.proxy : server
    return fail(`${unable}: TLS handshake failed (${c}): is ${url} the right URL (http vs https)?`, ExitCode.UNREACHABLE, err)
  }
  if (chain.some((e) => e instanceof TypeError && e.message === 'fetch failed')) {
    const inner = chain[chain.length - 1]
    return fail(`${unable}: ${shown(inner?.message ?? 'fetch failed')}${codes[0] ? ` (${codes[0]})` : ''}`, ExitCode.UNREACHABLE, err)
  }
  // An answer that is not the API's JSON (cut short, HTML, a gzip body no one asked for, a
  // media type client-node does not read): the server's fault, not ours.
  const bad = chain.find((e) => e instanceof SyntaxError || (e instanceof Error && /ObjectSerializer|mediaType|Content-Type/i.test(e.message)))
  if (bad) {
    return fail(
      `the answer of ${server}${through} to ${what} is not Kubernetes API JSON (${shown(bad.message)}): check that the kubeconfig's server is the API server, not a proxy or a login page`,
      ExitCode.UNREACHABLE,
      err,
    )
  }
  // An exec credential plugin that ran and failed: client-node rejects with its stderr.
  if (ctx.execCommand && err instanceof Error && err.constructor === Error) {
    const first = firstLine(err.message) ?? 'no output'
    return fail(`getting credentials for context "${contextName ?? '?'}": exec plugin "${ctx.execCommand}" failed: ${first}`, ExitCode.KUBECONFIG, err)
  }
  const text = shown(err instanceof Error ? err.message : String(err))
  return fail(`cannot ${what}: ${text}`, ExitCode.INTERNAL, err)
}
