import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {addHints, getAllocations, OVERLOAD_THRESHOLD, setNodes} from '../../src/upstream/endpointslice/topologycache/topologycache.js'
import {
  endpointReady,
  getGivingAndReceivingZones,
  getHintsByZone,
  redistributeHints,
  removeHintsFromSlices,
  serviceOverloaded,
  toRecord,
} from '../../src/upstream/endpointslice/topologycache/utils.js'
import {getTotalReadyEndpoints} from '../../src/upstream/endpointslice/topologycache/sliceinfo.js'
import {MESSAGES} from '../../src/upstream/endpointslice/topologycache/event.js'
import type {Endpoint, EndpointHints, EndpointSlice, Node, TopologyEvent} from '../../src/upstream/api/types.js'

// ---- helpers ----------------------------------------------------------------------------

interface EpOpts {
  addr?: string
  zone?: string | null
  /** true / false / undefined (= Ready unset) */
  ready?: boolean
  hints?: string[] | null | 'empty'
}

function ep(o: EpOpts): Endpoint {
  const e: Endpoint = {addresses: o.addr === undefined ? [] : [o.addr], conditions: {}}
  if (o.ready !== undefined) e.conditions = {ready: o.ready}
  if (o.zone !== undefined && o.zone !== null) e.zone = o.zone
  if (o.hints === 'empty') e.hints = {forZones: []}
  else if (o.hints) e.hints = {forZones: o.hints.map((name) => ({name}))}
  return e
}
/** ready endpoint in zone, optionally with zone hints */
const r = (addr: string, zone: string, hints?: string[]): Endpoint => ep({addr, zone, ready: true, hints})

let sliceCounter = 0
function slice(endpoints: Endpoint[], name?: string): EndpointSlice {
  return {metadata: {name: name ?? `slice-${sliceCounter++}`}, addressType: 'IPv4', endpoints}
}

function upstreamSliceWithNEndpoints(ready: number, unready: number): EndpointSlice {
  const endpoints: Endpoint[] = []
  for (let i = 0; i < ready; i++) endpoints.push(ep({addr: `10.1.2.${i}`, ready: true}))
  for (let i = 0; i < unready; i++) endpoints.push(ep({addr: `10.1.2.${ready + i}`, ready: false}))
  return slice(endpoints)
}

function equalCpuNodes(zones: string[], cpu = '4'): Node[] {
  return zones.map((z, i) => ({
    metadata: {name: `n${i}`, labels: {'topology.kubernetes.io/zone': z}},
    status: {allocatable: {cpu}, conditions: [{type: 'Ready', status: 'True'}]},
  }))
}

function hintZones(e: Endpoint): string[] {
  return (e.hints?.forZones ?? []).map((z) => z.name)
}

/** Per-zone counts of the zone hints of ready endpoints over the given slices. */
function countHints(slices: EndpointSlice[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const s of slices) {
    for (const e of s.endpoints ?? []) {
      if (!endpointReady(e)) continue
      for (const z of hintZones(e)) counts[z] = (counts[z] ?? 0) + 1
    }
  }
  return counts
}

const sfx = ', addressType: IPv4'
const enabled: TopologyEvent = {type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: MESSAGES.topologyAwareHintsEnabled + sfx}
const disabled = (message: string): TopologyEvent => ({type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: message + sfx})

// ---- TestAddHints -------------------------------------------------------------------------

interface AddHintsCase {
  name: string
  cpuRatiosByZone: Record<string, number> | null
  toCreate?: EndpointSlice[]
  toUpdate?: EndpointSlice[]
  unchanged?: EndpointSlice[]
  expectedEndpointsByAddrType: Record<string, number> | null
  expectedSlicesToCreate: Endpoint[][]
  expectedSlicesToUpdate: Endpoint[][]
  /** upstream compares events by type, reason and message prefix */
  expectedEvents: {type: string; reason: string; messagePrefix: string; message: string}[]
}

// kubernetes/endpointslice topologycache/topologycache_test.go TestAddHints
const addHintsCases: AddHintsCase[] = [
  {
    name: 'empty',
    cpuRatiosByZone: null,
    expectedEndpointsByAddrType: null,
    expectedSlicesToCreate: [],
    expectedSlicesToUpdate: [],
    expectedEvents: [{type: 'Warning', reason: 'TopologyAwareHintsDisabled', messagePrefix: MESSAGES.insufficientNodeInfo, message: MESSAGES.insufficientNodeInfo + sfx}],
  },
  {
    name: 'slice to create, no zone ratios',
    cpuRatiosByZone: null,
    toCreate: [slice([r('10.1.2.3', 'zone-a')])],
    expectedEndpointsByAddrType: null,
    expectedSlicesToCreate: [[r('10.1.2.3', 'zone-a')]],
    expectedSlicesToUpdate: [],
    expectedEvents: [{type: 'Warning', reason: 'TopologyAwareHintsDisabled', messagePrefix: MESSAGES.insufficientNodeInfo, message: MESSAGES.insufficientNodeInfo + sfx}],
  },
  {
    name: 'slice to create with 2 endpoints, zone ratios require 3',
    cpuRatiosByZone: {'zone-a': 0.3, 'zone-b': 0.4, 'zone-c': 0.3},
    toCreate: [slice([r('10.1.2.3', 'zone-a'), r('10.1.2.4', 'zone-b')])],
    expectedEndpointsByAddrType: null,
    expectedSlicesToCreate: [[r('10.1.2.3', 'zone-a'), r('10.1.2.4', 'zone-b')]],
    expectedSlicesToUpdate: [],
    expectedEvents: [
      {
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        messagePrefix: MESSAGES.insufficientNumberOfEndpoints,
        message: 'Insufficient number of endpoints (2 endpoints, 3 zones)' + sfx,
      },
    ],
  },
  {
    name: 'slice to create with 2 endpoints, zone ratios only require 2',
    cpuRatiosByZone: {'zone-a': 0.45, 'zone-b': 0.55},
    toCreate: [slice([r('10.1.2.3', 'zone-a'), r('10.1.2.4', 'zone-b')])],
    expectedEndpointsByAddrType: {'zone-a': 1, 'zone-b': 1},
    expectedSlicesToCreate: [[r('10.1.2.3', 'zone-a', ['zone-a']), r('10.1.2.4', 'zone-b', ['zone-b'])]],
    expectedSlicesToUpdate: [],
    expectedEvents: [{...enabled, messagePrefix: MESSAGES.topologyAwareHintsEnabled}],
  },
  {
    name: 'slice to create with 2 ready, 1 unready, 1 unknown endpoints, zone ratios only require 2',
    cpuRatiosByZone: {'zone-a': 0.45, 'zone-b': 0.55},
    toCreate: [slice([r('10.1.2.3', 'zone-a'), r('10.1.2.4', 'zone-b'), ep({addr: '10.1.2.5', zone: 'zone-b', ready: false}), ep({addr: '10.1.2.6', zone: 'zone-b'})])],
    expectedEndpointsByAddrType: {'zone-a': 1, 'zone-b': 1},
    expectedSlicesToCreate: [
      [r('10.1.2.3', 'zone-a', ['zone-a']), r('10.1.2.4', 'zone-b', ['zone-b']), ep({addr: '10.1.2.5', zone: 'zone-b', ready: false}), ep({addr: '10.1.2.6', zone: 'zone-b'})],
    ],
    expectedSlicesToUpdate: [],
    expectedEvents: [{...enabled, messagePrefix: MESSAGES.topologyAwareHintsEnabled}],
  },
  {
    name: 'slices to create and update within 3 zone threshold',
    cpuRatiosByZone: {'zone-a': 0.35, 'zone-b': 0.35, 'zone-c': 0.3},
    toCreate: [slice([r('10.1.2.3', 'zone-a'), r('10.1.2.4', 'zone-b')]), slice([r('10.1.3.3', 'zone-c'), r('10.1.3.4', 'zone-c'), r('10.1.3.4', 'zone-a')])],
    toUpdate: [slice([r('10.2.2.3', 'zone-a'), r('10.2.2.4', 'zone-a')]), slice([r('10.2.3.3', 'zone-b'), r('10.2.3.4', 'zone-c'), r('10.2.3.4', 'zone-a')])],
    expectedEndpointsByAddrType: {'zone-a': 4, 'zone-b': 3, 'zone-c': 3},
    expectedSlicesToCreate: [
      [r('10.1.2.3', 'zone-a', ['zone-b']), r('10.1.2.4', 'zone-b', ['zone-b'])],
      [r('10.1.3.3', 'zone-c', ['zone-c']), r('10.1.3.4', 'zone-c', ['zone-c']), r('10.1.3.4', 'zone-a', ['zone-a'])],
    ],
    expectedSlicesToUpdate: [
      [r('10.2.2.3', 'zone-a', ['zone-a']), r('10.2.2.4', 'zone-a', ['zone-a'])],
      [r('10.2.3.3', 'zone-b', ['zone-b']), r('10.2.3.4', 'zone-c', ['zone-c']), r('10.2.3.4', 'zone-a', ['zone-a'])],
    ],
    expectedEvents: [{...enabled, messagePrefix: MESSAGES.topologyAwareHintsEnabled}],
  },
]

describe('addHints: upstream TestAddHints', () => {
  it.each(addHintsCases)('$name', (tc) => {
    const input = {addressType: 'IPv4' as const, toCreate: tc.toCreate ?? [], toUpdate: tc.toUpdate ?? [], unchanged: tc.unchanged ?? []}
    const before = JSON.stringify(input)
    const res = addHints(tc.cpuRatiosByZone, input)
    expect(res.toCreate.map((s) => s.endpoints)).toStrictEqual(tc.expectedSlicesToCreate)
    expect(res.toUpdate.map((s) => s.endpoints)).toStrictEqual(tc.expectedSlicesToUpdate)
    expect(res.events).toHaveLength(tc.expectedEvents.length)
    tc.expectedEvents.forEach((want, i) => {
      const got = res.events[i] as TopologyEvent
      expect(got.type).toBe(want.type)
      expect(got.reason).toBe(want.reason)
      expect(got.message.startsWith(want.messagePrefix)).toBe(true)
      expect(got.message).toBe(want.message)
    })
    expect(res.allocatedHintsByZone).toStrictEqual(tc.expectedEndpointsByAddrType)
    expect(res.hintsSet).toBe(tc.expectedEndpointsByAddrType !== null)
    expect(JSON.stringify(input)).toBe(before) // inputs are never mutated
  })
})

// ---- Test_getGivingAndReceivingZones --------------------------------------------------

// kubernetes/endpointslice topologycache/utils_test.go Test_getGivingAndReceivingZones
// (upstream's allocation.desired is the balancing target, our ZoneAllocation.target)
const givingCases: {
  name: string
  allocations: Record<string, {target: number}>
  allocatedHintsByZone: Record<string, number>
  expectedGivingZones: Record<string, number>
  expectedReceivingZones: Record<string, number>
}[] = [
  {name: 'empty', allocations: {}, allocatedHintsByZone: {}, expectedGivingZones: {}, expectedReceivingZones: {}},
  {
    name: 'simple allocation with no need for rebalancing',
    allocations: {'zone-a': {target: 1.2}, 'zone-b': {target: 1.1}, 'zone-c': {target: 1.0}},
    allocatedHintsByZone: {'zone-a': 1, 'zone-b': 1, 'zone-c': 1},
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'preference for same zone even when giving an extra endpoint would result in slightly better distribution',
    allocations: {'zone-a': {target: 5.1}, 'zone-b': {target: 5.1}, 'zone-c': {target: 5.8}},
    allocatedHintsByZone: {'zone-a': 16},
    expectedGivingZones: {'zone-a': 10},
    expectedReceivingZones: {'zone-b': 5, 'zone-c': 5},
  },
  {
    name: 'when 2 zones need < 1 endpoint, give to zone that needs endpoint most',
    allocations: {'zone-a': {target: 5.0}, 'zone-b': {target: 5.6}, 'zone-c': {target: 5.4}},
    allocatedHintsByZone: {'zone-a': 16},
    expectedGivingZones: {'zone-a': 11},
    expectedReceivingZones: {'zone-b': 6, 'zone-c': 5},
  },
  {
    name: 'when 2 zones have extra endpoints, give from zone with most extra',
    allocations: {'zone-a': {target: 5.0}, 'zone-b': {target: 5.6}, 'zone-c': {target: 5.4}},
    allocatedHintsByZone: {'zone-b': 8, 'zone-c': 8},
    expectedGivingZones: {'zone-b': 2, 'zone-c': 3},
    expectedReceivingZones: {'zone-a': 5},
  },
  {
    name: 'ensure function can handle unexpected data (more allocated than allocations)',
    allocations: {'zone-a': {target: 5.0}, 'zone-b': {target: 5.0}, 'zone-c': {target: 5.0}},
    allocatedHintsByZone: {'zone-a': 6, 'zone-b': 6, 'zone-c': 6},
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'ensure function can handle unexpected data (negative allocations)',
    allocations: {'zone-a': {target: -5.0}, 'zone-b': {target: -5.0}, 'zone-c': {target: -5.0}},
    allocatedHintsByZone: {'zone-a': 6, 'zone-b': 6, 'zone-c': 6},
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    name: 'ensure function can handle unexpected data (negative allocated)',
    allocations: {'zone-a': {target: 5.0}, 'zone-b': {target: 5.0}, 'zone-c': {target: 5.0}},
    allocatedHintsByZone: {'zone-a': -4, 'zone-b': -3, 'zone-c': -2},
    expectedGivingZones: {},
    expectedReceivingZones: {},
  },
  {
    // b and c tie at every step; the totals do not depend on who wins the ties
    name: 'ensure function can handle unexpected data (negative for 1 zone)',
    allocations: {'zone-a': {target: 5.0}, 'zone-b': {target: 5.0}, 'zone-c': {target: 5.0}},
    allocatedHintsByZone: {'zone-a': -40, 'zone-b': 20, 'zone-c': 20},
    expectedGivingZones: {'zone-b': 15, 'zone-c': 15},
    expectedReceivingZones: {'zone-a': 30},
  },
]

describe('getGivingAndReceivingZones: upstream Test_getGivingAndReceivingZones', () => {
  it.each(givingCases)('$name', (tc) => {
    const {giving, receiving} = getGivingAndReceivingZones(tc.allocations, tc.allocatedHintsByZone)
    expect(giving).toStrictEqual(tc.expectedGivingZones)
    expect(receiving).toStrictEqual(tc.expectedReceivingZones)
  })
})

describe('getGivingAndReceivingZones: sharp edges', () => {
  it('tie between two givers goes to the first zone in sorted order (upstream: random)', () => {
    // zones a and b each 0.7 over target, c 1.4 under
    const {giving, receiving} = getGivingAndReceivingZones({'zone-a': {target: 0.3}, 'zone-b': {target: 0.3}, 'zone-c': {target: 1.4}}, {'zone-a': 1, 'zone-b': 1, 'zone-c': 0})
    // upstream guarantees exactly one giver (either a or b) and then stops at c's 0.4 left
    expect(Object.values(giving)).toStrictEqual([1])
    expect(receiving).toStrictEqual({'zone-c': 1})
    expect(giving).toStrictEqual({'zone-a': 1})
  })

  it('a surplus of 0.6 and a deficit of 1.4 still moves one endpoint', () => {
    const {giving, receiving} = getGivingAndReceivingZones({a: {target: 0.4}, b: {target: 1.4}}, {a: 1, b: 0})
    expect(giving).toStrictEqual({a: 1})
    expect(receiving).toStrictEqual({b: 1})
  })

  it('both below 1 stops', () => {
    const {giving} = getGivingAndReceivingZones({a: {target: 0.2}, b: {target: 0.8}}, {a: 1, b: 0})
    expect(giving).toStrictEqual({})
  })

  it('zones without allocation never give or receive', () => {
    const {giving, receiving} = getGivingAndReceivingZones({a: {target: 2}, b: {target: 2}}, {a: 2, b: 2, x: 5})
    expect(giving).toStrictEqual({})
    expect(receiving).toStrictEqual({})
  })
})

// ---- Test_getHintsByZone ----------------------------------------------------------------

// kubernetes/endpointslice topologycache/utils_test.go Test_getHintsByZone
const hintsByZoneCases: {
  name: string
  slice: EndpointSlice
  allocatedHintsByZone: Record<string, number>
  allocations: Record<string, {maximum: number}>
  expectedHintsByZone: Record<string, number> | null
}[] = [
  {name: 'empty', slice: slice([]), allocations: {}, allocatedHintsByZone: {}, expectedHintsByZone: {}},
  {
    name: 'single zone hint',
    slice: slice([ep({zone: 'zone-a', ready: true, hints: ['zone-a']})]),
    allocations: {'zone-a': {maximum: 3}},
    allocatedHintsByZone: {'zone-a': 1},
    expectedHintsByZone: {'zone-a': 1},
  },
  {
    name: 'single zone hint with 1 unready endpoint and 1 unknown endpoint',
    slice: slice([ep({zone: 'zone-a', ready: true, hints: ['zone-a']}), ep({zone: 'zone-a', ready: false, hints: ['zone-a']}), ep({zone: 'zone-a', hints: ['zone-a']})]),
    allocations: {'zone-a': {maximum: 3}},
    allocatedHintsByZone: {'zone-a': 1},
    expectedHintsByZone: {'zone-a': 1},
  },
  {
    name: 'multiple zone hints',
    slice: slice([
      ep({zone: 'zone-a', ready: true, hints: ['zone-a']}),
      ep({zone: 'zone-a', ready: true, hints: ['zone-b']}),
      ep({zone: 'zone-b', ready: true, hints: ['zone-b']}),
    ]),
    allocations: {'zone-a': {maximum: 3}, 'zone-b': {maximum: 3}, 'zone-c': {maximum: 3}},
    allocatedHintsByZone: {'zone-a': 1, 'zone-b': 1, 'zone-c': 1},
    expectedHintsByZone: {'zone-a': 1, 'zone-b': 2},
  },
  {
    name: 'invalid by zones that no longer requires any allocations',
    slice: slice([ep({zone: 'zone-a', ready: true, hints: ['zone-non-existent']})]),
    allocations: {'zone-a': {maximum: 3}},
    allocatedHintsByZone: {'zone-a': 1, 'zone-b': 1, 'zone-c': 1},
    expectedHintsByZone: null,
  },
  {
    name: 'invalid by endpoints with nil hints',
    slice: slice([ep({zone: 'zone-a', ready: true, hints: null})]),
    allocations: {'zone-a': {maximum: 3}},
    allocatedHintsByZone: {},
    expectedHintsByZone: null,
  },
  {
    name: 'invalid by endpoint with no hints',
    slice: slice([ep({zone: 'zone-a', ready: true, hints: 'empty'})]),
    allocations: {'zone-a': {maximum: 3}},
    allocatedHintsByZone: {},
    expectedHintsByZone: null,
  },
  {
    name: 'invalid by hints that would make minimum allocations impossible',
    slice: slice([ep({zone: 'zone-a', ready: true, hints: ['zone-a']}), ep({zone: 'zone-a', ready: true, hints: ['zone-a']})]),
    allocations: {'zone-a': {maximum: 2}},
    allocatedHintsByZone: {'zone-a': 1},
    expectedHintsByZone: null,
  },
]

describe('getHintsByZone: upstream Test_getHintsByZone', () => {
  it.each(hintsByZoneCases)('$name', (tc) => {
    // toStrictEqual distinguishes null from {} like upstream's %#v comparison
    expect(getHintsByZone(tc.slice, tc.allocatedHintsByZone, tc.allocations)).toStrictEqual(tc.expectedHintsByZone)
  })

  it('hints: {} (non-nil, no forZones) is invalid; forNodes alone does not count', () => {
    const allocations = {'zone-a': {maximum: 3}}
    expect(getHintsByZone(slice([{addresses: [], conditions: {ready: true}, hints: {}}]), {}, allocations)).toBeNull()
    const h: EndpointHints = {forNodes: [{name: 'n1'}]}
    expect(getHintsByZone(slice([{addresses: [], conditions: {ready: true}, hints: h}]), {}, allocations)).toBeNull()
  })
})

// ---- Test_redistributeHints ----------------------------------------------------------------

// kubernetes/endpointslice topologycache/utils_test.go Test_redistributeHints
const redistributeCases: {
  name: string
  slices: EndpointSlice[]
  givingZones: Record<string, number>
  receivingZones: Record<string, number>
  expectedRedistributions: Record<string, number>
  /** our deterministic choice (upstream: any receiver, in map order) */
  expectedHints: string[][][]
}[] = [
  {name: 'empty', slices: [], givingZones: {}, receivingZones: {}, expectedRedistributions: {}, expectedHints: []},
  {
    name: 'single endpoint',
    slices: [slice([ep({zone: 'zone-a', ready: true, hints: ['zone-a']})])],
    givingZones: {'zone-a': 1},
    receivingZones: {'zone-b': 1},
    expectedRedistributions: {'zone-a': -1, 'zone-b': 1},
    expectedHints: [[['zone-b']]],
  },
  {
    name: 'endpoints from 1 zone redistributed to 2 other zones',
    slices: [
      slice([ep({zone: 'zone-a', ready: true, hints: ['zone-a']}), ep({zone: 'zone-a', ready: true, hints: ['zone-a']}), ep({zone: 'zone-a', ready: true, hints: ['zone-a']})]),
    ],
    givingZones: {'zone-a': 2},
    receivingZones: {'zone-b': 1, 'zone-c': 1},
    expectedRedistributions: {'zone-a': -2, 'zone-b': 1, 'zone-c': 1},
    // upstream: which of b/c the first endpoint gets is random; we take b (sorted) first
    expectedHints: [[['zone-b'], ['zone-c'], ['zone-a']]],
  },
]

describe('redistributeHints: upstream Test_redistributeHints', () => {
  it.each(redistributeCases)('$name', (tc) => {
    const before = JSON.stringify(tc)
    const {slices, redistributions} = redistributeHints(tc.slices, tc.givingZones, tc.receivingZones)
    expect(redistributions).toStrictEqual(tc.expectedRedistributions)
    expect(slices.map((s) => (s.endpoints ?? []).map(hintZones))).toStrictEqual(tc.expectedHints)
    expect(JSON.stringify(tc)).toBe(before)
  })

  it('skips not-ready endpoints and leaves their hints alone', () => {
    const {slices, redistributions} = redistributeHints(
      [slice([ep({zone: 'a', ready: false, hints: ['a']}), ep({zone: 'a', hints: ['a']}), ep({zone: 'a', ready: true, hints: ['a']})])],
      {a: 1},
      {b: 1},
    )
    expect(redistributions).toStrictEqual({a: -1, b: 1})
    expect(slices[0]?.endpoints?.map(hintZones)).toStrictEqual([['a'], ['a'], ['b']])
  })
})

// ---- Test_getTotalReadyEndpoints -----------------------------------------------------------

// kubernetes/endpointslice topologycache/sliceinfo_test.go Test_getTotalReadyEndpoints
const totalReadyCases: {
  name: string
  si: {toCreate?: EndpointSlice[]; toUpdate?: EndpointSlice[]; unchanged?: EndpointSlice[]}
  expectedTotalReady: number
  expectedTotal: number
}[] = [
  {name: 'empty', si: {}, expectedTotalReady: 0, expectedTotal: 0},
  {name: 'empty slice', si: {toCreate: [upstreamSliceWithNEndpoints(0, 0)]}, expectedTotalReady: 0, expectedTotal: 0},
  {
    name: 'multiple slices',
    si: {toCreate: [upstreamSliceWithNEndpoints(15, 0), upstreamSliceWithNEndpoints(8, 0)]},
    expectedTotalReady: 23,
    expectedTotal: 23,
  },
  {
    name: 'slices for all',
    si: {
      toCreate: [upstreamSliceWithNEndpoints(15, 0), upstreamSliceWithNEndpoints(8, 0)],
      toUpdate: [upstreamSliceWithNEndpoints(2, 0)],
      unchanged: [upstreamSliceWithNEndpoints(100, 0), upstreamSliceWithNEndpoints(90, 0)],
    },
    expectedTotalReady: 215,
    expectedTotal: 215,
  },
  {
    name: 'slices for all with some unready',
    si: {
      toCreate: [upstreamSliceWithNEndpoints(15, 3), upstreamSliceWithNEndpoints(5, 4)],
      toUpdate: [upstreamSliceWithNEndpoints(3, 8)],
      unchanged: [upstreamSliceWithNEndpoints(98, 2), upstreamSliceWithNEndpoints(90, 6)],
    },
    expectedTotalReady: 211,
    expectedTotal: 234,
  },
]

describe('getTotalReadyEndpoints: upstream Test_getTotalReadyEndpoints', () => {
  it.each(totalReadyCases)('$name', (tc) => {
    const count = (l?: EndpointSlice[]) => (l ?? []).reduce((n, s) => n + (s.endpoints?.length ?? 0), 0)
    expect(count(tc.si.toCreate) + count(tc.si.toUpdate) + count(tc.si.unchanged)).toBe(tc.expectedTotal)
    expect(getTotalReadyEndpoints(tc.si)).toBe(tc.expectedTotalReady)
  })

  it('an unset Ready condition is not ready (controller side)', () => {
    expect(getTotalReadyEndpoints({toCreate: [slice([ep({zone: 'a'}), {addresses: []}, ep({ready: true})])]})).toBe(1)
  })
})

// ---- RemoveHintsFromSlices (no upstream unit test; behaviour from topologycache/utils.go) ---

describe('removeHintsFromSlices', () => {
  it('clears to-create/to-update hints and moves hinted unchanged slices (as copies) to update', () => {
    const create = slice([ep({zone: 'a', ready: true, hints: ['a']}), ep({zone: 'a', ready: false, hints: ['b']})], 'c')
    const update = slice([ep({zone: 'b', ready: true})], 'u')
    const hinted = slice([ep({zone: 'a', ready: true}), ep({zone: 'a', ready: false, hints: ['a']})], 'hinted')
    const emptyHints: EndpointSlice = {metadata: {name: 'emptyhints'}, addressType: 'IPv4', endpoints: [{addresses: [], hints: {}}]}
    const clean = slice([ep({zone: 'a', ready: true})], 'clean')
    const input = {toCreate: [create], toUpdate: [update], unchanged: [hinted, clean, emptyHints]}
    const before = JSON.stringify(input)
    const out = removeHintsFromSlices(input)
    expect(out.toCreate.map((s) => s.metadata.name)).toStrictEqual(['c'])
    expect(out.toUpdate.map((s) => s.metadata.name)).toStrictEqual(['u', 'hinted', 'emptyhints'])
    expect(out.unchanged).toStrictEqual([clean])
    expect(out.unchanged[0]).toBe(clean) // untouched, same object
    for (const s of [...out.toCreate, ...out.toUpdate]) for (const e of s.endpoints ?? []) expect(e.hints).toBeUndefined()
    expect(out.toUpdate[1]).not.toBe(hinted)
    expect(JSON.stringify(input)).toBe(before)
  })
})

// ---- serviceOverloaded (no upstream unit test; behaviour from topologycache/utils.go) -------

describe('serviceOverloaded', () => {
  const cases: {name: string; hints: Record<string, number>; ratios: Record<string, number> | null; overloaded: boolean}[] = [
    {name: 'empty entry is never overloaded', hints: {}, ratios: null, overloaded: false},
    {name: 'empty entry with ratios', hints: {}, ratios: {a: 0.5, b: 0.5}, overloaded: false},
    {name: 'nil ratios with hints', hints: {a: 1}, ratios: null, overloaded: true},
    {name: 'empty ratios with hints', hints: {a: 1}, ratios: {}, overloaded: true},
    {name: 'balanced', hints: {a: 5, b: 5}, ratios: {a: 0.5, b: 0.5}, overloaded: false},
    {name: 'zone missing from entry', hints: {a: 10}, ratios: {a: 0.5, b: 0.5}, overloaded: true},
    {name: 'zone present with 0 and needing 0', hints: {a: 10, b: 0}, ratios: {a: 1, b: 0}, overloaded: false},
    // T=10: ceil(10*0.5*5/6)=ceil(4.1667)=5 -> 4 < 5
    {name: 'below minimum', hints: {a: 6, b: 4}, ratios: {a: 0.5, b: 0.5}, overloaded: true},
    // T=10: ceil(10*0.4*5/6)=ceil(3.333)=4 -> 4 ok, a: ceil(10*0.6*5/6)=5 -> 6 ok
    {name: 'within threshold', hints: {a: 6, b: 4}, ratios: {a: 0.6, b: 0.4}, overloaded: false},
    // an extra zone is not checked itself, but it counts in the total: T=11, ceil(11*0.5*5/6)=5
    {name: 'extra zone in entry only counts in the total', hints: {a: 5, b: 5, x: 1}, ratios: {a: 0.5, b: 0.5}, overloaded: false},
    // T=13: ceil(13*0.5*5/6)=ceil(5.42)=6 > 5
    {name: 'extra zone in entry raises the minimums', hints: {a: 5, b: 5, x: 3}, ratios: {a: 0.5, b: 0.5}, overloaded: true},
  ]
  it.each(cases)('$name', (tc) => {
    expect(serviceOverloaded(tc.hints, tc.ratios)).toBe(tc.overloaded)
  })
})

// ---- getAllocations and worked examples ------------------------------------------------------

describe('getAllocations', () => {
  it('refusals in upstream order', () => {
    expect(getAllocations(10, null)).toStrictEqual({ok: false, message: MESSAGES.insufficientNodeInfo})
    expect(getAllocations(10, {a: 1})).toStrictEqual({ok: false, message: MESSAGES.nodesReadyInOneZoneOnly})
    expect(getAllocations(0, {a: 0.5, b: 0.5})).toStrictEqual({ok: false, message: 'Insufficient number of endpoints (0 endpoints, 2 zones)'})
  })

  it('float64: ratios 0.6/0.4 with N=3 are refused (0.4*3 = 1.2000000000000002)', () => {
    expect(0.4 * 3).toBe(1.2000000000000002)
    expect(getAllocations(3, {a: 0.6, b: 0.4})).toStrictEqual({
      ok: false,
      message: `${MESSAGES.minAllocationExceedsOverloadThreshold} (3 endpoints, 2 zones)`,
    })
    const res = addHints({a: 0.6, b: 0.4}, {addressType: 'IPv4', toCreate: [slice([r('1', 'a'), r('2', 'a'), r('3', 'b')])], toUpdate: [], unchanged: []})
    expect(res.hintsSet).toBe(false)
    expect(res.events).toStrictEqual([disabled('Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (3 endpoints, 2 zones)')])
  })

  it('minimum, target and maximum', () => {
    const out = getAllocations(10, {'zone-a': 0.35, 'zone-b': 0.35, 'zone-c': 0.3})
    expect(out).toStrictEqual({
      ok: true,
      allocations: {
        'zone-a': {desired: 3.5, minimum: 3, target: 3.5, maximum: 4},
        'zone-b': {desired: 3.5, minimum: 3, target: 3.5, maximum: 4},
        'zone-c': {desired: 3, minimum: 3, target: 3, maximum: 4},
      },
    })
    // target = max(desired, minimum): a tiny zone gets target 1
    const tiny = getAllocations(10, {a: 0.96, b: 0.04})
    // a: ceil(9.6*5/6 = 8) = 8, b: ceil(0.333) = 1; sum 9, so maximum = minimum + 1
    expect(tiny.ok && tiny.allocations).toStrictEqual({
      a: {desired: 9.6, minimum: 8, target: 9.6, maximum: 9},
      b: {desired: 0.4, minimum: 1, target: 1, maximum: 2},
    })
  })

  it('uses the overload threshold 0.2 as the factor 5/6', () => {
    expect(OVERLOAD_THRESHOLD).toBe(0.2)
    expect(5 / 6).toBe(0.8333333333333334)
  })

  it('3 equal zones: refused exactly for N in {1,2,4,5,8,11} within 1..24', () => {
    const ratios = setNodes(equalCpuNodes(['zone-a', 'zone-b', 'zone-c'])).cpuRatiosByZone
    const refused: number[] = []
    for (let n = 1; n <= 24; n++) if (!getAllocations(n, ratios).ok) refused.push(n)
    expect(refused).toStrictEqual([1, 2, 4, 5, 8, 11])
  })
})

describe('addHints: worked examples and sharp edges', () => {
  const threeZones = () => setNodes(equalCpuNodes(['zone-a', 'zone-b', 'zone-c'])).cpuRatiosByZone

  it('TestReconcileTopology: 3 equal zones, N=4 (a2, c2) is refused', () => {
    const res = addHints(threeZones(), {
      addressType: 'IPv4',
      toCreate: [slice([r('1', 'zone-a'), r('2', 'zone-a'), r('3', 'zone-c'), r('4', 'zone-c')])],
      toUpdate: [],
      unchanged: [],
    })
    expect(res.hintsSet).toBe(false)
    expect(res.allocations).toBeNull()
    expect(res.refusal?.message).toBe('Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (4 endpoints, 3 zones)')
    expect(res.events).toStrictEqual([disabled(res.refusal?.message ?? '')])
  })

  it('TestReconcileTopology: 3 equal zones, N=9 (a4, b3, c2) gives 3/3/3 with one cross-zone hint', () => {
    const eps = [...['1', '2', '3', '4'].map((a) => r(a, 'zone-a')), ...['5', '6', '7'].map((a) => r(a, 'zone-b')), ...['8', '9'].map((a) => r(a, 'zone-c'))]
    const res = addHints(threeZones(), {addressType: 'IPv4', toCreate: [slice(eps)], toUpdate: [], unchanged: []})
    expect(res.hintsSet).toBe(true)
    expect(res.allocatedHintsByZone).toStrictEqual({'zone-a': 3, 'zone-b': 3, 'zone-c': 3})
    expect(res.giving).toStrictEqual({'zone-a': 1})
    expect(res.receiving).toStrictEqual({'zone-c': 1})
    const cross = (res.toCreate[0]?.endpoints ?? []).filter((e) => hintZones(e)[0] !== e.zone)
    expect(cross.map((e) => [e.addresses[0], hintZones(e)])).toStrictEqual([['1', ['zone-c']]])
    expect(res.events).toStrictEqual([enabled])
  })

  it('no Enabled event when the service is already marked populated', () => {
    const res = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv6', populated: true, toCreate: [slice([r('1', 'a'), r('2', 'b')])], toUpdate: [], unchanged: []})
    expect(res.hintsSet).toBe(true)
    expect(res.events).toStrictEqual([])
    const fresh = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv6', toCreate: [slice([r('1', 'a'), r('2', 'b')])], toUpdate: [], unchanged: []})
    expect(fresh.events).toStrictEqual([{type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: 'Topology Aware Hints has been enabled, addressType: IPv6'}])
  })

  it('a ready endpoint without zone refuses and removes every hint, including unchanged ones', () => {
    const hintedUnchanged = slice([r('u1', 'a', ['a']), r('u2', 'b', ['b'])], 'unch')
    const input = {
      addressType: 'IPv4' as const,
      toCreate: [slice([r('1', 'a'), ep({addr: '2', ready: true})])],
      toUpdate: [],
      unchanged: [hintedUnchanged],
    }
    const res = addHints({a: 0.5, b: 0.5}, input)
    expect(res.hintsSet).toBe(false)
    expect(res.refusal?.message).toBe(MESSAGES.noZoneSpecified)
    expect(res.events).toStrictEqual([disabled('One or more endpoints do not have a zone specified')])
    expect(res.allocations).not.toBeNull()
    expect(res.allocatedHintsByZone).toBeNull()
    expect(res.unchanged).toStrictEqual([])
    expect(res.toUpdate.map((s) => s.metadata.name)).toStrictEqual(['unch'])
    for (const s of [...res.toCreate, ...res.toUpdate]) for (const e of s.endpoints ?? []) expect(e.hints).toBeUndefined()
    expect(hintZones(hintedUnchanged.endpoints?.[0] as Endpoint)).toStrictEqual(['a']) // input untouched
  })

  it('a not-ready endpoint without zone does not refuse', () => {
    const res = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv4', toCreate: [slice([r('1', 'a'), r('2', 'b'), ep({addr: '3', ready: false})])], toUpdate: [], unchanged: []})
    expect(res.hintsSet).toBe(true)
  })

  it('reuses valid unchanged slices and moves invalid ones (as copies) to the end of the update list', () => {
    const valid = slice([r('1', 'a', ['a']), r('2', 'b', ['b'])], 'valid')
    const noHints = slice([r('3', 'a'), r('4', 'b')], 'nohints')
    const upd = slice([r('5', 'a'), r('6', 'b')], 'upd')
    const res = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv4', toCreate: [], toUpdate: [upd], unchanged: [valid, noHints]})
    expect(res.unchanged).toHaveLength(1)
    expect(res.unchanged[0]).toBe(valid)
    expect(res.toUpdate.map((s) => s.metadata.name)).toStrictEqual(['upd', 'nohints'])
    expect(res.toUpdate[1]).not.toBe(noHints)
    expect(noHints.endpoints?.[0]?.hints).toBeUndefined()
    // N=6: targets 3/3, max 3/3; valid adds a1 b1, then upd and nohints a2 b2: no move
    expect(res.allocatedHintsByZone).toStrictEqual({a: 3, b: 3})
    expect(res.toUpdate.map((s) => s.endpoints?.map(hintZones))).toStrictEqual([
      [['a'], ['b']],
      [['a'], ['b']],
    ])
  })

  it('unchanged slices are never re-hinted by redistribution; the first to-create endpoints of a giver move', () => {
    const unch = slice([r('u1', 'a', ['a']), r('u2', 'a', ['a'])], 'unch')
    const create = slice([r('c1', 'a'), r('c2', 'a'), r('c3', 'a'), r('c4', 'b')], 'create')
    const res = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv4', toCreate: [create], toUpdate: [], unchanged: [unch]})
    // N=6, targets 3 each, max 3 each: unch valid (2 <= 3). a=5, b=1: a gives 2 to b
    expect(res.unchanged[0]).toBe(unch)
    expect(res.toCreate[0]?.endpoints?.map(hintZones)).toStrictEqual([['b'], ['b'], ['a'], ['b']])
    expect(res.allocatedHintsByZone).toStrictEqual({a: 3, b: 3})
  })

  it('a zone with endpoints but no allocation keeps same-zone hints and is counted', () => {
    const res = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv4', toCreate: [slice([r('1', 'a'), r('2', 'b'), r('3', 'x'), r('4', 'x')])], toUpdate: [], unchanged: []})
    // N=4: a and b each want 2 and receive nothing, since x (no allocation) never gives
    expect(res.hintsSet).toBe(true)
    expect(res.toCreate[0]?.endpoints?.map(hintZones)).toStrictEqual([['a'], ['b'], ['x'], ['x']])
    expect(res.allocatedHintsByZone).toStrictEqual({a: 1, b: 1, x: 2})
    expect(res.receiving).toStrictEqual({})
    // and on the next sync that slice, left unchanged, fails the reuse check
    const again = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv4', toCreate: [], toUpdate: [], unchanged: res.toCreate})
    expect(again.unchanged).toHaveLength(0)
    expect(again.toUpdate).toHaveLength(1)
  })

  it('not-ready endpoints in create/update keep their existing hints (upstream clears only a copy)', () => {
    const res = addHints(
      {a: 0.5, b: 0.5},
      {
        addressType: 'IPv4',
        toCreate: [slice([r('1', 'a'), r('2', 'b'), ep({addr: '3', zone: 'a', ready: false, hints: ['b']})])],
        toUpdate: [],
        unchanged: [],
      },
    )
    expect(res.toCreate[0]?.endpoints?.map(hintZones)).toStrictEqual([['a'], ['b'], ['b']])
    expect(res.allocatedHintsByZone).toStrictEqual({a: 1, b: 1})
  })

  it('ready endpoints get exactly forZones=[zone], dropping forNodes', () => {
    const e: Endpoint = {addresses: ['1'], zone: 'a', conditions: {ready: true}, hints: {forZones: [{name: 'b'}], forNodes: [{name: 'n'}]}}
    const res = addHints({a: 0.5, b: 0.5}, {addressType: 'IPv4', toCreate: [slice([e, r('2', 'b')])], toUpdate: [], unchanged: []})
    expect(res.toCreate[0]?.endpoints?.[0]?.hints).toStrictEqual({forZones: [{name: 'a'}]})
  })
})

// ---- property tests ------------------------------------------------------------------------

const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d']

const nodeArb: fc.Arbitrary<Node> = fc
  .record({
    zone: fc.oneof({weight: 12, arbitrary: fc.constantFrom(...ZONES)}, {weight: 1, arbitrary: fc.constantFrom(undefined, '')}),
    cpu: fc.oneof(
      {weight: 12, arbitrary: fc.constantFrom<string | number>('1', '2', '4', 8, '500m', '3920m', '1.5', '7910m', '16')},
      {weight: 1, arbitrary: fc.constantFrom<string | number | undefined>('0', undefined, 'garbage', '-1')},
    ),
    ready: fc.oneof({weight: 8, arbitrary: fc.constant('True')}, {weight: 1, arbitrary: fc.constantFrom('False', 'Unknown', undefined)}),
    cp: fc.oneof({weight: 8, arbitrary: fc.constant(false)}, {weight: 1, arbitrary: fc.constant(true)}),
  })
  .map(({zone, cpu, ready, cp}): Node => {
    const labels: Record<string, string> = {}
    if (zone !== undefined) labels['topology.kubernetes.io/zone'] = zone
    if (cp) labels['node-role.kubernetes.io/control-plane'] = ''
    const allocatable: Record<string, string | number> = {}
    if (cpu !== undefined) allocatable.cpu = cpu
    return {metadata: {name: 'n', labels}, status: {allocatable, conditions: ready === undefined ? [] : [{type: 'Ready', status: ready}]}}
  })

const endpointArb: fc.Arbitrary<Endpoint> = fc
  .record({
    zone: fc.oneof({weight: 20, arbitrary: fc.constantFrom(...ZONES)}, {weight: 1, arbitrary: fc.constantFrom(undefined, '', 'zone-x')}),
    ready: fc.oneof({weight: 6, arbitrary: fc.constant(true)}, {weight: 1, arbitrary: fc.constantFrom(false, undefined)}),
    // existing hints: none, an empty list, or exactly one zone (possibly a stale one)
    hints: fc.oneof(
      {weight: 3, arbitrary: fc.constant(null)},
      {weight: 1, arbitrary: fc.constant('empty' as const)},
      {weight: 3, arbitrary: fc.constantFrom(...ZONES, 'zone-x').map((z) => [z])},
    ),
  })
  .map(({zone, ready, hints}) => ep({addr: '10.0.0.1', zone, ready, hints}))

const slicesArb = fc.array(
  fc.array(endpointArb, {maxLength: 6}).map((eps) => slice(eps)),
  {maxLength: 3},
)

const scenarioArb = fc.record({
  nodes: fc.array(nodeArb, {maxLength: 8}),
  toCreate: slicesArb,
  toUpdate: slicesArb,
  unchanged: slicesArb,
  populated: fc.boolean(),
})

function run(nodes: Node[], s: {toCreate: EndpointSlice[]; toUpdate: EndpointSlice[]; unchanged: EndpointSlice[]; populated: boolean}) {
  const capacity = setNodes(nodes)
  const result = addHints(capacity.cpuRatiosByZone, {addressType: 'IPv4', ...s})
  return {capacity, result}
}

describe('addHints: properties', () => {
  it('random clusters never throw and never mutate their inputs', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const before = JSON.stringify(s)
        run(s.nodes, s)
        expect(JSON.stringify(s)).toBe(before)
      }),
      {numRuns: 500},
    )
  })

  it("hints only name zones in the ratios, or a ready endpoint's own zone that has no allocation", () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const {capacity, result} = run(s.nodes, s)
        const ratios = capacity.cpuRatiosByZone ?? {}
        if (!result.hintsSet) {
          for (const sl of [...result.toCreate, ...result.toUpdate]) for (const e of sl.endpoints ?? []) expect(e.hints).toBeUndefined()
          for (const sl of result.unchanged) for (const e of sl.endpoints ?? []) expect(e.hints ?? undefined).toBeUndefined()
          return
        }
        for (const sl of [...result.toCreate, ...result.toUpdate]) {
          for (const e of sl.endpoints ?? []) {
            if (!endpointReady(e)) continue
            for (const z of hintZones(e)) {
              expect(Object.hasOwn(ratios, z) || (z === e.zone && !Object.hasOwn(result.allocations ?? {}, z))).toBe(true)
            }
          }
        }
        for (const sl of result.unchanged) {
          for (const e of sl.endpoints ?? []) if (endpointReady(e)) for (const z of hintZones(e)) expect(Object.hasOwn(ratios, z)).toBe(true)
        }
      }),
      {numRuns: 500},
    )
  })

  it('when hints are set, every ready endpoint has exactly one zone hint and per-zone counts add up to N', () => {
    let setCount = 0
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const {result} = run(s.nodes, s)
        if (!result.hintsSet) return
        setCount++
        const all = [...result.toCreate, ...result.toUpdate, ...result.unchanged]
        for (const sl of all) for (const e of sl.endpoints ?? []) if (endpointReady(e)) expect(hintZones(e)).toHaveLength(1)
        const counts = countHints(all)
        const stored = Object.fromEntries(Object.entries(result.allocatedHintsByZone ?? {}).filter(([, n]) => n !== 0))
        expect(counts).toStrictEqual(stored)
        expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(result.totalReady)
        expect(Object.values(result.giving).reduce((a, b) => a + b, 0)).toBe(Object.values(result.receiving).reduce((a, b) => a + b, 0))
      }),
      {numRuns: 500},
    )
    expect(setCount).toBeGreaterThan(20) // the generator does reach the interesting cases
  })

  it('the outcome does not depend on the order of nodes given to setNodes', () => {
    const arb = scenarioArb.chain((s) => fc.tuple(fc.constant(s), fc.shuffledSubarray(s.nodes, {minLength: s.nodes.length, maxLength: s.nodes.length})))
    fc.assert(
      fc.property(arb, ([s, shuffled]) => {
        const a = run(s.nodes, s)
        const b = run(shuffled, s)
        expect(b.capacity.sufficientNodeInfo).toBe(a.capacity.sufficientNodeInfo)
        expect(b.capacity.cpuByZone).toStrictEqual(a.capacity.cpuByZone)
        expect(b.capacity.cpuRatiosByZone).toStrictEqual(a.capacity.cpuRatiosByZone)
        expect(b.result.hintsSet).toBe(a.result.hintsSet)
        expect(b.result.events).toStrictEqual(a.result.events)
        expect(b.result.allocatedHintsByZone).toStrictEqual(a.result.allocatedHintsByZone)
        expect(b.result).toStrictEqual(a.result)
      }),
      {numRuns: 300},
    )
  })

  it('allocations: sum of minimums <= N, minimum <= maximum, target >= desired', () => {
    const ratiosArb = fc.array(fc.integer({min: 1, max: 64000}), {minLength: 2, maxLength: 6}).map((cpus) => {
      const total = cpus.reduce((a, b) => a + b, 0)
      return Object.fromEntries(cpus.map((c, i) => [`z${i}`, c / total]))
    })
    fc.assert(
      fc.property(ratiosArb, fc.integer({min: 0, max: 500}), (ratios, n) => {
        const out = getAllocations(n, ratios)
        if (!out.ok) return
        const allocs = Object.values(out.allocations)
        expect(allocs.reduce((a, x) => a + x.minimum, 0)).toBeLessThanOrEqual(n)
        for (const x of allocs) {
          expect(x.minimum).toBeLessThanOrEqual(x.maximum)
          expect(x.target).toBeGreaterThanOrEqual(x.desired)
          expect(x.target).toBe(Math.max(x.desired, x.minimum))
        }
      }),
    )
  })
})

describe('toRecord', () => {
  it('gives the Map as a plain record with sorted own keys, "__proto__" a plain key like any zone', () => {
    const rec = toRecord(
      new Map([
        ['zone-b', 1],
        ['__proto__', 2],
        ['zone-a', 3],
      ]),
    )
    expect(Object.keys(rec)).toEqual(['__proto__', 'zone-a', 'zone-b'])
    expect(Object.getPrototypeOf(rec)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(rec, '__proto__')).toEqual({value: 2, enumerable: true, writable: true, configurable: true})
    expect(rec).toStrictEqual(
      Object.fromEntries([
        ['__proto__', 2],
        ['zone-a', 3],
        ['zone-b', 1],
      ]),
    )
    expect(toRecord(new Map())).toStrictEqual({})
  })
})
