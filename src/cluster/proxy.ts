// Clusters behind a kubeconfig `proxy-url`, reached the way kubectl (client-go) reaches them:
// http:// and https:// proxies tunnel with CONNECT to an https:// API server and forward plain
// requests (absolute-form) to an http:// one; socks5:// proxies tunnel both (user and password
// from the URL, the API server's name resolved by the proxy). Any other scheme is refused when the
// kubeconfig is loaded, with kubectl's words.
//
// One undici Agent per request, as for direct clusters (http.ts), whose connector is ours: it
// opens the connection to the proxy (TLS for https://), does the CONNECT or SOCKS5 handshake and
// the TLS handshake with the API server, under one deadline (--request-timeout) and with every
// socket it opened known, so that an aborted request ends them at once (`cancel`) and nothing
// keeps the process alive after --request-timeout. (undici's ProxyAgent lets the in-flight
// handshakes run to their own timeouts, refuses an https:// proxy given by IP address, and
// reports a proxy's 407 as an abort; its Socks5ProxyAgent is experimental and says so on stderr.)
// SOCKS5 is the `socks` package, which client-node uses too.
//
// Credentials in proxy-url never reach a message: errors name the proxy by redactServer().

import type {Socket} from 'node:net'
import type {ConnectionOptions, TLSSocket} from 'node:tls'
import {CliError, ExitCode} from '../errors.js'

type K8s = typeof import('./k8s.js')
type Agent = InstanceType<K8s['UndiciAgent']>
type Connect = NonNullable<ConstructorParameters<K8s['UndiciAgent']>[0]>['connect']
type Connector = Extract<Connect, (...args: never[]) => unknown>
type ConnectOptions = Parameters<Connector>[0]
type Callback = Parameters<Connector>[1]
type Dispatch = Parameters<Agent['dispatch']>
type DispatchHandler = Dispatch[1]

/** The schemes kubectl accepts in proxy-url (client-go's clientcmd). */
const SCHEMES = ['http', 'https', 'socks5']

/** When --request-timeout is 0 (none): how long opening a proxied connection may take (Go's dial timeout). */
const CONNECT_DEFAULT_MS = 30_000

/** The error codes of this module's errors (src/cluster/errors.ts words them). */
export const PROXY_ERR = {
  /** The proxy answered CONNECT with another status than 200 (statusCode, statusText). */
  CONNECT: 'ERR_PROXY_CONNECT',
  /** The SOCKS5 handshake failed: the message is the socks package's. */
  SOCKS: 'ERR_PROXY_SOCKS5',
  /** The connection through the proxy was not open after the deadline. */
  TIMEOUT: 'ERR_PROXY_CONNECT_TIMEOUT',
} as const

/** Marks an error of the connection to the proxy itself (not of what lies behind it). */
export const AT_PROXY = Symbol.for('kubectl-topology.proxy-leg')

/**
 * Checks a cluster's proxy-url as kubectl does (http, https or socks5) and returns it parsed.
 * where: 'cluster "c" in FILE'. Throws a KUBECONFIG error naming the URL without credentials.
 */
export function checkProxyUrl(value: unknown, clusterName: string, file: string): URL {
  const shown = typeof value === 'string' ? value.replace(/\/\/[^/@]*@/, '//') : String(value)
  const bad = (why: string) => new CliError(`invalid proxy-url "${shown}" for cluster "${clusterName}" in ${file}: ${why}`, ExitCode.KUBECONFIG)
  if (typeof value !== 'string') throw bad('not a string')
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw bad('not a URL')
  }
  const scheme = url.protocol.slice(0, -1)
  if (!SCHEMES.includes(scheme)) throw bad(`unsupported scheme "${scheme}", must be http, https, or socks5`)
  if (url.hostname === '') throw bad('no host')
  try {
    decodeURIComponent(url.username)
    decodeURIComponent(url.password)
  } catch {
    throw bad('invalid %-escape in the user or password')
  }
  return url
}

/** TLS options of the connection to the API server (client-node's createDispatcherOptions). */
export type RequestTls = Pick<ConnectionOptions, 'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'rejectUnauthorized' | 'servername'>

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, '$1')

function fail(code: string, message: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), {code, ...extra})
}

/** A cluster's proxy: its checked proxy-url, and whether its certificate goes unchecked (insecure-skip-tls-verify). */
export interface ProxySetting {
  url: URL
  insecure: boolean
}

/**
 * A dispatcher for one request to a cluster behind `proxy`, and `cancel`, which destroys every
 * socket it opened (the request was aborted: call it with the dispatcher's destroy()).
 * timeoutMs: --request-timeout (0: none).
 */
export function proxyDispatcher(k8s: K8s, {url: proxy, insecure}: ProxySetting, tls: RequestTls, timeoutMs: number): {dispatcher: Agent; cancel: () => void} {
  const live = new Set<Socket>()
  const keep = <S extends Socket>(s: S): S => {
    live.add(s)
    s.once('close', () => live.delete(s))
    return s
  }
  const socks = proxy.protocol === 'socks5:'
  // The SOCKS client loads once, when a socks5:// proxy is first used (k8s.ts loadSocks).
  let socksClient: Awaited<ReturnType<K8s['loadSocks']>> | undefined
  const socksReady = socks
    ? k8s.loadSocks().then((c) => {
        socksClient = c
      })
    : undefined
  socksReady?.catch(() => {}) // a failed load fails each attempt below
  const proxyHost = unbracket(proxy.hostname)
  const proxyPort = Number(proxy.port) || (socks ? 1080 : proxy.protocol === 'https:' ? 443 : 80)
  const user = decodeURIComponent(proxy.username)
  const password = decodeURIComponent(proxy.password)
  const authorization = proxy.username || proxy.password ? `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` : undefined
  const limit = timeoutMs > 0 ? timeoutMs : CONNECT_DEFAULT_MS
  // An https:// proxy is checked as kubectl checks it (with the cluster's TLS settings: its
  // certificate authority, insecure-skip-tls-verify), and against the system's roots as well.
  const proxyTls: ConnectionOptions = {
    ...(tls.ca === undefined ? {} : {ca: [...k8s.getCACertificates('default'), ...[tls.ca].flat()]}),
    ...(insecure ? {rejectUnauthorized: false} : {}),
    ...(k8s.isIP(proxyHost) ? {} : {servername: proxyHost}),
  }

  const connect: Connector = (opts: ConnectOptions, callback: Callback) => {
    const targetHost = unbracket(opts.hostname)
    const https = opts.protocol === 'https:'
    const targetPort = Number(opts.port) || (https ? 443 : 80)
    const mine: Socket[] = []
    let done = false
    let timer: NodeJS.Timeout | undefined
    const finish = (err: Error | null, socket?: Socket) => {
      if (done) return
      done = true
      clearTimeout(timer)
      if (err || !socket) {
        for (const s of mine) s.destroy()
        callback(err ?? new Error('no socket'), null)
      } else callback(null, socket)
    }
    /** A socket of this attempt: kept for cancel(); closed before the end, it fails the attempt. */
    const own = <S extends Socket>(s: S): S => {
      mine.push(keep(s))
      s.once('close', () => finish(fail('ECONNRESET', 'the connection through the proxy closed before it was open')))
      return s
    }
    /** Runs a step; what it throws (a TLS option Node refuses, say) fails the attempt. */
    const step =
      <A extends unknown[]>(f: (...a: A) => void) =>
      (...a: A) => {
        try {
          f(...a)
        } catch (e) {
          finish(e instanceof Error ? e : new Error(String(e)))
        }
      }
    timer = setTimeout(() => finish(fail(PROXY_ERR.TIMEOUT, `no connection through the proxy after ${limit} ms`)), limit)
    timer.unref()
    const atProxy = (e: Error) => finish(Object.assign(e, {[AT_PROXY]: true}))

    // 3. TLS with the API server, through the tunnel.
    const toServer = step((socket: Socket) => {
      if (!https) return finish(null, socket)
      socket.on('error', () => {}) // the TLS socket below reports the errors of the connection
      const servername = tls.servername || (k8s.isIP(targetHost) ? undefined : targetHost)
      // host: the name the certificate is checked against when there is no servername (an IP
      // sends no SNI); over a given socket, Node would otherwise check it against "localhost".
      const t: TLSSocket = own(k8s.tlsConnect({...tls, socket, host: targetHost, ALPNProtocols: ['http/1.1'], ...(servername ? {servername} : {})}))
      t.once('error', finish)
      t.once('secureConnect', () => {
        t.removeListener('error', finish)
        finish(null, t)
      })
    })
    // 2. The proxy's handshake.
    const handshake = step((socket: Socket) => {
      if (socks) {
        const viaSocks = step(() =>
          socksClient!.createConnection(
            {
              proxy: {host: proxyHost, port: proxyPort, type: 5, ...(user ? {userId: user} : {}), ...(password ? {password} : {})},
              command: 'connect',
              destination: {host: targetHost, port: targetPort},
              existing_socket: socket,
              timeout: limit,
            },
            (err, info) => {
              if (err || !info) finish(fail(PROXY_ERR.SOCKS, err?.message ?? 'no connection'))
              else toServer(info.socket as Socket)
            },
          ),
        )
        if (socksClient !== undefined) viaSocks()
        else
          socksReady!.then(
            () => {
              if (!done) viaSocks()
            },
            (e: unknown) => finish(e instanceof Error ? e : new Error(String(e))),
          )
        return
      }
      // An http:// API server behind an http(s) proxy: requests are forwarded (forwardRequests).
      if (!https) return finish(null, socket)
      const authority = `${opts.hostname}:${targetPort}`
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${authorization ? `Proxy-Authorization: ${authorization}\r\n` : ''}\r\n`)
      let head = Buffer.alloc(0)
      const onData = step((chunk: Buffer) => {
        head = Buffer.concat([head, chunk])
        const end = head.indexOf('\r\n\r\n')
        if (end < 0) {
          if (head.length > 64 * 1024) finish(fail(PROXY_ERR.CONNECT, 'the proxy answered CONNECT with more than 64 KiB of headers'))
          return
        }
        socket.removeListener('data', onData)
        socket.removeListener('error', finish)
        const m = /^HTTP\/\d(?:\.\d)? (\d{3}) ?([^\r\n]*)/.exec(head.subarray(0, end).toString('latin1'))
        const status = m ? Number(m[1]) : 0
        if (status !== 200) {
          const answer = m ? `${m[1]} ${m[2]}`.trim() : 'something else than HTTP'
          finish(fail(PROXY_ERR.CONNECT, `the proxy answered CONNECT with ${answer}`, {statusCode: status, statusText: m?.[2] ?? ''}))
          return
        }
        socket.pause()
        const rest = head.subarray(end + 4)
        if (rest.length > 0) socket.unshift(rest)
        toServer(socket)
      })
      socket.on('data', onData)
      socket.once('error', finish)
    })
    // 1. The connection to the proxy.
    step(() => {
      if (proxy.protocol === 'https:') {
        const s: TLSSocket = own(k8s.tlsConnect({host: proxyHost, port: proxyPort, ...proxyTls, ALPNProtocols: ['http/1.1']}))
        s.once('error', atProxy)
        s.once('secureConnect', () => {
          s.removeListener('error', atProxy)
          handshake(s)
        })
      } else {
        const s = own(k8s.netConnect({host: proxyHost, port: proxyPort}))
        s.setKeepAlive(true, 30_000)
        s.once('error', atProxy)
        s.once('connect', () => {
          s.removeListener('error', atProxy)
          handshake(s)
        })
      }
    })()
  }

  const agent = new k8s.UndiciAgent({connect})
  const cancel = () => {
    for (const s of live) s.destroy()
  }
  if (socks) return {dispatcher: agent, cancel}
  return {dispatcher: forwardRequests(agent, authorization), cancel}
}

/**
 * Requests to an http:// API server through an http(s) proxy go to the proxy as they are, with
 * the full URL as the request target (RFC 9112 absolute-form) and the proxy's credentials, as Go
 * sends them; the connector above connects such requests to the proxy without CONNECT.
 */
function forwardRequests(agent: Agent, authorization: string | undefined): Agent {
  return agent.compose((dispatch) => (opts, handler: DispatchHandler) => {
    const origin = opts.origin === undefined ? undefined : new URL(String(opts.origin))
    if (origin?.protocol !== 'http:') return dispatch(opts, handler)
    const headers: Record<string, unknown> = {}
    const given = opts.headers as Record<string, unknown> | string[] | null | undefined
    if (Array.isArray(given)) for (let i = 0; i + 1 < given.length; i += 2) headers[given[i]!] = given[i + 1]
    else Object.assign(headers, given)
    if (authorization) headers['proxy-authorization'] = authorization
    return dispatch({...opts, path: `${origin.origin}${opts.path}`, headers: headers as Record<string, string>}, handler)
  }) as unknown as Agent
}
