// Istio: sidecars, ambient (ztunnel, waypoints) and Istio's gateways. What it installs, and
// what each of its proxies does with a Service's topology setting, by version. Pure.
//
// Sources (istio/istio; HEAD read at 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c, 1.31.0-alpha.0):
// - Envoy proxies (sidecars, waypoints, gateways): pilot/pkg/networking/core/loadbalancer/
//   loadbalancer.go `GetLocalityLbSetting` (HEAD L265-293): PreferSameZone -> failover priority
//   network, region, zone (forced); PreferSameNode -> network, region, zone, subzone, hostname.
//   First in 1.25.0 (#54715, L50: PreferClose only); PreferSameZone/PreferSameNode from 1.27.0
//   (#56042).
// - ztunnel (ambient): pilot/pkg/serviceregistry/ambient/services.go `preferSameZoneLoadBalancer`
//   / `preferSameNodeLoadBalancer` (HEAD L704-737); first in 1.23.0 (#50519,
//   pilot/pkg/serviceregistry/kube/controller/ambient/services.go L186: PreferClose -> network,
//   region, zone, subzone, as istio/api #3328 documents); the Service annotation
//   networking.istio.io/traffic-distribution from 1.24.0 (#53435); the namespace annotation
//   from 1.30.0 (#58701); PreferSameZone/PreferSameNode from 1.27.0 (#56042).
// - pilot/pkg/model/service.go `GetTrafficDistribution` (HEAD L841-884): spec.trafficDistribution
//   first, then the Service annotation, then the namespace annotation.
// - No file under pilot/ reads EndpointSlice hints (`git grep ForZones` finds none): Istio's
//   proxies ignore hints.forZones, hints.forNodes and the topology-mode annotation.

import type {Service} from '../../upstream/api/types.js'
import type {DaemonSet} from '../types.js'
import {findDaemonSet, imageVersion, ref} from '../objects.js'
import {atLeast, ISTIO_TD_ANNOTATION, modeIsAuto, type TopologySetting} from './setting.js'
import type {ClientPath, ControlPlaneDeployment, NamespaceMeta, ProxyFound} from './types.js'

const ISTIO_ENVOY_SOURCE = 'istio/istio pilot/pkg/networking/core/loadbalancer/loadbalancer.go GetLocalityLbSetting (1.25.0 L50; 1.27.0+ PreferSameZone/PreferSameNode)'
const ISTIO_ZTUNNEL_SOURCE =
  'istio/istio pilot/pkg/serviceregistry/ambient/services.go preferSameZoneLoadBalancer/preferSameNodeLoadBalancer (1.23.0: kube/controller/ambient/services.go L186)'

/** istiod (or a revision's istiod-<rev>) Deployment, any namespace: container "discovery", image .../pilot:<version>. */
export function findIstiod(deployments: readonly ControlPlaneDeployment[]): ProxyFound | undefined {
  const d = deployments.find((x) => /^istiod(-.+)?$/.test(x.metadata.name) && containers(x).some((c) => c.name === 'discovery' || /\/pilot(:|@|$)/.test(c.image ?? '')))
  if (!d) return undefined
  const c = containers(d).find((x) => x.name === 'discovery') ?? containers(d)[0]
  const version = imageVersion(c?.image)
  const rev = d.metadata.labels?.['istio.io/rev']
  return {
    name: 'istio-sidecar',
    ...(version ? {version} : {}),
    settings: rev ? {revision: rev} : {},
    evidence: [`${ref(d, 'Deployment')}: image ${c?.image ?? '(none)'}`],
  }
}

/** The ztunnel DaemonSet (istio-system or any namespace). */
export function findZtunnel(daemonSets: readonly DaemonSet[]): ProxyFound | undefined {
  const d = findDaemonSet(daemonSets, ['ztunnel'])
  if (!d) return undefined
  const c = d.spec?.template?.spec?.containers?.find((x) => x.name === 'istio-proxy') ?? d.spec?.template?.spec?.containers?.[0]
  const version = imageVersion(c?.image)
  return {name: 'istio-ztunnel', ...(version ? {version} : {}), settings: {}, evidence: [`${ref(d, 'DaemonSet')}: image ${c?.image ?? '(none)'}`]}
}

const containers = (d: ControlPlaneDeployment) => d.spec?.template?.spec?.containers ?? []

/** Namespaces whose Pods get a sidecar: istio-injection=enabled, or an istio.io/rev label (and not istio-injection=disabled, not ambient). */
export function sidecarNamespaces(namespaces: readonly NamespaceMeta[]): string[] {
  return namespaces
    .filter((n) => {
      const l = n.metadata.labels ?? {}
      if (l['istio-injection'] === 'disabled' || l['istio.io/dataplane-mode'] === 'ambient') return false
      return l['istio-injection'] === 'enabled' || (l['istio.io/rev'] !== undefined && l['istio.io/rev'] !== '')
    })
    .map((n) => n.metadata.name)
}

/** Namespaces enrolled in ambient mode (label istio.io/dataplane-mode=ambient). */
export function ambientNamespaces(namespaces: readonly NamespaceMeta[]): string[] {
  return namespaces.filter((n) => n.metadata.labels?.['istio.io/dataplane-mode'] === 'ambient').map((n) => n.metadata.name)
}

/** The waypoint a Service's traffic goes through: the Service's label istio.io/use-waypoint, else its namespace's; "none" opts out. */
export function waypointOf(svc: Service, ns: NamespaceMeta | undefined): string | undefined {
  const v = svc.metadata.labels?.['istio.io/use-waypoint'] ?? ns?.metadata.labels?.['istio.io/use-waypoint']
  return v === undefined || v === '' || v === 'none' ? undefined : v
}

/** The trafficDistribution Istio reads (GetTrafficDistribution): the field, else the Service annotation (1.24+), else the namespace's (1.30+). */
function istioTrafficDistribution(svc: Service, ns: NamespaceMeta | undefined, version: string | undefined): {value?: string; from: string} {
  const td = svc.spec?.trafficDistribution
  if (td !== undefined) return {value: td, from: 'spec.trafficDistribution'}
  const svcAnn = svc.metadata.annotations?.[ISTIO_TD_ANNOTATION]
  if (svcAnn !== undefined && atLeast(version, 1, 24) !== false) return {value: svcAnn, from: `annotation ${ISTIO_TD_ANNOTATION}`}
  const nsAnn = ns?.metadata.annotations?.[ISTIO_TD_ANNOTATION]
  if (nsAnn !== undefined && atLeast(version, 1, 30) !== false) return {value: nsAnn, from: `namespace annotation ${ISTIO_TD_ANNOTATION}`}
  return {from: ''}
}

type Rule = Pick<ClientPath, 'zoneHints' | 'nodeHints' | 'verdict' | 'does' | 'source'>

/** Normalises Istio's case-insensitive annotation values to the field's spelling. */
function canonical(v: string | undefined): 'PreferClose' | 'PreferSameZone' | 'PreferSameNode' | undefined {
  const l = v?.toLowerCase()
  return l === 'preferclose' ? 'PreferClose' : l === 'prefersamezone' ? 'PreferSameZone' : l === 'prefersamenode' ? 'PreferSameNode' : undefined
}

/**
 * An Istio proxy's rule for one Service. `kind` envoy: sidecars, waypoints and gateways
 * (pilot's locality load balancing); ztunnel: ambient clients without a waypoint.
 */
export function istioRule(kind: 'envoy' | 'ztunnel', version: string | undefined, svc: Service, ns: NamespaceMeta | undefined, s: TopologySetting): Rule {
  const source = kind === 'envoy' ? ISTIO_ENVOY_SOURCE : ISTIO_ZTUNNEL_SOURCE
  const base = {zoneHints: false as const, nodeHints: false as const, source}
  const who = kind === 'envoy' ? "Istio's Envoy" : 'ztunnel'
  if (kind === 'ztunnel' && s.internalTrafficPolicyLocal) {
    return {...base, verdict: 'honours', does: `${who} keeps internalTrafficPolicy: Local to the client's node (strict)`}
  }
  const td = istioTrafficDistribution(svc, ns, version)
  const value = canonical(td.value)
  const first = kind === 'envoy' ? ([1, 25] as const) : ([1, 23] as const)
  const needs = value === 'PreferClose' ? first : ([1, 27] as const)
  if (value === undefined) {
    const ignored =
      s.asks !== 'none'
        ? ` (${modeIsAuto(s.topologyMode) ? 'it reads neither EndpointSlice hints nor topology-mode' : `it does not know trafficDistribution ${JSON.stringify(td.value ?? '')}`})`
        : ''
    return {
      ...base,
      verdict: s.asks === 'none' ? 'not-asked' : 'ignores',
      does: `${who} spreads over all endpoints unless a DestinationRule sets locality load balancing${ignored}`,
    }
  }
  const ok = atLeast(version, needs[0], needs[1])
  const order =
    value === 'PreferSameNode'
      ? 'node, subzone, zone, region, network'
      : kind === 'ztunnel' && atLeast(version, 1, 27) === false
        ? 'subzone, zone, region, network'
        : 'zone, region, network'
  if (ok === undefined) {
    return {...base, verdict: 'unknown', does: `${value} (from ${td.from}) is honoured from Istio ${needs[0]}.${needs[1]}; the version is unknown`}
  }
  if (!ok) {
    return {
      ...base,
      verdict: s.asks === 'none' ? 'not-asked' : 'ignores',
      does: `${who} ${version} ignores ${value} (honoured from ${needs[0]}.${needs[1]}): it spreads over all endpoints`,
    }
  }
  return {
    ...base,
    verdict: 'honours',
    does: `${who} keeps traffic closest by ${order} (${value}, from ${td.from}), failing over by endpoint health; it reads its own locality, not hints`,
  }
}
