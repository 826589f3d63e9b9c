// explain's figures for a Service as it is (now, after the next sync) and under each mode (as
// after a fresh sync). A mode is set exactly as `kubectl topology apply --mode` sets it
// (apply/plan.ts desiredFields), so the figures are those of the Service the printed command
// leaves behind.
import {explain, type ServiceExplanation, type ZoneRow} from '../explain/report.js'
import {desiredFields, topologyFieldsOf, withFields, type ModeValue} from '../apply/plan.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'
import type {AdviseOptions, Figures, TopologyMode} from './types.js'

/** apply's name of a mode (`none` is apply's `--mode none`). */
export const applyModeOf = (m: TopologyMode): ModeValue => m

/**
 * The Service as `kubectl topology apply --mode <mode>` leaves it: apply's withFields decides the
 * annotations and spec.trafficDistribution, on a copy of those two alone. withFields deep-copies
 * the whole Service (labels, ports, managedFields...), which was the largest single cost of the
 * advisor's per-mode evaluations; the rest of the Service is shared with `svc` here (the engine
 * never mutates its input), with the same keys in the same order (a test compares the two).
 */
export function serviceWithMode(svc: Service, mode: TopologyMode): Service {
  const fields = desiredFields(topologyFieldsOf(svc), applyModeOf(mode)).fields
  const thin = withFields(
    {
      metadata: {name: svc.metadata.name, ...(svc.metadata.annotations !== undefined ? {annotations: svc.metadata.annotations} : {})},
      spec: svc.spec?.trafficDistribution !== undefined ? {trafficDistribution: svc.spec.trafficDistribution} : {},
    },
    fields,
  )
  const metadata = {...svc.metadata}
  if (thin.metadata.annotations !== undefined) metadata.annotations = thin.metadata.annotations
  else delete metadata.annotations
  const spec = {...(svc.spec ?? {})}
  if (thin.spec?.trafficDistribution !== undefined) spec.trafficDistribution = thin.spec.trafficDistribution
  else delete spec.trafficDistribution
  return {...svc, metadata, spec}
}

/** The mode the controller takes for the Service as written (explain's path). */
export function currentModeOf(s: ServiceExplanation): TopologyMode {
  if (s.mode.path === 'topology-mode-auto') return 'Auto'
  if (s.mode.path === 'traffic-distribution') {
    const v = s.mode.trafficDistribution
    if (v === 'PreferSameZone' || v === 'PreferSameNode' || v === 'PreferClose') return v
  }
  return 'none'
}

/** kube-proxy verdicts that are not about hints (nothing to route to; a data plane that ignores them; not proxied). */
const NOT_TOPOLOGY = new Set(['no-endpoints', 'no-ready-endpoints', 'ignored-by-data-plane', 'not-proxied'])
const fallsBack = (v: ZoneRow['kubeProxy']) => v.fallback && !NOT_TOPOLOGY.has(v.reason ?? '')
const hasNodes = (z: ZoneRow) => z.nodes.counted + z.nodes.ignored > 0

/** Now: what the data plane does with the hints live on the endpoints now. */
export function nowFigures(s: ServiceExplanation): Figures {
  const hints = s.totals.liveHints > 0
  const fallbackZones = hints ? s.zones.filter((z) => hasNodes(z) && fallsBack(z.kubeProxy)).map((z) => z.name) : []
  return {
    hints,
    reason: !hints ? 'NoLiveHints' : fallbackZones.length > 0 ? 'LiveHintsIgnoredInSomeZones' : 'LiveHintsInUse',
    inZone: s.traffic.inZoneShareLive,
    worstOverload: s.traffic.maxEndpointOverloadLive,
    worstZone: s.traffic.worstZoneLive,
    fallbackZones,
  }
}

/** After the next sync: what the controller writes at its next sync (explain's prediction of the report). */
export function predictedFigures(s: ServiceExplanation): Figures {
  return {
    hints: s.controller.hintsSet,
    reason: s.controller.reason,
    inZone: s.traffic.inZoneSharePredicted,
    worstOverload: s.traffic.maxEndpointOverloadPredicted,
    worstZone: s.traffic.worstZonePredicted,
    fallbackZones: s.controller.hintsSet ? s.zones.filter((z) => hasNodes(z) && fallsBack(z.kubeProxyPredicted)).map((z) => z.name) : [],
  }
}

/** explain's figures for the Service in `state` with `mode` set, as after a fresh sync (every slice rewritten). */
export function figuresWithMode(state: ClusterState, svc: Service, mode: TopologyMode, opts: AdviseOptions): Figures | null {
  const s = serviceWithMode(svc, mode)
  const services = state.services.map((x) => (x === svc ? s : x))
  if (!services.includes(s)) services.push(s)
  const report = explain({...state, services}, [s], {
    kubeVersion: opts.kubeVersion,
    traffic: opts.traffic,
    prediction: 'fresh',
    figuresOnly: true,
    ...(opts.dataPlane ? {dataPlane: opts.dataPlane} : {}),
  })
  const first = report.services[0]
  return first === undefined ? null : predictedFigures(first)
}
