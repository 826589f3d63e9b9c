// explain's "who routes each request" part: per Service, the client paths that bypass the node
// data plane (meshes and gateways, src/dataplane/routes/) and what each does with its topology
// setting; for the report, the meshes and gateways found. Pure.

import {findProxies, serviceRoutes} from '../dataplane/routes/routes.js'
import type {RoutesFound, RoutesObjects, ServiceRoutes} from '../dataplane/routes/types.js'
import type {EndpointSlice, Service} from '../upstream/api/types.js'

/** The meshes and gateways read live or recorded in a snapshot. */
export interface RoutesInput {
  objects: RoutesObjects
  source: RoutesFound['source']
}

/**
 * Zones with counted nodes where none of the Service's ready endpoints is hinted, when every
 * ready endpoint carries a zone hint (a proxy filtering by the hints finds nothing there).
 */
function zonesWithoutHintedEndpoints(slices: readonly EndpointSlice[], zones: readonly string[]): string[] {
  const eps = slices.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready !== false)
  if (eps.length === 0 || eps.some((e) => (e.hints?.forZones ?? []).length === 0)) return []
  const hinted = new Set(eps.flatMap((e) => (e.hints?.forZones ?? []).map((z) => z.name)))
  return zones.filter((z) => !hinted.has(z))
}

export function clientPathsOf(found: RoutesFound, input: RoutesInput, svc: Service, slices: readonly EndpointSlice[], zones: readonly string[]): ServiceRoutes {
  return serviceRoutes(found, input.objects, svc, {zonesWithoutEndpoints: zonesWithoutHintedEndpoints(slices, zones)})
}

export function routesFound(input: RoutesInput): RoutesFound {
  return findProxies(input.objects, input.source)
}
