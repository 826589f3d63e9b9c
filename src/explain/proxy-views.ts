// kube-proxy's (or the data plane's) side of one Service's explanation, for report.ts: the
// endpoint lists it builds from the live and the predicted slices, the rules it reads them with
// (its own version's gates, each node's under version skew), and the zone-wide view and verdict
// of each zone. Pure.

import {categorizeZones, type CategorizeOptions, type ZoneView} from '../upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {proxyEndpointsFromSlices} from '../upstream/kube-proxy/endpointslicecache.js'
import {serviceTrafficFlags, type ServiceTrafficFlags} from '../upstream/kube-proxy/serviceport.js'
import type {EndpointSlice, Node, Service} from '../upstream/api/types.js'
import {featuresCached as featuresFor, type Features} from '../upstream/features.js'
import type {DataPlane} from '../dataplane/types.js'
import type {ProxyRules} from '../dataplane/proxy-nodes.js'
import {kubeProxyRules, planeNodeChoice, planeZoneViews} from './dataplane-views.js'
import {carriesPort} from './applicability.js'
import {categorizeOptions, sameRules, zoneRules, type ProxySkew} from './proxy-skew.js'
import type {ZoneCapacity} from './node-verdicts.js'
import type {KubeProxyVerdict, ProxyReason} from './report-types.js'

/** A Service port as kube-proxy keys its endpoint lists (name, protocol). */
export interface ServicePortRef {
  name: string
  protocol: string
}

/** The slices of `list` that carry port `p` (all of them when `p` is undefined). */
export const forPort = (list: EndpointSlice[], p: {name: string; protocol: string} | undefined) => (p === undefined ? list : list.filter((s) => carriesPort(s, p)))

/** kube-proxy's endpoint lists of a Service, live and predicted, and the rules it reads them with. */
export interface ProxyLists {
  plane: DataPlane | undefined
  /** Another data plane's rules decide (dataplane-views.ts), not kube-proxy's. */
  planeRules: boolean
  preferSameGate: boolean
  servicePorts: ServicePortRef[]
  uniformPorts: boolean
  /** The port whose endpoints the zone and node-level views use, when the slices' ports differ. */
  firstPort: ServicePortRef | undefined
  flags: ServiceTrafficFlags
  liveProxy: ProxyEndpoint[]
  predProxy: ProxyEndpoint[]
  categorizeOpts: CategorizeOptions
  baseRules: ProxyRules
  skew: ProxySkew | null
  skewed: ProxySkew | null
  /** The endpoint list (live or predicted) for a node running rules `r`. */
  epsOf(r: ProxyRules, live: boolean): ProxyEndpoint[]
  /** The nodes that go node-local (PreferSameNode) on `eps`. */
  sameNodeNodes(eps: readonly ProxyEndpoint[], gate?: boolean): Set<string>
  liveSameNode: Set<string>
  predSameNode: Set<string>
}

export function proxyLists(
  service: Service,
  slices: EndpointSlice[],
  predictedSlices: EndpointSlice[],
  proxied: boolean,
  f: Features,
  plane: DataPlane | undefined,
  skewOf: (base: ProxyRules) => ProxySkew | null,
  /**
   * Only the predicted side is wanted (ExplainOptions.figuresOnly): the "live" lists are the
   * predicted ones, so no list, view or estimate of the live slices is built.
   */
  predictedOnly = false,
): ProxyLists {
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
  const flags = firstPort === undefined ? serviceTrafficFlags(service) : serviceTrafficFlags(service, {portName: firstPort.name})
  const liveSlices = predictedOnly ? predictedSlices : slices
  const liveProxy = proxyEndpointsFromSlices(forPort(liveSlices, firstPort), {preferSameGate})
  // Nothing rewritten: the predicted endpoints are the live ones (same slices, same result).
  const predProxy = predictedSlices.every((s, i) => s === liveSlices[i]) ? liveProxy : proxyEndpointsFromSlices(forPort(predictedSlices, firstPort), {preferSameGate})
  const requireAnnotation = proxyF.kubeProxyRequiresAnnotation ? {annotations: service.metadata.annotations} : undefined
  const categorizeOpts = {preferSameGate, requireAnnotation}
  // Each node's own kube-proxy version (its Pod) when the data plane's Pods were read: the
  // rules of each node's minor (src/explain/proxy-skew.ts). `skewed` when they differ.
  const baseRules: ProxyRules = {minor: null, preferSameGate, requireAnnotation: proxyF.kubeProxyRequiresAnnotation}
  const skew = planeRules ? null : skewOf(baseRules)
  const skewed = proxied && skew?.skewed === true ? skew : null
  // The endpoint lists for the other PreferSame gate: they differ from these only in node hints (same positions).
  const otherGate =
    skewed?.classes.some((c) => c.preferSameGate !== preferSameGate) === true
      ? (() => {
          const live = proxyEndpointsFromSlices(forPort(liveSlices, firstPort), {preferSameGate: !preferSameGate})
          return {live, pred: predProxy === liveProxy ? live : proxyEndpointsFromSlices(forPort(predictedSlices, firstPort), {preferSameGate: !preferSameGate})}
        })()
      : null
  const epsOf = (r: ProxyRules, live: boolean): ProxyEndpoint[] =>
    r.preferSameGate === preferSameGate || otherGate === null ? (live ? liveProxy : predProxy) : live ? otherGate.live : otherGate.pred

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
  // The same list (nothing rewritten, or figuresOnly): the same set, and its per-zone counts made once.
  const predSameNode = predProxy === liveProxy ? liveSameNode : sameNodeNodes(predProxy)
  return {
    plane,
    planeRules,
    preferSameGate,
    servicePorts,
    uniformPorts,
    firstPort,
    flags,
    liveProxy,
    predProxy,
    categorizeOpts,
    baseRules,
    skew,
    skewed,
    epsOf,
    sameNodeNodes,
    liveSameNode,
    predSameNode,
  }
}

/** A zone-wide view, with the data plane's own reason when it is not kube-proxy. */
export type View = ZoneView & {reason?: ProxyReason | null}
/** With skew: each rule set's zone views, and the nodes that go node-local under it. */
export type ClassViews = Map<ProxyRules, {views: Map<string, View>; sameNode: Set<string>}>

/** The zone-wide views of the live and predicted endpoints, and each zone's kube-proxy verdict. */
export interface ZoneViews {
  liveViews: Map<string, View>
  predViews: Map<string, View>
  liveClasses: ClassViews | null
  predClasses: ClassViews | null
  /** Under skew: the rules most of the zone's nodes run, and each rule set's weight (by CPU). */
  zoneRulesOf(zone: string): {rules: ProxyRules; weights: Map<ProxyRules, number>}
  skewVerdict(classes: ClassViews, zone: string): KubeProxyVerdict
  zoneVerdict(views: Map<string, View>, sameNode: Set<string>, zone: string, eps: readonly ProxyEndpoint[]): KubeProxyVerdict
}

export function zoneViews(
  lists: ProxyLists,
  service: Service,
  viewZones: ReadonlySet<string>,
  nodesByZone: Map<string, Node[]>,
  capacity: ZoneCapacity,
  proxied: boolean,
  /** Per zone, how many of its nodes are named in a set (NodeIndex.namedPerZone). */
  namedPerZone: (names: ReadonlySet<string>) => Map<string, number>,
): ZoneViews {
  const {plane, planeRules, flags, categorizeOpts, liveProxy, predProxy, baseRules, skewed, epsOf, sameNodeNodes} = lists
  const views = (eps: readonly ProxyEndpoint[]): Map<string, View> =>
    planeRules ? planeZoneViews(plane!, eps, service, viewZones) : categorizeZones(eps, flags, viewZones, categorizeOpts)
  const liveViews = views(liveProxy)
  const predViews = predProxy === liveProxy ? liveViews : views(predProxy)
  // With skew: each rule set's zone views, and the nodes that go node-local under it.
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
  // Only under skew (built on first use: 5,000 nodes are a Map of 5,000 entries per call).
  // Each zone's once per skew (ZONE_RULES): the skew is made once per Nodes array, and so are
  // the zones' nodes and their CPU (a Map of every Node and a pass over the zone's per Service
  // and mode before).
  let cpuByNode: Map<string, number> | undefined
  const zoneRulesOf = (zone: string) => {
    let byZone = ZONE_RULES.get(skewed!)
    if (byZone === undefined) ZONE_RULES.set(skewed!, (byZone = new Map()))
    let r = byZone.get(zone)
    if (r === undefined) {
      cpuByNode ??= new Map(capacity.nodes.map((v) => [v.name, v.milliCPU]))
      byZone.set(zone, (r = zoneRules(skewed!, nodesByZone.get(zone) ?? [], (n) => cpuByNode!.get(n) ?? 0)))
    }
    return r
  }
  // Under another data plane: the nodes of a zone whose choice is node-local, by node.
  // Only a Service that can go node-local (PreferSameNode, or node hints present) needs one choice per node.
  const nodeLocal = (eps: readonly ProxyEndpoint[]) => service.spec?.trafficDistribution === 'PreferSameNode' || eps.some((e) => (e.nodeHints?.size ?? 0) > 0)
  // Each data plane's rule (src/dataplane/selection.ts endpointsForNode) reads a node's name only
  // to compare it with an endpoint's nodeName or node hints, and its labels only for the zone: the
  // nodes of a zone that no endpoint names all choose alike, so one of them is asked for all (a
  // choice per Node of the zone per Service and mode before: most of the advisor's time under
  // Calico). The names the endpoints use, once per list.
  const namesOf = new Map<readonly ProxyEndpoint[], Set<string>>()
  const endpointNodeNames = (eps: readonly ProxyEndpoint[]): Set<string> => {
    let names = namesOf.get(eps)
    if (names === undefined) {
      names = new Set()
      for (const e of eps) {
        if (e.nodeName !== null) names.add(e.nodeName)
        if (e.nodeHints !== null) for (const n of e.nodeHints) names.add(n)
      }
      namesOf.set(eps, names)
    }
    return names
  }
  const planeSameNode = (eps: readonly ProxyEndpoint[], zone: string): number => {
    if (!nodeLocal(eps)) return 0
    const goesLocal = (n: Node) => planeNodeChoice(plane!, eps, service, {name: n.metadata.name, labels: n.metadata.labels ?? {}}).mode === 'PreferSameNode'
    const named = endpointNodeNames(eps)
    let count = 0
    let unnamed = 0
    let sample: Node | undefined
    for (const n of nodesByZone.get(zone) ?? []) {
      if (named.has(n.metadata.name)) {
        if (goesLocal(n)) count++
      } else {
        unnamed++
        sample ??= n
      }
    }
    return sample !== undefined && goesLocal(sample) ? count + unnamed : count
  }
  // A zone whose nodes run different kube-proxy minors: the verdict of the rules most of them run;
  // nodesPreferSameNode counts each node under its own rules.
  // A node counts when its own rules' node-local set names it: per zone, once per class views, by
  // the names of each set whose rules are those names' own (a filter of each zone's Nodes per
  // verdict before).
  const skewCounts = new Map<ClassViews, Map<string, number>>()
  const skewSameNodeIn = (classes: ClassViews, zone: string): number => {
    let m = skewCounts.get(classes)
    if (m === undefined) {
      m = new Map()
      for (const [c, {sameNode}] of classes) {
        if (sameNode.size === 0) continue
        const own = new Set<string>()
        for (const name of sameNode) if (skewed!.rulesOf(name) === c) own.add(name)
        for (const [z, k] of namedPerZone(own)) m.set(z, (m.get(z) ?? 0) + k)
      }
      skewCounts.set(classes, m)
    }
    return m.get(zone) ?? 0
  }
  const skewVerdict = (classes: ClassViews, zone: string): KubeProxyVerdict => {
    const v = classes.get(zoneRulesOf(zone).rules)!.views.get(zone)!
    const nodesPreferSameNode = skewSameNodeIn(classes, zone)
    return {mode: v.topologyMode, fallback: v.fallbackReason !== null, reason: v.fallbackReason, routedEndpoints: v.cluster.length, nodesPreferSameNode}
  }
  // The node-local nodes per zone, once per set (the live and predicted sets, read for every zone):
  // each zone's nodes were filtered by the set, a pass over every Node per Service and mode.
  const perZone = new Map<Set<string>, Map<string, number>>()
  const sameNodeIn = (sameNode: Set<string>, zone: string): number => {
    let m = perZone.get(sameNode)
    if (m === undefined) perZone.set(sameNode, (m = namedPerZone(sameNode)))
    return m.get(zone) ?? 0
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
        : sameNodeIn(sameNode, zone)
    return {
      mode: v.topologyMode,
      fallback: reason !== null,
      reason,
      routedEndpoints: v.cluster.length,
      nodesPreferSameNode,
    }
  }
  return {liveViews, predViews, liveClasses, predClasses, zoneRulesOf, skewVerdict, zoneVerdict}
}

/** zoneRules of each zone, per skew (read only; see zoneViews' zoneRulesOf). */
const ZONE_RULES = new WeakMap<ProxySkew, Map<string, {rules: ProxyRules; weights: Map<ProxyRules, number>}>>()

const NOT_PROXIED: KubeProxyVerdict = Object.freeze({mode: '' as const, fallback: false, reason: 'not-proxied' as const, routedEndpoints: 0, nodesPreferSameNode: 0})
