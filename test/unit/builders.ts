// Small builders for literal cluster states in unit tests (wire-format subsets).
import {LABEL_SERVICE_NAME, LABEL_MANAGED_BY, CONTROLLER_NAME, LABEL_ZONE, type EndpointSlice, type Node, type Service} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'

export function node(name: string, zone: string | null, opts: {cpu?: string; ready?: boolean; controlPlane?: boolean} = {}): Node {
  const labels: Record<string, string> = {'kubernetes.io/hostname': name}
  if (zone !== null) labels[LABEL_ZONE] = zone
  if (opts.controlPlane) labels['node-role.kubernetes.io/control-plane'] = ''
  return {
    metadata: {name, labels},
    status: {allocatable: {cpu: opts.cpu ?? '4'}, conditions: [{type: 'Ready', status: opts.ready === false ? 'False' : 'True'}]},
  }
}

/** n nodes per zone, named <zone>-<i>. */
export function nodesIn(zones: string[], perZone = 1, cpu = '4'): Node[] {
  return zones.flatMap((z) => Array.from({length: perZone}, (_, i) => node(`${z}-${i}`, z, {cpu})))
}

export function service(
  name: string,
  opts: {namespace?: string; annotations?: Record<string, string>; trafficDistribution?: string; selector?: Record<string, string> | null; internalTrafficPolicy?: string} = {},
): Service {
  const spec: NonNullable<Service['spec']> = {ports: [{name: 'http', port: 80}]}
  if (opts.selector !== null) spec.selector = opts.selector ?? {app: name}
  if (opts.trafficDistribution !== undefined) spec.trafficDistribution = opts.trafficDistribution
  if (opts.internalTrafficPolicy !== undefined) spec.internalTrafficPolicy = opts.internalTrafficPolicy
  const metadata: Service['metadata'] = {name, namespace: opts.namespace ?? 'default'}
  if (opts.annotations) metadata.annotations = opts.annotations
  return {metadata, spec}
}

export interface EpSpec {
  zone: string | null
  node?: string
  ready?: boolean
  /** Live zone hint(s); undefined: no hints. */
  hint?: string[]
}

export function slice(svc: string, eps: EpSpec[], opts: {namespace?: string; name?: string; managed?: boolean} = {}): EndpointSlice {
  const labels: Record<string, string> = {[LABEL_SERVICE_NAME]: svc}
  if (opts.managed !== false) labels[LABEL_MANAGED_BY] = CONTROLLER_NAME
  return {
    metadata: {name: opts.name ?? `${svc}-abc`, namespace: opts.namespace ?? 'default', labels},
    addressType: 'IPv4',
    ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
    endpoints: eps.map((e, i) => {
      const ep: NonNullable<EndpointSlice['endpoints']>[number] = {
        addresses: [`10.0.${i >> 8}.${(i & 0xff) + 1}`],
        conditions: {ready: e.ready ?? true, serving: e.ready ?? true, terminating: false},
        nodeName: e.node ?? (e.zone ? `${e.zone}-0` : 'nozone-0'),
      }
      if (e.zone !== null) ep.zone = e.zone
      if (e.hint) ep.hints = {forZones: e.hint.map((name) => ({name}))}
      return ep
    }),
  }
}

/** Endpoints spread per zone: {a: 3, b: 2} -> 3 in a, 2 in b (each on node <zone>-0), hinted for their own zone when hinted. */
export function spread(counts: Record<string, number>, hinted = false): EpSpec[] {
  return Object.entries(counts).flatMap(([zone, n]) => Array.from({length: n}, () => (hinted ? {zone, hint: [zone]} : {zone})))
}

export function state(nodes: Node[], services: Service[], endpointSlices: EndpointSlice[]): ClusterState {
  return {nodes, services, endpointSlices}
}
