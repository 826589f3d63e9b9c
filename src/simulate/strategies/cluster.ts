// The cluster side of every strategy: from a ClusterState and one Service to traffic sources
// ("consumers": zones or nodes) and the endpoints each one reaches. Pure.
import {setNodes, hasExcludedLabels} from '../../upstream/endpointslice/topologycache/topologycache.js'
import {isNodeReady} from '../../upstream/endpointslice/topologycache/utils.js'
import {parseNano, nanoToMilli} from '../../upstream/apimachinery/quantity.js'
import {LABEL_SERVICE_NAME, LABEL_ZONE, type AddressType, type EndpointSlice, type Node, type Service} from '../../upstream/api/types.js'
import type {ClusterState} from '../../state/cluster-state.js'

export interface SimNode {
  name: string
  zone: string | null
  milliCPU: number
  labels: Record<string, string>
  /** Ready, not a control-plane node: a traffic source and (with a zone) counted by upstream */
  counted: boolean
  schedulable: boolean
}

export interface SimEndpoint {
  /** addresses[0] */
  address: string
  nodeName: string | null
  zone: string | null
  ready: boolean
}

export interface ServiceView {
  service: Service
  addressType: AddressType
  /** controller-managed slices of this Service and address type, in input order */
  slices: EndpointSlice[]
  nodes: SimNode[]
  /** every endpoint of the slices (first copy of each address) */
  endpoints: SimEndpoint[]
  /** ready endpoints only */
  ready: SimEndpoint[]
  /** zone names: zones of counted nodes and of ready endpoints, sorted; "" stands for "no zone" */
  zones: string[]
  cpuRatios: Record<string, number> | null
}

export function slicesOf(state: ClusterState, svc: Service): EndpointSlice[] {
  const ns = svc.metadata.namespace ?? 'default'
  return state.endpointSlices.filter((s) => (s.metadata.namespace ?? 'default') === ns && s.metadata.labels?.[LABEL_SERVICE_NAME] === svc.metadata.name)
}

function milliCPU(node: Node): number {
  try {
    return nanoToMilli(parseNano(node.status?.allocatable?.cpu))
  } catch {
    return 0
  }
}

export function simNodes(state: ClusterState): SimNode[] {
  return state.nodes.map((n) => {
    const labels = n.metadata.labels ?? {}
    const zone = Object.hasOwn(labels, LABEL_ZONE) && labels[LABEL_ZONE] !== '' ? (labels[LABEL_ZONE] as string) : null
    const counted = isNodeReady(n) && !hasExcludedLabels(labels)
    return {name: n.metadata.name, zone, milliCPU: milliCPU(n), labels, counted, schedulable: counted && n.spec?.unschedulable !== true}
  })
}

function pickAddressType(svc: Service, slices: readonly EndpointSlice[]): AddressType {
  const seen = new Set<AddressType>()
  for (const s of slices) if (s.addressType !== 'FQDN') seen.add(s.addressType)
  if (seen.has('IPv4')) return 'IPv4'
  if (seen.has('IPv6')) return 'IPv6'
  const fam = svc.spec?.ipFamilies?.[0]
  return fam === 'IPv6' ? 'IPv6' : 'IPv4'
}

/** The Service's slices of the address type its view reads (serviceView's slices, without reading the Nodes). */
export function viewSlices(state: ClusterState, svc: Service): EndpointSlice[] {
  const all = slicesOf(state, svc)
  const addressType = pickAddressType(svc, all)
  return all.filter((s) => s.addressType === addressType)
}

export function serviceView(state: ClusterState, svc: Service): ServiceView {
  const all = slicesOf(state, svc)
  const addressType = pickAddressType(svc, all)
  const slices = all.filter((s) => s.addressType === addressType)
  const nodes = simNodes(state)
  const seen = new Set<string>()
  const endpoints: SimEndpoint[] = []
  for (const s of slices) {
    for (const ep of s.endpoints ?? []) {
      const address = ep.addresses?.[0]
      if (address === undefined || seen.has(address)) continue
      seen.add(address)
      endpoints.push({
        address,
        nodeName: ep.nodeName ?? null,
        zone: ep.zone === undefined || ep.zone === null || ep.zone === '' ? null : ep.zone,
        ready: ep.conditions?.ready === true,
      })
    }
  }
  const ready = endpoints.filter((e) => e.ready)
  const zoneSet = new Set<string>()
  for (const n of nodes) if (n.counted && n.zone !== null) zoneSet.add(n.zone)
  for (const e of ready) zoneSet.add(e.zone ?? '')
  return {
    service: svc,
    addressType,
    slices,
    nodes,
    endpoints,
    ready,
    zones: [...zoneSet].sort(),
    cpuRatios: setNodes(state.nodes).cpuRatiosByZone,
  }
}
