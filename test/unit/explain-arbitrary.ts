// fast-check arbitraries for whole ClusterStates, as explain() sees them: random zones, nodes
// with odd labels, CPU strings and conditions, Services with random annotations,
// trafficDistribution, traffic policies and types, and several EndpointSlices per Service with
// random endpoints (conditions unset or set, zones, node names, live hints), IPv4 and IPv6.
import fc from 'fast-check'
import {
  ANNOTATION_TOPOLOGY_AWARE_HINTS,
  ANNOTATION_TOPOLOGY_MODE,
  CONTROLLER_NAME,
  LABEL_CONTROL_PLANE,
  LABEL_HOSTNAME,
  LABEL_MANAGED_BY,
  LABEL_MASTER,
  LABEL_SERVICE_NAME,
  LABEL_ZONE,
  type Endpoint,
  type EndpointSlice,
  type Node,
  type Service,
} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'

/** Zone names, including one that is an Object.prototype key. */
const ZONE_POOL = ['zone-a', 'zone-b', 'zone-c', 'zone-d', 'zone-e', 'constructor']
/** Allocatable CPU as found in the wild and in hand-written snapshots: odd quantities and garbage. */
const CPU_POOL: (string | number | undefined)[] = ['4', '2', '8', '16', '1.5', '1500m', '3500m', '2Ki', '1e3', '0.5m', '0', '', '-1', 'garbage', '4 cores', 2, undefined]
const ANNOTATION_VALUES = ['Auto', 'auto', 'AUTO', 'Disabled', 'disabled', '', 'example.com/custom']
const TD_VALUES = [undefined, 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'preferclose', '']
const VERSIONS = [undefined, '1.28', '1.30', '1.31', '1.33', '1.34', '1.35', '1.36.3', '1.37']

const optional = <T>(arb: fc.Arbitrary<T>, freq = 3) => fc.oneof({arbitrary: fc.constant(undefined), weight: 1}, {arbitrary: arb, weight: freq})
const cond = fc.constantFrom<boolean | undefined>(true, true, false, undefined)

interface NodeSpec {
  zone: string | null | undefined
  cpu: string | number | undefined
  ready: 'True' | 'False' | 'Unknown' | undefined
  role: 'control-plane' | 'master' | undefined
}

const nodeSpec = (zones: string[]): fc.Arbitrary<NodeSpec> =>
  fc.record({
    zone: fc.oneof({arbitrary: fc.constantFrom(...zones), weight: 30}, {arbitrary: fc.constantFrom(null, ''), weight: 1}),
    cpu: fc.oneof({arbitrary: fc.constantFrom('4', '2', '8', '1500m'), weight: 20}, {arbitrary: fc.constantFrom(...CPU_POOL), weight: 1}),
    ready: fc.oneof({arbitrary: fc.constant('True' as const), weight: 10}, {arbitrary: fc.constantFrom('False' as const, 'Unknown' as const, undefined), weight: 1}),
    role: fc.oneof({arbitrary: fc.constant(undefined), weight: 10}, {arbitrary: fc.constantFrom('control-plane' as const, 'master' as const), weight: 1}),
  })

function buildNode(i: number, s: NodeSpec): Node {
  const name = `node-${i}`
  const labels: Record<string, string> = {[LABEL_HOSTNAME]: name}
  if (s.zone !== null && s.zone !== undefined) labels[LABEL_ZONE] = s.zone
  if (s.role === 'control-plane') labels[LABEL_CONTROL_PLANE] = ''
  if (s.role === 'master') labels[LABEL_MASTER] = 'true'
  const node: Node = {metadata: {name, labels}, status: {}}
  if (s.cpu !== undefined) node.status!.allocatable = {cpu: s.cpu}
  if (s.ready !== undefined)
    node.status!.conditions = [
      {type: 'MemoryPressure', status: 'False'},
      {type: 'Ready', status: s.ready},
    ]
  return node
}

interface EndpointSpec {
  ready: boolean | undefined
  serving: boolean | undefined
  terminating: boolean | undefined
  noConditions: boolean
  zone: string | null | undefined
  node: number | 'unknown' | undefined
  hints: undefined | null | {forZones?: string[]; forNodes?: string[] | 'own'}
}

const endpointSpec = (zones: string[]): fc.Arbitrary<EndpointSpec> => {
  // Live hints may name zones that no longer exist, or "" (trafficdist before 1.33).
  const zoneName = fc.oneof({arbitrary: fc.constantFrom(...zones), weight: 10}, {arbitrary: fc.constantFrom('zone-x', ''), weight: 1})
  return fc.record({
    ready: fc.constantFrom<boolean | undefined>(true, true, true, false, undefined),
    serving: cond,
    terminating: fc.constantFrom<boolean | undefined>(false, false, true, undefined),
    noConditions: fc.oneof({arbitrary: fc.constant(false), weight: 8}, {arbitrary: fc.constant(true), weight: 1}),
    zone: fc.oneof({arbitrary: fc.constantFrom(...zones), weight: 12}, {arbitrary: fc.constantFrom(null, undefined, '', 'zone-x'), weight: 1}),
    node: fc.oneof({arbitrary: fc.nat({max: 20}), weight: 10}, {arbitrary: fc.constantFrom('unknown' as const, undefined), weight: 1}),
    hints: fc.oneof(
      {arbitrary: fc.constant(undefined), weight: 4},
      {arbitrary: fc.constant(null), weight: 1},
      {
        arbitrary: fc.record({forZones: fc.uniqueArray(zoneName, {maxLength: 2}), forNodes: fc.constantFrom<string[] | 'own'>('own', [], ['node-0'])}, {requiredKeys: []}),
        weight: 4,
      },
    ),
  })
}

interface SliceSpec {
  addressType: 'IPv4' | 'IPv6'
  managed: boolean
  endpoints: EndpointSpec[]
}

const sliceSpec = (zones: string[]): fc.Arbitrary<SliceSpec> =>
  fc.record({
    addressType: fc.constantFrom<'IPv4' | 'IPv6'>('IPv4', 'IPv4', 'IPv6'),
    managed: fc.oneof({arbitrary: fc.constant(true), weight: 8}, {arbitrary: fc.constant(false), weight: 1}),
    endpoints: fc.array(endpointSpec(zones), {maxLength: 16}),
  })

interface ServiceSpec {
  annotations: {mode?: string; hints?: string}
  trafficDistribution: string | undefined
  type: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | undefined
  internalTrafficPolicy: 'Cluster' | 'Local' | undefined
  externalTrafficPolicy: 'Cluster' | 'Local' | undefined
  selector: boolean
  publishNotReadyAddresses: boolean
  externalIP: boolean
  slices: SliceSpec[]
}

const serviceSpec = (zones: string[]): fc.Arbitrary<ServiceSpec> =>
  fc.record({
    annotations: fc.oneof(
      {arbitrary: fc.record({mode: fc.constant('Auto')}), weight: 4},
      {
        arbitrary: fc.record({mode: fc.constantFrom(...ANNOTATION_VALUES), hints: fc.constantFrom(...ANNOTATION_VALUES)}, {requiredKeys: []}),
        weight: 3,
      },
    ),
    trafficDistribution: fc.constantFrom(...TD_VALUES),
    type: fc.constantFrom<ServiceSpec['type']>(undefined, 'ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer'),
    internalTrafficPolicy: fc.constantFrom<ServiceSpec['internalTrafficPolicy']>(undefined, 'Cluster', 'Cluster', 'Local'),
    externalTrafficPolicy: fc.constantFrom<ServiceSpec['externalTrafficPolicy']>(undefined, 'Cluster', 'Local'),
    selector: fc.oneof({arbitrary: fc.constant(true), weight: 8}, {arbitrary: fc.constant(false), weight: 1}),
    publishNotReadyAddresses: fc.boolean(),
    externalIP: fc.oneof({arbitrary: fc.constant(false), weight: 5}, {arbitrary: fc.constant(true), weight: 1}),
    slices: fc.array(sliceSpec(zones), {maxLength: 3}),
  })

function address(family: 'IPv4' | 'IPv6', n: number): string {
  return family === 'IPv4' ? `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` : `fd00::${n.toString(16)}`
}

function buildService(i: number, s: ServiceSpec, nodeCount: number, counter: {n: number}): {service: Service; slices: EndpointSlice[]} {
  const name = `svc-${i}`
  const namespace = i % 2 === 0 ? 'default' : 'shop'
  const annotations: Record<string, string> = {}
  if (s.annotations.mode !== undefined) annotations[ANNOTATION_TOPOLOGY_MODE] = s.annotations.mode
  if (s.annotations.hints !== undefined) annotations[ANNOTATION_TOPOLOGY_AWARE_HINTS] = s.annotations.hints
  const spec: NonNullable<Service['spec']> = {ports: [{name: 'http', port: 80, ...(s.type === 'NodePort' || s.type === 'LoadBalancer' ? {nodePort: 30000 + i} : {})}]}
  if (s.type !== undefined) spec.type = s.type
  if (s.selector) spec.selector = {app: name}
  if (s.trafficDistribution !== undefined) spec.trafficDistribution = s.trafficDistribution
  if (s.internalTrafficPolicy !== undefined) spec.internalTrafficPolicy = s.internalTrafficPolicy
  if (s.externalTrafficPolicy !== undefined) spec.externalTrafficPolicy = s.externalTrafficPolicy
  if (s.publishNotReadyAddresses) spec.publishNotReadyAddresses = true
  if (s.externalIP) spec.externalIPs = ['192.0.2.10']
  const families = [...new Set(s.slices.map((sl) => sl.addressType))]
  if (families.length > 0) spec.ipFamilies = families
  const service: Service = {metadata: {name, namespace, ...(Object.keys(annotations).length > 0 ? {annotations} : {})}, spec}
  if (s.type === 'LoadBalancer') service.status = {loadBalancer: {ingress: [{ip: '198.51.100.7'}]}}

  const slices = s.slices.map((sl, j): EndpointSlice => {
    const labels: Record<string, string> = {[LABEL_SERVICE_NAME]: name}
    if (sl.managed) labels[LABEL_MANAGED_BY] = CONTROLLER_NAME
    return {
      metadata: {name: `${name}-${j}`, namespace, labels},
      addressType: sl.addressType,
      ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
      endpoints: sl.endpoints.map((e): Endpoint => {
        const nodeName = e.node === undefined ? undefined : e.node === 'unknown' ? 'node-gone' : `node-${e.node % Math.max(nodeCount, 1)}`
        const ep: Endpoint = {addresses: [address(sl.addressType, ++counter.n)]}
        if (!e.noConditions) {
          ep.conditions = {}
          if (e.ready !== undefined) ep.conditions.ready = e.ready
          if (e.serving !== undefined) ep.conditions.serving = e.serving
          if (e.terminating !== undefined) ep.conditions.terminating = e.terminating
        }
        if (nodeName !== undefined) ep.nodeName = nodeName
        if (e.zone !== undefined) ep.zone = e.zone
        if (e.hints === null) ep.hints = null
        else if (e.hints !== undefined) {
          ep.hints = {}
          if (e.hints.forZones !== undefined) ep.hints.forZones = e.hints.forZones.map((z) => ({name: z}))
          if (e.hints.forNodes !== undefined) {
            const nodes = e.hints.forNodes === 'own' ? (nodeName !== undefined ? [nodeName] : []) : e.hints.forNodes
            ep.hints.forNodes = nodes.map((n) => ({name: n}))
          }
        }
        return ep
      }),
    }
  })
  return {service, slices}
}

export interface GeneratedCluster {
  state: ClusterState
  zones: string[]
}

/** A random cluster: 1-6 zones, 0-18 nodes, 1-4 Services with 0-3 slices each. */
export const clusterArb: fc.Arbitrary<GeneratedCluster> = fc
  .uniqueArray(fc.constantFrom(...ZONE_POOL), {minLength: 1, maxLength: 6})
  .chain((zones) =>
    fc.record({
      zones: fc.constant(zones),
      // Usually one healthy node per zone first, so that the Auto path is often reached.
      healthy: fc.oneof({arbitrary: fc.constant(true), weight: 3}, {arbitrary: fc.constant(false), weight: 1}),
      nodes: fc.array(nodeSpec(zones), {maxLength: 12}),
      services: fc.array(serviceSpec(zones), {minLength: 1, maxLength: 4}),
    }),
  )
  .map(({zones, healthy, nodes: random, services}) => {
    const nodes: NodeSpec[] = [...(healthy ? zones.map((zone) => ({zone, cpu: '4', ready: 'True' as const, role: undefined})) : []), ...random]
    const counter = {n: 0}
    const built = services.map((s, i) => buildService(i, s, nodes.length, counter))
    return {
      zones,
      state: {
        nodes: nodes.map((n, i) => buildNode(i, n)),
        services: built.map((b) => b.service),
        endpointSlices: built.flatMap((b) => b.slices),
      },
    }
  })

/** Options explain() is called with. */
export const optionsArb = fc.record(
  {
    kubeVersion: fc.constantFrom(...VERSIONS),
    perNode: fc.boolean(),
    prediction: fc.constantFrom<'next-sync' | 'fresh'>('next-sync', 'fresh'),
    traffic: optional(fc.dictionary(fc.constantFrom(...ZONE_POOL, 'zone-x'), fc.integer({min: 0, max: 5}), {minKeys: 1})),
  },
  {requiredKeys: []},
)
