// What-ifs for simulate: pure transformations of a ClusterState (the input is never changed).
// Pod placement follows simple, documented rules so results are reproducible:
//   a new pod goes to the zone with the fewest endpoints of the Service (like a topology spread
//   constraint with maxSkew 1; ties by zone name), on that zone's schedulable Ready node with the
//   fewest (ties by node name); a removed pod is taken from the node with the most (the ReplicaSet
//   controller ranks pods on crowded nodes first; ties by node name).
// Simulated pods get addresses from 198.18.0.0/15 (the benchmarking range, never a real pod IP).
import {matchesSelector, parseSelector} from '../upstream/apimachinery/labels.js'
import {simNodes, viewSlices} from './strategies/cluster.js'
import {LABEL_ZONE, type Endpoint, type EndpointSlice, type Node, type Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'

export class WhatIfError extends Error {}

export function clone(state: ClusterState): ClusterState {
  return structuredClone(state)
}

const copySlice = (s: EndpointSlice): EndpointSlice => (s.endpoints === undefined || s.endpoints === null ? {...s} : {...s, endpoints: s.endpoints.slice()})

/** The state with slice objects and endpoint lists of its own (the endpoints, the Nodes and the rest shared): what Views take their copies of. */
export function workingCopy(state: ClusterState): ClusterState {
  return {...state, endpointSlices: state.endpointSlices.map(copySlice)}
}

/**
 * Copy-on-write states of a working state (workingCopy's) that a Placer, a Remover or a rollout
 * change one pod at a time: each view shares the Nodes, the Services, the endpoint objects and
 * every slice not written into since the previous view, and copies the slices noted in
 * `touched`. A step then costs the slices' list and what it changed, not a deep copy of the
 * state (issue 23: rollouts one pod at a time and plan's range were quadratic). Nothing that
 * reads these states writes into them (the engine never writes its input:
 * test/unit/engine-immutable.property.test.ts), and nothing writes into an endpoint object:
 * a change of an endpoint is a new object in its slice.
 */
export class Views {
  /** The working slices written into since the last view. */
  readonly touched = new Set<EndpointSlice>()
  private readonly last = new Map<EndpointSlice, EndpointSlice>()
  constructor(private readonly work: ClusterState) {}

  take(): ClusterState {
    const endpointSlices = this.work.endpointSlices.map((s) => {
      let copy = this.last.get(s)
      if (copy === undefined || this.touched.has(s)) {
        copy = copySlice(s)
        this.last.set(s, copy)
      }
      return copy
    })
    this.touched.clear()
    return {...this.work, endpointSlices}
  }
}

/** --without-zone Z: the zone's nodes and every endpoint running there are gone. */
export function withoutZone(state: ClusterState, zone: string): ClusterState {
  const zones = new Set(state.nodes.map((n) => n.metadata.labels?.[LABEL_ZONE]).filter((z): z is string => !!z))
  if (!zones.has(zone)) throw new WhatIfError(`--without-zone: no node is in zone "${zone}" (zones: ${[...zones].sort().join(', ') || 'none'})`)
  const gone = new Set(state.nodes.filter((n) => n.metadata.labels?.[LABEL_ZONE] === zone).map((n) => n.metadata.name))
  // A state of its own where it changes (the node list, the slice list, each slice and its
  // endpoint list: a Placer adds to them), sharing the Nodes, the endpoints and the rest, as
  // workingCopy does: no deep copy of the cluster per lost zone (plan loses each zone of every
  // Service it plans; at 1,000 nodes the copy was most of check --hints-over-range's time).
  return {
    ...state,
    nodes: state.nodes.filter((n) => !gone.has(n.metadata.name)),
    endpointSlices: state.endpointSlices.map((s) => ({...s, endpoints: (s.endpoints ?? []).filter((ep) => ep.zone !== zone && !(ep.nodeName && gone.has(ep.nodeName)))})),
  }
}

let counter = 0

interface Placement {
  /** null: the Nodes could not be read (RBAC), the pod is placed by zone only */
  node: string | null
  zone: string
}

/** The Service's slices of its address type (the ones placement and the rollouts change). */
export function serviceSlices(state: ClusterState, svc: Service): EndpointSlice[] {
  return viewSlices(state, svc)
}

export function countBy(eps: Endpoint[], key: (e: Endpoint) => string | null | undefined): Map<string, number> {
  const m = new Map<string, number>()
  for (const e of eps) {
    const k = key(e)
    if (k) m.set(k, (m.get(k) ?? 0) + 1)
  }
  return m
}

const bump = (m: Map<string, number>, k: string | null | undefined) => {
  if (k) m.set(k, (m.get(k) ?? 0) + 1)
}

/**
 * Adds endpoints of one Service to a state, one after the other: what addEndpoint does, with the
 * nodes, slices, counts and used addresses read once and kept up to date, so that adding N
 * endpoints costs N placements, not N scans of every endpoint (--replicas 100000).
 * Valid while only this Placer changes the Service's endpoints.
 */
export class Placer {
  private readonly nodes: {name: string; zone: string}[]
  private readonly zones: string[]
  private readonly byZone: Map<string, number>
  private readonly byNode: Map<string, number>
  /** The addresses in use in the state (any Service's), with how many endpoints have each. */
  private readonly used: Map<string | undefined, number>
  private slices: EndpointSlice[]
  /** The first slice that may still have room (slices fill up while adding; a removal goes back). */
  private fill = 0
  /**
   * @param touched where the slices written into are noted (Views: a step's copy-on-write state).
   */
  constructor(
    private readonly state: ClusterState,
    private readonly svc: Service,
    private readonly touched?: Set<EndpointSlice>,
  ) {
    this.nodes = simNodes(state)
      .filter((n) => n.schedulable && n.zone !== null)
      .map((n) => ({name: n.name, zone: n.zone as string}))
    this.zones = [...new Set(this.nodes.map((n) => n.zone))].sort()
    this.slices = serviceSlices(state, svc)
    const eps = this.slices.flatMap((sl) => sl.endpoints ?? [])
    this.byZone = countBy(eps, (e) => e.zone)
    this.byNode = countBy(eps, (e) => e.nodeName)
    this.used = new Map()
    for (const sl of state.endpointSlices) for (const e of sl.endpoints ?? []) this.used.set(e.addresses?.[0], (this.used.get(e.addresses?.[0]) ?? 0) + 1)
  }

  /**
   * An endpoint of the Service taken out of `slice` by someone else (a Remover, a rollout): the
   * counts, the addresses in use and the first slice with room follow, as a new Placer on the
   * state would find them.
   */
  removed(e: Endpoint, slice: EndpointSlice): void {
    if (e.zone) this.byZone.set(e.zone, (this.byZone.get(e.zone) ?? 0) - 1)
    if (e.nodeName) this.byNode.set(e.nodeName, (this.byNode.get(e.nodeName) ?? 0) - 1)
    const a = e.addresses?.[0]
    const n = (this.used.get(a) ?? 0) - 1
    if (n > 0) this.used.set(a, n)
    else this.used.delete(a)
    const i = this.slices.indexOf(slice)
    if (i >= 0 && i < this.fill) this.fill = i
  }

  /** The Service's endpoints per zone (all of them, ready or not), as placement counts them. */
  inZone(zone: string): number {
    return this.byZone.get(zone) ?? 0
  }

  private place(preferZone?: string, knownZones?: readonly string[]): Placement | null {
    const {byZone, byNode} = this
    if (this.nodes.length === 0) {
      if (this.state.nodesReadable !== false) return null
      // The Nodes could not be read (RBAC): by zone only, among the zones the Service's endpoints
      // ran in (knownZones: when the rollout started) or run in.
      const known = [...new Set([...(knownZones ?? []), ...byZone.keys()])].sort()
      if (known.length === 0) return null
      const zone =
        preferZone !== undefined && known.includes(preferZone)
          ? preferZone
          : known.reduce((best, z) => ((byZone.get(z) ?? 0) < (byZone.get(best) ?? 0) ? z : best), known[0] as string)
      return {node: null, zone}
    }
    const zones = this.zones
    const zone =
      preferZone !== undefined && zones.includes(preferZone)
        ? preferZone
        : zones.reduce((best, z) => ((byZone.get(z) ?? 0) < (byZone.get(best) ?? 0) ? z : best), zones[0] as string)
    // The zone's node with the fewest endpoints, ties by name.
    let node: string | undefined
    let least = Number.POSITIVE_INFINITY
    for (const n of this.nodes) {
      if (n.zone !== zone) continue
      const c = byNode.get(n.name) ?? 0
      if (c < least || (c === least && node !== undefined && n.name < node)) {
        node = n.name
        least = c
      }
    }
    return node === undefined ? null : {node, zone}
  }

  private address(n: number): string {
    for (let i = n; ; i++) {
      const a = `198.${18 + ((i >> 16) & 1)}.${(i >> 8) & 255}.${i & 255}`
      if (!this.used.has(a)) {
        this.used.set(a, 1)
        return a
      }
    }
  }

  add(opts: {ready: boolean; zone?: string; name?: string; knownZones?: readonly string[]}): boolean {
    return this.addOne(opts) !== null
  }

  /** add, returning the new endpoint and its slice (null: no node can take it). */
  addOne(opts: {ready: boolean; zone?: string; name?: string; knownZones?: readonly string[]}): {e: Endpoint; slice: EndpointSlice} | null {
    const where = this.place(opts.zone, opts.knownZones)
    if (where === null) return null
    const {svc} = this
    if (this.slices.length === 0) {
      const s: EndpointSlice = {
        metadata: {
          name: `${svc.metadata.name}-simulated`,
          namespace: svc.metadata.namespace ?? 'default',
          labels: {'kubernetes.io/service-name': svc.metadata.name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
        },
        addressType: 'IPv4',
        endpoints: [],
      }
      this.state.endpointSlices.push(s)
      this.slices = [s]
    }
    while (this.fill < this.slices.length - 1 && (this.slices[this.fill]!.endpoints ?? []).length >= 100) this.fill++
    const target = this.slices[this.fill] as EndpointSlice
    target.endpoints ??= []
    const e: Endpoint = {
      addresses: [this.address(++counter)],
      conditions: {ready: opts.ready, serving: opts.ready, terminating: false},
      nodeName: where.node,
      zone: where.zone,
      targetRef: {kind: 'Pod', name: opts.name ?? `simulated-${counter}`},
    }
    target.endpoints.push(e)
    this.touched?.add(target)
    bump(this.byZone, where.zone)
    bump(this.byNode, where.node)
    return {e, slice: target}
  }
}

/** Adds one endpoint of the Service (ready or not) where placement puts it; false when no node can take it. */
export function addEndpoint(state: ClusterState, svc: Service, opts: {ready: boolean; zone?: string; name?: string; knownZones?: readonly string[]}): boolean {
  return new Placer(state, svc).add(opts)
}

/**
 * Removes one endpoint of the Service among those `filter` accepts: from the node with the most
 * of them (the ReplicaSet controller deletes pods on crowded nodes first); among equally crowded
 * nodes, from the zone with the most endpoints of the Service (the controller's last tie-break
 * is random, which spreads deletions over the zones on average), then by node name.
 */
export function removeEndpoint(state: ClusterState, svc: Service, filter: (e: Endpoint) => boolean = () => true): boolean {
  return takeEndpoint(state, svc, filter) !== null
}

/**
 * Removes endpoints of one Service among those `filter` accepts, one after the other: what
 * takeEndpoint does, with the candidates grouped by (node, zone) in heaps and the counts kept up
 * to date, and the slices compacted once at the end, so that removing k endpoints costs about
 * k log n, not k scans of every endpoint (--replicas 100 from 100000, a rollout's deletions).
 * Valid while only this Remover changes the Service's endpoints.
 *
 * takeEndpoint's victim is the first endpoint, in slice order, of the greatest key (the
 * candidates on its node, the Service's endpoints in its zone, then the smallest node name); an
 * unnamed node or zone counts 0 there. Every endpoint of a (node, zone) bucket has the same key,
 * so the victim is the first endpoint of the best bucket. A zone's buckets share the zone's
 * count: each zone keeps its buckets in a heap on the rest of the key, and a removal compares the
 * zones' tops. Keys only get worse while removing (counts go down, a bucket's first endpoint
 * moves on), so a heap entry holds the count it was pushed with and is pushed again when found
 * out of date at the top.
 */
export class Remover {
  private readonly heaps = new Map<string, RemoverEntry[]>()
  private readonly onNode = new Map<string, number>()
  private readonly inZone = new Map<string, number>()
  /**
   * @param filter the candidates, decided here once: endpoints added later are never candidates
   * @param touched where the slices removed from are noted (Views: a step's copy-on-write state)
   */
  constructor(
    state: ClusterState,
    svc: Service,
    filter: (e: Endpoint) => boolean,
    private readonly touched?: Set<EndpointSlice>,
  ) {
    const buckets = new Map<string, RemoverBucket>()
    let order = 0
    for (const slice of serviceSlices(state, svc)) {
      for (const e of slice.endpoints ?? []) {
        const at = order++
        if (e.zone) bump(this.inZone, e.zone)
        if (!filter(e)) continue
        const node = e.nodeName ?? ''
        const zone = e.zone || ''
        bump(this.onNode, node)
        const key = `${node}\u0000${zone}`
        let b = buckets.get(key)
        if (b === undefined) buckets.set(key, (b = {node, zone, eps: [], head: 0}))
        b.eps.push({e, slice, at})
      }
    }
    for (const b of buckets.values()) {
      let heap = this.heaps.get(b.zone)
      if (heap === undefined) this.heaps.set(b.zone, (heap = []))
      heapPush(heap, this.entry(b))
    }
  }

  /** Candidates on a node, as takeEndpoint counts them (a pod without a node name: 0). */
  private nodeCount(node: string): number {
    return node ? (this.onNode.get(node) ?? 0) : 0
  }

  private entry(b: RemoverBucket): RemoverEntry {
    return {b, count: this.nodeCount(b.node), at: b.eps[b.head]!.at}
  }

  /** The zone's best bucket, its entry brought up to date. */
  private top(heap: RemoverEntry[]): RemoverEntry | undefined {
    while (heap.length > 0) {
      const t = heap[0]!
      if (t.count === this.nodeCount(t.b.node)) return t
      heapPop(heap)
      heapPush(heap, this.entry(t.b))
    }
    return undefined
  }

  /** Removes up to `count` endpoints (fewer when the candidates run out); returns how many. */
  remove(count: number, onGone?: (e: Endpoint, slice: EndpointSlice) => void): number {
    const gone = new Map<Endpoint, EndpointSlice>()
    const touched = new Set<EndpointSlice>()
    for (let i = 0; i < count; i++) {
      const t = this.take()
      if (t === null) break
      gone.set(t.e, t.slice)
      touched.add(t.slice)
      this.touched?.add(t.slice)
    }
    // Out of the slices at the end, in place, order kept (a slice may hold every endpoint).
    for (const slice of touched) {
      const eps = slice.endpoints!
      let w = 0
      for (const e of eps) if (!gone.has(e)) eps[w++] = e
      eps.length = w
    }
    if (onGone !== undefined) for (const [e, slice] of gone) onGone(e, slice)
    return gone.size
  }

  /** An endpoint of the Service added by someone else (a Placer): it counts in its zone's ties, and is no candidate. */
  added(e: Endpoint): void {
    if (e.zone) bump(this.inZone, e.zone)
  }

  /** The next endpoint takeEndpoint would remove, out of the heaps (not yet out of its slice). */
  private take(): {e: Endpoint; slice: EndpointSlice} | null {
    let best: RemoverEntry | undefined
    let bestHeap: RemoverEntry[] | undefined
    for (const heap of this.heaps.values()) {
      const t = this.top(heap)
      if (t === undefined) continue
      if (best === undefined || this.before(t, best)) {
        best = t
        bestHeap = heap
      }
    }
    if (best === undefined || bestHeap === undefined) return null
    heapPop(bestHeap)
    const b = best.b
    const {e, slice} = b.eps[b.head++]!
    if (b.node) this.onNode.set(b.node, (this.onNode.get(b.node) ?? 0) - 1)
    if (b.zone) this.inZone.set(b.zone, (this.inZone.get(b.zone) ?? 0) - 1)
    if (b.head < b.eps.length) heapPush(bestHeap, this.entry(b))
    return {e, slice}
  }

  /** takeEndpoint's order between the tops of two zones. */
  private before(a: RemoverEntry, b: RemoverEntry): boolean {
    if (a.count !== b.count) return a.count > b.count
    const za = a.b.zone ? (this.inZone.get(a.b.zone) ?? 0) : 0
    const zb = b.b.zone ? (this.inZone.get(b.b.zone) ?? 0) : 0
    if (za !== zb) return za > zb
    if (a.b.node !== b.b.node) return a.b.node < b.b.node
    return a.at < b.at
  }
}

interface RemoverBucket {
  node: string
  zone: string
  /** The candidates in slice order (at: position among the Service's endpoints); head: the next one. */
  eps: {e: Endpoint; slice: EndpointSlice; at: number}[]
  head: number
}

/** A bucket in its zone's heap, with the node count it was pushed with. */
interface RemoverEntry {
  b: RemoverBucket
  count: number
  at: number
}

/** Within a zone: more candidates on the node first, then the node name, then slice order. */
const entryBefore = (a: RemoverEntry, b: RemoverEntry) => (a.count !== b.count ? a.count > b.count : a.b.node !== b.b.node ? a.b.node < b.b.node : a.at < b.at)

function heapPush(h: RemoverEntry[], x: RemoverEntry): void {
  h.push(x)
  for (let j = h.length - 1; j > 0; ) {
    const i = (j - 1) >> 1
    if (!entryBefore(h[j]!, h[i]!)) break
    ;[h[i], h[j]] = [h[j]!, h[i]!]
    j = i
  }
}

function heapPop(h: RemoverEntry[]): void {
  const last = h.pop()!
  if (h.length === 0) return
  h[0] = last
  for (let i = 0; ; ) {
    const l = 2 * i + 1
    if (l >= h.length) break
    const c = l + 1 < h.length && entryBefore(h[l + 1]!, h[l]!) ? l + 1 : l
    if (!entryBefore(h[c]!, h[i]!)) break
    ;[h[i], h[c]] = [h[c]!, h[i]!]
    i = c
  }
}

/** removeEndpoint, returning the endpoint removed (null: none matched). */
function takeEndpoint(state: ClusterState, svc: Service, filter: (e: Endpoint) => boolean): Endpoint | null {
  const slices = serviceSlices(state, svc)
  const eps = slices.flatMap((s) => (s.endpoints ?? []).filter(filter))
  if (eps.length === 0) return null
  const byNode = countBy(eps, (e) => e.nodeName ?? '')
  const byZone = countBy(
    slices.flatMap((s) => s.endpoints ?? []),
    (e) => e.zone,
  )
  const victim = eps.reduce((best, e) => {
    const a = byNode.get(e.nodeName ?? '') ?? 0
    const b = byNode.get(best.nodeName ?? '') ?? 0
    if (a !== b) return a > b ? e : best
    const za = byZone.get(e.zone ?? '') ?? 0
    const zb = byZone.get(best.zone ?? '') ?? 0
    if (za !== zb) return za > zb ? e : best
    return (e.nodeName ?? '') < (best.nodeName ?? '') ? e : best
  }, eps[0] as Endpoint)
  for (const s of slices) {
    const i = (s.endpoints ?? []).indexOf(victim)
    if (i >= 0) {
      s.endpoints!.splice(i, 1)
      return victim
    }
  }
  return null
}

/** --drain NODE / -l selector: nodes become unschedulable; the Service's pods there are recreated elsewhere. */
export function drain(state: ClusterState, svc: Service, target: {nodes?: string[]; selector?: string}): ClusterState {
  const next = clone(state)
  const reqs = target.selector ? parseSelector(target.selector) : null
  const drained = new Set<string>()
  for (const n of next.nodes) {
    if (target.nodes?.includes(n.metadata.name) || (reqs !== null && matchesSelector(reqs, n.metadata.labels))) drained.add(n.metadata.name)
  }
  for (const name of target.nodes ?? []) if (!drained.has(name)) throw new WhatIfError(`--drain: node "${name}" not found`)
  if (drained.size === 0) throw new WhatIfError(`--drain: no node matches "${target.selector}"`)
  for (const n of next.nodes) if (drained.has(n.metadata.name)) n.spec = {...(n.spec ?? {}), unschedulable: true}
  let moved = 0
  for (const s of serviceSlices(next, svc)) {
    const before = (s.endpoints ?? []).length
    s.endpoints = (s.endpoints ?? []).filter((e) => !(e.nodeName && drained.has(e.nodeName)))
    moved += before - s.endpoints.length
  }
  const placer = new Placer(next, svc)
  for (let i = 0; i < moved; i++) placer.add({ready: true})
  return next
}

/**
 * --replicas N: scale to N ready endpoints with the one placement model simulate and plan share
 * (plan's statesOverRange walks the same steps one pod at a time): from today's ready endpoints,
 * each new pod goes where addEndpoint puts it (the zone with the fewest of the Service's endpoints,
 * ties by zone name, then that zone's node with the fewest), each removed pod is the one
 * removeEndpoint takes (from the most crowded node, then the most crowded zone). Not-ready
 * endpoints are dropped first: the simulation is about the steady state.
 */
export function scaleReplicas(state: ClusterState, svc: Service, replicas: number): ClusterState {
  if (!Number.isInteger(replicas) || replicas < 0) throw new WhatIfError(`--replicas must be a non-negative integer, got ${replicas}`)
  const next = clone(state)
  let now = 0
  for (const s of serviceSlices(next, svc)) {
    s.endpoints = (s.endpoints ?? []).filter((e) => e.conditions?.ready === true)
    now += s.endpoints.length
  }
  if (replicas < now) new Remover(next, svc, () => true).remove(now - replicas)
  else if (replicas > now) {
    const placer = new Placer(next, svc)
    for (let i = now; i < replicas; i++) if (!placer.add({ready: true})) throw new WhatIfError('--replicas: no schedulable Ready node with a zone label to place pods on')
  }
  return next
}

/** --add-node zone=Z,cpu=C[,name=N]: a Ready worker node. */
export function addNode(state: ClusterState, spec: {zone: string; cpu: string; name?: string}): ClusterState {
  const next = clone(state)
  let name = spec.name
  if (name === undefined) {
    for (let i = 1; ; i++) {
      const candidate = `simulated-${spec.zone}-${i}`
      if (!next.nodes.some((n) => n.metadata.name === candidate)) {
        name = candidate
        break
      }
    }
  } else if (next.nodes.some((n) => n.metadata.name === name)) {
    throw new WhatIfError(`--add-node: a node named "${name}" already exists`)
  }
  const node: Node = {
    metadata: {name, labels: {[LABEL_ZONE]: spec.zone, 'kubernetes.io/hostname': name}},
    status: {allocatable: {cpu: spec.cpu}, capacity: {cpu: spec.cpu}, conditions: [{type: 'Ready', status: 'True'}]},
  }
  next.nodes.push(node)
  return next
}
