// serve's model: the metric samples of a cluster, kept up to date one Service at a time.
// Each Service's figures come from explain's engine with the advisor's recommendation
// (advise/report.ts `explainAdvised`, the same call explain -A makes), run on the Service's own
// objects only: its "now" and "after the next sync" figures are the recommendation's; a change of a Service, of one
// of its EndpointSlices or of an Event on it recomputes that Service, a change of the Nodes
// (zone CPU shares, counted nodes) recomputes every Service. Pure: no clock, no I/O; the
// source's health (timestamps, counters) is given by the caller.
import {summariseNodes, type ExplainOptions, type ServiceExplanation} from '../explain/report.js'
import {explainAdvised} from '../advise/report.js'
import {zoneCapacity} from '../explain/node-verdicts.js'
import {acceptedCounts} from '../explain/advice.js'
import {getAllocations} from '../upstream/endpointslice/topologycache/topologycache.js'
import {MESSAGES} from '../upstream/endpointslice/topologycache/event.js'
import type {EndpointSlice, EventObject, Node, Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {LABEL_SERVICE_NAME} from '../upstream/api/types.js'
import type {FamilyName, Sample} from './catalogue.js'

/** What the model reads: the Nodes, and each Service with its own slices and Events. */
export interface StateIndex {
  nodes(): Node[]
  nodesReadable: boolean
  /** "namespace/name" of every Service. */
  serviceKeys(): Iterable<string>
  service(key: string): Service | undefined
  slices(key: string): EndpointSlice[]
  events(key: string): EventObject[]
}

/** What changed since the last update: everything (Nodes, a re-list), or these Services ("namespace/name"). */
export type Change = {all: true} | {all: false; services: ReadonlySet<string>}

export type Row = readonly [FamilyName, Sample]

export const serviceKey = (namespace: string | undefined, name: string): string => `${namespace || 'default'}/${name}`

/** The Service an EndpointSlice belongs to ("namespace/name"), or null when it names none. */
export function sliceServiceKey(s: EndpointSlice): string | null {
  const name = s.metadata.labels?.[LABEL_SERVICE_NAME]
  return name ? serviceKey(s.metadata.namespace, name) : null
}

/** The Service an Event is about, or null when it is about something else. */
export function eventServiceKey(e: EventObject): string | null {
  const o = e.involvedObject
  return o?.kind === 'Service' && o.name ? serviceKey(o.namespace ?? e.metadata.namespace, o.name) : null
}

/**
 * What the engine reads of a Node: its labels (zone, hostname, control-plane), allocatable
 * resources, the status of its conditions (Ready) and its addresses; not heartbeat times,
 * images or anything else a kubelet rewrites.
 */
export function nodeSignature(n: Node): string {
  const st = n.status
  return JSON.stringify([
    n.metadata.labels ?? {},
    st?.allocatable ?? {},
    (st?.conditions ?? []).map((c) => [c.type, c.status]),
    (st as {addresses?: unknown} | undefined)?.addresses ?? [],
    n.spec ?? {},
  ])
}

/** A StateIndex over a whole ClusterState (tests, and one-shot use). */
export function indexState(state: ClusterState): StateIndex {
  const services = new Map<string, Service>()
  const slices = new Map<string, EndpointSlice[]>()
  const events = new Map<string, EventObject[]>()
  for (const s of state.services) services.set(serviceKey(s.metadata.namespace, s.metadata.name), s)
  for (const s of state.endpointSlices) push(slices, sliceServiceKey(s), s)
  for (const e of state.events ?? []) push(events, eventServiceKey(e), e)
  return {
    nodes: () => state.nodes,
    nodesReadable: state.nodesReadable !== false,
    serviceKeys: () => services.keys(),
    service: (k) => services.get(k),
    slices: (k) => slices.get(k) ?? [],
    events: (k) => events.get(k) ?? [],
  }
}

function push<T>(m: Map<string, T[]>, key: string | null, v: T): void {
  if (key === null) return
  const list = m.get(key)
  if (list) list.push(v)
  else m.set(key, [v])
}

/** Services explained per call of the engine in a large update. */
const CHUNK = 100

/** The samples of every Service and of the cluster, updated by change. */
export class ServeModel {
  /** Each Service's rows and how many explanations (address types) they hold. */
  private readonly byService = new Map<string, {rows: Row[]; explanations: number}>()
  private clusterRowsOfNodes: Row[] = []
  private explained = 0

  constructor(private opts: ExplainOptions) {}

  /** serve --traffic-from: the measured traffic of the Services from now on (call update with {all: true} after). */
  setMeasured(measured: ExplainOptions['measured']): void {
    const {measured: _old, ...rest} = this.opts
    this.opts = measured === undefined ? rest : {...rest, measured}
  }

  /** Recomputes what the change touches; returns how many Services were explained again. */
  update(index: StateIndex, change: Change): number {
    const nodes = index.nodes()
    const keys = change.all ? [...index.serviceKeys()] : [...change.services]
    if (change.all) {
      this.byService.clear()
      this.explained = 0
      this.clusterRowsOfNodes = clusterRows(nodes)
    }
    const ratios = zoneCapacity(nodes).cpuRatiosByZone
    // A few Services at a time: each chunk's reports are garbage before the next is made, so a
    // full recompute (start, a Node change) does not hold 2,000 reports at once (RSS).
    let explained = 0
    for (let i = 0; i < keys.length; i += CHUNK) explained += this.explain(index, nodes, ratios, keys.slice(i, i + CHUNK))
    return explained
  }

  private explain(index: StateIndex, nodes: Node[], ratios: Record<string, number> | null, keys: readonly string[]): number {
    const services: Service[] = []
    const slices: EndpointSlice[] = []
    const events: EventObject[] = []
    for (const k of keys) {
      const svc = index.service(k)
      if (!svc) {
        this.explained -= this.byService.get(k)?.explanations ?? 0
        this.byService.delete(k)
        continue
      }
      services.push(svc)
      slices.push(...index.slices(k))
      events.push(...index.events(k))
    }
    if (services.length === 0) return 0
    const state: ClusterState = {nodes, services, endpointSlices: slices, events, nodesReadable: index.nodesReadable}
    const report = explainAdvised(state, services, this.opts)
    const fresh = new Map<string, Row[]>()
    for (const s of report.services) {
      const k = serviceKey(s.namespace, s.name)
      const rows = fresh.get(k) ?? []
      rows.push(...serviceRows(s, ratios))
      fresh.set(k, rows)
    }
    for (const k of keys) {
      if (!index.service(k)) continue
      const rows = fresh.get(k) ?? []
      const n = explanations(rows)
      this.explained += n - (this.byService.get(k)?.explanations ?? 0)
      this.byService.set(k, {rows, explanations: n})
    }
    return services.length
  }

  /**
   * Each Service's samples, one array per Service: an array is replaced when its Service is
   * explained again, and dropped with its Service (render/metrics.ts writes each array's lines
   * once); the only change made to an array is shed's emptying.
   */
  groups(): (readonly Row[])[] {
    return [...this.byService.values()].map((s) => s.rows)
  }

  /**
   * Empties the arrays whose lines are written (written(array) true): the lines are what is
   * served, and 2,000 Services' rows are ~12 MiB of heap kept for nothing (docs/design.md "serve
   * at scale"). An emptied array stays the Service's until it is explained again; rows() no
   * longer gives its samples; the Service count is kept. Returns how many were emptied.
   */
  shed(written: (group: readonly Row[]) => boolean): number {
    let n = 0
    for (const s of this.byService.values()) {
      if (s.rows.length === 0 || !written(s.rows)) continue
      s.rows.length = 0
      n++
    }
    return n
  }

  /** The cluster's samples (kubectl_topology_services included). */
  clusterRows(): Row[] {
    return [...this.clusterRowsOfNodes, ['kubectl_topology_services', {labels: {}, value: this.explained}]]
  }

  /** Every sample: per Service, then the cluster's. */
  rows(): Row[] {
    const out: Row[] = []
    for (const {rows} of this.byService.values()) out.push(...rows)
    out.push(...this.clusterRows())
    return out
  }
}

const bool = (b: boolean) => (b ? 1 : 0)
/** One kubectl_topology_service_info sample per explanation (Service and address type). */
const explanations = (rows: readonly Row[]) => rows.filter(([f]) => f === 'kubectl_topology_service_info').length

/** The controller's reason as a bounded code: event.go's constant name for Auto's refusals, else the report's reason. */
function reasonCode(s: ServiceExplanation): string {
  const c = s.controller
  if (c.path === 'topology-mode-auto' && !c.hintsSet) {
    for (const [key, text] of Object.entries(MESSAGES)) if (c.message.startsWith(text)) return key[0]!.toUpperCase() + key.slice(1)
  }
  return c.reason
}

/** Ready endpoints to add (+) or remove (-) to reach the nearest count Auto accepts; 0 when accepted; null when none or not Auto. */
function acceptedDistance(s: ServiceExplanation, ratios: Record<string, number> | null): number | null {
  if (s.controller.path !== 'topology-mode-auto' || ratios === null) return null
  const n = s.controller.totalReadyEndpoints
  if (getAllocations(n, ratios).ok) return 0
  const {below, above} = acceptedCounts(n, ratios, 1)
  const options = [...below, ...above].map((k) => k - n)
  if (options.length === 0) return null
  // The nearest; on a tie, scaling up (as plan chooses).
  return options.sort((a, b) => Math.abs(a) - Math.abs(b) || b - a)[0]!
}

function serviceRows(s: ServiceExplanation, ratios: Record<string, number> | null): Row[] {
  const svc = {namespace: s.namespace, service: s.name, address_type: s.addressType}
  const rows: Row[] = []
  const add = (f: FamilyName, value: number | null, extra: Record<string, string> = {}) => {
    if (value !== null && Number.isFinite(value)) rows.push([f, {labels: {...svc, ...extra}, value}])
  }
  const requested = s.mode.managedByController && s.mode.path !== 'none'
  // The advisor's figures (explain prints the same): now (live hints) and after the next sync.
  const rec = s.recommendation
  // (explainAdvised recommends for every Service it explains; explain's own figures otherwise, the same numbers.)
  const t = s.traffic
  const now = rec?.now ?? {hints: s.totals.liveHints > 0, inZone: t.inZoneShareLive, worstOverload: t.maxEndpointOverloadLive}
  const next = rec?.predicted ?? {hints: s.controller.hintsSet, inZone: t.inZoneSharePredicted, worstOverload: t.maxEndpointOverloadPredicted}
  add('kubectl_topology_service_info', 1, {mode: s.controller.path})
  add('kubectl_topology_service_hints_requested', bool(requested))
  add('kubectl_topology_service_hints_live', bool(now.hints))
  add('kubectl_topology_service_hints_predicted', bool(next.hints))
  add('kubectl_topology_service_controller_reason_info', 1, {reason: reasonCode(s)})
  add('kubectl_topology_service_ready_endpoints', s.totals.readyEndpoints)
  add('kubectl_topology_service_accepted_endpoints_distance', acceptedDistance(s, ratios))
  add('kubectl_topology_service_live_in_zone_traffic_ratio', now.inZone)
  add('kubectl_topology_service_predicted_in_zone_traffic_ratio', next.inZone)
  add('kubectl_topology_service_live_max_endpoint_overload_ratio', now.worstOverload)
  add('kubectl_topology_service_predicted_max_endpoint_overload_ratio', next.worstOverload)
  if (rec) {
    add('kubectl_topology_service_recommended_mode_info', 1, {mode: rec.recommended})
    add('kubectl_topology_service_recommendation_meets_bound', bool(rec.meetsBound))
    add('kubectl_topology_service_change_recommended', bool(rec.steps.length > 0))
  }
  add('kubectl_topology_service_drift_endpoints', s.drift.endpoints)
  add('kubectl_topology_service_drift_zone_counts', bool(s.drift.zoneCounts))
  add('kubectl_topology_service_data_plane_honours_hints', bool(s.dataPlane?.ignoresHints !== true))
  const m = t.measured
  if (m !== undefined) add('kubectl_topology_service_measured_cross_zone_traffic_ratio', m.crossZoneShare)
  for (const z of s.zones) {
    const zone = {zone: z.name}
    if (m !== undefined) add('kubectl_topology_zone_measured_client_traffic_ratio', m.clientMix[z.name] ?? 0, zone)
    add('kubectl_topology_zone_ready_endpoints', z.readyEndpoints, zone)
    add('kubectl_topology_zone_live_hinted_endpoints', z.liveHints, zone)
    add('kubectl_topology_zone_expected_overload_ratio', z.expectedOverload, zone)
    add('kubectl_topology_zone_fallback', bool(z.kubeProxy.fallback), zone)
  }
  return rows
}

function clusterRows(nodes: readonly Node[]): Row[] {
  const summary = summariseNodes(zoneCapacity([...nodes]))
  const rows: Row[] = []
  for (const z of summary.zones) {
    rows.push(['kubectl_topology_counted_nodes', {labels: {zone: z.name}, value: z.counted}])
    rows.push(['kubectl_topology_ignored_nodes', {labels: {zone: z.name}, value: z.ignored}])
    if (z.cpuRatio !== null) rows.push(['kubectl_topology_zone_cpu_ratio', {labels: {zone: z.name}, value: z.cpuRatio}])
  }
  rows.push(['kubectl_topology_zones', {labels: {}, value: summary.zones.filter((z) => z.counted > 0).length}])
  rows.push(['kubectl_topology_hints_disabling_nodes', {labels: {}, value: summary.disablingNodes.length}])
  return rows
}
