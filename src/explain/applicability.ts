// What of topology-aware routing applies to a Service: its type, who writes its EndpointSlices,
// which address families kube-proxy proxies for it, and which slices carry which port.
import type {Applicability} from './report-types.js'
import {LABEL_MANAGED_BY, type AddressType, type EndpointSlice, type Service} from '../upstream/api/types.js'
import {sliceHasPort} from '../upstream/kube-proxy/endpointslicecache.js'
import {getClusterIPByFamily} from '../upstream/kube-proxy/serviceport.js'
import {countReady, isManaged, sortStrings} from './helpers.js'

export function applicability(
  service: Service,
  allSlices: readonly EndpointSlice[],
  slices: readonly EndpointSlice[],
  k: {externalName: boolean; headless: boolean; proxied: boolean; managedByController: boolean; noClusterIP: boolean; addressType: AddressType},
): Applicability {
  const t = service.spec?.type
  const type: Applicability['type'] = k.externalName ? 'ExternalName' : k.headless ? 'Headless' : t === 'NodePort' || t === 'LoadBalancer' ? t : 'ClusterIP'
  // (Made only when some slice is another manager's: usually every slice is the controller's.)
  let foreign: Map<string, {slices: number; readyEndpoints: number}> | undefined
  let managed = 0
  for (const s of slices) {
    if (isManaged(s)) {
      managed++
      continue
    }
    const m = s.metadata.labels?.[LABEL_MANAGED_BY] ?? '<none>'
    foreign ??= new Map()
    const f = foreign.get(m) ?? {slices: 0, readyEndpoints: 0}
    f.slices++
    f.readyEndpoints += countReady([s])
    foreign.set(m, f)
  }
  let fqdn = 0
  for (let i = 0; i < allSlices.length; i++) if (allSlices[i]!.addressType === 'FQDN') fqdn++
  const writers = foreign === undefined ? [] : sortStrings(foreign.keys()).map((manager) => ({manager, ...foreign!.get(manager)!}))
  const parts: string[] = []
  if (k.externalName) {
    parts.push(
      `ExternalName Service: DNS answers with a CNAME to ${JSON.stringify(service.spec?.externalName ?? '')}; it has no endpoints and kube-proxy does not proxy it, so topology-aware routing does not apply`,
    )
  } else if (k.headless) {
    parts.push(
      'headless Service (clusterIP: None): kube-proxy does not proxy it; clients resolve the endpoint addresses through DNS and pick one themselves, so hints change no routing (the controller still writes them)',
    )
  } else if (k.noClusterIP) {
    const fams = service.spec?.ipFamilies ?? []
    parts.push(
      `the Service has no ${k.addressType} ClusterIP (${fams.length > 0 ? `spec.ipFamilies ${fams.join(', ')}` : `clusterIP ${service.spec?.clusterIP ?? ''}`}): kube-proxy programs nothing for its ${k.addressType} endpoints, so no ${k.addressType} traffic reaches them through the Service and their hints change no routing`,
    )
  }
  if (!k.externalName && !k.managedByController && slices.length > 0) {
    parts.push(
      `no selector: the EndpointSlice controller writes none of its EndpointSlices; their hints are whatever their writer (${writers.map((w) => w.manager).join(', ') || 'unknown'}) set, and kube-proxy uses them as they are`,
    )
  } else if (k.managedByController && writers.length > 0) {
    const list = writers.map((w) => `${w.slices} written by ${w.manager} (${w.readyEndpoints} ready)`).join(', ')
    parts.push(
      `EndpointSlices not managed by the controller: ${list}; the controller's hints and counts cover its own slices only, kube-proxy routes to the endpoints of all of them`,
    )
  }
  if (fqdn > 0) parts.push(`${fqdn} FQDN EndpointSlice(s): neither kube-proxy nor the topology rules use FQDN addresses`)
  return {type, proxied: k.proxied, slices: {managed, foreign: writers, fqdn}, statement: parts.length > 0 ? parts.join('; ') : null}
}

/**
 * The Service has a ClusterIP of this family (pkg/proxy/util/utils.go GetClusterIPByFamily).
 * A Service that states no ClusterIP at all (a hand-written snapshot) is read by spec.ipFamilies
 * alone, or as proxied in every family when it names none; spec.clusterIP alone stands for
 * spec.clusterIPs (the API server sets both).
 */
export function familyHasClusterIP(service: Service, addressType: AddressType): boolean {
  if (addressType === 'FQDN') return false
  const spec = service.spec ?? {}
  const ips = (spec.clusterIPs ?? []).length > 0 ? spec.clusterIPs! : spec.clusterIP ? [spec.clusterIP] : []
  if (ips.length === 0) return (spec.ipFamilies ?? []).length === 0 || spec.ipFamilies!.includes(addressType)
  // The Service as it is when it has spec.clusterIPs (the usual case): no copies per call.
  return getClusterIPByFamily(addressType, ips === spec.clusterIPs ? service : {...service, spec: {...spec, clusterIPs: ips}}) !== ''
}

/**
 * A slice counts for a Service port when it carries a port of that name and protocol
 * (endpointslicecache.go endpointInfoByServicePort). A slice listing no ports at all (a
 * hand-written snapshot) is read as carrying every port.
 */
export function carriesPort(slice: EndpointSlice, p: {name: string; protocol: string}): boolean {
  return (slice.ports ?? []).length === 0 || sliceHasPort(slice, p.name, p.protocol)
}
