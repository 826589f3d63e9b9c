// The explanation model: for each Service (and address type), what the EndpointSlice
// controller would do at its next sync, what kube-proxy in each zone does with the hints
// that are live now, how the two differ, and what to change. Pure: the same input gives
// the same report, from a live cluster or a snapshot file. Schema: schema/explain.v1.json.
import {categorizeEndpoints, categorizeZones, type FallbackReason, type ProxyTopologyMode, type ZoneView} from '../upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {proxyEndpointsFromSlices, sliceHasPort} from '../upstream/kube-proxy/endpointslicecache.js'
import {getClusterIPByFamily, serviceTrafficFlags} from '../upstream/kube-proxy/serviceport.js'
import {serviceMode, type ModeWarningRule, type ServiceMode} from './mode.js'
import {hintNamesOf, type HintNames} from '../apply/plan.js'
import {zoneCapacity, type NodeVerdict, type ZoneCapacity} from './node-verdicts.js'
import {predictHints, type HintPrediction, type PredictionMode, type TopologyPath} from '../upstream/endpointslice/reconciler.js'
import {getAllocations, OVERLOAD_THRESHOLD} from '../upstream/endpointslice/topologycache/topologycache.js'
import {
  CONTROLLER_NAME,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_ZONE,
  type AddressType,
  type Endpoint,
  type EndpointSlice,
  type EventObject,
  type Node,
  type Service,
  type TopologyEvent,
} from '../upstream/api/types.js'
import {controllerState, eventUnderGuess, type ControllerState} from './controller-state.js'
import type {ClusterState} from '../state/cluster-state.js'
import {features as featuresFor, formatVersion, type Features} from '../upstream/features.js'
import type {DataPlane} from '../dataplane/types.js'
import type {RoutesFound, ServiceRoutes} from '../dataplane/routes/types.js'
import {clientPathsOf, routesFound, type RoutesInput} from './client-paths.js'
import {dataPlaneReport, type DataPlaneReport} from '../dataplane/describe.js'
import {kubeProxyRules, planeNodeChoice, planeZoneViews} from './dataplane-views.js'
import {advise} from './advice.js'
import {applicability, carriesPort, familyHasClusterIP} from './applicability.js'
import {countReady, isManaged, sortStrings} from './helpers.js'
import {lintIssues} from './lint.js'
import type {Recommendation} from '../advise/types.js'
import {estimateTraffic, trafficModel} from './traffic.js'
import type {MeasuredTraffic} from './measured.js'
import {categorizeOptions, mergesLocalCopy, proxySkewMemo, sameRules, skewNotices, zoneRules, type ProxySkew, type SkewNotice} from './proxy-skew.js'
import type {ProxyRules} from '../dataplane/proxy-nodes.js'

/** One Service's measured traffic and where it was read (explain/measured.ts). */
export interface MeasuredTrafficInput extends MeasuredTraffic {
  /** The Prometheus base URL, as shown. */
  source: string
  /** The query sent, placeholders filled. */
  query: string
}

export const SCHEMA_VERSION = 'kubectl-topology.io/v1'

export interface ExplainOptions {
  /** Kubernetes version whose behaviour to model (undefined: newest known). */
  kubeVersion?: string
  /** Where the version came from, for the report. */
  versionSource?: 'server' | 'flag' | 'default'
  /** Traffic share per zone (any positive weights; normalised). Default: zone CPU share (upstream's assumption). */
  traffic?: Record<string, number>
  /**
   * Measured traffic (--traffic-from), by "namespace/name": a Service found here takes its
   * measured client mix instead of `traffic` or the CPU shares (model "measured"), and its report
   * carries the measured cross-zone share next to the predicted one. Others keep the default.
   */
  measured?: ReadonlyMap<string, MeasuredTrafficInput>
  /** Add a per-node kube-proxy view. */
  perNode?: boolean
  /** next-sync (default): what the controller does at its next sync; fresh: as if every slice were rewritten. */
  prediction?: PredictionMode
  /**
   * The data plane that load-balances pod traffic (src/dataplane/). Undefined: kube-proxy, and
   * the report has no dataPlane field. Given: the zone and node verdicts and the in-zone
   * estimate follow its rules, and each Service whose hints it ignores or alters says so.
   */
  dataPlane?: DataPlane
  /**
   * Only the figures the advisor reads of each mode (src/advise/evaluate.ts predictedFigures):
   * the lint and advice lists, which it never reads and which cost a pass over every Node per
   * Service, are left empty. Every other field is as without it. Not for a report anyone prints.
   */
  figuresOnly?: boolean
  /**
   * The meshes and gateways read (src/dataplane/routes/): each Service gets `clientPaths`, the
   * paths that bypass the node data plane, and the report `routes`. Undefined: neither field.
   */
  routes?: RoutesInput
}

/** Hint names as the report gives them (plan.ts's, shared with apply). */
export type {HintNames}

export interface EndpointRow {
  /** The endpoint's own array (not a copy: the engine never mutates its input, nor a report). */
  addresses: string[]
  nodeName: string | null
  zone: string | null
  slice: string
  conditions: {ready: boolean | null; serving: boolean | null; terminating: boolean | null}
  /** Counted as ready by the controller (conditions.ready set and true). */
  controllerReady: boolean
  liveHints: HintNames | null
  predictedHints: HintNames | null
  /**
   * Every zone the controller's zone hint for this endpoint can name, when there is more than
   * one: upstream walks the slices and picks receiving zones in Go's random map order
   * (topology-mode Auto). null when the predicted hint is certain.
   */
  alternatives: string[] | null
  /** The predicted zone hint is another zone than the endpoint's own (the controller donates it). */
  donatedTo: string | null
  /** The live hints are none the controller can write at that sync (any of `alternatives` is not drift). */
  drift: boolean
}

/**
 * kube-proxy's fallback reasons, 'not-proxied' for Services kube-proxy skips (headless,
 * ExternalName) and for an address family the Service has no ClusterIP of, and the data
 * plane's own reasons when it is not kube-proxy.
 */
export type ProxyReason = FallbackReason | 'not-proxied' | 'no-nodes' | 'ignored-by-data-plane' | 'not-topology-aware-for-data-plane'

export interface KubeProxyVerdict {
  /** Topology mode kube-proxy on a node of this zone takes: "" means no topology (all endpoints). */
  mode: ProxyTopologyMode
  /** True when hints exist on the Service's endpoints but this zone does not use them. */
  fallback: boolean
  /** Why, in kube-proxy's terms (null when hints are used, or when no endpoint carries hints). */
  reason: ProxyReason | null
  /** How many endpoints a node of this zone sends cluster traffic to (the addresses: --per-node). */
  routedEndpoints: number
  /** Nodes of this zone whose kube-proxy picks PreferSameNode (they hold a node-hinted endpoint). */
  nodesPreferSameNode: number
}

export interface ZoneRow {
  name: string
  nodes: {counted: number; ignored: number}
  cpuMilli: number
  /** Zone share of allocatable CPU of counted nodes (null when upstream computes no ratios). */
  cpuRatio: number | null
  /** Share of traffic assumed to originate in this zone (CPU share, or --traffic). */
  trafficShare: number | null
  readyEndpoints: number
  desired: number | null
  minimum: number | null
  target: number | null
  maximum: number | null
  /** Ready endpoints whose predicted hints name this zone. */
  assigned: number
  /** desired / assigned - 1 with the predicted hints (null when no hints are predicted or none assigned). */
  expectedOverload: number | null
  donatedIn: number
  donatedOut: number
  /** Ready endpoints whose live hints name this zone. */
  liveHints: number
  kubeProxy: KubeProxyVerdict
  /** kube-proxy's verdict once the predicted hints are written. */
  kubeProxyPredicted: KubeProxyVerdict
}

export interface NodeProxyRow {
  name: string
  zone: string | null
  mode: ProxyTopologyMode
  fallback: boolean
  reason: ProxyReason | null
  /** Every endpoint this node sends traffic to: kube-proxy's allReachableEndpoints (cluster and local sets, merged). */
  endpoints: string[]
  /**
   * kube-proxy's clusterEndpoints: what traffic under the Cluster policy goes to (topology
   * applied). Under another data plane: its selection (its local set is not modelled apart).
   */
  clusterEndpoints: string[]
  /** kube-proxy's localEndpoints: the node's own endpoints, for the Local policies (never topology-filtered); empty when no Local policy applies. */
  localEndpoints: string[]
  /** The version of this node's kube-proxy (its Pod's image), when the data plane's Pods were read; null when unknown for this node. */
  kubeProxyVersion?: string | null
  /**
   * The same view per Service port (spec.ports order), as kube-proxy keeps one endpoint list
   * per port: from the slices that carry a port of that name and protocol. When every slice
   * carries every port, each entry equals the node-level fields above; otherwise those are
   * the first port's. Empty when the Service lists no ports.
   */
  ports: NodePortProxyRow[]
}

/** kube-proxy's view on one node for one Service port. */
export interface NodePortProxyRow {
  name: string
  protocol: string
  mode: ProxyTopologyMode
  fallback: boolean
  reason: ProxyReason | null
  endpoints: string[]
}

export interface ControllerVerdict {
  path: TopologyPath | 'not-managed'
  hintsSet: boolean
  /** Upstream's event reason on the topology-mode path; a descriptive code otherwise (see docs/json-schema.md). */
  reason: string
  /** Upstream's event message verbatim on the topology-mode path. */
  message: string
  /** The Event the controller records on the Service at that sync (none on the trafficDistribution path). */
  event: TopologyEvent | null
  /**
   * Set when the "hints populated" mark cannot be known (state.inferredFrom unknown: no Events read)
   * and the event depends on it: an Event the controller may record at that sync; `event` is then null.
   */
  mayRecord?: TopologyEvent
  totalReadyEndpoints: number
  prediction: PredictionMode
  /** Slices the controller would rewrite at that sync. */
  slicesToUpdate: string[]
  /**
   * Where upstream decides by Go's random map order (we use sorted zone names): tieBreaks =
   * steps with two zones tied for the largest surplus/deficit (per-zone counts may differ
   * upstream); receiverChoices = donated endpoints that could have gone to another zone.
   */
  randomChoices: RandomChoices
  /** The controller's "hints populated" mark for the Service before that sync, which decides its event. */
  state: ControllerState
}

/**
 * Where upstream's result depends on Go's random orders (topology-mode Auto); see
 * docs/engine.md. Certain: the per-zone counts when countsCertain, each endpoint's hint when its
 * `alternatives` is null.
 */
export interface RandomChoices {
  /** Steps in which two zones tied for the largest surplus or deficit (getMost over a map). */
  tieBreaks: number
  /** Donated endpoints that could have gone to another receiving zone. */
  receiverChoices: number
  /** Ready endpoints whose donation depends on the order the controller walks the slices in. */
  sliceOrder: number
  /** Which unchanged slices keep their hints depends on the order of the slices. */
  unchangedOrder: boolean
  /** Ready endpoints with more than one possible zone hint (rows with `alternatives`). */
  uncertainEndpoints: number
  /** The per-zone counts of zone hints are the same in every order. */
  countsCertain: boolean
}

export interface Advice {
  code: string
  message: string
  command?: string
}

export interface TrafficEstimate {
  model: 'zone-cpu' | 'custom' | 'measured' | 'none'
  /** Expected share of requests served in the zone they come from, with the live hints. */
  inZoneShareLive: number | null
  /** Same, once the predicted hints are written. */
  inZoneSharePredicted: number | null
  /** Largest expected per-endpoint overload (load x ready endpoints - 1), predicted hints. */
  maxEndpointOverloadPredicted: number | null
  maxEndpointOverloadLive: number | null
  /** The zone of the most loaded endpoint with the live hints, when it is above an even share (null otherwise). */
  worstZoneLive: string | null
  /** Same, once the predicted hints are written. */
  worstZonePredicted: string | null
  /** With --traffic-from, when the Service's traffic was measured: what was measured (absent otherwise). */
  measured?: MeasuredTrafficReport
}

/** The measured traffic of a Service, next to what the model predicts under the measured client mix. */
export interface MeasuredTrafficReport {
  source: string
  query: string
  /** Per client zone, its share of the measured traffic: the model's traffic shares. */
  clientMix: Record<string, number>
  /** Measured share of the traffic served in another zone than its client's (null: the answer has no dst_zone). */
  crossZoneShare: number | null
  /** Predicted share served in another zone with the live hints, under the measured mix: 1 - inZoneShareLive. */
  crossZoneSharePredicted: number | null
  /** Zone to zone, the measured share (null: no dst_zone). */
  matrix: {from: string; to: string; share: number}[] | null
  /** Series of the answer left out (no client zone, a zone the cluster does not have, not a finite value >= 0). */
  ignored: {series: number; share: number}
}

export type Finding = 'hints-refused' | 'fallback' | 'drift' | 'no-endpoints-zone' | 'data-plane-ignores-hints'

/** What the data plane does with this Service's hints, when it ignores or alters them (explain with a data plane only). */
export interface DataPlaneNotice {
  /** true: the data plane ignores the hints for pod traffic; false: it uses them, differently from kube-proxy. */
  ignoresHints: boolean
  message: string
  fix: string | null
}

/** The configuration findings of a Service: one list, shown by explain, check (--lint), watch and plan. */
export type LintRule = ModeWarningRule | 'single-zone' | 'internal-traffic-policy-local'

export interface LintIssue {
  rule: LintRule
  /** error: the cluster does something other than what is written; warning: works, but should change. */
  severity: 'error' | 'warning'
  message: string
}

/**
 * What of topology-aware routing applies to a Service, from its type and who writes its
 * EndpointSlices:
 *  - kube-proxy proxies neither headless Services (clusterIP None) nor ExternalName ones
 *    (kubernetes/kubernetes pkg/proxy/util/utils.go ShouldSkipService);
 *  - the EndpointSlice controller manages the slices of Services with a selector, except
 *    ExternalName ones (pkg/controller/endpointslice/endpointslice_controller.go syncService),
 *    and only slices labelled endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io;
 *    kube-proxy routes to the endpoints of every slice of the Service, whoever wrote it;
 *  - FQDN slices are read by neither (kube-proxy takes IPv4 and IPv6 slices only).
 */
export interface Applicability {
  type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName' | 'Headless'
  /** kube-proxy proxies the Service (false: headless or ExternalName). */
  proxied: boolean
  /** The Service's slices of this address type, by writer, and its FQDN slices. */
  slices: {managed: number; foreign: {manager: string; slices: number; readyEndpoints: number}[]; fqdn: number}
  /** A plain statement of what applies, when it is not the ordinary case (null otherwise). */
  statement: string | null
}

export interface ServiceExplanation {
  namespace: string
  name: string
  addressType: AddressType
  mode: ServiceMode & {managedByController: boolean}
  controller: ControllerVerdict
  zones: ZoneRow[]
  totals: {readyEndpoints: number; endpoints: number; assigned: number; liveHints: number; donated: number; cpuMilli: number}
  endpoints: EndpointRow[]
  nodes?: NodeProxyRow[]
  traffic: TrafficEstimate
  /**
   * endpoints: rows whose live hints the controller cannot write; zoneCounts: the live per-zone
   * counts of zone hints are none the controller can produce (topology-mode Auto, counts predicted).
   */
  drift: {endpoints: number; zoneCounts: boolean}
  findings: Finding[]
  advice: Advice[]
  /** Configuration findings (the mode's warnings, a single-zone cluster, internalTrafficPolicy Local). */
  lint: LintIssue[]
  applicability: Applicability
  /** Endpoints without a zone (their node has no zone label, or they name no node); null when none. */
  withoutZone: {endpoints: number; readyEndpoints: number; nodes: number} | null
  /**
   * The advisor's recommendation (src/advise/): attached by src/advise/report.ts for explain,
   * check and watch; absent from explain() alone.
   */
  recommendation?: Recommendation
  /** With a data plane (explain's dataPlane option) only: null when it does what kube-proxy does with this Service's hints, or the Service has and asks for none. */
  dataPlane?: DataPlaneNotice | null
  /**
   * When kube-proxy's Pods were read (DataPlane.proxyNodes): the nodes whose kube-proxy minor
   * treats this Service differently from the newest among the nodes, grouped by minor and zone;
   * empty when none does.
   */
  kubeProxySkew?: SkewNotice[]
  /** With explain's routes option only: the client paths that bypass the node data plane. */
  clientPaths?: ServiceRoutes
}

export interface NodeSummary {
  sufficientNodeInfo: boolean
  zones: {name: string; counted: number; ignored: number; cpuMilli: number; cpuRatio: number | null}[]
  nodes: NodeVerdict[]
  /** Ready worker nodes without a zone label or CPU: each disables hints for every Service. */
  disablingNodes: {name: string; status: NodeVerdict['status']; fix: string}[]
}

export interface ExplainReport {
  apiVersion: typeof SCHEMA_VERSION
  kind: 'TopologyExplanation'
  kubernetesVersion: string
  versionSource: 'server' | 'flag' | 'default'
  warnings: string[]
  nodesReadable: boolean
  cluster: NodeSummary
  /** The data plane assumed (explain's dataPlane option); absent without one. */
  dataPlane?: DataPlaneReport
  /** The meshes and gateways found (explain's routes option); absent without it. */
  routes?: RoutesFound
  services: ServiceExplanation[]
}

// ---------------------------------------------------------------------------------------

export function explain(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}): ExplainReport {
  const f = featuresFor(opts.kubeVersion)
  const warnings: string[] = []
  if (f.warning) warnings.push(f.warning)
  const nodesReadable = state.nodesReadable !== false
  const {capacity, cluster, nodeIndex} = nodeFacts(state.nodes)
  const slicesByService = groupSlices(state.endpointSlices, new Set(services.map((s) => s.metadata.name)))
  const parts = rowParts()
  const skewOf = proxySkewMemo(opts.dataPlane, state.nodes)
  const out: ServiceExplanation[] = []
  const found = opts.routes ? routesFound(opts.routes) : undefined
  for (const svc of services) {
    const key = `${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}`
    const slices = slicesByService.get(key) ?? []
    for (const addressType of addressTypesOf(svc, slices)) {
      out.push(
        explainService({
          service: svc,
          events: state.events,
          slices: slices.filter((s) => s.addressType === addressType),
          allSlices: slices,
          addressType,
          capacity,
          features: f,
          nodes: state.nodes,
          nodeIndex,
          nodesReadable,
          opts,
          parts,
          skewOf,
        }),
      )
      if (opts.routes && found) {
        const zones = cluster.zones.filter((z) => z.counted > 0).map((z) => z.name)
        out[out.length - 1]!.clientPaths = clientPathsOf(found, opts.routes, svc, slices, zones)
      }
    }
  }
  return {
    apiVersion: SCHEMA_VERSION,
    kind: 'TopologyExplanation',
    kubernetesVersion: formatVersion(f.version),
    versionSource: opts.versionSource ?? (opts.kubeVersion ? 'flag' : 'default'),
    warnings,
    nodesReadable,
    cluster,
    ...(opts.dataPlane ? {dataPlane: dataPlaneReport(opts.dataPlane)} : {}),
    ...(found ? {routes: found} : {}),
    services: out,
  }
}

/** The slices of each Service ("namespace/name") named in `names`. */
/**
 * What explain derives from the Nodes alone, by the Nodes array: the advisor and plan explain one
 * Service many times over the same Nodes (each option, each count), and this part grows with the
 * cluster. A memo by identity: the engine never mutates its input, so the same array gives the same facts.
 */
const NODE_FACTS = new WeakMap<readonly Node[], {capacity: ZoneCapacity; cluster: NodeSummary; nodeIndex: ReturnType<typeof indexNodes>}>()
function nodeFacts(nodes: Node[]): {capacity: ZoneCapacity; cluster: NodeSummary; nodeIndex: ReturnType<typeof indexNodes>} {
  let f = NODE_FACTS.get(nodes)
  if (f === undefined) {
    const capacity = zoneCapacity(nodes)
    const cluster = summariseNodes(capacity)
    f = {capacity, cluster, nodeIndex: indexNodes(nodes, cluster)}
    NODE_FACTS.set(nodes, f)
  }
  return f
}

function groupSlices(slices: readonly EndpointSlice[], names: ReadonlySet<string>): Map<string, EndpointSlice[]> {
  const m = new Map<string, EndpointSlice[]>()
  for (let i = 0; i < slices.length; i++) {
    const s = slices[i]!
    const svc = s.metadata.labels?.[LABEL_SERVICE_NAME]
    if (!svc || !names.has(svc)) continue
    const key = `${s.metadata.namespace ?? 'default'}/${svc}`
    const list = m.get(key)
    if (list) list.push(s)
    else m.set(key, [s])
  }
  return m
}

function addressTypesOf(svc: Service, slices: readonly EndpointSlice[]): AddressType[] {
  const seen = new Set<AddressType>()
  for (const s of slices) if (s.addressType !== 'FQDN') seen.add(s.addressType)
  if (seen.size === 0) {
    for (const fam of svc.spec?.ipFamilies ?? ['IPv4']) if (fam === 'IPv4' || fam === 'IPv6') seen.add(fam)
  }
  return [...seen].sort()
}

export function summariseNodes(capacity: ZoneCapacity): NodeSummary {
  const zones = new Map<string, {counted: number; ignored: number; cpuMilli: number}>()
  for (let i = 0; i < capacity.nodes.length; i++) {
    const n = capacity.nodes[i]!
    if (n.zone === null || n.zone === '') continue
    const z = zones.get(n.zone) ?? {counted: 0, ignored: 0, cpuMilli: 0}
    if (n.status === 'counted') {
      z.counted++
      z.cpuMilli += n.milliCPU
    } else z.ignored++
    zones.set(n.zone, z)
  }
  return {
    sufficientNodeInfo: capacity.sufficientNodeInfo,
    zones: [...zones.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, z]) => ({name, ...z, cpuRatio: own(capacity.cpuRatiosByZone, name) ?? null})),
    nodes: capacity.nodes,
    disablingNodes: capacity.nodes
      .filter((n) => n.disablesHints)
      .map((n) => ({
        name: n.name,
        status: n.status,
        fix:
          n.status === 'no-zone-label'
            ? // Prose, not a command: the zone is the node's to know (a template with "<zone>" in it
              // is not runnable), and a pasted name is never a command (issue 20).
              `label node ${n.name} with ${LABEL_ZONE} set to the zone it runs in`
            : `give node ${n.name} allocatable CPU (status.allocatable.cpu is ${n.cpuError ? 'invalid' : 'zero or missing'})`,
      })),
  }
}

interface ServiceInput {
  service: Service
  /** Events on Services, when read (ClusterState.events). */
  events: readonly EventObject[] | undefined
  slices: EndpointSlice[]
  /** Every slice of the Service, all address types (FQDN included). */
  allSlices: readonly EndpointSlice[]
  addressType: AddressType
  capacity: ZoneCapacity
  features: Features
  nodes: readonly Node[]
  nodeIndex: NodeIndex
  nodesReadable: boolean
  opts: ExplainOptions
  parts: RowParts
  /** Each node's kube-proxy rules (proxy-skew.ts), computed once per call. */
  skewOf: (base: ProxyRules) => ProxySkew | null
}

/** Parts of endpoint rows that many rows share, read-only (frozen). */
interface RowParts {
  /** The row's conditions (null = unset). */
  conditions(c: Endpoint['conditions']): EndpointRow['conditions']
  /** The hint names, null without hints. */
  hints(h: Endpoint['hints']): HintNames | null
}

/**
 * Row parts shared by the rows of one explain() call: conditions, and hints that name at most
 * one zone and no node. 50,000 endpoints have a handful of distinct ones, so the rows need not
 * allocate three or four objects each. Other hints get objects of their own.
 */
function rowParts(): RowParts {
  const conditions: EndpointRow['conditions'][] = []
  const code = (v: boolean | null) => (v === null ? 0 : v === true ? 1 : v === false ? 2 : -1)
  const zoneOnly = new Map<string, HintNames>()
  const frozen = (forZones: string[]): HintNames => Object.freeze({forZones: Object.freeze(forZones) as string[], forNodes: Object.freeze([]) as unknown as string[]})
  let none: HintNames | undefined
  return {
    conditions(c) {
      const ready = c?.ready ?? null
      const serving = c?.serving ?? null
      const terminating = c?.terminating ?? null
      const r = code(ready)
      const s = code(serving)
      const t = code(terminating)
      if (r < 0 || s < 0 || t < 0) return {ready, serving, terminating}
      const k = r * 9 + s * 3 + t
      return (conditions[k] ??= Object.freeze({ready, serving, terminating}))
    },
    hints(h) {
      if (!h) return null
      const zones = h.forZones
      const nodes = h.forNodes
      if ((nodes == null || nodes.length === 0) && (zones == null || zones.length <= 1)) {
        if (zones == null || zones.length === 0) return (none ??= frozen([]))
        const name = zones[0]!.name
        let names = zoneOnly.get(name)
        if (names === undefined) zoneOnly.set(name, (names = frozen([name])))
        return names
      }
      return hintNamesOf(h)
    },
  }
}

/** The hints name exactly one zone, one of `zones`, and no node. */
const oneZoneOf = (h: HintNames | null, zones: readonly string[]): boolean => h !== null && h.forNodes.length === 0 && h.forZones.length === 1 && zones.includes(h.forZones[0]!)

const sameHints = (a: HintNames | null, b: HintNames | null): boolean => {
  // Lists of 0 or 1 names (the usual case) need no sorted copy.
  const sorted = (xs: string[]) => (xs.length === 0 ? '' : xs.length === 1 ? xs[0]! : [...xs].sort().join(','))
  const norm = (h: HintNames | null) => (h === null || (h.forZones.length === 0 && h.forNodes.length === 0) ? '' : `${sorted(h.forZones)}|${sorted(h.forNodes)}`)
  return norm(a) === norm(b)
}

/** rec[key] for own keys only: a zone may be named like an Object.prototype member ("constructor"). */
const own = <T>(rec: Record<string, T> | null | undefined, key: string): T | undefined => (rec != null && Object.hasOwn(rec, key) ? rec[key] : undefined)

/** What every Service's explanation needs from the Nodes, computed once per explain() call. */
interface NodeIndex {
  /** Non-empty zone labels of the nodes. */
  zones: Set<string>
  /** Nodes per non-empty zone label, in input order. */
  byZone: Map<string, Node[]>
  /** Per non-empty zone (the verdict's zone label), from nodeVerdicts' verdicts in input order. */
  verdicts: Map<string, {counted: number; ignored: number; cpuMilli: number}>
  /** The nodes sorted by name (the --per-node view; sorted on first use). */
  sorted(): Node[]
  /** Nodes without a (non-empty) zone label. */
  withoutZone: number
}

function indexNodes(nodes: readonly Node[], summary: NodeSummary): NodeIndex {
  const zones = new Set<string>()
  const byZone = new Map<string, Node[]>()
  let withoutZone = 0
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!
    const z = n.metadata.labels?.[LABEL_ZONE]
    if (!z) {
      withoutZone++
      continue
    }
    zones.add(z)
    const list = byZone.get(z)
    if (list) list.push(n)
    else byZone.set(z, [n])
  }
  // The summary's zones (a zone row is never named "").
  const verdicts = new Map(summary.zones.map((z) => [z.name, z]))
  let sorted: Node[] | undefined
  return {zones, byZone, verdicts, withoutZone, sorted: () => (sorted ??= [...nodes].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)))}
}

/** Per zone name: counts over ready endpoints; named: the zone is shown (an endpoint's zone or a hint names it). */
export interface ZoneStats {
  /** Position in `stats` (the traffic estimate's zone id). */
  id: number
  named: boolean
  ready: number
  assigned: number
  liveHints: number
  donatedIn: number
  donatedOut: number
}

/**
 * The endpoint rows of a Service and the per-zone counts, filled slice by slice. (The loop over a
 * slice's endpoints is a method of its own: V8 optimises it after a few slices, where a loop
 * nested in the loop over the slices left optimised code at the end of every slice.)
 */
class Rows {
  /** Sized once for every endpoint of the slices (a list grown by push is copied as it grows). */
  readonly endpoints: EndpointRow[]
  private count = 0
  readonly stats = new Map<string, ZoneStats>()
  /** For the traffic estimate, by row: the zone's id in `stats` (-1: none). */
  readonly rowZone: Int32Array
  /** By row: 1 when kube-proxy counts the endpoint as ready (unset counts, unlike the controller). */
  readonly rowProxyReady: Uint8Array
  withAddress = 0
  readyCount = 0
  /** Endpoints (and ready ones) without a zone. */
  noZone = 0
  noZoneReady = 0
  hinted = false
  anyLiveHints = false
  driftedRows = 0
  donatedCount = 0

  constructor(
    private readonly parts: RowParts,
    slices: readonly EndpointSlice[],
  ) {
    let n = 0
    for (const s of slices) n += s.endpoints?.length ?? 0
    this.endpoints = new Array<EndpointRow>(n)
    this.rowZone = new Int32Array(n)
    this.rowProxyReady = new Uint8Array(n)
  }

  private stat(zone: string): ZoneStats {
    let z = this.stats.get(zone)
    if (z === undefined) this.stats.set(zone, (z = {id: this.stats.size, named: false, ready: 0, assigned: 0, liveHints: 0, donatedIn: 0, donatedOut: 0}))
    return z
  }

  /** The rows of one slice; `predicted` is the slice as the controller writes it (maybe the same object). */
  addSlice(slice: EndpointSlice, predicted: EndpointSlice, alternatives: readonly (string[] | null)[] | undefined): void {
    const {parts, endpoints} = this
    const sliceEndpoints = slice.endpoints ?? []
    for (let j = 0; j < sliceEndpoints.length; j++) {
      const e = sliceEndpoints[j]!
      const p = predicted.endpoints?.[j] ?? e
      const live = parts.hints(e.hints)
      const pred = p === e || p.hints === e.hints ? live : parts.hints(p.hints)
      const zone = e.zone ?? null
      const c = e.conditions
      const ready = c?.ready === true
      const predZone = pred?.forZones.length === 1 ? pred.forZones[0]! : null
      const donatedTo = predZone !== null && zone !== null && predZone !== zone && ready ? predZone : null
      const alts = alternatives?.[j] ?? null
      const choices = alts !== null && alts.length > 1 ? alts : null
      // The same endpoint object (a slice the controller leaves alone) cannot drift, nor can
      // live hints the controller may write in another order (one zone of `alternatives`).
      const drift = p !== e && live !== pred && !sameHints(live, pred) && !(choices !== null && oneZoneOf(live, choices))
      const at = this.count++
      endpoints[at] = {
        addresses: e.addresses,
        nodeName: e.nodeName ?? null,
        zone,
        slice: slice.metadata.name,
        conditions: parts.conditions(c),
        controllerReady: ready,
        liveHints: live,
        predictedHints: pred,
        alternatives: choices,
        donatedTo,
        drift,
      }
      if (drift) this.driftedRows++
      // The zone's own counts first: the hints usually name it.
      const home = zone === null ? null : this.stat(zone)
      if (home !== null && zone) home.named = true
      this.rowZone[at] = home === null ? -1 : home.id
      if (c == null || c.ready == null || c.ready) this.rowProxyReady[at] = 1
      if (e.addresses[0] !== undefined) this.withAddress++
      const liveZones = live?.forZones ?? []
      const predZones = pred?.forZones ?? []
      // A zone named twice in one endpoint's hints counts once.
      for (let k = 0; k < liveZones.length; k++) {
        const z = liveZones[k]!
        const zc = home !== null && z === zone ? home : this.stat(z)
        if (z) zc.named = true
        if (ready && (k === 0 || liveZones.indexOf(z) === k)) zc.liveHints++
      }
      for (let k = 0; k < predZones.length; k++) {
        const z = predZones[k]!
        const zc = home !== null && z === zone ? home : this.stat(z)
        if (z) zc.named = true
        if (ready && (k === 0 || predZones.indexOf(z) === k)) zc.assigned++
      }
      if (home === null) {
        this.noZone++
        if (ready) this.noZoneReady++
      }
      if (ready) {
        this.readyCount++
        if (home !== null) home.ready++
        if (predZones.length > 0) this.hinted = true
        if (live !== null && (live.forZones.length > 0 || live.forNodes.length > 0)) this.anyLiveHints = true
      }
      if (donatedTo !== null) {
        this.donatedCount++
        this.stat(donatedTo).donatedIn++
        home!.donatedOut++
      }
    }
  }
}

function measuredReport(m: MeasuredTrafficInput, t: TrafficEstimate): MeasuredTrafficReport {
  return {
    source: m.source,
    query: m.query,
    clientMix: m.mix,
    crossZoneShare: m.crossZoneShare,
    crossZoneSharePredicted: t.inZoneShareLive === null ? null : 1 - t.inZoneShareLive,
    matrix: m.matrix,
    ignored: m.ignored,
  }
}

function explainService(input: ServiceInput): ServiceExplanation {
  const {service, slices, addressType, capacity, features: f, opts} = input
  const mode = serviceMode(service, f)
  const managedSlices = slices.filter(isManaged)
  const externalName = service.spec?.type === 'ExternalName'
  const headless = service.spec?.clusterIP === 'None'
  const managedByController = !externalName && Boolean(service.spec?.selector && Object.keys(service.spec.selector).length > 0)
  // An address family the Service has no ClusterIP of is not proxied (pkg/proxy/servicechangetracker.go
  // serviceToServiceMap: GetClusterIPByFamily == "" -> no service ports for that family's proxier).
  const noClusterIP = !externalName && !headless && !familyHasClusterIP(service, addressType)
  const proxied = !externalName && !headless && !noClusterIP
  const ratios = input.nodesReadable ? capacity.cpuRatiosByZone : null
  const predictionMode = opts.prediction ?? 'next-sync'
  const state = controllerState(service, mode.path, managedSlices, input.events)

  // What the controller does with its slices at its next sync.
  let prediction: HintPrediction | null = null
  let otherEvents: HintPrediction | null = null
  // Without Nodes (RBAC) the CPU allocation cannot be computed: say so rather than predict
  // the controller's "Insufficient Node information" refusal, which the controller does not make.
  const unpredictable = !input.nodesReadable && mode.path === 'topology-mode-auto'
  if (managedByController && !unpredictable) {
    const args = {service, slices: managedSlices, addressType, ratios, features: f, mode: predictionMode}
    prediction = predictHints({...args, populated: state.hintsPopulated})
    // The mark is a guess (no Events read): the other guess's event is one the controller may record.
    if (state.inferredFrom === 'unknown') otherEvents = predictHints({...args, populated: !state.hintsPopulated})
  }
  const predictedByName = new Map<string, EndpointSlice>()
  for (const s of prediction?.slices ?? []) predictedByName.set(s.metadata.name, s)
  const predictedSlices = slices.map((s) => predictedByName.get(s.metadata.name) ?? s)

  const controller = unpredictable
    ? {
        path: mode.path,
        hintsSet: slices.some((s) => (s.endpoints ?? []).some((e) => (e.hints?.forZones?.length ?? 0) > 0)),
        reason: 'NodesUnreadable',
        message: 'cannot predict the CPU-proportional allocation: Nodes could not be read (missing permission: list nodes); showing the live hints',
        event: null,
        totalReadyEndpoints: countReady(slices),
        prediction: predictionMode,
        slicesToUpdate: [],
        randomChoices: NO_RANDOM_CHOICES,
        state,
      }
    : controllerVerdict(prediction, mode.path, managedByController, predictionMode, addressType, service, countReady(slices), state)
  if (otherEvents !== null) {
    const other = controllerVerdict(otherEvents, mode.path, managedByController, predictionMode, addressType, service, countReady(slices), state).event
    Object.assign(controller, eventUnderGuess(controller.event, other))
  }

  // Endpoint rows, and the per-zone counts, in one pass.
  const rows = new Rows(input.parts, slices)
  const alternatives = prediction?.hintsSet ? prediction.addHints?.alternatives : undefined
  for (let i = 0; i < slices.length; i++) rows.addSlice(slices[i]!, predictedSlices[i]!, alternatives?.bySlice.get(slices[i]!.metadata.name))
  const {endpoints, stats, rowZone, rowProxyReady, withAddress, readyCount, hinted, anyLiveHints, driftedRows, donatedCount, noZone, noZoneReady} = rows

  // kube-proxy, per zone and per node, on live and predicted hints.
  const plane = opts.dataPlane
  const planeRules = !kubeProxyRules(plane)
  // kube-proxy's own version and gate when detected (its image can lag the API server).
  const proxyF = plane?.proxyVersion !== undefined && plane.name === 'kube-proxy' ? featuresFor(plane.proxyVersion) : f
  // --data-plane kube-proxy names no version: the gate is the modelled Kubernetes version's.
  const planeGate = plane?.name === 'kube-proxy' && plane.source === 'flag' ? undefined : plane?.preferSameGate
  const preferSameGate = planeGate ?? proxyF.preferSameTrafficDistribution
  // kube-proxy keeps one endpoint list per Service port, from the slices carrying that port
  // (endpointslicecache.go endpointInfoByServicePort). When every slice carries every port the
  // lists are the same; otherwise the zone and node-level views are those of the first port.
  const servicePorts = (service.spec?.ports ?? []).map((p) => ({name: p.name ?? '', protocol: p.protocol || 'TCP'}))
  const uniformPorts = slices.every((s) => servicePorts.every((p) => carriesPort(s, p)))
  const firstPort = uniformPorts ? undefined : servicePorts[0]
  const forPort = (list: EndpointSlice[], p: {name: string; protocol: string} | undefined) => (p === undefined ? list : list.filter((s) => carriesPort(s, p)))
  const flags = firstPort === undefined ? serviceTrafficFlags(service) : serviceTrafficFlags(service, {portName: firstPort.name})
  const liveProxy = proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate})
  // Nothing rewritten: the predicted endpoints are the live ones (same slices, same result).
  const predProxy = predictedSlices.every((s, i) => s === slices[i]) ? liveProxy : proxyEndpointsFromSlices(forPort(predictedSlices, firstPort), {preferSameGate})
  const requireAnnotation = proxyF.kubeProxyRequiresAnnotation ? {annotations: service.metadata.annotations} : undefined
  const categorizeOpts = {preferSameGate, requireAnnotation}
  // Each node's own kube-proxy version (its Pod) when the data plane's Pods were read: the
  // rules of each node's minor (src/explain/proxy-skew.ts). `skewed` when they differ.
  const baseRules: ProxyRules = {minor: null, preferSameGate, requireAnnotation: proxyF.kubeProxyRequiresAnnotation}
  const skew = planeRules ? null : input.skewOf(baseRules)
  const skewed = proxied && skew?.skewed === true ? skew : null
  // The endpoint lists for the other PreferSame gate: they differ from these only in node hints (same positions).
  const otherGate =
    skewed?.classes.some((c) => c.preferSameGate !== preferSameGate) === true
      ? (() => {
          const live = proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate: !preferSameGate})
          return {live, pred: predProxy === liveProxy ? live : proxyEndpointsFromSlices(forPort(predictedSlices, firstPort), {preferSameGate: !preferSameGate})}
        })()
      : null
  const epsOf = (r: ProxyRules, live: boolean): ProxyEndpoint[] =>
    r.preferSameGate === preferSameGate || otherGate === null ? (live ? liveProxy : predProxy) : live ? otherGate.live : otherGate.pred

  const zoneNames = new Set<string>()
  for (const z of Object.keys(ratios ?? {})) zoneNames.add(z)
  for (const z of input.nodeIndex.zones) zoneNames.add(z)
  for (const [z, c] of stats) if (c.named) zoneNames.add(z)
  const nodesByZone = input.nodeIndex.byZone

  // kube-proxy on a node picks PreferSameNode when every ready endpoint has a node hint and
  // one names that node (topologyModeFromHints): so the nodes that do are exactly the nodes
  // named in node hints, when all ready endpoints have one. One pass instead of one
  // categorization per node.
  const sameNodeNodes = (eps: readonly ProxyEndpoint[], gate = preferSameGate): Set<string> => {
    const names = new Set<string>()
    if (!gate) return names
    for (let i = 0; i < eps.length; i++) {
      const e = eps[i]!
      if (!e.ready) continue
      if (e.nodeHints === null || e.nodeHints.size === 0) return new Set()
      for (const name of e.nodeHints) names.add(name)
    }
    return names
  }
  const liveSameNode = sameNodeNodes(liveProxy)
  const predSameNode = sameNodeNodes(predProxy)
  const measured = opts.measured?.get(`${service.metadata.namespace ?? 'default'}/${service.metadata.name}`)
  const trafficShares = trafficModel(measured?.mix ?? opts.traffic, ratios, capacity)
  // The zone-wide view (a node of the zone that holds no node-hinted endpoint) of every zone
  // shown or weighted by the traffic model, once per endpoint list: the zone rows and the
  // traffic estimate both use it.
  const viewZones = new Set(zoneNames)
  for (const z of Object.keys(trafficShares ?? {})) viewZones.add(z)
  type View = ZoneView & {reason?: ProxyReason | null}
  const views = (eps: readonly ProxyEndpoint[]): Map<string, View> =>
    planeRules ? planeZoneViews(plane!, eps, service, viewZones) : categorizeZones(eps, flags, viewZones, categorizeOpts)
  const liveViews = views(liveProxy)
  const predViews = predProxy === liveProxy ? liveViews : views(predProxy)
  // With skew: each rule set's zone views, and the nodes that go node-local under it.
  type ClassViews = Map<ProxyRules, {views: Map<string, View>; sameNode: Set<string>}>
  const classViews = (live: boolean): ClassViews => {
    const out: ClassViews = new Map()
    for (const c of skewed!.classes) {
      const eps = epsOf(c, live)
      const base = sameRules(c, baseRules)
      out.set(c, {
        views: base ? (live ? liveViews : predViews) : categorizeZones(eps, flags, viewZones, categorizeOptions(c, service)),
        sameNode: sameNodeNodes(eps, c.preferSameGate),
      })
    }
    return out
  }
  const liveClasses = skewed ? classViews(true) : null
  const predClasses = skewed ? (predProxy === liveProxy ? liveClasses : classViews(false)) : null
  const cpuByNode = new Map(capacity.nodes.map((v) => [v.name, v.milliCPU]))
  const zoneRulesOf = (zone: string) => zoneRules(skewed!, nodesByZone.get(zone) ?? [], (n) => cpuByNode.get(n) ?? 0)
  // Under another data plane: the nodes of a zone whose choice is node-local, by node.
  // Only a Service that can go node-local (PreferSameNode, or node hints present) needs one choice per node.
  const nodeLocal = (eps: readonly ProxyEndpoint[]) => service.spec?.trafficDistribution === 'PreferSameNode' || eps.some((e) => (e.nodeHints?.size ?? 0) > 0)
  const planeSameNode = (eps: readonly ProxyEndpoint[], zone: string): number =>
    !nodeLocal(eps)
      ? 0
      : (nodesByZone.get(zone) ?? []).filter((n) => planeNodeChoice(plane!, eps, service, {name: n.metadata.name, labels: n.metadata.labels ?? {}}).mode === 'PreferSameNode')
          .length
  // A zone whose nodes run different kube-proxy minors: the verdict of the rules most of them run;
  // nodesPreferSameNode counts each node under its own rules.
  const skewVerdict = (classes: ClassViews, zone: string): KubeProxyVerdict => {
    const v = classes.get(zoneRulesOf(zone).rules)!.views.get(zone)!
    const nodesPreferSameNode = (nodesByZone.get(zone) ?? []).filter((n) => classes.get(skewed!.rulesOf(n.metadata.name))!.sameNode.has(n.metadata.name)).length
    return {mode: v.topologyMode, fallback: v.fallbackReason !== null, reason: v.fallbackReason, routedEndpoints: v.cluster.length, nodesPreferSameNode}
  }
  const zoneVerdict = (views: Map<string, View>, sameNode: Set<string>, zone: string, eps: readonly ProxyEndpoint[]): KubeProxyVerdict => {
    if (!proxied) return NOT_PROXIED
    const v = views.get(zone)!
    const reason = v.reason !== undefined ? v.reason : v.fallbackReason
    const nodesPreferSameNode = planeRules
      ? plane!.honoursNodeHints === false && plane!.selection !== 'cilium'
        ? 0
        : planeSameNode(eps, zone)
      : sameNode.size === 0
        ? 0
        : (nodesByZone.get(zone) ?? []).filter((n) => sameNode.has(n.metadata.name)).length
    return {
      mode: v.topologyMode,
      fallback: reason !== null,
      reason,
      routedEndpoints: v.cluster.length,
      nodesPreferSameNode,
    }
  }

  const n = prediction?.addHints?.totalReady ?? readyCount
  const allocations = prediction?.addHints?.allocations ?? null
  const auto = mode.path === 'topology-mode-auto'
  const figures = auto && allocations === null && ratios !== null && n > 0 ? allocationFigures(n, ratios) : null

  const noNodes = (z: {counted: number; ignored: number}) => input.nodesReadable && proxied && z.counted + z.ignored === 0
  const zones: ZoneRow[] = sortStrings(zoneNames).map((zone) => {
    const zoneNodes = input.nodeIndex.verdicts.get(zone) ?? {counted: 0, ignored: 0, cpuMilli: 0}
    const counts = stats.get(zone)
    const ready = counts?.ready ?? 0
    const assigned = counts?.assigned ?? 0
    const liveHints = counts?.liveHints ?? 0
    const alloc = auto ? (own(allocations, zone) ?? own(figures, zone) ?? null) : null
    const share = own(trafficShares, zone) ?? null
    // Traffic spreads over every ready endpoint kube-proxy routes to (every slice of the
    // Service, whoever wrote it); the Auto figures above are over the controller's own.
    const desiredForOverload = share !== null ? share * readyCount : null
    const overload = hinted && assigned > 0 && desiredForOverload !== null ? desiredForOverload / assigned - 1 : null
    // desired/minimum/target/maximum are the Auto heuristic's; on other paths, and where the
    // heuristic gives the zone no figure (e.g. the controller's slices have no ready endpoint, the
    // hints are another manager's), the traffic-proportional desired count the overload is
    // measured against: a row with an overload figure always shows its desired count.
    return {
      name: zone,
      nodes: {counted: zoneNodes.counted, ignored: zoneNodes.ignored},
      cpuMilli: zoneNodes.cpuMilli,
      cpuRatio: own(ratios, zone) ?? null,
      trafficShare: share,
      readyEndpoints: ready,
      desired: alloc?.desired ?? (auto && overload === null ? null : desiredForOverload),
      minimum: alloc?.minimum ?? null,
      target: alloc?.target ?? null,
      maximum: alloc?.maximum ?? null,
      assigned,
      expectedOverload: overload,
      donatedIn: counts?.donatedIn ?? 0,
      donatedOut: counts?.donatedOut ?? 0,
      liveHints,
      // A zone no node is in (named only by hints or --traffic) runs no kube-proxy: no verdict to give.
      kubeProxy: noNodes(zoneNodes) ? NO_NODES : liveClasses ? skewVerdict(liveClasses, zone) : zoneVerdict(liveViews, liveSameNode, zone, liveProxy),
      kubeProxyPredicted: noNodes(zoneNodes) ? NO_NODES : predClasses ? skewVerdict(predClasses, zone) : zoneVerdict(predViews, predSameNode, zone, predProxy),
    }
  })

  let nodes: NodeProxyRow[] | undefined
  if (opts.perNode) {
    // Ports whose slices differ from the node-level view's: their own endpoints and flags.
    const ownPortsFor = (gate: boolean) =>
      uniformPorts
        ? []
        : servicePorts.map((p, i) =>
            i === 0 ? null : {eps: proxyEndpointsFromSlices(forPort(slices, p), {preferSameGate: gate}), flags: serviceTrafficFlags(service, {portName: p.name})},
          )
    const ownPortsByGate = new Map<boolean, ReturnType<typeof ownPortsFor>>()
    // Some address is in several slices (kube-proxy merges the copies; the rule changed in 1.36).
    let addresses = 0
    for (const s of forPort(slices, firstPort)) for (const e of s.endpoints ?? []) if (e.addresses?.[0] !== undefined) addresses++
    const duplicated = skew !== null && liveProxy.length < addresses
    // Each node's kube-proxy version, when the Pods were read (null: not known for that node).
    const versionOf = (name: string) => (skew === null ? {} : {kubeProxyVersion: skew.versions.get(name) ?? null})
    nodes = input.nodeIndex.sorted().map((node) => {
      const zone = node.metadata.labels?.[LABEL_ZONE] ?? null
      if (!proxied) {
        const none = {mode: '' as const, fallback: false, reason: 'not-proxied' as const, endpoints: [] as string[]}
        return {
          name: node.metadata.name,
          zone,
          ...versionOf(node.metadata.name),
          ...none,
          clusterEndpoints: [],
          localEndpoints: [],
          ports: servicePorts.map((p) => ({...p, ...none, endpoints: []})),
        }
      }
      if (planeRules) {
        const c = planeNodeChoice(plane!, liveProxy, service, {name: node.metadata.name, labels: node.metadata.labels ?? {}})
        const v = {mode: c.mode, fallback: c.reason !== null, reason: c.reason, endpoints: c.endpoints}
        return {
          name: node.metadata.name,
          zone,
          ...versionOf(node.metadata.name),
          ...v,
          clusterEndpoints: [...c.endpoints],
          localEndpoints: [],
          ports: servicePorts.map((p) => ({...p, ...v, endpoints: [...v.endpoints]})),
        }
      }
      // The node's own kube-proxy rules (the cluster-wide ones without skew).
      const rules = skewed ? skewed.rulesOf(node.metadata.name) : baseRules
      const nodeOpts = sameRules(rules, baseRules) ? categorizeOpts : categorizeOptions(rules, service)
      const categorize = (eps: readonly ProxyEndpoint[], f: typeof flags) => categorizeEndpoints(eps, f, {name: node.metadata.name, labels: node.metadata.labels ?? {}}, nodeOpts)
      const viewOf = (c: ReturnType<typeof categorize>) => ({
        mode: c.topologyMode,
        fallback: c.fallbackReason !== null,
        reason: c.fallbackReason,
        endpoints: c.allReachableEndpoints.map((e) => e.ip),
      })
      // One address in several slices, on a kube-proxy before 1.36: its own merge rule (the local copy wins).
      const legacy = duplicated && mergesLocalCopy(skew, node.metadata.name)
      const c0 = categorize(
        legacy ? proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate: rules.preferSameGate, localCopyWins: node.metadata.name}) : epsOf(rules, true),
        flags,
      )
      const v = viewOf(c0)
      let ownPorts = ownPortsByGate.get(rules.preferSameGate)
      if (ownPorts === undefined) ownPortsByGate.set(rules.preferSameGate, (ownPorts = ownPortsFor(rules.preferSameGate)))
      return {
        name: node.metadata.name,
        zone: node.metadata.labels?.[LABEL_ZONE] ?? null,
        ...versionOf(node.metadata.name),
        ...v,
        clusterEndpoints: c0.clusterEndpoints.map((e) => e.ip),
        localEndpoints: c0.localEndpoints.map((e) => e.ip),
        ports: servicePorts.map((p, i) => {
          const own = ownPorts[i]
          return {...p, ...(own ? viewOf(categorize(own.eps, own.flags)) : {...v, endpoints: [...v.endpoints]})}
        }),
      }
    })
  }

  // Position j of the proxy endpoints is row j when no endpoint lacks an address and no IP
  // repeats (then nothing was skipped or merged); the predicted ones are checked address by address.
  const byRow = (eps: readonly ProxyEndpoint[]): boolean => {
    if (eps.length !== endpoints.length || withAddress !== endpoints.length) return false
    if (eps === liveProxy) return true
    for (let j = 0; j < eps.length; j++) if (eps[j]!.ip !== endpoints[j]!.addresses[0]) return false
    return true
  }
  // Not proxied: clients pick endpoints themselves (DNS), there is nothing to estimate.
  // With skew: each zone's traffic split over the rule sets its nodes run (by their CPU).
  const mix = (classes: ClassViews | null) => {
    if (classes === null) return undefined
    const out = new Map<string, {view: ZoneView; weight: number}[]>()
    for (const zone of viewZones)
      out.set(
        zone,
        [...zoneRulesOf(zone).weights].map(([c, weight]) => ({view: classes.get(c)!.views.get(zone)!, weight})),
      )
    return out
  }
  const estimate = proxied
    ? estimateTraffic(
        trafficShares,
        measured ? 'measured' : opts.traffic ? 'custom' : 'zone-cpu',
        {rows: endpoints, stats, rowZone, rowProxyReady, byRow},
        liveProxy,
        liveViews,
        predProxy,
        predViews,
        {
          live: mix(liveClasses),
          predicted: mix(predClasses),
        },
      )
    : estimateTraffic(null, 'zone-cpu', {rows: endpoints, stats, rowZone, rowProxyReady, byRow}, liveProxy, liveViews, predProxy, predViews)
  const traffic: TrafficEstimate = measured === undefined ? estimate : {...estimate, measured: measuredReport(measured, estimate)}

  const driftCount = managedByController ? driftedRows : 0
  // The live per-zone counts against every count the controller can produce (Auto, hints set).
  let zoneCountDrift = false
  // (Only when every slice is the controller's: the zone rows count the others' hints too.)
  if (managedByController && alternatives?.counts && controller.slicesToUpdate.length > 0 && managedSlices.length === slices.length) {
    const live: Record<string, number> = {}
    for (const z of zones) if (z.liveHints > 0) live[z.name] = z.liveHints
    const key = JSON.stringify(
      Object.keys(live)
        .sort()
        .map((k) => [k, live[k]]),
    )
    zoneCountDrift = !alternatives.counts.some(
      (c) =>
        JSON.stringify(
          Object.keys(c)
            .sort()
            .map((k) => [k, c[k]]),
        ) === key,
    )
  }
  if (controller.path === 'topology-mode-auto' && alternatives) {
    controller.randomChoices = {
      ...controller.randomChoices,
      uncertainEndpoints: endpoints.filter((e) => e.alternatives !== null).length,
      countsCertain: alternatives.counts?.length === 1,
    }
  }
  const findings: Finding[] = []
  if (mode.path === 'topology-mode-auto' && !controller.hintsSet && !unpredictable) findings.push('hints-refused')
  // A zone with nothing (ready) to route to is not a topology fallback (check's no-fallback agrees).
  const topologyFallback = (v: KubeProxyVerdict) => v.fallback && v.reason !== 'no-endpoints' && v.reason !== 'no-ready-endpoints' && v.reason !== 'ignored-by-data-plane'
  if (proxied && (mode.path !== 'none' || anyLiveHints) && zones.some((z) => topologyFallback(z.kubeProxy) && (nodesByZone.get(z.name)?.length ?? 0) > 0)) findings.push('fallback')
  if (driftCount > 0 || zoneCountDrift) findings.push('drift')
  if (controller.hintsSet && zones.some((z) => (own(ratios, z.name) ?? 0) > 0 && z.readyEndpoints === 0)) findings.push('no-endpoints-zone')

  const result: ServiceExplanation = {
    namespace: service.metadata.namespace ?? 'default',
    name: service.metadata.name,
    addressType,
    mode: {...mode, managedByController},
    controller,
    zones,
    totals: {
      readyEndpoints: readyCount,
      endpoints: endpoints.length,
      assigned: zones.reduce((a, z) => a + z.assigned, 0),
      liveHints: zones.reduce((a, z) => a + z.liveHints, 0),
      donated: donatedCount,
      cpuMilli: zones.reduce((a, z) => a + z.cpuMilli, 0),
    },
    endpoints,
    traffic,
    drift: {endpoints: driftCount, zoneCounts: zoneCountDrift},
    findings,
    advice: [],
    lint: opts.figuresOnly ? [] : lintIssues(service, mode, capacity, input.nodesReadable, f),
    applicability: applicability(service, input.allSlices, slices, {externalName, headless, proxied, managedByController, noClusterIP, addressType}),
    withoutZone: noZone > 0 ? {endpoints: noZone, readyEndpoints: noZoneReady, nodes: input.nodeIndex.withoutZone} : null,
  }
  if (nodes) result.nodes = nodes
  if (skew !== null) {
    const anyHint = (f: (h: NonNullable<Endpoint['hints']>) => boolean) => slices.some((s) => (s.endpoints ?? []).some((e) => e.hints != null && f(e.hints)))
    const nodeHints = service.spec?.trafficDistribution === 'PreferSameNode' || anyHint((h) => (h.forNodes?.length ?? 0) > 0)
    const emptyZoneHint = anyHint((h) => (h.forZones ?? []).some((z) => z.name === ''))
    const hinted = proxied && (mode.path !== 'none' || anyLiveHints || controller.hintsSet)
    result.kubeProxySkew = skewNotices(skew, input.nodes, service, {hinted, nodeHints, emptyZoneHint})
  }
  if (plane) {
    result.dataPlane = dataPlaneNotice(plane, proxied && (mode.path !== 'none' || anyLiveHints || controller.hintsSet), anyLiveHints || controller.hintsSet, service)
    if (result.dataPlane?.ignoresHints) findings.push('data-plane-ignores-hints')
  }
  if (!opts.figuresOnly) result.advice = advise(result, capacity, input.nodesReadable)
  return result
}

/**
 * What the data plane does with a Service that has or asks for hints, when that is not what
 * kube-proxy does: its message and fix (src/dataplane/detect.ts words them). Unknown data
 * planes are stated once in the header, not per Service.
 */
function dataPlaneNotice(plane: DataPlane, topology: boolean, hinted: boolean, service: Service): DataPlaneNotice | null {
  if (!topology || plane.name === 'unknown' || plane.message === undefined) return null
  const wantsNode = service.spec?.trafficDistribution === 'PreferSameNode'
  const ignores = plane.honoursZoneHints === false || (wantsNode && plane.honoursNodeHints === false)
  // A data plane that honours zone hints and whose remark is about node hints: only for Services that ask for them.
  if (!ignores && plane.honoursZoneHints === true && plane.honoursNodeHints === false && plane.name === 'antrea') return null
  // The messages say "hints are set"; a Service that asks for hints and has none yet: "requested".
  const message = hinted ? plane.message : plane.message.replace(/^hints are set( and|,)/, 'hints are requested$1')
  return {ignoresHints: ignores, message, fix: plane.fix ?? null}
}

function controllerVerdict(
  prediction: HintPrediction | null,
  path: TopologyPath,
  managed: boolean,
  predictionMode: PredictionMode,
  addressType: AddressType,
  service: Service,
  readyInSlices: number,
  state: ControllerState,
): ControllerVerdict {
  if (!managed || prediction === null) {
    return {
      path: 'not-managed',
      hintsSet: false,
      reason: 'NotManagedByController',
      message:
        service.spec?.type === 'ExternalName'
          ? 'the Service is of type ExternalName: the EndpointSlice controller gives it no endpoints'
          : 'the Service has no selector: the EndpointSlice controller does not manage its EndpointSlices, so their hints stay as written',
      event: null,
      totalReadyEndpoints: readyInSlices,
      prediction: predictionMode,
      slicesToUpdate: [],
      randomChoices: NO_RANDOM_CHOICES,
      state,
    }
  }
  const total = prediction.addHints?.totalReady ?? countReady(prediction.slices)
  const base = {
    path,
    hintsSet: prediction.hintsSet,
    totalReadyEndpoints: total,
    prediction: predictionMode,
    slicesToUpdate: prediction.changedSliceNames,
    randomChoices: prediction.addHints?.randomChoices ? {...NO_RANDOM_CHOICES, ...prediction.addHints.randomChoices} : NO_RANDOM_CHOICES,
    state,
  }
  if (path === 'topology-mode-auto') {
    const event = prediction.events.find((e) => e.reason === 'TopologyAwareHintsDisabled') ?? prediction.events[0] ?? null
    // Hints set on a Service already marked populated: no event, the state is still "enabled".
    const enabled = `Topology Aware Hints has been enabled, addressType: ${addressType}`
    return {...base, reason: event?.reason ?? 'TopologyAwareHintsEnabled', message: event?.message ?? enabled, event}
  }
  if (path === 'traffic-distribution') {
    const td = service.spec?.trafficDistribution ?? ''
    return {
      ...base,
      reason: 'TrafficDistribution',
      message: prediction.hintsSet
        ? `trafficDistribution ${td}: every ready endpoint is hinted for its own zone${td === 'PreferSameNode' ? ' and node' : ''} (the controller records no event on this path)`
        : `trafficDistribution ${td}: no ready endpoint to hint`,
      event: prediction.events[0] ?? null,
    }
  }
  return {
    ...base,
    reason: 'TopologyNotRequested',
    message: 'neither the topology-mode annotation (Auto) nor a usable spec.trafficDistribution is set: the controller removes any hints',
    event: prediction.events[0] ?? null,
  }
}

const NO_RANDOM_CHOICES: RandomChoices = Object.freeze({tieBreaks: 0, receiverChoices: 0, sliceOrder: 0, unchangedOrder: false, uncertainEndpoints: 0, countsCertain: true})

const NO_NODES: KubeProxyVerdict = Object.freeze({mode: '' as const, fallback: false, reason: 'no-nodes' as const, routedEndpoints: 0, nodesPreferSameNode: 0})

const NOT_PROXIED: KubeProxyVerdict = Object.freeze({mode: '' as const, fallback: false, reason: 'not-proxied' as const, routedEndpoints: 0, nodesPreferSameNode: 0})

/**
 * desired/minimum/target/maximum per zone for N endpoints, also when the controller refuses
 * (getAllocations stops at the first failed check; explain still shows the figures).
 */
export function allocationFigures(n: number, ratios: Record<string, number>): Record<string, {desired: number; minimum: number; target: number; maximum: number | null}> {
  const out: Record<string, {desired: number; minimum: number; target: number; maximum: number | null}> = {}
  let sumMin = 0
  for (const zone of sortStrings(Object.keys(ratios))) {
    const desired = ratios[zone]! * n
    const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)))
    sumMin += minimum
    out[zone] = {desired, minimum, target: Math.max(desired, minimum), maximum: 0}
  }
  // Upstream computes the maximum only once the minimums fit (sum <= N).
  for (const z of Object.values(out)) z.maximum = sumMin <= n ? z.minimum + (n - sumMin) : null
  return out
}
