// ingress-nginx: the controller sends to the endpoints of EndpointSlices itself (not to the
// ClusterIP) unless an Ingress sets service-upstream. Pure.
//
// Sources (kubernetes/ingress-nginx; HEAD read at dbb11b92ddb77bee9c35e462479129354c84f939,
// controller-v1.15.0):
// - pkg/flags/flags.go L235: --enable-topology-aware-routing, default false (Helm
//   controller.enableTopologyAwareRouting, charts/ingress-nginx/templates/_params.tpl L60).
// - internal/ingress/controller/controller.go `getIngressPodZone` (HEAD L152-170): the
//   controller's zone is used only for Services with topology-mode "auto" (any case) or, from
//   controller-v1.13.0 (#12974), trafficDistribution exactly PreferClose. Before
//   controller-v1.9.1 (#10282) the annotation read was topology-aware-hints "auto"; the flag
//   first shipped in controller-v1.6.4 (#9165).
// - internal/ingress/controller/endpointslices.go `getEndpointsFromSlices` (HEAD L119-170):
//   per EndpointSlice, when every endpoint has zone hints, only the endpoints hinted for the
//   controller's zone; with PreferClose, a slice with none for this zone is used whole. With
//   the annotation, no endpoint for this zone means no upstream: 503
//   (kubernetes/ingress-nginx#11342, open). hints.forNodes is never read.
// - service-upstream "true" (internal/ingress/annotations/serviceupstream): one upstream, the
//   ClusterIP, so the node data plane picks the endpoint.

import type {Ingress, IngressClass, ControlPlaneDeployment, ClientPath, ProxyFound} from './types.js'
import {commandLine, flagValue, imageVersion, ref} from '../objects.js'
import {atLeast, modeIsAuto, type TopologySetting} from './setting.js'
import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE} from '../../upstream/api/types.js'

const INGRESS_NGINX_SOURCE =
  'kubernetes/ingress-nginx internal/ingress/controller/controller.go getIngressPodZone, endpointslices.go getEndpointsFromSlices (controller-v1.15.0 L119-170); #11342'
export const SERVICE_UPSTREAM = 'nginx.ingress.kubernetes.io/service-upstream'
const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class'

/** The ingress-nginx controller Deployment: a container running /nginx-ingress-controller or an ingress-nginx/controller image. */
export function findIngressNginx(deployments: readonly ControlPlaneDeployment[]): ProxyFound | undefined {
  for (const d of deployments) {
    const c = (d.spec?.template?.spec?.containers ?? []).find(
      (x) => /ingress-nginx\/controller(:|@|$)/.test(x.image ?? '') || commandLine(x).some((a) => a.includes('/nginx-ingress-controller')),
    )
    if (!c) continue
    const argv = commandLine(c)
    const version = imageVersion(c.image)
    const settings: Record<string, string> = {
      'enable-topology-aware-routing': flagValue(argv, 'enable-topology-aware-routing', true) ?? 'false',
      'controller-class': flagValue(argv, 'controller-class') ?? 'k8s.io/ingress-nginx',
      'ingress-class': flagValue(argv, 'ingress-class') ?? 'nginx',
      'watch-ingress-without-class': flagValue(argv, 'watch-ingress-without-class', true) ?? 'false',
    }
    return {name: 'ingress-nginx', ...(version ? {version} : {}), settings, evidence: [`${ref(d, 'Deployment')}: image ${c.image ?? '(none)'}`]}
  }
  return undefined
}

/** Whether this controller serves the Ingress (its class, the default class, or no class when it watches those). */
export function servedBy(found: ProxyFound, ing: Ingress, classes: readonly IngressClass[]): boolean {
  const mine = classes.filter((c) => c.spec?.controller === found.settings['controller-class'])
  const name = ing.spec?.ingressClassName ?? ing.metadata.annotations?.['kubernetes.io/ingress.class']
  if (name !== undefined) return mine.some((c) => c.metadata.name === name) || name === found.settings['ingress-class']
  return mine.some((c) => c.metadata.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true') || found.settings['watch-ingress-without-class'] === 'true'
}

/** Service names an Ingress sends to (default backend and every rule), in its namespace. */
export function ingressBackends(ing: Ingress): string[] {
  const out = new Set<string>()
  const add = (b: {service?: {name: string}} | undefined) => b?.service?.name && out.add(b.service.name)
  add(ing.spec?.defaultBackend)
  for (const r of ing.spec?.rules ?? []) for (const p of r.http?.paths ?? []) add(p.backend)
  return [...out]
}

/**
 * The controller's rule for one Service. `zonesWithoutEndpoints`: zones with nodes where no
 * endpoint is hinted while every endpoint has a zone hint (a controller there gets no upstream).
 */
export function ingressNginxRule(
  found: ProxyFound,
  s: TopologySetting,
  serviceUpstream: boolean,
  zonesWithoutEndpoints: readonly string[],
): Pick<ClientPath, 'zoneHints' | 'nodeHints' | 'verdict' | 'does' | 'source' | 'bypassesNode'> {
  const source = INGRESS_NGINX_SOURCE
  if (serviceUpstream) {
    return {
      bypassesNode: false,
      zoneHints: false,
      nodeHints: false,
      source,
      verdict: s.asks === 'none' ? 'not-asked' : 'honours',
      does: `${SERVICE_UPSTREAM}: "true" sends to the ClusterIP, so the node data plane picks the endpoint`,
    }
  }
  const v = found.version
  const flagOn = found.settings['enable-topology-aware-routing'] === 'true'
  const base = {bypassesNode: true, nodeHints: false as const, source}
  const notAsked = s.asks === 'none'
  if (!flagOn)
    return {
      ...base,
      zoneHints: false,
      verdict: notAsked ? 'not-asked' : 'ignores',
      does: 'ingress-nginx runs without --enable-topology-aware-routing (its default): every endpoint, hints ignored',
    }
  const modeRead = atLeast(v, 1, 9, 1) === false ? ANNOTATION_TOPOLOGY_AWARE_HINTS : ANNOTATION_TOPOLOGY_MODE
  const byMode =
    s.topologyMode !== undefined && s.modeAnnotation === modeRead && (modeRead === ANNOTATION_TOPOLOGY_MODE ? s.topologyMode.toLowerCase() === 'auto' : modeIsAuto(s.topologyMode))
  const tdOk = atLeast(v, 1, 13)
  const byTd = s.trafficDistribution === 'PreferClose' && tdOk !== false
  if (v === undefined && !notAsked) return {...base, zoneHints: 'unknown', verdict: 'unknown', does: 'which settings ingress-nginx reads depends on its version, which is unknown'}
  if (atLeast(v, 1, 6, 4) === false)
    return {...base, zoneHints: false, verdict: notAsked ? 'not-asked' : 'ignores', does: `ingress-nginx ${v} reads no hints (from controller-v1.6.4)`}
  if (!byMode && !byTd) {
    const why =
      s.trafficDistribution !== undefined && s.trafficDistribution !== 'PreferClose'
        ? `it acts on trafficDistribution PreferClose only, not ${s.trafficDistribution}`
        : s.trafficDistribution === 'PreferClose'
          ? `trafficDistribution is read from controller-v1.13.0`
          : `it acts on ${modeRead === ANNOTATION_TOPOLOGY_MODE ? 'topology-mode' : 'topology-aware-hints'} "auto" only`
    return {...base, zoneHints: false, verdict: notAsked ? 'not-asked' : 'ignores', does: `ingress-nginx sends to every endpoint: ${why}`}
  }
  const keep = "keeps the endpoints hinted for the controller's zone when every endpoint of a slice has a zone hint"
  if (byTd) return {...base, zoneHints: true, verdict: 'honours', does: `ingress-nginx ${keep}; a slice with none for that zone is used whole`}
  if (zonesWithoutEndpoints.length > 0) {
    return {
      ...base,
      zoneHints: true,
      verdict: 'partial',
      does: `ingress-nginx ${keep}; a controller in ${zonesWithoutEndpoints.join(', ')} finds none and answers 503 (kubernetes/ingress-nginx#11342)`,
    }
  }
  return {...base, zoneHints: true, verdict: 'honours', does: `ingress-nginx ${keep}; a zone with no hinted endpoint would get 503 (kubernetes/ingress-nginx#11342)`}
}
