// Which endpoints one node sends a Service's traffic to, per data plane, where the data plane's
// rules differ from kube-proxy's. Pure ports of each project's own code:
//
//   * Calico eBPF v3.31.5+ / v3.32+: felix/bpf/proxy/topology.go FilterEpsByTopologyAwareRouting
//     and FilterEpsByTrafficDistribution, called in that order by felix/bpf/proxy/syncer.go
//     apply() (projectcalico/calico#11751, backported to v3.31.5 by #11859);
//   * Calico eBPF v3.26-v3.30: felix/bpf/proxy/topology.go ShouldAppendTopologyAwareEndpoint,
//     applied per endpoint by syncer.go apply() (projectcalico/calico#7241);
//   * Cilium: pkg/loadbalancer/writer/writer.go DefaultSelectBackends (the version with the
//     candidatesFound/missingHints safeguards) and pkg/loadbalancer/reflectors isTopologyAware;
//   * kube-ovn v1.17+: the service-scoped OVN template load balancers of kubeovn/kube-ovn#7378,
//     with #7457's node-hint rule (from the pull requests' descriptions: see ovn.ts);
//   * kube-proxy and Antrea (pkg/agent/proxy/topology.go is kube-proxy's algorithm with its own
//     PreferSameTrafficDistribution gate): upstream/kube-proxy/topology.ts categorizeEndpoints.
//
// Endpoints are upstream/kube-proxy/endpoint.ts ProxyEndpoints (build them with endpointslicecache.ts
// proxyEndpointsFromSlices, preferSameGate = DataPlane.preferSameGate, so node hints are kept
// exactly when the data plane's EndpointSlice cache keeps them).

import {ANNOTATION_TOPOLOGY_MODE, LABEL_ZONE, type Service} from '../upstream/api/types.js'
import {categorizeEndpoints, type CategorizeOptions} from '../upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {legacyHintsAnnotation, serviceTrafficFlags} from '../upstream/kube-proxy/serviceport.js'
import {ciliumTopologyAware} from './cilium.js'
import {isCilium1180} from './objects.js'
import type {DataPlane, SelectionRule} from './types.js'

export interface NodeRef {
  name: string
  labels: Record<string, string>
}

export interface NodeSelection {
  /** The endpoints this node load-balances to (in input order). */
  endpoints: ProxyEndpoint[]
  /** What narrowed them: 'node' / 'zone' hints, or 'none' (cluster-wide). */
  topology: 'node' | 'zone' | 'none'
}

const has = (s: ReadonlySet<string> | null, v: string) => s !== null && s.has(v)
const size = (s: ReadonlySet<string> | null) => (s === null ? 0 : s.size)

// ---- Calico eBPF v3.31.5+ -------------------------------------------------------------------

/**
 * topology.go FilterEpsByTopologyAwareRouting: only when the topology-mode annotation is "Auto"
 * (any case). Endpoints neither ready nor terminating are skipped; one kept endpoint without a
 * zone hint, or no endpoint hinted for the node's zone, returns every endpoint. The boolean is
 * whether the annotation switched the logic on (then traffic distribution is not tried).
 */
export function calicoFilterByTopologyAwareRouting(endpoints: readonly ProxyEndpoint[], topologyMode: string, nodeZone: string): [ProxyEndpoint[], boolean] {
  if (topologyMode.toLowerCase() !== 'auto') return [[...endpoints], false]
  const eps: ProxyEndpoint[] = []
  for (const ep of endpoints) {
    if (!ep.ready && !ep.terminating) continue
    if (size(ep.zoneHints) === 0) return [[...endpoints], true]
    if (has(ep.zoneHints, nodeZone)) eps.push(ep)
  }
  if (eps.length === 0) return [[...endpoints], true]
  return [eps, true]
}

function calicoFilterByHints(endpoints: readonly ProxyEndpoint[], target: string, hints: (ep: ProxyEndpoint) => ReadonlySet<string> | null): ProxyEndpoint[] {
  return endpoints.filter((ep) => (ep.ready || ep.terminating) && has(hints(ep), target))
}

/**
 * topology.go FilterEpsByTrafficDistribution: endpoints hinted for this node, else for this
 * zone, else all. Unlike kube-proxy, endpoints without hints do not switch it off, and the
 * Service's trafficDistribution field is not consulted (the hints alone decide).
 */
export function calicoFilterByTrafficDistribution(endpoints: readonly ProxyEndpoint[], nodeName: string, nodeZone: string): ProxyEndpoint[] {
  const byNode = calicoFilterByHints(endpoints, nodeName, (ep) => ep.nodeHints)
  if (byNode.length > 0) return byNode
  const byZone = calicoFilterByHints(endpoints, nodeZone, (ep) => ep.zoneHints)
  if (byZone.length > 0) return byZone
  return [...endpoints]
}

// ---- Calico eBPF v3.26-v3.30 ------------------------------------------------------------------

/**
 * topology.go ShouldAppendTopologyAwareEndpoint (v3.26.0-v3.30.x): keep the endpoint unless
 * the hints annotation is "Auto"/"auto", the node has a zone, the endpoint has zone hints and
 * none of them is the node's zone. No all-or-nothing safeguard.
 */
export function calicoShouldAppendTopologyAwareEndpoint(nodeZone: string, hintsAnnotation: string, zoneHints: ReadonlySet<string> | null): boolean {
  if (hintsAnnotation !== 'Auto' && hintsAnnotation !== 'auto') return true
  if (nodeZone.length === 0) return true
  if (size(zoneHints) === 0) return true
  return has(zoneHints, nodeZone)
}

// ---- Cilium -----------------------------------------------------------------------------------

/**
 * writer.go DefaultSelectBackends. Zone part: the Service has TrafficDistribution PreferClose
 * inside Cilium (reflectors: internalTrafficPolicy != Local and isTopologyAware), the node has a
 * zone label, service topology is on; then, over all the service's backends: if every backend
 * has zone hints and one is hinted for this zone, only those are used, else all.
 * Cilium 1.20+ (cilium/cilium#44771, lookahead fixed by #45215): PreferSameZone is an alias of
 * PreferClose, and PreferSameNode keeps the backends whose nodeName is this node's, else all
 * (pkg/loadbalancer/tests/testdata/prefer-same-node.txtar); both need service topology.
 * Active backends are the ready ones; terminating ones only when none is ready.
 *
 * `safeguards: false` is Cilium 1.18.0 (the new load balancer, e35c099d60bf, at da6d7b49):
 * backend by backend, one hinted for other zones only is dropped, one without hints is kept,
 * and nothing falls back when no backend is hinted for the zone (the zone gets none). Fixed in
 * 1.18.1 by cilium/cilium#41116 (backport of #41024, in 1.19.0). Before 1.18 the old
 * pkg/k8s service cache filterEndpoints had both safeguards, the rule above.
 */
export function ciliumSelectBackends(
  endpoints: readonly ProxyEndpoint[],
  service: Service,
  node: NodeRef,
  serviceTopology: boolean,
  opts: {preferSame?: boolean; safeguards?: boolean} = {},
): NodeSelection {
  const spec = service.spec ?? {}
  const itpLocal = spec.internalTrafficPolicy === 'Local'
  const preferSame = opts.preferSame ?? false
  const preferClose = !itpLocal && ciliumTopologyAware(service.metadata.annotations, spec.trafficDistribution, preferSame)
  const zone = node.labels[LABEL_ZONE] ?? ''
  let usable = endpoints.filter((ep) => ep.ready)
  if (usable.length === 0) usable = endpoints.filter((ep) => ep.serving && ep.terminating)
  const local = (ep: ProxyEndpoint) => !itpLocal || ep.nodeName === null || ep.nodeName === node.name
  if (serviceTopology && preferSame && !itpLocal && spec.trafficDistribution === 'PreferSameNode') {
    const onNode = usable.filter((ep) => ep.nodeName === node.name)
    return onNode.length > 0 ? {endpoints: onNode, topology: 'node'} : {endpoints: usable, topology: 'none'}
  }
  if (opts.safeguards === false) {
    const perBackend = serviceTopology && zone !== '' && preferClose
    const kept = usable.filter((ep) => local(ep) && (!perBackend || size(ep.zoneHints) === 0 || has(ep.zoneHints, zone)))
    const narrowed = perBackend && kept.length < usable.filter(local).length
    return {endpoints: kept, topology: narrowed ? 'zone' : 'none'}
  }
  let checkZoneHints = false
  if (serviceTopology && zone !== '' && preferClose) {
    let candidatesFound = false
    let missingHints = false
    for (const be of endpoints) {
      if (size(be.zoneHints) > 0) {
        if (has(be.zoneHints, zone)) candidatesFound = true
      } else {
        missingHints = true
        break
      }
    }
    checkZoneHints = candidatesFound && !missingHints
  }
  const selected = usable.filter((ep) => local(ep) && (!checkZoneHints || has(ep.zoneHints, zone)))
  return {endpoints: selected, topology: checkZoneHints ? 'zone' : 'none'}
}

// ---- kube-ovn v1.17+ --------------------------------------------------------------------------

/**
 * kubeovn/kube-ovn#7378 / #7457: ClusterIP trafficDistribution in OVN template load balancers,
 * per chassis. Only `spec.trafficDistribution` switches it on (not the topology-mode annotation),
 * and not with internalTrafficPolicy Local (strict node-local load balancers instead). Backends
 * are the ready endpoints (pkg/controller/endpoint_slice.go endpointReady). PreferSameNode: when
 * every backend has node hints and one is hinted for this node, those (#7457); else the zone
 * rule. Zone rule (PreferSameZone, PreferClose, and PreferSameNode's fallback): when every
 * backend has zone hints and one is hinted for this zone, those; else all. The completeness
 * condition on zone hints follows kube-proxy's rule (the pull request says "zone -> cluster").
 */
export function kubeOvnSelectBackends(endpoints: readonly ProxyEndpoint[], service: Service, node: NodeRef): NodeSelection {
  const spec = service.spec ?? {}
  const td = spec.trafficDistribution ?? ''
  const itpLocal = spec.internalTrafficPolicy === 'Local'
  const ready = endpoints.filter((ep) => ep.ready)
  const local = (ep: ProxyEndpoint) => !itpLocal || ep.nodeName === node.name
  if (itpLocal || !['PreferClose', 'PreferSameZone', 'PreferSameNode'].includes(td)) return {endpoints: ready.filter(local), topology: 'none'}
  if (td === 'PreferSameNode' && ready.length > 0 && ready.every((ep) => size(ep.nodeHints) > 0)) {
    const onNode = ready.filter((ep) => has(ep.nodeHints, node.name))
    if (onNode.length > 0) return {endpoints: onNode, topology: 'node'}
  }
  const zone = node.labels[LABEL_ZONE] ?? ''
  if (zone !== '' && ready.length > 0 && ready.every((ep) => size(ep.zoneHints) > 0)) {
    const inZone = ready.filter((ep) => has(ep.zoneHints, zone))
    if (inZone.length > 0) return {endpoints: inZone, topology: 'zone'}
  }
  return {endpoints: ready, topology: 'none'}
}

// ---- one entry point --------------------------------------------------------------------------

export interface EndpointsForNodeOptions {
  /**
   * For the kube-proxy rule: kube-proxy's options for the proxy version (features(proxyVersion)):
   * preferSameGate and, for 1.28-1.30, requireAnnotation. Defaults: the plane's preferSameGate,
   * no annotation requirement.
   */
  kubeProxy?: CategorizeOptions
}

/**
 * The endpoints `node` sends `service` traffic to under `plane`'s rules. For 'kube-proxy' it
 * is categorizeEndpoints' allReachableEndpoints; for the others the ports above. A plane without
 * a selection rule (unknown) is treated as kube-proxy.
 */
export function endpointsForNode(
  plane: Pick<DataPlane, 'name' | 'selection' | 'preferSameGate' | 'honoursZoneHints' | 'version'> & {settings?: Record<string, string>},
  endpoints: readonly ProxyEndpoint[],
  service: Service,
  node: NodeRef,
  opts: EndpointsForNodeOptions = {},
): NodeSelection {
  const rule: SelectionRule = plane.selection ?? 'kube-proxy'
  const zone = node.labels[LABEL_ZONE] ?? ''
  const annotations = service.metadata.annotations ?? {}
  switch (rule) {
    case 'all-endpoints': {
      // Hints ignored: kube-proxy's choice with no hints (ready, else serving-terminating).
      const stripped: ProxyEndpoint[] = endpoints.map((ep) => ({...ep, zoneHints: null, nodeHints: null}))
      const c = categorizeEndpoints(stripped, serviceTrafficFlags(service), node, {preferSameGate: false})
      const keep = new Set(c.allReachableEndpoints.map((ep) => stripped.indexOf(ep)))
      return {endpoints: endpoints.filter((_, i) => keep.has(i)), topology: 'none'}
    }
    case 'kube-ovn':
      return kubeOvnSelectBackends(endpoints, service, node)
    case 'cilium':
      return ciliumSelectBackends(endpoints, service, node, plane.honoursZoneHints === true, {
        preferSame: atLeast(plane.version, 1, 20),
        safeguards: !isCilium1180(plane.version),
      })
    case 'calico-tar-td': {
      const [eps, applied] = calicoFilterByTopologyAwareRouting(endpoints, annotations[ANNOTATION_TOPOLOGY_MODE] ?? '', zone)
      if (applied) return {endpoints: eps, topology: eps.length === endpoints.length ? 'none' : 'zone'}
      const td = calicoFilterByTrafficDistribution(endpoints, node.name, zone)
      const byNode = td.length > 0 && td.length !== endpoints.length && td.every((ep) => has(ep.nodeHints, node.name))
      return {endpoints: td, topology: td.length === endpoints.length ? 'none' : byNode ? 'node' : 'zone'}
    }
    case 'calico-annotation': {
      const hints = legacyHintsAnnotation(annotations)
      const eps = endpoints.filter((ep) => (ep.ready || ep.terminating) && calicoShouldAppendTopologyAwareEndpoint(zone, hints, ep.zoneHints))
      const narrowed = eps.length < endpoints.filter((ep) => ep.ready || ep.terminating).length
      return {endpoints: eps, topology: narrowed ? 'zone' : 'none'}
    }
    case 'kube-proxy': {
      let o: CategorizeOptions = opts.kubeProxy ?? {preferSameGate: plane.preferSameGate ?? false}
      if (plane.name === 'antrea' && antreaRequiresAuto(plane.version)) {
        // Antrea before v2.2 (pkg/agent/proxy/topology.go canUseTopology): only "Auto"/"auto".
        const v = legacyHintsAnnotation(annotations)
        if (v !== 'Auto' && v !== 'auto') return endpointsForNode({...plane, selection: 'all-endpoints'}, endpoints, service, node)
        o = {preferSameGate: false, requireAnnotation: {annotations}}
      }
      const c = categorizeEndpoints(endpoints, serviceTrafficFlags(service), node, o)
      return {endpoints: c.allReachableEndpoints, topology: c.topologyMode === 'PreferSameNode' ? 'node' : c.topologyMode === 'PreferSameZone' ? 'zone' : 'none'}
    }
  }
}

/** version >= major.minor; an unknown version counts as the newest. */
function atLeast(version: string | undefined, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '')
  if (!m) return true
  return Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor)
}

function antreaRequiresAuto(version: string | undefined): boolean {
  return version !== undefined && !atLeast(version, 2, 2)
}
