// The I/O behind `kubectl topology watch`: API watches on the Nodes, the Service, its
// EndpointSlices and its Events, each kept as an in-memory cache by a small reflector
// (list, then watch from the list's resourceVersion), the way client-go's informers work:
//  * 410 Gone (an expired resourceVersion, as an ERROR event or as the watch's HTTP status)
//    -> re-list, then watch again; a 410 again before any event -> back off first;
//  * the server closing the watch, or client-node's inactivity timeout -> watch again from the
//    last resourceVersion at once, unless the watch was "very short" (no event, under 1 s, as
//    client-go's reflector calls it): then back off;
//  * any other failure (connection refused, reset, 5xx, an endless list) -> back off and try again.
//  The back-off is client-go's reflector's (k8s.io/client-go/tools/cache/reflector.go:
//  wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)): 0.8 s doubling to a cap of 30 s,
//  each delay jittered up to twice itself, so a resource that keeps failing is asked at most
//  once in 30-60 s; reset by the next event (client-go resets after 2 minutes without failing).
//  * bookmarks (allowWatchBookmarks) keep the resourceVersion fresh on quiet resources.
// Lists are paginated (LIST_PAGE_SIZE per page) and their objects made plain wire JSON by the
// client layer (client.ts), like live.ts's.

import {CliError} from '../errors.js'
import type {EndpointSlice, EventObject, Node, Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {LABEL_SERVICE_NAME} from '../upstream/api/types.js'
import {Client, ENDPOINT_SLICE, EVENT, forEachPage, NODE, SERVICE, type Page} from './client.js'
import {apiStatusCode} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {readServerVersion} from './resources.js'

/** One page of a reflector's list. */
export type ListPage<T> = Page<T>

/** client-node's Watch.watch shape: resolves once the request is under way; done() ends it. */
export type WatchFn = (
  path: string,
  query: Record<string, string | boolean | undefined>,
  onEvent: (type: string, obj: any) => void,
  done: (err: unknown) => void,
) => Promise<{abort(): void}>

export interface ReflectorOptions<T> {
  /** For messages: "nodes", "endpointslices", ... */
  resource: string
  path: string
  query: Record<string, string | undefined>
  list: (cont: string | undefined) => Promise<ListPage<T>>
  watch: WatchFn
  /** Called after the cache changed (a list, or a watch event). */
  onChange: (resource: string, type: 'LIST' | 'ADDED' | 'MODIFIED' | 'DELETED', obj: T | null) => void
  /** Connection status for the UI: "re-listing (410 Gone)", "reconnecting in 2s: ...". */
  onStatus: (resource: string, status: ReflectorStatus) => void
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>
  baseDelayMs?: number
  maxDelayMs?: number
  /** In [0, 1): the jitter of each delay (default Math.random). */
  random?: () => number
  /** Milliseconds, for the length of a watch (default Date.now). */
  now?: () => number
  /** What the cache keeps of each listed or watched object (default: all of it). */
  keep?: (item: T) => T
}

/** client-go's reflector back-off (wait.NewExponentialBackoffManager(800ms, 30s, 2m, 2.0, 1.0)). */
export const BACKOFF = {baseMs: 800, maxMs: 30_000, factor: 2, jitter: 1}
/** A watch that ends with no event sooner than this is "very short" (client-go's reflector: 1 s). */
const MIN_WATCH_MS = 1000
/** A watch open this long before it failed was a working connection: the back-off starts again from its base. */
const HEALTHY_WATCH_MS = 10_000

/**
 * The n-th delay (0-based) of a jittered exponential back-off, as wait.Backoff.Step: the base
 * doubled n times and capped, plus up to `jitter` times itself at random.
 */
export function backoffDelay(n: number, baseMs: number, maxMs: number, random: number, jitter = BACKOFF.jitter): number {
  const d = Math.min(baseMs * BACKOFF.factor ** Math.min(n, 40), maxMs)
  return Math.round(d + random * jitter * d)
}

export type ReflectorStatus = {state: 'synced'; items: number} | {state: 'relisting'; reason: string} | {state: 'backoff'; delayMs: number; error: string} | {state: 'watching'}

const keyOf = (o: {metadata?: {namespace?: string; name?: string}}) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve()
    const t = setTimeout(resolve, ms)
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t)
        resolve()
      },
      {once: true},
    )
  })

/** A list+watch cache of one resource. */
export class Reflector<T extends {metadata?: {namespace?: string; name?: string; resourceVersion?: string}}> {
  readonly items = new Map<string, T>()
  resourceVersion = ''
  lists = 0
  watches = 0
  private readonly stopCtl = new AbortController()
  private current: {abort(): void} | undefined
  private failures = 0
  /** Watch events received (not ERROR), to tell a watch that made progress. */
  private events = 0
  private synced = false
  private syncWaiters: {resolve: () => void; reject: (e: unknown) => void}[] = []

  constructor(private readonly o: ReflectorOptions<T>) {}

  get stopped(): boolean {
    return this.stopCtl.signal.aborted
  }

  /** Resolves after the first successful list; rejects if that list fails (the caller decides). */
  waitSynced(): Promise<void> {
    if (this.synced) return Promise.resolve()
    return new Promise((resolve, reject) => this.syncWaiters.push({resolve, reject}))
  }

  stop(): void {
    this.stopCtl.abort()
    this.current?.abort()
  }

  /** Runs until stop(). */
  async run(): Promise<void> {
    const sleep = this.o.sleep ?? defaultSleep
    const base = this.o.baseDelayMs ?? BACKOFF.baseMs
    const max = this.o.maxDelayMs ?? BACKOFF.maxMs
    const random = this.o.random ?? Math.random
    const now = this.o.now ?? Date.now
    const backoff = async (error: unknown, n = this.failures) => {
      const delayMs = backoffDelay(n, base, max, random())
      this.failures++
      this.o.onStatus(this.o.resource, {state: 'backoff', delayMs, error: describeWatchError(error)})
      await sleep(delayMs, this.stopCtl.signal)
    }
    // 410s in a row with no event in between: the first re-lists at once, the next back off,
    // longer each time (counted apart: a list that works starts the failures' count afresh).
    let gone = 0
    while (!this.stopped) {
      let error: unknown = null
      let started = 0
      const eventsBefore = this.events
      try {
        if (this.resourceVersion === '') await this.relist()
        if (this.stopped) break
        started = now()
        error = await this.watchOnce()
      } catch (e) {
        error = e
        if (!this.synced) {
          // The first list failed: let the caller report it (kubeconfig, RBAC, not reachable).
          for (const w of this.syncWaiters.splice(0)) w.reject(e)
        }
      }
      if (this.stopped) break
      // A watch that worked for a while and then broke (the API server restarted) starts the
      // back-off afresh, as client-go's reflector does after a quiet spell: without this, each
      // outage waited as long as the last one's longest delay.
      if (started > 0 && error !== null && !isGone(error) && !isTimeout(error) && now() - started >= HEALTHY_WATCH_MS) this.failures = 0
      const progressed = this.events > eventsBefore
      if (progressed) gone = 0
      if (isGone(error)) {
        this.resourceVersion = ''
        this.o.onStatus(this.o.resource, {state: 'relisting', reason: '410 Gone: the resourceVersion expired'})
        if (gone++ > 0) await backoff(error, gone - 2)
        continue
      }
      if (error === null || isTimeout(error)) {
        if (progressed || now() - started >= MIN_WATCH_MS) continue
        error = new Error(`very short watch: it ended within ${MIN_WATCH_MS / 1000}s without an event`)
      }
      await backoff(error)
    }
  }

  private async relist(): Promise<void> {
    const fresh = new Map<string, T>()
    let rv = ''
    await forEachPage(
      (cont) => this.o.list(cont),
      (page) => {
        this.lists++
        for (const item of page.items) fresh.set(keyOf(item), this.o.keep ? this.o.keep(item) : item)
        rv = page.resourceVersion || rv
      },
      () => this.stopped,
      `list ${this.o.resource}`,
    )
    this.items.clear()
    for (const [k, v] of fresh) this.items.set(k, v)
    this.resourceVersion = rv
    // The server answers: a failure after this backs off from the base again (after an outage
    // the delay would otherwise stay near its cap once the server is back).
    this.failures = 0
    this.o.onStatus(this.o.resource, {state: 'synced', items: this.items.size})
    this.o.onChange(this.o.resource, 'LIST', null)
    if (!this.synced) {
      this.synced = true
      for (const w of this.syncWaiters.splice(0)) w.resolve()
    }
  }

  /** One watch request; resolves with null (closed normally) or the error that ended it. */
  private watchOnce(): Promise<unknown> {
    return new Promise<unknown>((resolve) => {
      let gone: unknown = null
      let ended = false
      const query = {...this.o.query, resourceVersion: this.resourceVersion, allowWatchBookmarks: 'true'}
      this.watches++
      this.o
        .watch(
          this.o.path,
          query,
          (type, obj) => {
            if (type === 'ERROR') {
              if (obj?.code === 410) gone = Object.assign(new Error(obj.message ?? 'Gone'), {statusCode: 410})
              else gone = Object.assign(new Error(obj?.message ?? 'watch error'), {statusCode: obj?.code})
              return
            }
            const rv = obj?.metadata?.resourceVersion
            if (rv) this.resourceVersion = rv
            this.failures = 0
            this.events++
            if (type === 'BOOKMARK') return
            const item = type === 'ADDED' || type === 'MODIFIED' ? (this.o.keep?.(obj as T) ?? (obj as T)) : (obj as T)
            if (type === 'ADDED' || type === 'MODIFIED') this.items.set(keyOf(item), item)
            else if (type === 'DELETED') this.items.delete(keyOf(item))
            else return
            this.o.onChange(this.o.resource, type, item)
          },
          (err) => {
            ended = true
            resolve(err ?? gone)
          },
        )
        .then((req) => {
          this.current = req
          if (this.stopped) req.abort()
          // A request refused before it was under way (connection refused: http.ts ends it
          // before it resolves) never watched: saying so would mark a source up that is down.
          else if (!ended) this.o.onStatus(this.o.resource, {state: 'watching'})
        }, resolve)
    })
  }
}

const isGone = (e: unknown) => {
  const x = e as {statusCode?: number; code?: number} | null
  return x?.statusCode === 410 || x?.code === 410 || apiStatusCode(e) === 410
}
const isTimeout = (e: unknown) => (e as {name?: string} | null)?.name === 'TimeoutError'

/** What an HTTP status means for a reflector that retries by itself (one line; never a credential). */
const STATUS_WORDS: Record<number, string> = {
  401: 'Unauthorized: the API server refused the credentials (an expired or revoked token?); each retry picks up a rotated tokenFile or exec credential',
  403: 'Forbidden',
}

export function describeWatchError(e: unknown): string {
  const x = e as {statusCode?: number; message?: string; cause?: {code?: string; message?: string}} | null
  if (x?.statusCode) {
    const words = STATUS_WORDS[x.statusCode]
    const msg = (x.message ?? '').split('\n')[0]!
    // The watch's own error says only "HTTP 401": not twice.
    const said = msg === '' || msg === `HTTP ${x.statusCode}` || (words !== undefined && /^(Unauthorized|Forbidden)$/.test(msg))
    return `HTTP ${x.statusCode}${words ? ` ${words}` : ''}${said ? '' : `${words ? ':' : ''} ${msg}`}`
  }
  const code = x?.cause?.code
  return code ? `${code}` : (x?.message ?? String(e)).split('\n')[0]!
}

// ---- the Service watch ----------------------------------------------------------------

export interface ServiceWatchHandlers {
  /** The cached state changed (debounced by the caller). */
  onChange: (resource: string) => void
  /** A controller Event on the Service was added or updated (count/lastTimestamp). */
  onEvent: (event: EventObject, initial: boolean) => void
  onStatus: (resource: string, status: ReflectorStatus) => void
}

export interface ServiceWatch {
  state(): ClusterState
  stop(): void
  /** List and watch requests sent so far. */
  requests(): {lists: number; watches: number}
  /** Resolves after every resource was listed once. */
  synced: Promise<void>
  /** Resolves when every reflector stopped. */
  done: Promise<void>
}

export interface ServiceWatchOptions {
  namespace: string
  name: string
  pageSize?: number
  /** For tests: a smaller back-off. */
  baseDelayMs?: number
  maxDelayMs?: number
}

export async function startServiceWatch(ctx: KubeContext, opts: ServiceWatchOptions, h: ServiceWatchHandlers): Promise<ServiceWatch> {
  const c = await Client.connect(ctx, {pageSize: opts.pageSize})
  const {core, discovery: disc, options: o} = c
  const {namespace: ns, name} = opts

  const {version: serverVersion} = await readServerVersion(c)

  const watcher = new c.k8s.Watch(ctx.kc)
  const watch: WatchFn = ctx.watch ?? ((path, query, onEvent, done) => watcher.watch(path, query, onEvent, done))
  const common = {watch, baseDelayMs: opts.baseDelayMs, maxDelayMs: opts.maxDelayMs, onStatus: h.onStatus}
  const onChange = (resource: string) => h.onChange(resource)

  const nodes = new Reflector<Node>({
    ...common,
    resource: 'nodes',
    path: '/api/v1/nodes',
    query: {},
    list: c.pager(NODE, (q) => core.listNode(q, o)),
    onChange,
  })
  const fieldSelector = `metadata.name=${name}`
  const services = new Reflector<Service>({
    ...common,
    resource: 'services',
    path: `/api/v1/namespaces/${encodeURIComponent(ns)}/services`,
    query: {fieldSelector},
    list: c.pager(SERVICE, (q) => core.listNamespacedService({namespace: ns, fieldSelector, ...q}, o)),
    onChange,
  })
  const labelSelector = `${LABEL_SERVICE_NAME}=${name}`
  const slices = new Reflector<EndpointSlice>({
    ...common,
    resource: 'endpointslices',
    path: `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(ns)}/endpointslices`,
    query: {labelSelector},
    list: c.pager(ENDPOINT_SLICE, (q) => disc.listNamespacedEndpointSlice({namespace: ns, labelSelector, ...q}, o)),
    onChange,
  })
  const eventSelector = `involvedObject.kind=Service,involvedObject.name=${name}`
  let eventsListed = false
  const events = new Reflector<EventObject>({
    ...common,
    resource: 'events',
    path: `/api/v1/namespaces/${encodeURIComponent(ns)}/events`,
    query: {fieldSelector: eventSelector},
    list: c.pager(EVENT, (q) => core.listNamespacedEvent({namespace: ns, fieldSelector: eventSelector, ...q}, o)),
    onChange: (_r, type, obj) => {
      if (type === 'LIST') {
        // After a re-list nothing is replayed; the first list shows what is already recorded.
        if (!eventsListed) for (const e of sortByTime([...events.items.values()])) h.onEvent(e, true)
        eventsListed = true
      } else if (obj && type !== 'DELETED') h.onEvent(obj, false)
    },
  })

  const all = [nodes, services, slices, events]
  const runs = all.map((r) => r.run())
  const synced = Promise.all(all.map((r) => r.waitSynced())).then(
    () => undefined,
    (e) => {
      for (const r of all) r.stop()
      throw e instanceof CliError ? e : c.fail(e, `watch services "${name}" in namespace "${ns}"`)
    },
  )
  return {
    state: () => {
      const st: ClusterState = {
        nodes: sortByName([...nodes.items.values()]),
        services: [...services.items.values()],
        endpointSlices: sortByName([...slices.items.values()]),
        events: [...events.items.values()],
        nodesReadable: true,
      }
      if (serverVersion) st.serverVersion = serverVersion
      return st
    },
    stop: () => {
      for (const r of all) r.stop()
    },
    requests: () => ({lists: all.reduce((a, r) => a + r.lists, 0), watches: all.reduce((a, r) => a + r.watches, 0)}),
    synced,
    done: Promise.all(runs).then(() => undefined),
  }
}

const sortByName = <T extends {metadata: {name: string}}>(xs: T[]) => xs.sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))

const eventTime = (e: EventObject) => e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? ''
const sortByTime = (xs: EventObject[]) => xs.sort((a, b) => (eventTime(a) < eventTime(b) ? -1 : eventTime(a) > eventTime(b) ? 1 : 0))
