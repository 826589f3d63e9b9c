// Who routes each request to a Service: the meshes and gateways found (findProxies) and, per
// Service, the client paths that bypass the node data plane and what each does with the
// Service's topology setting (serviceRoutes). The per-project rules are in istio.ts,
// linkerd.ts, ingress-nginx.ts, envoy-gateway.ts; docs/dataplane.md has the table. Pure.

import type {Service} from '../../upstream/api/types.js'
import {ENVOY_GATEWAY_CONTROLLER, envoyGatewayRule, findEnvoyGateway} from './envoy-gateway.js'
import {gatewaysFor, ISTIO_GATEWAY_CONTROLLER, ISTIO_MESH_CONTROLLER} from './gateway-api.js'
import {findIngressNginx, ingressBackends, ingressNginxRule, SERVICE_UPSTREAM, servedBy} from './ingress-nginx.js'
import {ambientNamespaces, findIstiod, findZtunnel, istioRule, sidecarNamespaces, waypointOf} from './istio.js'
import {findLinkerd, linkerdNamespaces, linkerdRule} from './linkerd.js'
import {settingWords, topologySetting} from './setting.js'
import type {ClientPath, NamespaceMeta, ProxyFound, RoutesFound, RoutesObjects, ServiceRoutes} from './types.js'

/** Pod labels that mark a mesh's proxy: Istio's injector sets security.istio.io/tlsMode=istio, Linkerd's linkerd.io/control-plane-ns. */
export const ISTIO_SIDECAR_LABEL = 'security.istio.io/tlsMode'
export const LINKERD_PROXY_LABEL = 'linkerd.io/control-plane-ns'

export const OTHER_CLUSTERS = 'clients in other clusters (a multi-cluster mesh, an east-west gateway, a load balancer outside) are not seen from this cluster'

/** The meshes and gateways the objects show. */
export function findProxies(o: RoutesObjects, source: RoutesFound['source'] = 'detected'): RoutesFound {
  const deployments = o.deployments ?? []
  const found = [findIstiod(deployments), findZtunnel(o.daemonSets ?? []), findLinkerd(deployments), findIngressNginx(deployments), findEnvoyGateway(deployments)]
  return {proxies: found.filter((p): p is ProxyFound => p !== undefined), warnings: [...(o.warnings ?? [])], source}
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** Namespaces (sorted) from labels plus those of the Pods carrying `podLabel`, with a Pod count. */
function meshedNamespaces(byLabel: string[], o: RoutesObjects, podLabel: string, podValue?: string): {namespaces: string[]; pods: number} {
  const set = new Set(byLabel)
  let pods = 0
  for (const p of o.pods ?? []) {
    const v = p.metadata.labels?.[podLabel]
    if (v === undefined || (podValue !== undefined && v !== podValue)) continue
    pods++
    set.add(p.metadata.namespace ?? 'default')
  }
  return {namespaces: [...set].sort(), pods}
}

export interface ServiceRoutesContext {
  /** Zones with nodes where no endpoint of this Service is hinted while every endpoint carries a zone hint. */
  zonesWithoutEndpoints?: readonly string[]
}

/** The client paths of one Service that bypass the node data plane, and what cannot be known. */
export function serviceRoutes(found: RoutesFound, o: RoutesObjects, svc: Service, ctx: ServiceRoutesContext = {}): ServiceRoutes {
  const s = topologySetting(svc)
  const ns = svc.metadata.namespace ?? 'default'
  const nsObj: NamespaceMeta | undefined = (o.namespaces ?? []).find((n) => n.metadata.name === ns)
  const by = (name: ProxyFound['name']) => found.proxies.find((p) => p.name === name)
  const paths: ClientPath[] = []
  const unknown: string[] = []
  const nsList = (l: string[]) => (l.length > 6 ? `${l.slice(0, 6).join(', ')} and ${l.length - 6} more` : l.join(', '))

  const istiod = by('istio-sidecar')
  if (istiod) {
    const m = meshedNamespaces(sidecarNamespaces(o.namespaces ?? []), o, ISTIO_SIDECAR_LABEL, 'istio')
    if (m.namespaces.length > 0) {
      paths.push({
        via: 'istio-sidecar',
        clients: `Pods with an Istio sidecar in ${m.namespaces.length === 1 ? 'namespace' : 'namespaces'} ${nsList(m.namespaces)}`,
        ...(istiod.version ? {version: istiod.version} : {}),
        bypassesNode: true,
        ...istioRule('envoy', istiod.version, svc, nsObj, s),
        evidence: [...istiod.evidence, ...(m.pods > 0 ? [`${plural(m.pods, 'Pod')} labelled ${ISTIO_SIDECAR_LABEL}=istio`] : [])],
      })
    }
  }
  const ztunnel = by('istio-ztunnel')
  const ambient = meshedNamespaces(ambientNamespaces(o.namespaces ?? []), o, 'istio.io/dataplane-mode', 'ambient')
  if (ambient.namespaces.length > 0 && (ztunnel || istiod)) {
    const waypoint = waypointOf(svc, nsObj)
    const clients = `Pods in ambient ${ambient.namespaces.length === 1 ? 'namespace' : 'namespaces'} ${nsList(ambient.namespaces)}`
    const evidence = [...(ztunnel?.evidence ?? []), ...(istiod?.evidence ?? [])]
    if (waypoint) {
      const v = istiod?.version
      paths.push({
        via: 'istio-waypoint',
        clients: `${clients}, through waypoint ${waypoint}`,
        ...(v ? {version: v} : {}),
        bypassesNode: true,
        ...istioRule('envoy', v, svc, nsObj, s),
        evidence: [...evidence, `istio.io/use-waypoint: ${waypoint}`],
      })
    } else {
      const v = ztunnel?.version ?? istiod?.version
      paths.push({via: 'istio-ztunnel', clients, ...(v ? {version: v} : {}), bypassesNode: true, ...istioRule('ztunnel', v, svc, nsObj, s), evidence})
    }
    if (!ztunnel) unknown.push('ambient namespaces are labelled but no ztunnel DaemonSet was found: ztunnel may not be running')
  }
  const linkerd = by('linkerd')
  if (linkerd) {
    const m = meshedNamespaces(linkerdNamespaces(o.namespaces ?? []), o, LINKERD_PROXY_LABEL)
    if (m.namespaces.length > 0) {
      paths.push({
        via: 'linkerd',
        clients: `Pods meshed by Linkerd in ${m.namespaces.length === 1 ? 'namespace' : 'namespaces'} ${nsList(m.namespaces)}`,
        ...(linkerd.version ? {version: linkerd.version} : {}),
        bypassesNode: true,
        ...linkerdRule(linkerd.version, s),
        evidence: [...linkerd.evidence, ...(m.pods > 0 ? [`${plural(m.pods, 'Pod')} labelled ${LINKERD_PROXY_LABEL}`] : [])],
      })
    }
  }
  if ((istiod || linkerd) && o.pods === undefined) unknown.push('Pods could not be read: meshed clients are known by their namespace labels only')

  // Ingresses in the Service's namespace that send to it.
  const nginx = by('ingress-nginx')
  for (const ing of o.ingresses ?? []) {
    if ((ing.metadata.namespace ?? 'default') !== ns || !ingressBackends(ing).includes(svc.metadata.name)) continue
    const name = `Ingress ${ns}/${ing.metadata.name}`
    if (nginx && servedBy(nginx, ing, o.ingressClasses ?? [])) {
      const upstream = ing.metadata.annotations?.[SERVICE_UPSTREAM] === 'true'
      paths.push({
        via: 'ingress-nginx',
        clients: `${name} (ingress-nginx)`,
        ...(nginx.version ? {version: nginx.version} : {}),
        ...ingressNginxRule(nginx, s, upstream, ctx.zonesWithoutEndpoints ?? []),
        evidence: [...nginx.evidence],
      })
    } else {
      const cls = ing.spec?.ingressClassName ?? ing.metadata.annotations?.['kubernetes.io/ingress.class']
      unknown.push(`${name}${cls ? ` (class ${cls})` : ''} sends to this Service through a controller the tool does not model`)
    }
  }
  if (o.ingresses === undefined) unknown.push('Ingresses could not be read: clients entering through an Ingress controller are not known')

  // Gateway API routes that send to it.
  const routes = [...(o.httpRoutes ?? []), ...(o.grpcRoutes ?? [])]
  const {hops, missing} = gatewaysFor(svc, routes, o.gateways ?? [], o.gatewayClasses ?? [])
  unknown.push(...missing)
  const eg = by('envoy-gateway')
  for (const h of hops) {
    const g = h.gateway
    const clients = `Gateway ${g.metadata.namespace ?? 'default'}/${g.metadata.name} (${h.route.kind ?? 'HTTPRoute'} ${h.route.metadata.name})`
    const evidence = [`GatewayClass ${g.spec?.gatewayClassName ?? '(none)'}: controllerName ${h.controllerName ?? '(class not found)'}`]
    if (h.controllerName === ENVOY_GATEWAY_CONTROLLER) {
      paths.push({
        via: 'envoy-gateway',
        clients,
        ...(eg?.version ? {version: eg.version} : {}),
        bypassesNode: true,
        ...envoyGatewayRule(eg?.version, s),
        evidence: [...evidence, ...(eg?.evidence ?? [])],
      })
    } else if (h.controllerName === ISTIO_GATEWAY_CONTROLLER || h.controllerName === ISTIO_MESH_CONTROLLER) {
      const v = istiod?.version
      paths.push({
        via: 'istio-gateway',
        clients,
        ...(v ? {version: v} : {}),
        bypassesNode: true,
        ...istioRule('envoy', v, svc, nsObj, s),
        evidence: [...evidence, ...(istiod?.evidence ?? [])],
      })
    } else {
      paths.push({
        via: 'gateway-api',
        clients,
        bypassesNode: true,
        zoneHints: 'unknown',
        nodeHints: 'unknown',
        verdict: 'unknown',
        does: `the tool does not model controller ${h.controllerName ?? '(unknown)'}: whether it reads hints or trafficDistribution is unknown`,
        source: 'Gateway API leaves endpoint choice to the implementation',
        evidence,
      })
    }
  }
  if (o.httpRoutes === undefined) unknown.push('Gateway API routes could not be read: clients entering through a Gateway are not known')
  if (paths.length > 0 || found.proxies.length > 0) unknown.push(OTHER_CLUSTERS)
  return {setting: settingWords(s), paths, unknown}
}

/** Paths whose proxy does not do what the Service's setting asks (the check policy's failures). */
export function pathsIgnoringSetting(r: ServiceRoutes): ClientPath[] {
  return r.paths.filter((p) => p.bypassesNode && (p.verdict === 'ignores' || p.verdict === 'partial'))
}
