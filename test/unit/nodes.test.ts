import {describe, expect, it} from 'vitest'
import {hasExcludedLabels, setNodes} from '../../src/upstream/endpointslice/topologycache/topologycache.js'
import {isNodeReady} from '../../src/upstream/endpointslice/topologycache/utils.js'
import {zoneCapacity} from '../../src/explain/node-verdicts.js'
import type {Node} from '../../src/upstream/api/types.js'

interface NodeInfo {
  name?: string
  zone?: string
  cpu?: string | number
  ready?: string
  labels?: Record<string, string>
}

/** Like upstream's TestSetNodes helper: zone label only when non-empty, one Ready condition. */
function makeNode(info: NodeInfo, i = 0): Node {
  const labels: Record<string, string> = {...(info.labels ?? {})}
  if (info.zone !== undefined && info.zone !== '') labels['topology.kubernetes.io/zone'] = info.zone
  const allocatable: Record<string, string | number> = {}
  if (info.cpu !== undefined) allocatable.cpu = info.cpu
  return {
    metadata: {name: info.name ?? `node-${i}`, labels},
    status: {allocatable, conditions: info.ready === undefined ? [] : [{type: 'Ready', status: info.ready}]},
  }
}

const T = 'True'
const F = 'False'
const CP = {'node-role.kubernetes.io/control-plane': ''}

// kubernetes/endpointslice topologycache/topologycache_test.go TestSetNodes
// (expectedCPUByZone given in milli-CPU; upstream compares Quantities)
const upstreamCases: {
  name: string
  nodes: NodeInfo[]
  expectSufficientNodeInfo: boolean
  expectedCPUByZone: Record<string, number> | null
  expectedRatios: Record<string, number> | null
}[] = [
  {name: 'empty', nodes: [], expectSufficientNodeInfo: false, expectedCPUByZone: null, expectedRatios: null},
  {
    name: 'single node',
    nodes: [{zone: 'zone-a', cpu: '1000m', ready: T}],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: 'single zone',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-a', cpu: '1000m', ready: T},
    ],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: '2 zones',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-b', cpu: '1000m', ready: T},
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: {'zone-a': 1000, 'zone-b': 1000},
    expectedRatios: {'zone-a': 0.5, 'zone-b': 0.5},
  },
  {
    name: '2 zones, unready node in 1, ready node in 1',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: F},
      {zone: 'zone-b', cpu: '1000m', ready: T},
    ],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: '2 zones, control plane node in 1, ready node in 1',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-b', cpu: '1000m', ready: T, labels: CP},
    ],
    expectSufficientNodeInfo: false,
    expectedCPUByZone: null,
    expectedRatios: null,
  },
  {
    name: '2 zones, unready node in 1, ready node in 2',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-b', cpu: '1000m', ready: T},
      {zone: 'zone-b', cpu: '1000m', ready: F},
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: {'zone-a': 1000, 'zone-b': 1000},
    expectedRatios: {'zone-a': 0.5, 'zone-b': 0.5},
  },
  {
    name: '2 zones, control plane node in 1, ready node in 2',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-b', cpu: '1000m', ready: T},
      {zone: 'zone-b', cpu: '1000m', ready: T, labels: CP},
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: {'zone-a': 1000, 'zone-b': 1000},
    expectedRatios: {'zone-a': 0.5, 'zone-b': 0.5},
  },
  {
    name: '3 zones, 4 nodes in 1, 2 nodes in 1, 1 node in 1',
    nodes: [
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-a', cpu: '1000m', ready: T},
      {zone: 'zone-a', cpu: '2000m', ready: T},
      {zone: 'zone-b', cpu: '3000m', ready: T},
      {zone: 'zone-b', cpu: '1500m', ready: T},
      {zone: 'zone-c', cpu: '500m', ready: T},
    ],
    expectSufficientNodeInfo: true,
    expectedCPUByZone: {'zone-a': 5000, 'zone-b': 4500, 'zone-c': 500},
    expectedRatios: {'zone-a': 0.5, 'zone-b': 0.45, 'zone-c': 0.05},
  },
]

describe('setNodes: upstream TestSetNodes', () => {
  it.each(upstreamCases)('$name', (tc) => {
    const nodes = tc.nodes.map(makeNode)
    const before = JSON.stringify(nodes)
    const result = setNodes(nodes)
    expect(result.sufficientNodeInfo).toBe(tc.expectSufficientNodeInfo)
    expect(result.cpuByZone).toStrictEqual(tc.expectedCPUByZone)
    // exact float equality, as upstream (actualRatio != expectedRatio)
    expect(result.cpuRatiosByZone).toStrictEqual(tc.expectedRatios)
    // our verdicts (explain/node-verdicts.ts): one per node, next to the same upstream figures
    const capacity = zoneCapacity(nodes)
    expect(capacity.nodes).toHaveLength(tc.nodes.length)
    expect({...capacity, nodes: undefined}).toStrictEqual({...result, nodes: undefined})
    expect(JSON.stringify(nodes)).toBe(before)
  })
})

describe('setNodes: verdicts and edge cases', () => {
  it('reports every node, with processed=false after the first bad ready worker', () => {
    const nodes = [
      {name: 'a1', zone: 'zone-a', cpu: '4', ready: T},
      {name: 'cp', zone: 'zone-a', cpu: '4', ready: T, labels: CP},
      {name: 'down', zone: 'zone-b', cpu: '4', ready: F},
      {name: 'nozone', cpu: '4', ready: T},
      {name: 'b1', zone: 'zone-b', cpu: '4', ready: T},
      {name: 'nocpu', zone: 'zone-b', ready: T},
      {name: 'master', zone: 'zone-b', ready: T, labels: {'node-role.kubernetes.io/master': 'true'}},
    ].map(makeNode)
    const r = zoneCapacity(nodes)
    expect(r.sufficientNodeInfo).toBe(false)
    expect(r.cpuByZone).toBeNull()
    expect(r.cpuRatiosByZone).toBeNull()
    expect(r.nodes.map((v) => [v.name, v.status, v.disablesHints, v.processed])).toStrictEqual([
      ['a1', 'counted', false, true],
      ['cp', 'control-plane', false, true],
      ['down', 'not-ready', false, true],
      ['nozone', 'no-zone-label', true, true],
      ['b1', 'counted', false, false],
      ['nocpu', 'no-cpu', true, false],
      ['master', 'control-plane', false, false],
    ])
    expect(r.nodes[0]).toStrictEqual({name: 'a1', zone: 'zone-a', milliCPU: 4000, status: 'counted', disablesHints: false, processed: true})
    expect(r.nodes[3]?.zone).toBeNull()
  })

  it('an empty zone label counts as no zone', () => {
    const r = zoneCapacity([makeNode({zone: 'zone-a', cpu: '1', ready: T}), makeNode({cpu: '1', ready: T, labels: {'topology.kubernetes.io/zone': ''}}, 1)])
    // makeNode skips an empty zone, but the label given explicitly is kept
    expect(r.nodes[1]?.zone).toBe('')
    expect(r.nodes[1]?.status).toBe('no-zone-label')
    expect(r.cpuRatiosByZone).toBeNull()
  })

  it('ignores the legacy failure-domain zone label', () => {
    const r = zoneCapacity([makeNode({zone: 'zone-a', cpu: '1', ready: T}), makeNode({cpu: '1', ready: T, labels: {'failure-domain.beta.kubernetes.io/zone': 'zone-b'}}, 1)])
    expect(r.nodes[1]?.status).toBe('no-zone-label')
    expect(r.sufficientNodeInfo).toBe(false)
  })

  it('skips bad nodes that are not ready or control-plane without invalidating', () => {
    const r = zoneCapacity([
      makeNode({zone: 'zone-a', cpu: '1', ready: T}),
      makeNode({cpu: '0', ready: F}, 1),
      makeNode({cpu: '0', ready: T, labels: CP}, 2),
      makeNode({zone: 'zone-b', cpu: '3', ready: T}, 3),
    ])
    expect(r.cpuRatiosByZone).toStrictEqual({'zone-a': 0.25, 'zone-b': 0.75})
    expect(r.nodes.filter((n) => n.disablesHints)).toHaveLength(0)
  })

  it('readiness: the first Ready condition decides; missing or Unknown is not ready', () => {
    const base = {metadata: {name: 'n'}}
    expect(isNodeReady({...base})).toBe(false)
    expect(isNodeReady({...base, status: {conditions: [{type: 'Ready', status: 'Unknown'}]}})).toBe(false)
    expect(
      isNodeReady({
        ...base,
        status: {
          conditions: [
            {type: 'MemoryPressure', status: 'False'},
            {type: 'Ready', status: 'True'},
          ],
        },
      }),
    ).toBe(true)
    expect(
      isNodeReady({
        ...base,
        status: {
          conditions: [
            {type: 'Ready', status: 'False'},
            {type: 'Ready', status: 'True'},
          ],
        },
      }),
    ).toBe(false)
    expect(isNodeReady({...base, status: {conditions: [{type: 'Ready', status: 'true'}]}})).toBe(false)
  })

  it('excluded labels: control-plane or master with any value', () => {
    expect(hasExcludedLabels(undefined)).toBe(false)
    expect(hasExcludedLabels({})).toBe(false)
    expect(hasExcludedLabels({'node-role.kubernetes.io/control-plane': ''})).toBe(true)
    expect(hasExcludedLabels({'node-role.kubernetes.io/master': 'false'})).toBe(true)
    expect(hasExcludedLabels({'node-role.kubernetes.io/worker': ''})).toBe(false)
  })

  it('unparseable CPU is treated as zero and reported', () => {
    const r = zoneCapacity([makeNode({zone: 'zone-a', cpu: '1', ready: T}), makeNode({zone: 'zone-b', cpu: 'lots', ready: T}, 1)])
    expect(r.nodes[1]?.status).toBe('no-cpu')
    expect(r.nodes[1]?.disablesHints).toBe(true)
    expect(r.nodes[1]?.cpuError).toContain('"lots"')
    expect(r.cpuRatiosByZone).toBeNull()
  })

  it('negative CPU (rejected by API validation) is treated like zero CPU', () => {
    const r = zoneCapacity([makeNode({zone: 'zone-a', cpu: '1', ready: T}), makeNode({zone: 'zone-b', cpu: '-1', ready: T}, 1)])
    expect(r.nodes[1]?.status).toBe('no-cpu')
    expect(r.nodes[1]?.milliCPU).toBe(-1000)
    expect(r.cpuRatiosByZone).toBeNull()
  })

  it('sums exact quantities before taking milli values, like Quantity.Add then MilliValue', () => {
    const r = zoneCapacity([
      makeNode({zone: 'zone-a', cpu: '500u', ready: T}),
      makeNode({zone: 'zone-a', cpu: '500u', ready: T}, 1),
      makeNode({zone: 'zone-b', cpu: '1m', ready: T}, 2),
    ])
    // per node 500u rounds up to 1m, but the zone sum is exactly 1m
    expect(r.nodes.map((n) => n.milliCPU)).toStrictEqual([1, 1, 1])
    expect(r.cpuByZone).toStrictEqual({'zone-a': 1, 'zone-b': 1})
    expect(r.cpuRatiosByZone).toStrictEqual({'zone-a': 0.5, 'zone-b': 0.5})
  })

  it('ratios are float64 divisions of milli values, keys sorted', () => {
    const r = zoneCapacity([makeNode({zone: 'z-b', cpu: 4, ready: T}), makeNode({zone: 'z-a', cpu: '4', ready: T}, 1), makeNode({zone: 'z-c', cpu: '4000m', ready: T}, 2)])
    expect(Object.keys(r.cpuRatiosByZone ?? {})).toStrictEqual(['z-a', 'z-b', 'z-c'])
    expect(r.cpuRatiosByZone?.['z-a']).toBe(4000 / 12000)
  })

  it('zone names that are Object.prototype keys are plain zones', () => {
    const r = zoneCapacity([makeNode({zone: 'constructor', cpu: '1', ready: T}), makeNode({zone: 'toString', cpu: '1', ready: T}, 1)])
    expect(r.cpuRatiosByZone).toStrictEqual({constructor: 0.5, toString: 0.5})
  })
})
