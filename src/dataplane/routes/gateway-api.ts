// Gateway API: which Gateways (and so which implementation) send to a Service: the
// HTTPRoutes and GRPCRoutes whose backendRefs name it, their parentRefs, the Gateways'
// classes and the classes' controllerName. Pure.

import type {Service} from '../../upstream/api/types.js'
import type {Gateway, GatewayClass, Route} from './types.js'

export const ISTIO_GATEWAY_CONTROLLER = 'istio.io/gateway-controller'
export const ISTIO_MESH_CONTROLLER = 'istio.io/mesh-controller'

/** A route's backendRef names the Service: kind Service (the default) in the core group, its namespace defaulting to the route's. */
function routeSendsTo(route: Route, svc: Service): boolean {
  const ns = svc.metadata.namespace ?? 'default'
  const routeNs = route.metadata.namespace ?? 'default'
  return (route.spec?.rules ?? []).some((r) =>
    (r.backendRefs ?? []).some((b) => (b.kind ?? 'Service') === 'Service' && (b.group ?? '') === '' && b.name === svc.metadata.name && (b.namespace ?? routeNs) === ns),
  )
}

export interface GatewayHop {
  route: Route
  gateway: Gateway
  /** The class's spec.controllerName; undefined when the class is not found. */
  controllerName?: string
}

/** The Gateways (parentRefs of kind Gateway) of every route sending to the Service; a parent not found is returned without a gateway. */
export function gatewaysFor(svc: Service, routes: readonly Route[], gateways: readonly Gateway[], classes: readonly GatewayClass[]): {hops: GatewayHop[]; missing: string[]} {
  const hops: GatewayHop[] = []
  const missing: string[] = []
  for (const route of routes) {
    if (!routeSendsTo(route, svc)) continue
    for (const p of route.spec?.parentRefs ?? []) {
      if ((p.kind ?? 'Gateway') !== 'Gateway' || (p.group ?? 'gateway.networking.k8s.io') !== 'gateway.networking.k8s.io') continue
      const ns = p.namespace ?? route.metadata.namespace ?? 'default'
      const gateway = gateways.find((g) => g.metadata.name === p.name && (g.metadata.namespace ?? 'default') === ns)
      if (!gateway) {
        missing.push(`${route.kind ?? 'HTTPRoute'} ${route.metadata.namespace ?? 'default'}/${route.metadata.name} names Gateway ${ns}/${p.name}, which was not found`)
        continue
      }
      if (hops.some((h) => h.gateway === gateway)) continue
      const cls = classes.find((c) => c.metadata.name === gateway.spec?.gatewayClassName)
      hops.push({route, gateway, ...(cls?.spec?.controllerName ? {controllerName: cls.spec.controllerName} : {})})
    }
  }
  return {hops, missing}
}
