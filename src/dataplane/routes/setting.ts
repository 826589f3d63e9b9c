// What a Service asks of the proxies in front of it, and the version helpers the per-project
// rules share. Pure.

import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE, type Service} from '../../upstream/api/types.js'
import {parseSemver, versionAtLeast} from '../objects.js'

/** Istio's own annotation (istio/api annotation/annotations.yaml, `networking.istio.io/traffic-distribution`). */
export const ISTIO_TD_ANNOTATION = 'networking.istio.io/traffic-distribution'

export interface TopologySetting {
  /** spec.trafficDistribution as written. */
  trafficDistribution?: string
  /** service.kubernetes.io/topology-mode, else the deprecated topology-aware-hints, as written. */
  topologyMode?: string
  /** Which annotation topologyMode came from. */
  modeAnnotation?: typeof ANNOTATION_TOPOLOGY_MODE | typeof ANNOTATION_TOPOLOGY_AWARE_HINTS
  internalTrafficPolicyLocal: boolean
  /** What it asks, as kube-proxy reads it: keep to the zone, to the node, or nothing. */
  asks: 'zone' | 'node' | 'none'
}

export function topologySetting(svc: Service): TopologySetting {
  const ann = svc.metadata.annotations ?? {}
  const td = svc.spec?.trafficDistribution
  const mode = ann[ANNOTATION_TOPOLOGY_MODE] ?? ann[ANNOTATION_TOPOLOGY_AWARE_HINTS]
  const out: TopologySetting = {internalTrafficPolicyLocal: svc.spec?.internalTrafficPolicy === 'Local', asks: 'none'}
  if (td !== undefined) out.trafficDistribution = td
  if (mode !== undefined) {
    out.topologyMode = mode
    out.modeAnnotation = ann[ANNOTATION_TOPOLOGY_MODE] !== undefined ? ANNOTATION_TOPOLOGY_MODE : ANNOTATION_TOPOLOGY_AWARE_HINTS
  }
  if (td === 'PreferSameNode') out.asks = 'node'
  else if (td === 'PreferClose' || td === 'PreferSameZone' || modeIsAuto(mode)) out.asks = 'zone'
  return out
}

/** "Auto"/"auto" (the values the EndpointSlice controller acts on). */
export const modeIsAuto = (v: string | undefined) => v === 'Auto' || v === 'auto'

/** "trafficDistribution: PreferSameNode", "topology-mode: Auto", "none". */
export function settingWords(s: TopologySetting): string {
  const parts: string[] = []
  if (s.trafficDistribution !== undefined) parts.push(`trafficDistribution: ${s.trafficDistribution}`)
  if (s.topologyMode !== undefined) parts.push(`${s.modeAnnotation === ANNOTATION_TOPOLOGY_MODE ? 'topology-mode' : 'topology-aware-hints'}: ${s.topologyMode}`)
  if (s.internalTrafficPolicyLocal) parts.push('internalTrafficPolicy: Local')
  return parts.length > 0 ? parts.join(', ') : 'none'
}

/** Version `v` (a release "1.27.1", any tag form parseSemver reads) is at least major.minor.patch; undefined when `v` is not a version. */
export function atLeast(v: string | undefined, major: number, minor: number, patch = 0): boolean | undefined {
  const s = parseSemver(v)
  return s === undefined ? undefined : versionAtLeast(s, major, minor, patch)
}
