// explain's per-zone and per-node views under a data plane other than kube-proxy: the same
// shape as kube-proxy's (upstream/kube-proxy/topology.ts ZoneView, categorizeEndpoints), from
// src/dataplane/selection.ts endpointsForNode, so the zone rows, the --per-node rows and the
// in-zone estimate follow the data plane. Pure.

import {endpointsForNode, type NodeSelection} from '../dataplane/selection.js'
import type {DataPlane} from '../dataplane/types.js'
import {LABEL_ZONE, type Service} from '../upstream/api/types.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import type {ProxyTopologyMode, ZoneView} from '../upstream/kube-proxy/topology.js'
import type {DataPlaneNotice, ProxyReason} from './report-types.js'

/**
 * True when kube-proxy's own rules (categorizeZones) model the data plane: none given, unknown
 * (kube-proxy's rules are assumed), or kube-proxy honouring hints. Antrea is kube-proxy's
 * algorithm too, but before v2.2 with its own annotation rule: it goes through endpointsForNode.
 */
export function kubeProxyRules(plane: DataPlane | undefined): boolean {
  return plane === undefined || plane.selection === undefined || (plane.selection === 'kube-proxy' && plane.name !== 'antrea')
}

const MODE: Record<NodeSelection['topology'], ProxyTopologyMode> = {node: 'PreferSameNode', zone: 'PreferSameZone', none: ''}

/** A view's fallback reason: why hints carried by the endpoints did not narrow this node's choice. */
function reasonFor(plane: DataPlane, eps: readonly ProxyEndpoint[], sel: NodeSelection, zone: string): ProxyReason | null {
  if (eps.length === 0) return 'no-endpoints'
  if (sel.topology !== 'none') return null
  const ready = eps.filter((e) => e.ready)
  const hinted = eps.some((e) => (e.zoneHints?.size ?? 0) > 0 || (e.nodeHints?.size ?? 0) > 0)
  if (!hinted) return ready.length === 0 ? 'no-ready-endpoints' : null
  if (plane.honoursZoneHints === false) return 'ignored-by-data-plane'
  if (ready.length === 0) return 'no-ready-endpoints'
  if (zone === '') return 'node-has-no-zone'
  if (ready.some((e) => (e.zoneHints?.size ?? 0) === 0)) return 'unhinted-ready-endpoint'
  if (!ready.some((e) => e.zoneHints?.has(zone))) return 'no-hint-for-zone'
  // Hints for this zone, and still not used: the data plane does not treat the Service as
  // topology-aware (Cilium without the annotation or PreferClose; Calico before v3.31 without "Auto").
  return 'not-topology-aware-for-data-plane'
}

export interface PlaneView extends ZoneView {
  fallbackReason: ZoneView['fallbackReason']
  /** The reason in explain's terms (ZoneView's FallbackReason plus the data plane's). */
  reason: ProxyReason | null
}

/** The zone-wide view (a node named "" in the zone) of every zone in `zones` under `plane`. */
export function planeZoneViews(plane: DataPlane, eps: readonly ProxyEndpoint[], service: Service, zones: Iterable<string>): Map<string, PlaneView> {
  const at = new Map<ProxyEndpoint, number>()
  eps.forEach((e, i) => at.set(e, i))
  const out = new Map<string, PlaneView>()
  for (const zone of zones) {
    const sel = endpointsForNode(plane, eps, service, {name: '', labels: {[LABEL_ZONE]: zone}})
    const cluster = Int32Array.from(sel.endpoints.map((e) => at.get(e) ?? -1).filter((i) => i >= 0)).sort()
    const reason = reasonFor(plane, eps, sel, zone)
    out.set(zone, {topologyMode: MODE[sel.topology], fallbackReason: null, reason, cluster})
  }
  return out
}

/** One node's choice under `plane`: mode, reason and the endpoints' IPs (the --per-node row). */
export function planeNodeChoice(
  plane: DataPlane,
  eps: readonly ProxyEndpoint[],
  service: Service,
  node: {name: string; labels: Record<string, string>},
): {mode: ProxyTopologyMode; reason: ProxyReason | null; endpoints: string[]} {
  const sel = endpointsForNode(plane, eps, service, node)
  return {mode: MODE[sel.topology], reason: reasonFor(plane, eps, sel, node.labels[LABEL_ZONE] ?? ''), endpoints: sel.endpoints.map((e) => e.ip)}
}

/**
 * What the data plane does with a Service that has or asks for hints, when that is not what
 * kube-proxy does: its message and fix (src/dataplane/detect.ts and each data plane's file word
 * them). Unknown data planes are stated once in the header, not per Service.
 */
export function dataPlaneNotice(plane: DataPlane, topology: boolean, hinted: boolean, service: Service): DataPlaneNotice | null {
  if (!topology || plane.name === 'unknown' || plane.message === undefined) return null
  const wantsNode = service.spec?.trafficDistribution === 'PreferSameNode'
  const ignores = plane.honoursZoneHints === false || (wantsNode && plane.honoursNodeHints === false)
  // A data plane that honours zone hints and whose remark is about node hints: only for Services that ask for them.
  if (!ignores && plane.honoursZoneHints === true && plane.honoursNodeHints === false && plane.name === 'antrea') return null
  // The messages say "hints are set"; a Service that asks for hints and has none yet: "requested".
  const message = hinted ? plane.message : plane.message.replace(/^hints are set( and|,)/, 'hints are requested$1')
  return {ignoresHints: ignores, message, fix: plane.fix ?? null}
}
