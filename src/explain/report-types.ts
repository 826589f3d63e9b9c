// The explanation report's types (schema/explain.v1.json): the report, each Service's
// explanation, its zone, node and endpoint rows, verdicts and estimates. report.ts builds them
// and re-exports them.

import type {FallbackReason, ProxyTopologyMode} from '../upstream/kube-proxy/topology.js'
import type {ModeWarningRule, ServiceMode} from './mode.js'
import type {HintNames} from '../apply/plan.js'
import type {NodeVerdict} from './node-verdicts.js'
import type {PredictionMode, TopologyPath} from '../upstream/endpointslice/reconciler.js'
import type {AddressType, TopologyEvent} from '../upstream/api/types.js'
import type {ControllerState} from './controller-state.js'
import type {DataPlane} from '../dataplane/types.js'
import type {RoutesFound, ServiceRoutes} from '../dataplane/routes/types.js'
import type {RoutesInput} from './client-paths.js'
import type {DataPlaneReport} from '../dataplane/describe.js'
import type {Recommendation} from '../advise/types.js'
import type {MeasuredTraffic} from './measured.js'
import type {SkewNotice} from './proxy-skew.js'
import type {FiguresShare} from './figures-share.js'

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
   * Service, are left empty, and so are the mode's sentences (`mode.why`, `mode.warnings`); the live side is not computed: kube-proxy's lists, views and
   * traffic estimate of the live slices are those of the predicted ones (so `traffic.*Live`,
   * each zone's `kubeProxy` and the findings read from them describe the predicted hints), nor
   * are AddHints' alternatives (the rows' `alternatives`, `controller.randomChoices`, the drift
   * they excuse), nor the controller's "hints populated" mark, which decides only its events (the
   * state is given as `assumed`, not populated, and the events follow from that; `slicesToUpdate`
   * is empty). The endpoint rows and the zones' counts are those
   * of the live slices with no prediction applied (each row's predicted hints are its live ones,
   * so `assigned`, donations, drift and overloads are not the prediction's; the zones named only
   * by predicted hints, which no node is in, have no row): the figures read only the rows'
   * zones, readiness and addresses. Every other field is as without it. Not for a report
   * anyone prints.
   */
  figuresOnly?: boolean
  /**
   * With figuresOnly: what the evaluations of one Service in several modes share (the live rows,
   * fresh mode's hint-cleared slices), made once by the caller (src/explain/figures-share.ts).
   */
  figuresShare?: FiguresShare
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
