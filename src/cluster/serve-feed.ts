// The I/O behind `kubectl topology serve`: the Nodes, Services, EndpointSlices and the Events
// on Services of the whole cluster, each kept by watch.ts's Reflector (list, then watch from
// the list's resourceVersion; bookmarks; re-list on 410 Gone; back-off on errors; no periodic
// re-read). The caches are indexed by Service, and every change names the Services it touches
// (a Node change touches every Service), so serve/model.ts explains only those again.
//
// Events are optional, as for explain: without permission to list them, one warning and the
// controller's "hints populated" mark is inferred from the live hints.
import type {EndpointSlice, EventObject, Node, Service} from '../upstream/api/types.js'
import {eventServiceKey, nodeSignature, serviceKey, sliceServiceKey, type Change, type StateIndex} from '../serve/model.js'
import type {ResourceHealth} from '../serve/source.js'
import {Client, ENDPOINT_SLICE, EVENT, NODE, SERVICE} from './client.js'
import {apiStatusCode} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {readServerVersion} from './resources.js'
import {Reflector, type ReflectorStatus, type WatchFn} from './watch.js'

const SERVE_RESOURCES = ['nodes', 'services', 'endpointslices', 'events'] as const
type Resource = (typeof SERVE_RESOURCES)[number]

export interface FeedOptions {
  pageSize?: number
  /** For tests: a smaller back-off. */
  baseDelayMs?: number
  maxDelayMs?: number
  /** Unix milliseconds (the health timestamps); Date.now by default. */
  now?: () => number
}

export interface FeedHandlers {
  /** The caches changed: what to explain again. Called synchronously on every change (the caller debounces). */
  onChange: (change: Change) => void
  /** A resource's watch state changed (for the log). */
  onStatus: (resource: string, status: ReflectorStatus) => void
  /** Something the user should know once (events not readable). */
  onWarning: (message: string) => void
}

export interface Feed {
  index: StateIndex
  serverVersion: string | undefined
  health(): ResourceHealth[]
  /** Resolves after every resource was listed once; rejects with the first list's error. */
  synced: Promise<void>
  stop(): void
  done: Promise<void>
}

interface Health {
  /** Since the last failure (back-off, re-list) no success proved the resource healthy again. */
  failing: boolean
  /** When the current watch request was sent (the reflector says "watching" once it is under way, before the server answered). */
  watchingSince: number | null
  lists: number
  errors: number
  lastSync: number | null
}

/** A watch open this long without failing counts as recovered (a refused watch fails within milliseconds). */
const RECOVERED_AFTER_MS = 1000

/**
 * What the caches keep of an object: all of it but metadata.managedFields (every watch event
 * carries them; the engine never reads them). A Service keeps them: the advisor reads who owns
 * its topology fields (advise/commands.ts).
 */
export function withoutManagedFields<T extends {metadata?: object}>(o: T): T {
  const meta = o.metadata as {managedFields?: unknown} | undefined
  if (meta?.managedFields === undefined) return o
  const {managedFields: _drop, ...rest} = meta
  return {...o, metadata: rest}
}

/**
 * What the Node cache keeps: metadata (labels: zone, hostname, roles), spec, and of the status
 * what the engine and nodeSignature read (allocatable, capacity, addresses, each condition's
 * type, status and reason). Images, nodeInfo, volumes and heartbeats are most of a real Node's
 * bytes and change all the time.
 */
export function keepNode(n: Node): Node {
  const out = withoutManagedFields(n)
  const st = n.status as (NonNullable<Node['status']> & {addresses?: unknown}) | undefined
  if (!st) return out
  const status: NonNullable<Node['status']> & {addresses?: unknown} = {}
  if (st.allocatable) status.allocatable = st.allocatable
  if (st.capacity) status.capacity = st.capacity
  if (st.addresses) status.addresses = st.addresses
  if (st.conditions) status.conditions = st.conditions.map((c) => ({type: c.type, status: c.status, ...(c.reason ? {reason: c.reason} : {})}))
  return {...out, status}
}

type Obj = {metadata?: {namespace?: string; name?: string}}
const objKey = (o: Obj) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`

export async function startFeed(ctx: KubeContext, opts: FeedOptions, h: FeedHandlers): Promise<Feed> {
  const c = await Client.connect(ctx, {pageSize: opts.pageSize})
  const {core, discovery: disc, options: o} = c
  const now = opts.now ?? Date.now
  const {version: serverVersion} = await readServerVersion(c)

  const watcher = new c.k8s.Watch(ctx.kc)
  const watch: WatchFn = ctx.watch ?? ((path, query, onEvent, done) => watcher.watch(path, query, onEvent, done))

  // ---- the index: each Service's slices and Events ----
  const slicesBy = new Map<string, Map<string, EndpointSlice>>()
  const sliceOwner = new Map<string, string>()
  const eventsBy = new Map<string, Map<string, EventObject>>()
  const eventOwner = new Map<string, string>()
  const place = <T extends Obj>(by: Map<string, Map<string, T>>, owner: Map<string, string>, obj: T, svc: string | null, deleted: boolean): string[] => {
    const k = objKey(obj)
    const before = owner.get(k)
    const touched = before === undefined ? [] : [before]
    if (before !== undefined) {
      by.get(before)?.delete(k)
      if (by.get(before)?.size === 0) by.delete(before)
      owner.delete(k)
    }
    if (!deleted && svc !== null) {
      let m = by.get(svc)
      if (!m) by.set(svc, (m = new Map()))
      m.set(k, obj)
      owner.set(k, svc)
      if (svc !== before) touched.push(svc)
    }
    return touched
  }
  const rebuild = <T extends Obj>(by: Map<string, Map<string, T>>, owner: Map<string, string>, items: Iterable<T>, keyOf: (o: T) => string | null) => {
    by.clear()
    owner.clear()
    for (const item of items) place(by, owner, item, keyOf(item), false)
  }

  const health = new Map<Resource, Health>(SERVE_RESOURCES.map((r) => [r, {failing: true, watchingSince: null, lists: 0, errors: 0, lastSync: null}]))
  const onStatus = (resource: string, s: ReflectorStatus) => {
    const x = health.get(resource as Resource)
    if (x) {
      if (s.state === 'synced') {
        x.failing = false
        x.lists++
        x.lastSync = now()
      } else if (s.state === 'watching') x.watchingSince = now()
      else {
        x.failing = true
        x.watchingSince = null
        if (s.state === 'backoff') x.errors++
      }
    }
    h.onStatus(resource, s)
  }
  /** A list or a watch event arrived: the resource works. */
  const touched = (resource: Resource) => {
    const x = health.get(resource)!
    x.lastSync = now()
    x.failing = false
  }
  const isUp = (x: Health) => {
    if (x.failing && x.lists > 0 && x.watchingSince !== null && now() - x.watchingSince >= RECOVERED_AFTER_MS) x.failing = false
    return x.lists > 0 && !x.failing
  }
  const common = {watch, baseDelayMs: opts.baseDelayMs, maxDelayMs: opts.maxDelayMs, onStatus}
  const changed = (services: string[]) => {
    if (services.length > 0) h.onChange({all: false, services: new Set(services)})
  }

  const nodeSigs = new Map<string, string>()
  const nodes = new Reflector<Node>({
    ...common,
    resource: 'nodes',
    path: '/api/v1/nodes',
    query: {},
    list: c.pager(NODE, (q) => core.listNode(q, o)),
    keep: keepNode,
    onChange: (_r, type, obj) => {
      if (type === 'LIST' || !obj) {
        nodeSigs.clear()
        for (const n of nodes.items.values()) nodeSigs.set(n.metadata.name, nodeSignature(n))
        return h.onChange({all: true})
      }
      touched('nodes')
      // Kubelets rewrite their Node's status (heartbeats, images) without changing what the
      // engine reads: those updates recompute nothing.
      const sig = type === 'DELETED' ? null : nodeSignature(obj)
      if (type === 'MODIFIED' && nodeSigs.get(obj.metadata.name) === sig) return
      if (sig === null) nodeSigs.delete(obj.metadata.name)
      else nodeSigs.set(obj.metadata.name, sig)
      h.onChange({all: true})
    },
  })
  const services = new Reflector<Service>({
    ...common,
    resource: 'services',
    path: '/api/v1/services',
    query: {},
    list: c.pager(SERVICE, (q) => core.listServiceForAllNamespaces(q, o)),
    onChange: (_r, type, obj) => {
      if (type === 'LIST' || !obj) return h.onChange({all: true})
      touched('services')
      changed([serviceKey(obj.metadata.namespace, obj.metadata.name)])
    },
  })
  const slices = new Reflector<EndpointSlice>({
    ...common,
    resource: 'endpointslices',
    path: '/apis/discovery.k8s.io/v1/endpointslices',
    query: {},
    list: c.pager(ENDPOINT_SLICE, (q) => disc.listEndpointSliceForAllNamespaces(q, o)),
    keep: withoutManagedFields,
    onChange: (_r, type, obj) => {
      if (type === 'LIST' || !obj) {
        rebuild(slicesBy, sliceOwner, slices.items.values(), sliceServiceKey)
        return h.onChange({all: true})
      }
      touched('endpointslices')
      changed(place(slicesBy, sliceOwner, obj, sliceServiceKey(obj), type === 'DELETED'))
    },
  })
  const fieldSelector = 'involvedObject.kind=Service'
  const events = new Reflector<EventObject>({
    ...common,
    resource: 'events',
    path: '/api/v1/events',
    query: {fieldSelector},
    list: c.pager(EVENT, (q) => core.listEventForAllNamespaces({fieldSelector, ...q}, o)),
    keep: withoutManagedFields,
    onChange: (_r, type, obj) => {
      if (type === 'LIST' || !obj) {
        rebuild(eventsBy, eventOwner, events.items.values(), eventServiceKey)
        return h.onChange({all: true})
      }
      touched('events')
      changed(place(eventsBy, eventOwner, obj, eventServiceKey(obj), type === 'DELETED'))
    },
  })

  const required = [nodes, services, slices]
  const all = [...required, events]
  const runs = all.map((r) => r.run())
  let eventsReadable = true
  const eventsSynced = events.waitSynced().catch((e) => {
    if (apiStatusCode(e) !== 403) throw e
    // As explain: without "list events" the controller's mark is inferred from the hints.
    eventsReadable = false
    events.stop()
    health.delete('events')
    h.onWarning('cannot list events in all namespaces (missing permission: list, watch events); the controller\'s "hints populated" mark is inferred from the live hints')
  })
  const synced = Promise.all([...required.map((r) => r.waitSynced()), eventsSynced]).then(
    () => undefined,
    (e) => {
      for (const r of all) r.stop()
      throw c.fail(e, 'list nodes, services, endpointslices and events in all namespaces')
    },
  )

  const index: StateIndex = {
    nodes: () => [...nodes.items.values()],
    nodesReadable: true,
    serviceKeys: () => [...services.items.values()].map((s) => serviceKey(s.metadata.namespace, s.metadata.name)),
    service: (k) => services.items.get(k),
    slices: (k) => [...(slicesBy.get(k)?.values() ?? [])],
    events: (k) => (eventsReadable ? [...(eventsBy.get(k)?.values() ?? [])] : []),
  }
  return {
    index,
    serverVersion,
    health: () =>
      [...health.entries()].map(([resource, x]) => ({
        resource,
        up: isUp(x),
        lastSyncSeconds: x.lastSync === null ? null : Math.floor(x.lastSync / 1000),
        watchRestarts: Math.max(0, reflectorOf(resource).watches - 1),
        relists: Math.max(0, x.lists - 1),
        errors: x.errors,
      })),
    synced,
    stop: () => {
      for (const r of all) r.stop()
    },
    done: Promise.all(runs).then(() => undefined),
  }

  function reflectorOf(r: Resource) {
    return r === 'nodes' ? nodes : r === 'services' ? services : r === 'endpointslices' ? slices : events
  }
}
