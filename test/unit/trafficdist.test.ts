import {describe, expect, it} from 'vitest'
import {reconcileHints} from '../../src/upstream/endpointslice/trafficdist/trafficdist.js'
import type {Endpoint, EndpointSlice} from '../../src/upstream/api/types.js'

// ---- fixtures -------------------------------------------------------------------------------

interface EpOpts {
  zone?: string | null
  node?: string | null
  ready?: boolean | null
  zoneHint?: string[]
  nodeHint?: string[]
}

function ep(address: string, o: EpOpts = {}): Endpoint {
  const e: Endpoint = {addresses: [address], conditions: {}}
  if (o.ready !== undefined) e.conditions = {ready: o.ready}
  if (o.zone !== undefined) e.zone = o.zone
  if (o.node !== undefined) e.nodeName = o.node
  if (o.zoneHint !== undefined || o.nodeHint !== undefined) {
    e.hints = {}
    if (o.zoneHint !== undefined) e.hints.forZones = o.zoneHint.map((name) => ({name}))
    if (o.nodeHint !== undefined) e.hints.forNodes = o.nodeHint.map((name) => ({name}))
  }
  return e
}

/** Ready endpoint with a zone and node (the shape of every upstream fixture). */
function rz(address: string, zone: string, node: string, zoneHint?: string): Endpoint {
  return ep(address, {zone, node, ready: true, ...(zoneHint !== undefined ? {zoneHint: [zoneHint]} : {})})
}

/** Ready endpoint with a zone and node, hinted for both (upstream's PreferSameNode fixtures). */
function rzn(address: string, zone: string, node: string): Endpoint {
  return ep(address, {zone, node, ready: true, zoneHint: [zone], nodeHint: [node]})
}

let n = 0
function slice(...endpoints: Endpoint[]): EndpointSlice {
  return {metadata: {name: `slice-${++n}`}, addressType: 'IPv4', endpoints}
}

/** Upstream compares with cmpopts.EquateEmpty and ignores names here (its fixtures have none). */
function strip(slices: EndpointSlice[]): unknown[] {
  return slices.map((s) => s.endpoints ?? [])
}

interface Case {
  name: string
  trafficDistribution: string | undefined
  emptyZoneHint?: boolean
  slicesToCreate?: EndpointSlice[]
  slicesToUpdate?: EndpointSlice[]
  slicesUnchanged?: EndpointSlice[]
  wantSlicesToCreate?: EndpointSlice[]
  wantSlicesToUpdate?: EndpointSlice[]
  wantSlicesUnchanged?: EndpointSlice[]
}

function run(tc: Case) {
  const input = {
    toCreate: tc.slicesToCreate ?? [],
    toUpdate: tc.slicesToUpdate ?? [],
    unchanged: tc.slicesUnchanged ?? [],
  }
  const before = structuredClone(input)
  const got = reconcileHints(tc.trafficDistribution, input, tc.emptyZoneHint ? {emptyZoneHint: true} : {})
  expect(strip(got.toCreate)).toEqual(strip(tc.wantSlicesToCreate ?? []))
  expect(strip(got.toUpdate)).toEqual(strip(tc.wantSlicesToUpdate ?? []))
  expect(strip(got.unchanged)).toEqual(strip(tc.wantSlicesUnchanged ?? []))
  // Beyond upstream (which mutates create/update in place): our inputs are never mutated.
  expect(input).toEqual(before)
}

// ---- upstream cases -------------------------------------------------------------------------
// Ported from k8s.io/endpointslice trafficdist/trafficdist_test.go, TestReconcileHints
// (k8s.io/endpointslice v0.36.3: 9 cases, all listed below in upstream order; the 6 of the
// older commit 90c8f9aef1a8 were ported first, the PreferSameZone/PreferSameNode ones later).

const upstreamCases: Case[] = [
  {
    name: 'should set zone hints with PreferClose',
    trafficDistribution: 'PreferClose',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'), rz('10.0.0.2', 'zone-b', 'node-2')), slice(rz('10.0.0.3', 'zone-a', 'node-3'), rz('10.0.0.4', 'zone-b', 'node-4'))],
    slicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5'), rz('10.0.0.6', 'zone-a', 'node-6')), slice(rz('10.0.0.7', 'zone-b', 'node-7'), rz('10.0.0.8', 'zone-c', 'node-8'))],
    wantSlicesToCreate: [
      slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'), rz('10.0.0.2', 'zone-b', 'node-2', 'zone-b')),
      slice(rz('10.0.0.3', 'zone-a', 'node-3', 'zone-a'), rz('10.0.0.4', 'zone-b', 'node-4', 'zone-b')),
    ],
    wantSlicesToUpdate: [
      slice(rz('10.0.0.5', 'zone-a', 'node-5', 'zone-a'), rz('10.0.0.6', 'zone-a', 'node-6', 'zone-a')),
      slice(rz('10.0.0.7', 'zone-b', 'node-7', 'zone-b'), rz('10.0.0.8', 'zone-c', 'node-8', 'zone-c')),
    ],
  },
  {
    name: 'should set zone hints with PreferSameZone',
    trafficDistribution: 'PreferSameZone',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'), rz('10.0.0.2', 'zone-b', 'node-2')), slice(rz('10.0.0.3', 'zone-a', 'node-3'), rz('10.0.0.4', 'zone-b', 'node-4'))],
    slicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5'), rz('10.0.0.6', 'zone-a', 'node-6')), slice(rz('10.0.0.7', 'zone-b', 'node-7'), rz('10.0.0.8', 'zone-c', 'node-8'))],
    wantSlicesToCreate: [
      slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'), rz('10.0.0.2', 'zone-b', 'node-2', 'zone-b')),
      slice(rz('10.0.0.3', 'zone-a', 'node-3', 'zone-a'), rz('10.0.0.4', 'zone-b', 'node-4', 'zone-b')),
    ],
    wantSlicesToUpdate: [
      slice(rz('10.0.0.5', 'zone-a', 'node-5', 'zone-a'), rz('10.0.0.6', 'zone-a', 'node-6', 'zone-a')),
      slice(rz('10.0.0.7', 'zone-b', 'node-7', 'zone-b'), rz('10.0.0.8', 'zone-c', 'node-8', 'zone-c')),
    ],
  },
  {
    name: 'should set zone and node hints with PreferSameNode',
    trafficDistribution: 'PreferSameNode',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'), rz('10.0.0.2', 'zone-b', 'node-2')), slice(rz('10.0.0.3', 'zone-a', 'node-3'), rz('10.0.0.4', 'zone-b', 'node-4'))],
    slicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5'), rz('10.0.0.6', 'zone-a', 'node-6')), slice(rz('10.0.0.7', 'zone-b', 'node-7'), rz('10.0.0.8', 'zone-c', 'node-8'))],
    wantSlicesToCreate: [
      slice(rzn('10.0.0.1', 'zone-a', 'node-1'), rzn('10.0.0.2', 'zone-b', 'node-2')),
      slice(rzn('10.0.0.3', 'zone-a', 'node-3'), rzn('10.0.0.4', 'zone-b', 'node-4')),
    ],
    wantSlicesToUpdate: [
      slice(rzn('10.0.0.5', 'zone-a', 'node-5'), rzn('10.0.0.6', 'zone-a', 'node-6')),
      slice(rzn('10.0.0.7', 'zone-b', 'node-7'), rzn('10.0.0.8', 'zone-c', 'node-8')),
    ],
  },
  {
    name: 'should correct incorrect hints with PreferClose',
    trafficDistribution: 'PreferClose',
    slicesToUpdate: [slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-b'))], // incorrect hint as per new heuristic
    slicesUnchanged: [slice(rz('10.0.0.2', 'zone-b', 'node-2', 'zone-c')), slice(rz('10.0.0.3', 'zone-c', 'node-3'))],
    wantSlicesToUpdate: [
      slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a')),
      slice(rz('10.0.0.2', 'zone-b', 'node-2', 'zone-b')),
      slice(rz('10.0.0.3', 'zone-c', 'node-3', 'zone-c')),
    ],
  },
  {
    name: 'should not create hints with PreferClose if there are no zones',
    trafficDistribution: 'PreferClose',
    slicesToCreate: [
      slice(ep('10.0.0.1', {node: 'node-1', ready: true}), ep('10.0.0.2', {node: 'node-2', ready: true})),
      slice(ep('10.0.0.3', {node: 'node-3', ready: true}), ep('10.0.0.4', {node: 'node-4', ready: true})),
    ],
    slicesToUpdate: [
      slice(ep('10.0.0.5', {node: 'node-5', ready: true}), ep('10.0.0.6', {node: 'node-6', ready: true})),
      slice(ep('10.0.0.7', {node: 'node-7', ready: true}), ep('10.0.0.8', {node: 'node-8', ready: true})),
    ],
    wantSlicesToCreate: [
      slice(ep('10.0.0.1', {node: 'node-1', ready: true}), ep('10.0.0.2', {node: 'node-2', ready: true})),
      slice(ep('10.0.0.3', {node: 'node-3', ready: true}), ep('10.0.0.4', {node: 'node-4', ready: true})),
    ],
    wantSlicesToUpdate: [
      slice(ep('10.0.0.5', {node: 'node-5', ready: true}), ep('10.0.0.6', {node: 'node-6', ready: true})),
      slice(ep('10.0.0.7', {node: 'node-7', ready: true}), ep('10.0.0.8', {node: 'node-8', ready: true})),
    ],
  },
  {
    name: 'should create only node hints with PreferSameNode if there are no zones',
    trafficDistribution: 'PreferSameNode',
    slicesToCreate: [
      slice(ep('10.0.0.1', {node: 'node-1', ready: true}), ep('10.0.0.2', {node: 'node-2', ready: true})),
      slice(ep('10.0.0.3', {node: 'node-3', ready: true}), ep('10.0.0.4', {node: 'node-4', ready: true})),
    ],
    slicesToUpdate: [
      slice(ep('10.0.0.5', {node: 'node-5', ready: true}), ep('10.0.0.6', {node: 'node-6', ready: true})),
      slice(ep('10.0.0.7', {node: 'node-7', ready: true}), ep('10.0.0.8', {node: 'node-8', ready: true})),
    ],
    wantSlicesToCreate: [
      slice(ep('10.0.0.1', {node: 'node-1', ready: true, nodeHint: ['node-1']}), ep('10.0.0.2', {node: 'node-2', ready: true, nodeHint: ['node-2']})),
      slice(ep('10.0.0.3', {node: 'node-3', ready: true, nodeHint: ['node-3']}), ep('10.0.0.4', {node: 'node-4', ready: true, nodeHint: ['node-4']})),
    ],
    wantSlicesToUpdate: [
      slice(ep('10.0.0.5', {node: 'node-5', ready: true, nodeHint: ['node-5']}), ep('10.0.0.6', {node: 'node-6', ready: true, nodeHint: ['node-6']})),
      slice(ep('10.0.0.7', {node: 'node-7', ready: true, nodeHint: ['node-7']}), ep('10.0.0.8', {node: 'node-8', ready: true, nodeHint: ['node-8']})),
    ],
  },
  {
    name: 'unready endpoints should not trigger updates',
    trafficDistribution: 'PreferClose',
    slicesUnchanged: [slice(ep('10.0.0.2', {zone: 'zone-b', node: 'node-2', ready: false}))], // endpoint is not ready
    wantSlicesUnchanged: [slice(ep('10.0.0.2', {zone: 'zone-b', node: 'node-2', ready: false}))], // ... so no updates
  },
  {
    name: 'should remove hints when trafficDistribution is unrecognized',
    trafficDistribution: 'Unknown',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'), rz('10.0.0.2', 'zone-b', 'node-2', 'zone-b')), slice(rz('10.0.0.3', 'zone-a', 'node-3', 'zone-a'))],
    slicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5', 'zone-a'))],
    wantSlicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'), rz('10.0.0.2', 'zone-b', 'node-2')), slice(rz('10.0.0.3', 'zone-a', 'node-3'))],
    wantSlicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5'))],
  },
  {
    name: 'should remove hints when trafficDistribution is unset',
    trafficDistribution: undefined,
    slicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5', 'zone-a'))],
    slicesUnchanged: [slice(rz('10.0.0.6', 'zone-b', 'node-6', 'zone-b'))],
    wantSlicesToUpdate: [slice(rz('10.0.0.5', 'zone-a', 'node-5')), slice(rz('10.0.0.6', 'zone-b', 'node-6'))],
  },
]

describe('reconcileHints (upstream trafficdist_test.go TestReconcileHints)', () => {
  it.each(upstreamCases)('$name', (tc) => run(tc))
})

// Ported from trafficdist_test.go TestReconcileHints_doesNotMutateUnchangedSlices.
describe('reconcileHints (upstream TestReconcileHints_doesNotMutateUnchangedSlices)', () => {
  it('doesNotMutateUnchangedSlices', () => {
    const originalEps = slice(ep('10.0.0.1', {zone: 'zone-a', node: 'node-1', ready: true}))
    const clonedEps = structuredClone(originalEps)
    const got = reconcileHints('PreferClose', {toCreate: [], toUpdate: [], unchanged: [originalEps]})
    expect(originalEps).toEqual(clonedEps)
    // The slice needed hints, so a deep copy went to the update list.
    expect(got.unchanged).toEqual([])
    expect(got.toUpdate).toHaveLength(1)
    expect(got.toUpdate[0]).not.toBe(originalEps)
    expect(got.toUpdate[0]!.endpoints![0]!.hints).toEqual({forZones: [{name: 'zone-a'}]})
  })
})

// ---- cases derived from trafficdist.go ------------------------------------------------------
// Not ported from upstream's trafficdist/trafficdist_test.go TestReconcileHints: these cases are
// derived from the code of trafficdist.go (commit 19952a2b, preferCloseHeuristic with
// generateNodeHints) and the pre-1.33 version of the heuristic (zone hint "" for endpoints
// without a zone). They are named descriptively rather than after upstream cases.

const derivedCases: Case[] = [
  {
    name: 'PreferSameZone behaves exactly like PreferClose',
    trafficDistribution: 'PreferSameZone',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'), rz('10.0.0.2', 'zone-b', 'node-2'))],
    slicesUnchanged: [slice(rz('10.0.0.3', 'zone-c', 'node-3', 'zone-c'))],
    wantSlicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'), rz('10.0.0.2', 'zone-b', 'node-2', 'zone-b'))],
    wantSlicesUnchanged: [slice(rz('10.0.0.3', 'zone-c', 'node-3', 'zone-c'))],
  },
  {
    name: 'PreferSameNode sets zone and node hints',
    trafficDistribution: 'PreferSameNode',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'), rz('10.0.0.2', 'zone-b', 'node-2'))],
    wantSlicesToCreate: [
      slice(
        ep('10.0.0.1', {zone: 'zone-a', node: 'node-1', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-1']}),
        ep('10.0.0.2', {zone: 'zone-b', node: 'node-2', ready: true, zoneHint: ['zone-b'], nodeHint: ['node-2']}),
      ),
    ],
  },
  {
    name: 'PreferSameNode: unchanged slices with only zone hints need an update; correct ones stay',
    trafficDistribution: 'PreferSameNode',
    slicesUnchanged: [
      slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a')),
      slice(ep('10.0.0.2', {zone: 'zone-b', node: 'node-2', ready: true, zoneHint: ['zone-b'], nodeHint: ['node-2']})),
      slice(ep('10.0.0.3', {zone: 'zone-c', node: 'node-3', ready: true, zoneHint: ['zone-c'], nodeHint: ['node-9']})),
    ],
    wantSlicesToUpdate: [
      slice(ep('10.0.0.1', {zone: 'zone-a', node: 'node-1', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-1']})),
      slice(ep('10.0.0.3', {zone: 'zone-c', node: 'node-3', ready: true, zoneHint: ['zone-c'], nodeHint: ['node-3']})),
    ],
    wantSlicesUnchanged: [slice(ep('10.0.0.2', {zone: 'zone-b', node: 'node-2', ready: true, zoneHint: ['zone-b'], nodeHint: ['node-2']}))],
  },
  {
    name: 'PreferSameNode: endpoint without zone gets only a node hint; without node only a zone hint',
    trafficDistribution: 'PreferSameNode',
    slicesToUpdate: [slice(ep('10.0.0.1', {node: 'node-1', ready: true}), ep('10.0.0.2', {zone: 'zone-b', ready: true}))],
    wantSlicesToUpdate: [slice(ep('10.0.0.1', {node: 'node-1', ready: true, nodeHint: ['node-1']}), ep('10.0.0.2', {zone: 'zone-b', ready: true, zoneHint: ['zone-b']}))],
  },
  {
    name: 'PreferSameZone: stale node hints trigger an update and are removed',
    trafficDistribution: 'PreferSameZone',
    slicesUnchanged: [slice(ep('10.0.0.1', {zone: 'zone-a', node: 'node-1', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-1']}))],
    wantSlicesToUpdate: [slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'))],
  },
  {
    name: 'stale zone hint on a ready endpoint without zone triggers an update and is removed',
    trafficDistribution: 'PreferClose',
    slicesUnchanged: [slice(ep('10.0.0.1', {node: 'node-1', ready: true, zoneHint: ['']}))],
    wantSlicesToUpdate: [slice(ep('10.0.0.1', {node: 'node-1', ready: true}))],
  },
  {
    name: 'not-ready endpoints keep their hints in create/update slices (close heuristic)',
    trafficDistribution: 'PreferSameNode',
    slicesToUpdate: [
      slice(
        ep('10.0.0.1', {zone: 'zone-a', node: 'node-1', ready: false, zoneHint: ['zone-z']}),
        ep('10.0.0.2', {zone: 'zone-a', node: 'node-2'}), // ready unset counts as not ready
        rz('10.0.0.3', 'zone-a', 'node-3'),
      ),
    ],
    wantSlicesToUpdate: [
      slice(
        ep('10.0.0.1', {zone: 'zone-a', node: 'node-1', ready: false, zoneHint: ['zone-z']}),
        ep('10.0.0.2', {zone: 'zone-a', node: 'node-2'}),
        ep('10.0.0.3', {zone: 'zone-a', node: 'node-3', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-3']}),
      ),
    ],
  },
  {
    name: 'default heuristic: any hint (even on a not-ready endpoint) triggers an update and all are cleared',
    trafficDistribution: undefined,
    slicesUnchanged: [slice(ep('10.0.0.1', {zone: 'zone-a', ready: false, zoneHint: ['zone-a']}), rz('10.0.0.2', 'zone-a', 'node-2')), slice(rz('10.0.0.3', 'zone-a', 'node-3'))],
    wantSlicesToUpdate: [slice(ep('10.0.0.1', {zone: 'zone-a', ready: false}), rz('10.0.0.2', 'zone-a', 'node-2'))],
    wantSlicesUnchanged: [slice(rz('10.0.0.3', 'zone-a', 'node-3'))],
  },
  {
    name: 'empty string is not a close value: hints removed',
    trafficDistribution: '',
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'))],
    wantSlicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'))],
  },
  {
    name: 'pre-1.33: endpoints without zone get a "" zone hint',
    trafficDistribution: 'PreferClose',
    emptyZoneHint: true,
    slicesToCreate: [slice(ep('10.0.0.1', {node: 'node-1', ready: true}), rz('10.0.0.2', 'zone-b', 'node-2'))],
    wantSlicesToCreate: [slice(ep('10.0.0.1', {node: 'node-1', ready: true, zoneHint: ['']}), rz('10.0.0.2', 'zone-b', 'node-2', 'zone-b'))],
  },
  {
    name: 'pre-1.33: an existing "" zone hint for an endpoint without zone is kept (no update)',
    trafficDistribution: 'PreferClose',
    emptyZoneHint: true,
    slicesUnchanged: [slice(ep('10.0.0.1', {node: 'node-1', ready: true, zoneHint: ['']}))],
    wantSlicesUnchanged: [slice(ep('10.0.0.1', {node: 'node-1', ready: true, zoneHint: ['']}))],
  },
  {
    name: 'pre-1.33: forNodes are not checked, but an update replaces the hints and drops them',
    trafficDistribution: 'PreferClose',
    emptyZoneHint: true,
    slicesUnchanged: [
      slice(ep('10.0.0.1', {zone: 'zone-a', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-1']})),
      slice(ep('10.0.0.2', {zone: 'zone-b', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-2']})),
    ],
    wantSlicesToUpdate: [slice(ep('10.0.0.2', {zone: 'zone-b', ready: true, zoneHint: ['zone-b']}))],
    wantSlicesUnchanged: [slice(ep('10.0.0.1', {zone: 'zone-a', ready: true, zoneHint: ['zone-a'], nodeHint: ['node-1']}))],
  },
  {
    name: 'pre-1.33: PreferSameNode was unknown to trafficdist, so hints are removed',
    trafficDistribution: 'PreferSameNode',
    emptyZoneHint: true,
    slicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'))],
    wantSlicesToCreate: [slice(rz('10.0.0.1', 'zone-a', 'node-1'))],
  },
]

describe('reconcileHints (derived from trafficdist.go)', () => {
  it.each(derivedCases)('$name', (tc) => run(tc))

  it('keeps slice order and names; unchanged slices are returned as the same objects', () => {
    const a = slice(rz('10.0.0.1', 'zone-a', 'node-1', 'zone-a'))
    const b = slice(rz('10.0.0.2', 'zone-a', 'node-2'))
    const c = slice(rz('10.0.0.3', 'zone-b', 'node-3', 'zone-b'))
    const got = reconcileHints('PreferClose', {toCreate: [], toUpdate: [], unchanged: [a, b, c]})
    expect(got.unchanged[0]).toBe(a)
    expect(got.unchanged[1]).toBe(c)
    expect(got.toUpdate.map((s) => s.metadata.name)).toEqual([b.metadata.name])
  })

  it('null zone / nodeName are treated like unset', () => {
    const s = slice(ep('10.0.0.1', {zone: null, node: null, ready: true}))
    const got = reconcileHints('PreferSameNode', {toCreate: [s], toUpdate: [], unchanged: []})
    expect(got.toCreate[0]!.endpoints![0]!.hints).toBeUndefined()
  })
})
