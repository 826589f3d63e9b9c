// The table of kubernetes/kubernetes pkg/proxy/topology_test.go `TestFilterTopologyEndpoint`
// (v1.18-v1.21) against our port of `FilterTopologyEndpoint`, with the endpoint topology built
// the way that test builds it (the labels of the endpoint's node), and the KEP-536 examples.
import {describe, expect, it} from 'vitest'
import {endpointTopology, filterTopologyEndpoint} from '../../src/upstream/kube-proxy/service-topology.js'

const H = 'kubernetes.io/hostname'
const Z = 'topology.kubernetes.io/zone'
const R = 'topology.kubernetes.io/region'
const labels = (host: string, zone: string) => ({[H]: host, [Z]: zone, [R]: 'cd'})
const two = {testNode1: labels('testNode1', '90001'), testNode2: labels('testNode2', '90001')}
const four = {...two, testNode3: labels('testNode3', '90002'), testNode4: labels('testNode4', '90002')}
const ep = (endpoint: string, node: string) => ({endpoint, node})
const eps2 = [ep('1.1.1.1:11', 'testNode1'), ep('1.1.1.2:11', 'testNode1'), ep('1.1.2.1:11', 'testNode2'), ep('1.1.2.2:11', 'testNode2')]
const eps4 = [...eps2, ep('1.1.3.1:11', 'testNode3'), ep('1.1.3.2:11', 'testNode3'), ep('1.1.4.1:11', 'testNode4'), ep('1.1.4.2:11', 'testNode4')]
const addrs = (list: {endpoint: string}[]) => list.map((e) => e.endpoint)

interface Case {
  name: string
  nodeLabels: Record<string, Record<string, string>>
  endpoints: {endpoint: string; node: string}[]
  currentNodeName: string
  topologyKeys: string[]
  expected: string[]
}

const cases: Case[] = [
  {name: 'no topology key and endpoints', nodeLabels: {testNode1: labels('10.0.0.1', '90001')}, endpoints: [], currentNodeName: 'testNode1', topologyKeys: [], expected: []},
  {name: 'no topology key but have endpoints', nodeLabels: two, endpoints: eps2, currentNodeName: 'testNode1', topologyKeys: [], expected: addrs(eps2)},
  {name: 'one topology key with one node matched', nodeLabels: two, endpoints: eps2, currentNodeName: 'testNode1', topologyKeys: [H], expected: ['1.1.1.1:11', '1.1.1.2:11']},
  {
    name: 'one topology key without node matched',
    nodeLabels: {...two, testNode3: labels('testNode3', '90001')},
    endpoints: eps2,
    currentNodeName: 'testNode3',
    topologyKeys: [H],
    expected: [],
  },
  {name: 'one topology key with multiple nodes matched', nodeLabels: four, endpoints: eps4, currentNodeName: 'testNode2', topologyKeys: [Z], expected: addrs(eps2)},
  {name: 'early match in multiple topology keys', nodeLabels: four, endpoints: eps4, currentNodeName: 'testNode2', topologyKeys: [H], expected: ['1.1.2.1:11', '1.1.2.2:11']},
  {
    name: 'later match in multiple topology keys',
    nodeLabels: {...four, testNode5: labels('testNode5', '90002')},
    endpoints: eps4,
    currentNodeName: 'testNode5',
    topologyKeys: [H, Z],
    expected: ['1.1.3.1:11', '1.1.3.2:11', '1.1.4.1:11', '1.1.4.2:11'],
  },
  {
    name: 'multiple topology keys without node matched',
    nodeLabels: {...four, testNode5: labels('testNode5', '90003')},
    endpoints: eps4,
    currentNodeName: 'testNode5',
    topologyKeys: [H, Z],
    expected: [],
  },
  {
    name: "multiple topology keys matched node when 'Any' key ignored",
    nodeLabels: two,
    endpoints: eps2,
    currentNodeName: 'testNode1',
    topologyKeys: [H, '*'],
    expected: ['1.1.1.1:11', '1.1.1.2:11'],
  },
  {
    name: "two topology keys matched node with 'Any' key",
    nodeLabels: {...two, testNode3: labels('testNode3', '90001')},
    endpoints: eps2,
    currentNodeName: 'testNode3',
    topologyKeys: [H, '*'],
    expected: addrs(eps2),
  },
  {
    name: "multiple topology keys matched node with 'Any' key",
    nodeLabels: {...four, testNode5: labels('testNode5', '90003')},
    endpoints: eps4,
    currentNodeName: 'testNode5',
    topologyKeys: [H, Z, '*'],
    expected: addrs(eps4),
  },
]

const run = (c: Pick<Case, 'nodeLabels' | 'endpoints' | 'currentNodeName' | 'topologyKeys'>) => {
  const topologies = c.endpoints.map((e) => c.nodeLabels[e.node] ?? {})
  return filterTopologyEndpoint(c.nodeLabels[c.currentNodeName] ?? {}, c.topologyKeys, topologies).map((i) => c.endpoints[i]!.endpoint)
}

describe('FilterTopologyEndpoint (pkg/proxy/topology_test.go, v1.18-v1.21)', () => {
  for (const c of cases) it(c.name, () => expect(run(c)).toEqual(c.expected))

  it('a node without labels: everything with "*" last, else nothing (the upstream edge cases)', () => {
    const c = {nodeLabels: {...two, bare: {}}, endpoints: eps2, currentNodeName: 'bare'}
    expect(run({...c, topologyKeys: [H, '*']})).toEqual(addrs(eps2))
    expect(run({...c, topologyKeys: [H, Z]})).toEqual([])
  })
})

describe("KEP-536's examples", () => {
  // topologyKeys: ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]: same host, else same zone, else connections fail
  const nodes = {...four, testNode5: labels('testNode5', '90003')}
  it('hostname then zone: a node with a local endpoint keeps it; one without uses its zone; a zone without any fails', () => {
    expect(run({nodeLabels: nodes, endpoints: eps4, currentNodeName: 'testNode1', topologyKeys: [H, Z]})).toEqual(['1.1.1.1:11', '1.1.1.2:11'])
    const zoneOnly = {...nodes, testNode6: labels('testNode6', '90001')}
    expect(run({nodeLabels: zoneOnly, endpoints: eps4, currentNodeName: 'testNode6', topologyKeys: [H, Z]})).toEqual(addrs(eps2))
    expect(run({nodeLabels: nodes, endpoints: eps4, currentNodeName: 'testNode5', topologyKeys: [H, Z]})).toEqual([])
  })
  it('["kubernetes.io/hostname", "*"]: same host if any, else any endpoint, never a failure', () => {
    expect(run({nodeLabels: nodes, endpoints: eps4, currentNodeName: 'testNode3', topologyKeys: [H, '*']})).toEqual(['1.1.3.1:11', '1.1.3.2:11'])
    expect(run({nodeLabels: nodes, endpoints: eps4, currentNodeName: 'testNode5', topologyKeys: [H, '*']})).toEqual(addrs(eps4))
  })
})

describe('endpoint topology (pkg/controller/endpointslice/utils.go podToEndpoint)', () => {
  it('hostname from the node name; zone and region from the node, nothing else', () => {
    expect(endpointTopology('n1', {[Z]: 'a', [R]: 'r', rack: 'r1', [H]: 'other'})).toEqual({[H]: 'n1', [Z]: 'a', [R]: 'r'})
    expect(endpointTopology('n1', null)).toEqual({[H]: 'n1'})
    expect(endpointTopology(null, {[Z]: '', [R]: 'r'})).toEqual({[R]: 'r'})
  })
})
