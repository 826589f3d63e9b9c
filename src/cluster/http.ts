// The transport under client-node: how a request reaches the API server and how it ends.
//
// client-node 2 sends every call through undici's fetch() with a fresh undici Agent per request.
// Two things follow that kubectl does not do, and this module undoes both:
// - fetch() refuses the WHATWG "bad ports" (6000, 6666, 10080, …: "bad port") before it connects;
//   kubectl (Go's net/http) connects to any port. Requests here go through undici's request()
//   (the Dispatcher API, no port list) instead, API calls and watches alike.
// - An aborted request (--request-timeout) rejects at once, but undici keeps connecting in the
//   background until its own connect timeout (10 s), and the open socket keeps the process
//   alive that long. Here the connect is bounded by the request timeout, the request rejects
//   when its signal fires (keep-alive sockets
//   are unreferenced while idle, so they never hold the process).
//
// Clusters behind a proxy-url go through the same request() and the same rules, on a dispatcher
// of proxy.ts (CONNECT, forwarding or SOCKS5) whose connections an abort ends as well.
//
// client-node's fresh Agent per request also means a fresh connection (TCP and TLS handshake)
// per request, and a keep-alive socket left behind by each: paging through a large list opened
// one connection per page. Here one Agent per connection options serves every request of a
// transport (one per context): sequential requests reuse its idle connection, parallel ones get
// their own (an undici Agent's pools have no connection limit, so nothing queues behind a
// connect). A request that times out retires its Agent: new requests get a fresh one, and the
// retired one is destroyed, with every connection it has or is opening, once its last request
// has ended, so a connect still under way does not hold the process. The Agents are destroyed
// when the process has nothing left to do ('beforeExit').

import {createHash} from 'node:crypto'
import {Readable} from 'node:stream'
import type {KubeConfig} from '@kubernetes/client-node'
import {listHead, tapHead} from './page-ahead.js'
import {type ProxySetting, proxyDispatcher} from './proxy.js'

type K8s = typeof import('./k8s.js')
type Dispatcher = InstanceType<K8s['UndiciAgent']>
type AgentOptions = Parameters<KubeConfig['createDispatcherOptions']>[1]
type Cluster = Parameters<KubeConfig['createDispatcherOptions']>[0]

/** client-node's Watch.watch signature: resolves once the request is under way; abort() ends it. */
export type WatchFn = (
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  onEvent: (type: string, obj: any, raw: any) => void,
  done: (err: unknown) => void,
) => Promise<{abort(): void}>

/** The watch inactivity timeout, as client-node's Watch (requestTimeoutMs = 30 s). */
const WATCH_IDLE_MS = 30_000

/**
 * The longest watch event line kept: an event holds one object, and the API server refuses to
 * store one larger than about 3 MiB (its request body limit; etcd's default --max-request-bytes
 * is 1.5 MiB), so 16 MiB is several times any real event. Longer: the stream is ended with an
 * error instead of growing memory without limit.
 */
const MAX_WATCH_LINE = 16 << 20

/**
 * Splits a stream of text into lines without holding more than MAX_WATCH_LINE characters of
 * one line, and without searching the same characters twice (a long line arrives in chunks).
 * Returns the lines complete so far; throws when a line grows past the limit.
 */
export function lineSplitter(max = MAX_WATCH_LINE): (chunk: string) => string[] {
  let parts: string[] = []
  let size = 0
  return (chunk) => {
    const lines: string[] = []
    let start = 0
    for (let nl = chunk.indexOf('\n'); nl >= 0; nl = chunk.indexOf('\n', start)) {
      parts.push(chunk.slice(start, nl))
      size += nl - start
      if (size > max) throw lineTooLong(max)
      lines.push(parts.join(''))
      parts = []
      size = 0
      start = nl + 1
    }
    if (start < chunk.length) {
      parts.push(chunk.slice(start))
      size += chunk.length - start
      if (size > max) throw lineTooLong(max)
    }
    return lines
  }
}

const lineTooLong = (max: number) => new Error(`the watch stream sent more than ${max >> 20} MiB without a newline: not a Kubernetes watch (ended; is a proxy in the way?)`)

/** How to end the connections of a proxied dispatcher that destroy() does not reach (proxy.ts). */
const cancels = new WeakMap<object, () => void>()

/** Ends a request's dispatcher and every connection it has or is opening. */
function end(dispatcher: Dispatcher): void {
  cancels.get(dispatcher)?.()
  dispatcher.destroy().catch(() => {})
}

const digest = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('base64')}`

/** A certificate or key (or a list of them) by its digest, anything else as it is. */
const byDigest = (v: unknown): unknown => (v instanceof Uint8Array ? digest(v) : Array.isArray(v) ? v.map(byDigest) : v)

/**
 * A key for connection options: equal options share an Agent (certificates and keys by their
 * digest). Made for every request: the options' Buffers (ca, cert, key: new ones each time, from
 * client-node) are digested before JSON.stringify, whose Buffer.toJSON would first copy each
 * into an array of numbers (2-6 ms of CPU in a 17-request read).
 */
function optionsKey(connect: object): string {
  const flat = Object.fromEntries(Object.entries(connect).map(([k, v]) => [k, byDigest(v)]))
  return JSON.stringify(flat, (_k, v: unknown) => {
    if (v instanceof Uint8Array) return digest(v)
    if (v !== null && typeof v === 'object' && (v as {type?: unknown}).type === 'Buffer' && Array.isArray((v as {data?: unknown}).data)) {
      return digest(Buffer.from((v as {data: number[]}).data))
    }
    return v
  })
}

/** Every transport's shared Agents, closed together at 'beforeExit'. */
const live = new Set<SharedAgents>()
let hooked = false

/** The shared Agents of one transport, with the requests under way on each. */
class SharedAgents {
  private readonly byKey = new Map<string, Dispatcher>()
  private readonly inFlight = new Map<Dispatcher, number>()
  private readonly retired = new Set<Dispatcher>()

  constructor(private readonly create: (connect: object) => Dispatcher) {
    live.add(this)
    if (!hooked) {
      // One listener for every transport (a process with many contexts or clients would pass
      // Node's 10-listener warning with one each); it closes what is left whenever the process
      // has nothing else to do.
      hooked = true
      process.on('beforeExit', () => {
        for (const a of live) a.closeAll()
      })
    }
  }

  get(connect: object): Dispatcher {
    const key = optionsKey(connect)
    let d = this.byKey.get(key)
    if (d === undefined) {
      d = this.create(connect)
      this.byKey.set(key, d)
      this.inFlight.set(d, 0)
    }
    return d
  }

  has(d: Dispatcher): boolean {
    return this.inFlight.has(d)
  }

  /** A request starts on d; the function it returns ends it (once), retiring d when it timed out. */
  begin(d: Dispatcher): (timedOut: boolean) => void {
    this.inFlight.set(d, (this.inFlight.get(d) ?? 0) + 1)
    let done = false
    return (timedOut) => {
      if (done) return
      done = true
      const left = (this.inFlight.get(d) ?? 1) - 1
      this.inFlight.set(d, left)
      if (timedOut && !this.retired.has(d)) {
        this.retired.add(d)
        for (const [k, v] of this.byKey) if (v === d) this.byKey.delete(k)
      }
      if (left === 0 && this.retired.has(d)) this.drop(d)
    }
  }

  private drop(d: Dispatcher): void {
    this.retired.delete(d)
    this.inFlight.delete(d)
    end(d)
  }

  closeAll(): void {
    for (const d of [...this.inFlight.keys()]) this.drop(d)
    this.byKey.clear()
  }
}

/** Rejects with the signal's reason as soon as it fires, whatever the transport does. */
function raceSignal<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, {once: true})
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

/**
 * Installs the transport on kc (its dispatchers) and returns the httpApi to pass with every
 * call (ctx.apiOptions) and the watch function. timeoutMs: --request-timeout (0: none); proxy:
 * the cluster's proxy-url, checked (kubeconfig.ts); onUnauthorized: told the Authorization header
 * of a request answered 401 (a rotated token file is then read again: token-file.ts).
 */
export function installTransport(
  k8s: K8s,
  kc: KubeConfig,
  timeoutMs: number,
  proxy?: ProxySetting,
  onUnauthorized?: (authorization: string | undefined) => void,
): {httpApi: unknown; watch: WatchFn} {
  const patched = kc as unknown as {createDispatcher(cluster: Cluster, o: AgentOptions): unknown}
  const connectTimeout = timeoutMs > 0 ? {timeout: timeoutMs} : {}
  const agents = new SharedAgents((connect) => new k8s.UndiciAgent({connect}))
  // A proxied dispatcher stays one per request (proxy.ts ends its connections itself).
  patched.createDispatcher = (cluster, agentOptions) => {
    const o = kc.createDispatcherOptions(cluster, agentOptions)
    if (proxy && (o.type === 'proxy' || o.type === 'socks')) {
      const {dispatcher, cancel} = proxyDispatcher(k8s, proxy, o.requestTls, timeoutMs)
      cancels.set(dispatcher, cancel)
      return dispatcher
    }
    return agents.get({...(o.type === 'agent' ? o.connect : {}), ...connectTimeout})
  }
  const fallback = () => patched.createDispatcher(null, {}) as Dispatcher
  /** Starts a request on dispatcher; the function returned ends it (a per-request dispatcher is destroyed). */
  const begin = (dispatcher: Dispatcher): ((timedOut: boolean) => void) => (agents.has(dispatcher) ? agents.begin(dispatcher) : () => end(dispatcher))

  const httpApi = k8s.wrapHttpLibrary({
    async send(rc) {
      const timeout = rc.getSignal() ?? undefined
      // A list's page asked ahead (page-ahead.ts): told of the answer's head, ended by its own signal.
      const watch = listHead.getStore()
      const signal = watch === undefined ? timeout : timeout === undefined ? watch.signal : AbortSignal.any([timeout, watch.signal])
      const body = rc.getBody()
      const dispatcher = (rc.getDispatcher() as Dispatcher | undefined) ?? fallback()
      const finish = begin(dispatcher)
      const shared = agents.has(dispatcher)
      // --request-timeout's signal ends the request and retires the Agent (a page asked ahead
      // and not taken only ends its request).
      timeout?.addEventListener('abort', () => finish(true), {once: true})
      let res: Awaited<ReturnType<K8s['undiciRequest']>>
      try {
        res = await raceSignal(
          k8s.undiciRequest(rc.getUrl(), {
            method: rc.getHttpMethod() as never,
            headers: rc.getHeaders(),
            ...(body === undefined ? {} : {body: body as string}),
            ...(signal ? {signal} : {}),
            dispatcher,
          }),
          signal,
        )
      } catch (e) {
        if (shared) finish(false)
        throw e
      }
      // A shared Agent's request ends with its body (read, or destroyed); a per-request
      // dispatcher lives until the signal fires, as before (its idle socket is unreferenced).
      if (shared) {
        res.body.once('close', () => finish(false))
        res.body.once('error', () => finish(false))
      }
      if (res.statusCode === 401) onUnauthorized?.(rc.getHeaders().Authorization)
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v
      // A success that is not JSON (a login page, a proxy's HTML): client-node would hand the
      // text on as the object, and a list would read as empty. cluster/errors.ts words it.
      const type = headers['content-type'] ?? ''
      if (res.statusCode >= 200 && res.statusCode < 300 && type !== '' && !/\bjson\b/i.test(type)) {
        res.body.on('error', () => {})
        res.body.destroy()
        throw new Error(`the answer's Content-Type is ${JSON.stringify(type.slice(0, 100))}, not application/json`)
      }
      const stream = res.body
      if (watch !== undefined && res.statusCode >= 200 && res.statusCode < 300) tapHead(stream as never, watch.onHead)
      return new k8s.ResponseContext(res.statusCode, headers, {
        text: () => raceSignal(stream.text(), signal),
        binary: async () => Buffer.from(await raceSignal(stream.arrayBuffer(), signal)),
        stream: () => Readable.toWeb(stream) as never,
      })
    },
  })

  // client-node's Watch.watch (watch.js), on request() instead of fetch().
  const watch: WatchFn = async (path, query, onEvent, done) => {
    const cluster = kc.getCurrentCluster()
    if (!cluster) throw new Error('No currently active cluster')
    const url = new URL(cluster.server + path)
    url.searchParams.set('watch', 'true')
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v))
    const controller = new AbortController()
    let timer: NodeJS.Timeout | undefined
    let timedOut = false
    const clearTimer = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
    }
    const resetTimer = () => {
      clearTimer()
      timer = setTimeout(() => {
        timedOut = true
        controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))
      }, WATCH_IDLE_MS)
      timer.unref()
    }
    const rc = new k8s.RequestContext(url.toString(), k8s.HttpMethod.GET)
    await kc.applySecurityAuthentication(rc)
    const dispatcher = (rc.getDispatcher() as Dispatcher | undefined) ?? fallback()
    const release = begin(dispatcher)
    let finished = false
    const finish = (err: unknown) => {
      if (finished) return
      finished = true
      clearTimer()
      controller.abort()
      release(timedOut)
      done(err && timedOut ? new DOMException('The operation was aborted due to timeout', 'TimeoutError') : err)
    }
    try {
      resetTimer()
      const res = await raceSignal(
        k8s.undiciRequest(url, {
          method: 'GET',
          headers: rc.getHeaders(),
          signal: controller.signal,
          dispatcher,
        }),
        controller.signal,
      )
      if (res.statusCode !== 200) {
        if (res.statusCode === 401) onUnauthorized?.(rc.getHeaders().Authorization)
        res.body.destroy()
        throw Object.assign(new Error(`HTTP ${res.statusCode}`), {statusCode: res.statusCode})
      }
      resetTimer()
      const body = res.body
      const split = lineSplitter()
      body.setEncoding('utf8')
      body.on('data', (chunk: string) => {
        resetTimer()
        let lines: string[]
        try {
          lines = split(chunk)
        } catch (e) {
          body.destroy()
          finish(e)
          return
        }
        for (const line of lines) {
          if (line.trim() === '') continue
          let data: {type: string; object: unknown}
          try {
            data = JSON.parse(line)
          } catch {
            continue // as client-node: a line that is not JSON is skipped
          }
          onEvent(data.type, data.object, data)
        }
      })
      body.on('error', finish)
      body.on('end', () => finish(null))
      body.on('close', () => finish(null))
    } catch (e) {
      finish(e)
    }
    return controller
  }
  return {httpApi, watch}
}
