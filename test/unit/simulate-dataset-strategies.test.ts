// simulate --dataset scores Auto, PreferSameZone, PreferSameNode and topology-keys from counts
// (strategies/counts.ts). They must give what simulate gives on the cluster the row stands for
// (rowToClusterState): the same controller, trafficDistribution and kube-proxy engines that
// `explain` uses, on real Node and EndpointSlice objects.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import type {DatasetRow} from '../../src/simulate/dataset.js'
import {Aggregator, DATASET_DEFAULT_STRATEGIES, rowToClusterState, scoreRow} from '../../src/simulate/dataset-run.js'
import {simulateService, type StrategyName} from '../../src/simulate/simulate.js'
import {givingAndReceiving, sameNodeCounts, upstreamAutoCounts} from '../../src/simulate/strategies/counts.js'
import {measure, measureTotals, type MeasureGroup} from '../../src/simulate/measure.js'
import {getGivingAndReceivingZones} from '../../src/upstream/endpointslice/topologycache/utils.js'

const CLUSTER_STRATEGIES = ['Auto', 'PreferSameZone', 'PreferSameNode', 'topology-keys'] as const
const KEY_SETS: (readonly string[])[] = [
  ['kubernetes.io/hostname', 'topology.kubernetes.io/zone', '*'],
  ['topology.kubernetes.io/zone'],
  ['kubernetes.io/hostname'],
  ['example.com/rack', '*'],
]

function compare(row: DatasetRow, strategy: (typeof CLUSTER_STRATEGIES)[number], keys: readonly string[]): void {
  const [mine] = scoreRow(row, [strategy], {topologyKeys: keys})
  const state = rowToClusterState(row)
  const sim = simulateService(state, state.services[0]!, {strategies: [strategy], trafficModel: 'cpu', topologyKeys: keys})
  const theirs = sim.strategies[0]!
  const what = `${strategy} ${JSON.stringify(row.zones.map((z) => [z.name, z.nodes, z.endpoints]))} keys ${keys.join(',')}`
  expect(mine!.measures.valid, what).toBe(theirs.valid)
  expect(mine!.measures.inZone, what).toBeCloseTo(theirs.inZoneTraffic, 9)
  expect(mine!.measures.maxOverload, what).toBeCloseTo(theirs.maxOverload, 9)
  expect(mine!.measures.meanOverload, what).toBeCloseTo(theirs.meanOverload, 9)
  expect(mine!.measures.sdOverload, what).toBeCloseTo(theirs.sdOverload, 9)
  expect(mine!.measures.endpointSlices, what).toBe(theirs.endpointSlices)
  expect(mine!.measures.unserved, what).toBeCloseTo(theirs.unservedTraffic, 9)
  if (theirs.score === null) expect(mine!.score, what).toBeNull()
  else expect(mine!.score!.score, what).toBeCloseTo(theirs.score, 7)
}

// zone names out of sorted order, so that row order (endpoint order) and name order differ
const NAMES = ['zc', 'za', 'zd', 'zb', 'ze']
const rowArb = fc
  .array(fc.record({nodes: fc.integer({min: 0, max: 6}), endpoints: fc.oneof(fc.integer({min: 0, max: 12}), fc.integer({min: 0, max: 140}))}), {minLength: 1, maxLength: 5})
  .map((zs): DatasetRow => ({name: 'r', zones: zs.map((z, i) => ({name: NAMES[i]!, ...z}))}))

describe("dataset strategies from counts = simulate on the row's cluster", () => {
  it('Auto, PreferSameZone, PreferSameNode, topology-keys (several key lists) on random rows', () => {
    fc.assert(
      fc.property(rowArb, fc.constantFrom(...CLUSTER_STRATEGIES), fc.constantFrom(...KEY_SETS), (row, strategy, keys) => {
        fc.pre(row.zones.some((z) => z.nodes > 0)) // simulate needs a node to take traffic shares from
        compare(row, strategy, keys)
      }),
      {numRuns: 600},
    )
  })
  it('worked examples', () => {
    // upstream's example shape: 3 equal zones, 4/3/2 endpoints -> one endpoint of the first zone goes to the third
    const three = {
      name: 'x',
      zones: [
        {name: 'a', nodes: 1, endpoints: 4},
        {name: 'b', nodes: 1, endpoints: 3},
        {name: 'c', nodes: 1, endpoints: 2},
      ],
    }
    for (const s of CLUSTER_STRATEGIES) compare(three, s, KEY_SETS[0]!)
    const ev = upstreamAutoCounts(three.zones)
    expect(ev.groups.map((g) => g.comp)).toEqual([
      [3, 0, 0],
      [0, 3, 0],
      [1, 0, 2],
    ])
    // a zone with endpoints but no node: its endpoints have no node hint, so every node uses zone hints
    const orphan = {
      name: 'y',
      zones: [
        {name: 'a', nodes: 2, endpoints: 5},
        {name: 'b', nodes: 0, endpoints: 3},
      ],
    }
    for (const s of CLUSTER_STRATEGIES) compare(orphan, s, KEY_SETS[0]!)
    expect(sameNodeCounts(orphan.zones).fallback).toMatch(/no node hint/)
    // more zones than endpoints: upstream refuses hints
    const few = {
      name: 'z',
      zones: [
        {name: 'a', nodes: 1, endpoints: 1},
        {name: 'b', nodes: 1, endpoints: 0},
        {name: 'c', nodes: 1, endpoints: 0},
      ],
    }
    expect(upstreamAutoCounts(few.zones).fallback).toMatch(/Insufficient number of endpoints/)
    for (const s of CLUSTER_STRATEGIES) compare(few, s, KEY_SETS[1]!)
    // a zone named like an Object.prototype property still counts its endpoints (a dataset file may name zones anything)
    const proto = {
      name: 'p',
      zones: [
        {name: '__proto__', nodes: 1, endpoints: 6},
        {name: 'b', nodes: 1, endpoints: 1},
        {name: 'c', nodes: 1, endpoints: 2},
      ],
    }
    for (const s of CLUSTER_STRATEGIES) compare(proto, s, KEY_SETS[0]!)
    expect(upstreamAutoCounts(proto.zones).groups.map((g) => g.comp)).toEqual([
      [3, 0, 0],
      [2, 1, 0],
      [1, 0, 2],
    ])
  })
  it('a row without nodes has no traffic source: invalid for the cluster strategies (the KEP-2004 ones score it as the tool does, see simulate-kep2004-tool.test.ts)', () => {
    const row = {
      name: 'n',
      zones: [
        {name: 'a', nodes: 0, endpoints: 3},
        {name: 'b', nodes: 0, endpoints: 2},
      ],
    }
    const scores = scoreRow(row, [...DATASET_DEFAULT_STRATEGIES, 'topology-keys'])
    expect(scores.map((r) => r.strategy)).toEqual([...DATASET_DEFAULT_STRATEGIES, 'topology-keys'])
    for (const r of scores) if (['Auto', 'PreferSameZone', 'PreferSameNode', 'topology-keys'].includes(r.strategy)) expect(r.score, r.strategy).toBeNull()
    expect(scores.find((r) => r.strategy === 'none')!.score!.score).toBeCloseTo(35, 9) // the tool prints 35.0000
  })
  it('aggregates every strategy; topology-keys without "*" makes rows with endpoint-less zones invalid', () => {
    const rows: DatasetRow[] = [
      {
        name: 'ok',
        zones: [
          {name: 'a', nodes: 2, endpoints: 4},
          {name: 'b', nodes: 2, endpoints: 4},
        ],
      },
      {
        name: 'empty-zone',
        zones: [
          {name: 'a', nodes: 2, endpoints: 4},
          {name: 'b', nodes: 2, endpoints: 0},
        ],
      },
    ]
    const strategies: StrategyName[] = [...DATASET_DEFAULT_STRATEGIES, 'topology-keys']
    const agg = new Aggregator(strategies)
    for (const row of rows) for (const r of scoreRow(row, strategies, {topologyKeys: ['kubernetes.io/hostname', 'topology.kubernetes.io/zone']})) agg.add(r)
    const byName = new Map(agg.result().map((a) => [a.strategy, a]))
    expect([...byName.keys()]).toEqual(strategies)
    expect(byName.get('topology-keys')).toMatchObject({clusters: 1, invalid: 1})
    expect(byName.get('PreferSameZone')).toMatchObject({clusters: 2, invalid: 0})
    // balanced row: every hint strategy keeps all traffic in its zone with no overload
    expect(byName.get('PreferSameNode')!.score.max).toBeCloseTo(100, 9)
  })
})

// The dataset path's shortcuts must give the same bits as the code they stand in for.
describe('simulate --dataset shortcuts = the general code, bit for bit', () => {
  it("givingAndReceiving = upstream's getGivingAndReceivingZones", () => {
    const zone = fc.record({target: fc.oneof(fc.double({min: 0, max: 150, noNaN: true}), fc.integer({min: 0, max: 150})), allocated: fc.integer({min: 0, max: 150})})
    fc.assert(
      fc.property(fc.uniqueArray(fc.constantFrom('za', 'zb', 'zc', 'zd', 'ze', 'zf'), {minLength: 1, maxLength: 6}), fc.array(zone, {minLength: 6, maxLength: 6}), (picked, zs) => {
        const names = [...picked].sort()
        const targets = names.map((_, i) => zs[i]!.target)
        const allocated = names.map((_, i) => zs[i]!.allocated)
        const mine = givingAndReceiving(names, targets, allocated)
        const theirs = getGivingAndReceivingZones(Object.fromEntries(names.map((n, i) => [n, {target: targets[i]!}])), Object.fromEntries(names.map((n, i) => [n, allocated[i]!])))
        const record = (counts: number[]) => Object.fromEntries(names.flatMap((n, i) => (counts[i]! > 0 ? [[n, counts[i]!]] : [])))
        expect(record(mine.giving)).toEqual(theirs.giving)
        expect(record(mine.receiving)).toEqual(theirs.receiving)
      }),
      {numRuns: 500},
    )
  })
  it("measureTotals = measure()'s totals", () => {
    const groups = (zones: number, consumers: number) =>
      fc.array(
        fc.record({
          comp: fc.array(fc.integer({min: 0, max: 40}), {minLength: zones, maxLength: zones}),
          weights: fc.array(fc.constantFrom(0, 0, 1, 0.5, 0.25), {minLength: consumers, maxLength: consumers}),
        }),
        {maxLength: 6},
      )
    const input = fc
      .tuple(fc.integer({min: 1, max: 4}), fc.integer({min: 1, max: 5}))
      .chain(([Z, C]) =>
        fc.tuple(
          fc.constant(Z),
          fc.array(fc.record({zone: fc.integer({min: -1, max: Z - 1}), share: fc.double({min: 0, max: 1, noNaN: true})}), {minLength: C, maxLength: C}),
          groups(Z, C),
        ),
      )
    fc.assert(
      fc.property(input, fc.option(fc.integer({min: 1, max: 9})), ([Z, consumers, gs], slices) => {
        const total = gs.reduce((s: number, g: MeasureGroup) => s + g.comp.reduce((a, b) => a + b, 0), 0)
        const full = measure(Z, total, consumers, gs, slices === null ? {} : {slices})
        const {zoneLoad, zoneMaxDeviation, consumerInZone, consumerReach, ...totals} = full
        const lean = measureTotals(Z, total, consumers, gs, slices ?? undefined)
        expect(Object.keys(lean)).toEqual(Object.keys(totals))
        for (const k of Object.keys(totals) as (keyof typeof totals)[]) expect(Object.is(lean[k], totals[k]), k).toBe(true)
      }),
      {numRuns: 500},
    )
  })
})
