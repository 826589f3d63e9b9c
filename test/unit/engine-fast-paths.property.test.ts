// The engine's faster paths for one big Service (issue 23) against the code they replaced,
// kept here verbatim as the reference: the results must be the same on random input.
//  - getHintsByZone (utils.ts), now sliceHintFacts + hintsByZoneWithin, against its former
//    single loop (a transcription of upstream's utils.go getHintsByZone);
//  - givingReceivingOutcomes (randomness.ts), which now walks the chain before the first tie
//    in place, against its former walk (a copy of every map per state);
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import type {Endpoint, EndpointSlice} from '../../src/upstream/api/types.js'
import {anyRepeats, ipv4Number} from '../../src/upstream/kube-proxy/endpointslicecache.js'
import {setNodes} from '../../src/upstream/endpointslice/topologycache/topologycache.js'
import {nanoToMilli, parseNano} from '../../src/upstream/apimachinery/quantity.js'
import {node} from './builders.js'
import type {Node} from '../../src/upstream/api/types.js'
import {givingReceivingOutcomes, type GivingReceiving} from '../../src/upstream/endpointslice/topologycache/randomness.js'
import {
  endpointReady,
  getHintsByZone as getHintsByZoneNow,
  numReadyEndpoints,
  own,
  sliceHintFacts,
  sortedKeys,
  toRecord,
  type ZoneAllocation,
} from '../../src/upstream/endpointslice/topologycache/utils.js'

/** The former getHintsByZone (one loop, upstream's order of returns). */
function getHintsByZone(
  slice: EndpointSlice,
  allocatedHintsByZone: Record<string, number>,
  allocations: Record<string, Pick<ZoneAllocation, 'maximum'>>,
): Record<string, number> | null {
  const hintsByZone = new Map<string, number>()
  const endpoints = slice.endpoints ?? []
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = endpoints[i]!
    if (!endpointReady(endpoint)) continue
    const forZones = endpoint.hints?.forZones
    if (!endpoint.hints || !forZones || forZones.length === 0) return null
    for (let k = 0; k < forZones.length; k++) {
      const zone = forZones[k]!.name
      if (own(allocations, zone) === undefined) return null
      hintsByZone.set(zone, (hintsByZone.get(zone) ?? 0) + 1)
    }
  }
  for (const [zone, numHints] of hintsByZone) {
    const alreadyAllocated = own(allocatedHintsByZone, zone) ?? 0
    const allocation = own(allocations, zone)
    if (allocation === undefined || numHints + alreadyAllocated > allocation.maximum) return null
  }
  return toRecord(hintsByZone)
}

/** Ready endpoints, counted the plain way. */
const readyOf = (slice: EndpointSlice) => (slice.endpoints ?? []).filter((e) => e.conditions?.ready === true).length

const RUNS = 500
const zoneArb = fc.constantFrom('a', 'b', 'c', 'd', '', 'constructor')

const endpointArb: fc.Arbitrary<Endpoint> = fc.record(
  {
    addresses: fc.constant(['10.0.0.1']),
    conditions: fc.option(fc.record({ready: fc.option(fc.boolean(), {nil: undefined})}, {requiredKeys: []}), {nil: undefined}),
    zone: fc.option(zoneArb, {nil: undefined}),
    hints: fc.option(
      fc.record(
        {
          forZones: fc.option(
            fc.array(
              zoneArb.map((name) => ({name})),
              {maxLength: 3},
            ),
            {nil: undefined},
          ),
        },
        {requiredKeys: []},
      ),
      {nil: undefined},
    ),
  },
  {requiredKeys: ['addresses']},
) as fc.Arbitrary<Endpoint>
const sliceArb: fc.Arbitrary<EndpointSlice> = fc.array(endpointArb, {maxLength: 12}).map((endpoints) => ({metadata: {name: 's'}, addressType: 'IPv4', endpoints}) as EndpointSlice)
const allocationsArb = fc.dictionary(
  zoneArb,
  fc.integer({min: 0, max: 12}).map((maximum) => ({maximum})),
  {maxKeys: 5},
)
const allocatedArb = fc.dictionary(zoneArb, fc.integer({min: 0, max: 6}), {maxKeys: 5})

describe('getHintsByZone from one pass of slice facts', () => {
  it('equals the former loop on random slices, allocations and counts', () => {
    fc.assert(
      fc.property(sliceArb, allocatedArb, allocationsArb, (slice, allocated, allocations) => {
        expect(getHintsByZoneNow(slice, allocated, allocations)).toStrictEqual(getHintsByZone(slice, allocated, allocations))
        expect(sliceHintFacts(slice).ready).toBe(readyOf(slice))
        expect(numReadyEndpoints(slice.endpoints)).toBe(readyOf(slice))
      }),
      {numRuns: RUNS},
    )
  })

  it('a zone named twice by one endpoint counts twice, and runs of one zone are counted whole', () => {
    const ep = (zones: string[]): Endpoint => ({addresses: ['10.0.0.1'], conditions: {ready: true}, hints: {forZones: zones.map((name) => ({name}))}})
    const slice = {metadata: {name: 's'}, addressType: 'IPv4', endpoints: [ep(['a', 'a']), ep(['b']), ep(['a']), ep(['a']), ep(['b'])]} as EndpointSlice
    expect(getHintsByZoneNow(slice, {}, {a: {maximum: 4}, b: {maximum: 2}})).toStrictEqual({a: 4, b: 2})
    expect(getHintsByZoneNow(slice, {b: 1}, {a: {maximum: 4}, b: {maximum: 2}})).toBeNull()
  })
})

/** The former walk of givingReceivingOutcomes (before the chain ran in place). */
function outcomesReference(allocations: Record<string, Pick<ZoneAllocation, 'target'>>, allocatedHintsByZone: Record<string, number>, cap = 64): GivingReceiving[] | null {
  const most = (m: Map<string, number>): {num: number; zones: string[]} => {
    let num = 0
    let zones: string[] = []
    for (const z of sortedKeys(m)) {
      const n = m.get(z) as number
      if (n > num) {
        num = n
        zones = [z]
      } else if (n === num && n > 0) zones.push(z)
    }
    return {num, zones}
  }
  const givingDesired = new Map<string, number>()
  const receivingDesired = new Map<string, number>()
  for (const zone of sortedKeys(allocations)) {
    const allocated = own(allocatedHintsByZone, zone) ?? 0
    const target = (allocations[zone] as Pick<ZoneAllocation, 'target'>).target
    if (allocated > target) givingDesired.set(zone, allocated - target)
    else if (allocated < target) receivingDesired.set(zone, target - allocated)
  }
  const outcomes = new Map<string, GivingReceiving>()
  const seen = new Set<string>()
  let budget = 20_000
  type State = [gd: Map<string, number>, rd: Map<string, number>, g: Map<string, number>, r: Map<string, number>]
  const stack: State[] = [[givingDesired, receivingDesired, new Map(), new Map()]]
  while (stack.length > 0) {
    const [gd, rd, g, r] = stack.pop() as State
    const key = JSON.stringify([toRecord(g), toRecord(r)])
    if (seen.has(key)) continue
    seen.add(key)
    if (--budget < 0) return null
    const give = most(gd)
    const recv = most(rd)
    if (give.zones.length === 0 || recv.zones.length === 0 || (give.num < 1.0 && recv.num < 1.0) || give.num < 0.5 || recv.num < 0.5) {
      outcomes.set(key, {giving: toRecord(g), receiving: toRecord(r)})
      if (outcomes.size > cap) return null
      continue
    }
    const children: State[] = []
    for (const gz of give.zones) {
      for (const rz of recv.zones) {
        children.push([new Map(gd).set(gz, give.num - 1), new Map(rd).set(rz, recv.num - 1), new Map(g).set(gz, (g.get(gz) ?? 0) + 1), new Map(r).set(rz, (r.get(rz) ?? 0) + 1)])
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as State)
  }
  return [...outcomes.values()]
}

describe('givingReceivingOutcomes: the chain before the first tie, walked in place', () => {
  const zones = fc.constantFrom('a', 'b', 'c', 'd', 'e')
  // Half-integer targets and small counts make ties (and ties after a chain) common.
  const targetsArb = fc.dictionary(
    zones,
    fc.integer({min: 0, max: 40}).map((t) => ({target: t / 2})),
    {minKeys: 1, maxKeys: 5},
  )
  const countsArb = fc.dictionary(zones, fc.integer({min: 0, max: 30}), {maxKeys: 5})
  it('equals the former walk (outcomes, their order, the budget and the cap)', () => {
    fc.assert(
      fc.property(targetsArb, countsArb, fc.constantFrom(0, 1, 2, 64), (targets, counts, cap) => {
        expect(givingReceivingOutcomes(targets, counts, cap)).toStrictEqual(outcomesReference(targets, counts, cap))
      }),
      {numRuns: RUNS},
    )
  })

  it('a tie after a chain of steps: both outcomes, as the former walk', () => {
    // a gives twice alone (2.5 and 1.5 over), then a and b are each 0.5 over: either gives the last.
    const targets = {a: {target: 2.5}, b: {target: 2.5}, c: {target: 6}}
    const counts = {a: 5, b: 3, c: 3}
    expect(givingReceivingOutcomes(targets, counts)).toStrictEqual(outcomesReference(targets, counts))
    expect(givingReceivingOutcomes(targets, counts)).toStrictEqual([
      {giving: {a: 3}, receiving: {c: 3}},
      {giving: {a: 2, b: 1}, receiving: {c: 3}},
    ])
  })

  it('the budget runs out in the chain: null, as before', () => {
    expect(givingReceivingOutcomes({a: {target: 0}, b: {target: 20_001}}, {a: 20_001, b: 0})).toBeNull()
    expect(outcomesReference({a: {target: 0}, b: {target: 20_001}}, {a: 20_001, b: 0})).toBeNull()
    expect(givingReceivingOutcomes({a: {target: 0}, b: {target: 19_999}}, {a: 19_999, b: 0})).toStrictEqual(
      outcomesReference({a: {target: 0}, b: {target: 19_999}}, {a: 19_999, b: 0}),
    )
  })
})

describe('anyRepeats: canonical IPv4 compared as numbers, anything else as strings', () => {
  const dotted = (v: number) => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.')
  // Canonical addresses, and strings that look like them but are not (never equal to one).
  const ipArb = fc.oneof(
    fc.integer({min: 0, max: 0xffffffff}).map(dotted),
    fc.constantFrom(
      '10.0.0.1',
      '10.0.0.2',
      '0.0.0.0',
      '255.255.255.255',
      '010.0.0.1',
      '10.0.0.01',
      '10.0.0.1 ',
      '10.0.1',
      '10.0.0.0.1',
      '256.0.0.1',
      '10..0.1',
      '.10.0.1',
      '10.0.0.',
      'fd00::1',
      'FD00::1',
      '',
      '1.2.3.4x',
    ),
  )
  it('equals "a Set of the strings is smaller than the list"', () => {
    fc.assert(
      fc.property(fc.array(ipArb, {maxLength: 60}), (ips) => {
        expect(anyRepeats(ips)).toBe(new Set(ips).size !== ips.length)
      }),
      {numRuns: RUNS * 4},
    )
  })
  it('a number exactly for the canonical dotted quads', () => {
    fc.assert(
      fc.property(fc.integer({min: 0, max: 0xffffffff}), (v) => {
        expect(ipv4Number(dotted(v))).toBe(v)
      }),
      {numRuns: RUNS},
    )
    for (const s of [
      '010.0.0.1',
      '10.0.0.01',
      '00.0.0.0',
      '10.0.0.1 ',
      '10.0.1',
      '10.0.0.0.1',
      '256.0.0.1',
      '10..0.1',
      '1.2.3.4x',
      'fd00::1',
      '',
      '10.0.0.256',
      '10.0.0.00',
      '10.0.0.0255',
      '1.2.3.4.',
      '1.2.3.99999999',
      '9999999.0.0.1',
    ])
      expect(ipv4Number(s)).toBe(-1)
    expect(ipv4Number('255.255.255.255')).toBe(0xffffffff)
    expect(ipv4Number('128.0.0.0')).toBe(0x80000000)
  })
  it('repeats found among many addresses, first and last', () => {
    const ips = Array.from({length: 5000}, (_, i) => dotted(0x0a000000 + i))
    expect(anyRepeats(ips)).toBe(false)
    expect(anyRepeats([...ips, ips[0]!])).toBe(true)
    expect(anyRepeats([...ips, 'fd00::1', 'fd00::1'])).toBe(true)
    expect(anyRepeats([...ips, 'fd00::1', '010.0.0.0'])).toBe(false)
  })
  it('numbers that all fold to one slot (the table is built again with Fibonacci hashing): the same answers', () => {
    // 5,000 strings: a table of 2^14 slots; k << 14 | k folds to slot 0 for every k.
    const ips = Array.from({length: 5000}, (_, i) => dotted((((i + 1) << 14) | (i + 1)) >>> 0))
    expect(new Set(ips).size).toBe(5000)
    expect(anyRepeats(ips)).toBe(false)
    expect(anyRepeats([...ips.slice(0, 4999), ips[10]!])).toBe(true)
    expect(anyRepeats([...ips.slice(0, 4999), ips[2500]!])).toBe(true)
    expect(anyRepeats([...ips.slice(0, 4999), '0.0.0.0'])).toBe(false)
    expect(anyRepeats(['0.0.0.0', ...ips.slice(0, 4998), '0.0.0.0'])).toBe(true)
  })
})

/** The former setNodes: each node's exact CPU added to its zone and the total, node by node. */
function setNodesReference(nodes: Node[]) {
  const nanoByZone = new Map<string, bigint>()
  let totalNano = 0n
  let sufficient = true
  for (const n of nodes) {
    const labels = n.metadata.labels ?? {}
    if (Object.hasOwn(labels, 'node-role.kubernetes.io/control-plane') || Object.hasOwn(labels, 'node-role.kubernetes.io/master')) continue
    if (n.status?.conditions?.find((c) => c.type === 'Ready')?.status !== 'True') continue
    let nano = 0n
    try {
      nano = parseNano(n.status?.allocatable?.cpu)
    } catch {
      nano = 0n
    }
    const zone = Object.hasOwn(labels, 'topology.kubernetes.io/zone') ? labels['topology.kubernetes.io/zone']! : null
    if (zone === null || zone === '' || nano <= 0n) {
      sufficient = false
      break
    }
    totalNano += nano
    nanoByZone.set(zone, (nanoByZone.get(zone) ?? 0n) + nano)
  }
  if (totalNano === 0n || !sufficient || nanoByZone.size < 2) return {sufficientNodeInfo: false, cpuByZone: null, cpuRatiosByZone: null}
  const zones = [...nanoByZone.keys()].sort()
  const cpuByZone = Object.fromEntries(zones.map((z) => [z, nanoToMilli(nanoByZone.get(z)!)]))
  return {sufficientNodeInfo: true, cpuByZone, cpuRatiosByZone: Object.fromEntries(zones.map((z) => [z, cpuByZone[z]! / nanoToMilli(totalNano)]))}
}

describe('setNodes: one exact sum per zone and CPU value', () => {
  const nodeArb = fc
    .record({
      zone: fc.option(fc.constantFrom('a', 'b', 'c', ''), {nil: null}),
      cpu: fc.constantFrom('4', '16', '3500m', '2', '0', '-1', 'abc', '999999999999', '1500001n', '7.5'),
      ready: fc.boolean(),
      controlPlane: fc.boolean(),
    })
    .map((o) => ({...o, ready: o.ready || o.controlPlane, controlPlane: o.controlPlane && o.zone === 'c'}))
  it('equals the former node-by-node sums (ratios, CPU per zone, sufficiency)', () => {
    fc.assert(
      fc.property(fc.array(nodeArb, {maxLength: 40}), (specs) => {
        const nodes = specs.map((o, i) => node(`n${i}`, o.zone, {cpu: o.cpu, ready: o.ready, controlPlane: o.controlPlane}))
        expect(setNodes(nodes)).toStrictEqual(setNodesReference(nodes))
      }),
      {numRuns: RUNS},
    )
  })
})
