// Envoy Gateway: its Envoy proxies send to the endpoints of EndpointSlices (not the ClusterIP)
// and group them by the endpoints' zones. Pure.
//
// Sources (envoyproxy/gateway; read at d32f28294245e454d20f81d323d626a90e660c1e, v1.9.0):
// - internal/gatewayapi/route.go `processPreferLocalZone` (v1.9.0 L3162-3190, first in v1.5.0,
//   #6485): any trafficDistribution value -> force the local zone (min 1 endpoint), so
//   PreferSameNode acts as PreferSameZone (envoyproxy/gateway#9537, open: not fixed in any
//   release up to v1.9.0); topology-mode "Auto"/"auto" -> force the local zone when it has 3
//   endpoints.
// - v1.4.0 internal/gatewayapi/route.go `isZoneAwareRoutingEnabled` (L1586-1604, #5299):
//   trafficDistribution PreferClose or topology-mode "Auto"/"auto" -> Envoy's zone-aware
//   routing (weighted by the endpoints per zone, not forced).
// - Hints are not read: the zone is the endpoint's own `zone` field.

import {imageVersion, ref} from '../objects.js'
import {atLeast, type TopologySetting} from './setting.js'
import type {ClientPath, ControlPlaneDeployment, ProxyFound} from './types.js'

export const ENVOY_GATEWAY_CONTROLLER = 'gateway.envoyproxy.io/gatewayclass-controller'
const ENVOY_GATEWAY_SOURCE = 'envoyproxy/gateway internal/gatewayapi/route.go processPreferLocalZone (v1.9.0 L3162-3190; v1.4.0 isZoneAwareRoutingEnabled L1586); #9537'

/** The envoy-gateway Deployment (image .../envoyproxy/gateway:<version>). */
export function findEnvoyGateway(deployments: readonly ControlPlaneDeployment[]): ProxyFound | undefined {
  for (const d of deployments) {
    const c = (d.spec?.template?.spec?.containers ?? []).find((x) => /envoyproxy\/gateway(-dev)?(:|@|$)/.test(x.image ?? ''))
    if (!c) continue
    const version = imageVersion(c.image)
    return {name: 'envoy-gateway', ...(version ? {version} : {}), settings: {}, evidence: [`${ref(d, 'Deployment')}: image ${c.image ?? '(none)'}`]}
  }
  return undefined
}

export function envoyGatewayRule(version: string | undefined, s: TopologySetting): Pick<ClientPath, 'zoneHints' | 'nodeHints' | 'verdict' | 'does' | 'source'> {
  const base = {zoneHints: false as const, nodeHints: false as const, source: ENVOY_GATEWAY_SOURCE}
  const notAsked = s.asks === 'none'
  const td = s.trafficDistribution
  const auto = s.modeAnnotation !== 'service.kubernetes.io/topology-aware-hints' && (s.topologyMode === 'Auto' || s.topologyMode === 'auto')
  const v15 = atLeast(version, 1, 5)
  const v14 = atLeast(version, 1, 4)
  if (v15 === undefined && !notAsked) return {...base, verdict: 'unknown', does: 'what Envoy Gateway does depends on its version, which is unknown'}
  if (v14 === false) return {...base, verdict: notAsked ? 'not-asked' : 'ignores', does: `Envoy Gateway ${version} has no zone-aware routing (from v1.4.0): every endpoint`}
  if (v15 === false) {
    if (td === 'PreferClose' || (td === undefined && auto))
      return {...base, verdict: 'honours', does: "Envoy's zone-aware routing prefers the proxy's zone in proportion to the endpoints there (not strict)"}
    return {...base, verdict: notAsked ? 'not-asked' : 'ignores', does: `Envoy Gateway ${version} acts on PreferClose and topology-mode Auto only: every endpoint`}
  }
  if (td !== undefined) {
    if (td === 'PreferSameNode')
      return {
        ...base,
        verdict: 'partial',
        does: "PreferSameNode acts as PreferSameZone: any trafficDistribution value forces the proxy's zone (min 1 endpoint) (envoyproxy/gateway#9537)",
      }
    return {...base, verdict: 'honours', does: "Envoy Gateway forces the proxy's zone while it has an endpoint, else all zones"}
  }
  if (auto) return {...base, verdict: 'honours', does: "Envoy Gateway forces the proxy's zone while it has 3 endpoints, else all zones"}
  return {...base, verdict: notAsked ? 'not-asked' : 'ignores', does: 'Envoy Gateway reads no hints and acts on trafficDistribution or topology-mode Auto only: every endpoint'}
}
