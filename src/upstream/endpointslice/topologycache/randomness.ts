// Ours (no upstream counterpart), next to the code it reuses: what AddHints
// (k8s.io/endpointslice v0.36.3 topologycache/topologycache.go) can produce when Go's random
// orders are taken into account. Upstream's result depends on three random orders:
//
//  1. the order of the slices it walks: ToCreate, ToUpdate and the Unchanged list all come
//     from Go maps (reconciler.go reconcileByPortMapping builds slicesToUpdate from
//     `sliceNamesToUpdate.UnsortedList()`, and the Unchanged list follows `existingSlices`,
//     the EndpointSlice lister's order, which is an indexer map's). redistributeHints
//     (topologycache/utils.go) donates the FIRST endpoints of a giving zone it meets, so which
//     endpoints are donated depends on the slice order (within a slice the order is the
//     slice's own, which is the order written). getAllocatedHintsByZone (sliceinfo.go) checks
//     each unchanged slice against what earlier slices hold, so which unchanged slices stay
//     valid can depend on it too;
//  2. getMost (topologycache/utils.go) over a map: a tie for the largest surplus or deficit
//     goes to either zone, and the per-zone counts then differ;
//  3. the receiving zone an endpoint is donated to (`for receivingZone := range
//     receivingZones`): any zone still receiving.
//
// `hintAlternatives` computes, per ready endpoint of the slices AddHints rewrites, every zone
// its hint can name over all these orders, and the per-zone hint counts that are possible.
// It is exact per endpoint and per zone; it does not check the joint constraints (e.g. that
// the donated endpoints of two zones fit one slice order).

import type {EndpointSlice} from '../../api/types.js'
import {endpointReady, own, sortedKeys, toRecord, type ZoneAllocation} from './utils.js'

/** One way getGivingAndReceivingZones can end (per zone: endpoints to give, to receive). */
export interface GivingReceiving {
  giving: Record<string, number>
  receiving: Record<string, number>
}

/**
 * Largest value and every zone holding it (getMost's candidates under any map order). `keys`:
 * the map's keys, sorted (the walk below only ever sets keys a map already has).
 */
function most(m: Map<string, number>, keys: readonly string[]): {num: number; zones: string[]} {
  let num = 0
  let zones: string[] = []
  for (const z of keys) {
    const n = m.get(z) as number
    if (n > num) {
      num = n
      zones = [z]
    } else if (n === num && n > 0) zones.push(z)
  }
  return {num, zones}
}

/**
 * Every outcome getGivingAndReceivingZones can have when ties go either way, distinct, in a
 * stable order (the first is ours, ties to the first zone by name). Null when there are more
 * than `cap` (then the per-zone counts are not predicted).
 */
export function givingReceivingOutcomes(
  allocations: Record<string, Pick<ZoneAllocation, 'target'>>,
  allocatedHintsByZone: Record<string, number>,
  cap = 64,
): GivingReceiving[] | null {
  const givingDesired = new Map<string, number>()
  const receivingDesired = new Map<string, number>()
  for (const zone of sortedKeys(allocations)) {
    const allocated = own(allocatedHintsByZone, zone) ?? 0
    const target = (allocations[zone] as Pick<ZoneAllocation, 'target'>).target
    if (allocated > target) givingDesired.set(zone, allocated - target)
    else if (allocated < target) receivingDesired.set(zone, target - allocated)
  }
  const givingKeys = sortedKeys(givingDesired)
  const receivingKeys = sortedKeys(receivingDesired)
  const outcomes = new Map<string, GivingReceiving>()
  const seen = new Set<string>()
  let budget = 20_000
  // A depth-first walk, on a stack of its own: a path is as long as the endpoints given (tens of
  // thousands with --replicas 100000), too deep for the call stack. Children are visited in the
  // order they are listed (giving zone, then receiving zone), each subtree before the next.
  type State = [gd: Map<string, number>, rd: Map<string, number>, g: Map<string, number>, r: Map<string, number>]
  // Until the first tie the walk is one chain (one child per state), and its states cannot repeat
  // (each gives one endpoint more than its parent, and so does every state after it): walked in
  // place, without the copies and keys of the general walk below, with the same budget. (A bench
  // with 412 steps and no tie spent about 20 ms here on a first call.)
  const g0 = new Map<string, number>()
  const r0 = new Map<string, number>()
  for (;;) {
    const give = most(givingDesired, givingKeys)
    const recv = most(receivingDesired, receivingKeys)
    if (give.zones.length === 0 || recv.zones.length === 0 || (give.num < 1.0 && recv.num < 1.0) || give.num < 0.5 || recv.num < 0.5) {
      if (--budget < 0) return null
      return cap < 1 ? null : [{giving: toRecord(g0), receiving: toRecord(r0)}]
    }
    if (give.zones.length > 1 || recv.zones.length > 1) break
    if (--budget < 0) return null
    const gz = give.zones[0]!
    const rz = recv.zones[0]!
    givingDesired.set(gz, give.num - 1)
    receivingDesired.set(rz, recv.num - 1)
    g0.set(gz, (g0.get(gz) ?? 0) + 1)
    r0.set(rz, (r0.get(rz) ?? 0) + 1)
  }
  const stack: State[] = [[givingDesired, receivingDesired, g0, r0]]
  while (stack.length > 0) {
    const [gd, rd, g, r] = stack.pop() as State
    const key = JSON.stringify([toRecord(g), toRecord(r)])
    if (seen.has(key)) continue
    seen.add(key)
    if (--budget < 0) return null
    const give = most(gd, givingKeys)
    const recv = most(rd, receivingKeys)
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

/**
 * Whether getAllocatedHintsByZone keeps the same unchanged slices in every order: true when
 * every slice that is valid on its own stays valid with all the others that are (their hints
 * together fit every zone's maximum).
 */
export function unchangedOrderMatters(
  unchanged: readonly EndpointSlice[],
  allocations: Record<string, Pick<ZoneAllocation, 'maximum'>>,
  hintsByZone: (slice: EndpointSlice, index: number) => Record<string, number> | null,
): boolean {
  const sum = new Map<string, number>()
  let valid = 0
  for (let i = 0; i < unchanged.length; i++) {
    const h = hintsByZone(unchanged[i]!, i)
    if (h === null) continue
    valid++
    for (const z of Object.keys(h)) sum.set(z, (sum.get(z) ?? 0) + (h[z] as number))
  }
  if (valid < 2) return false
  for (const [z, n] of sum) if (n > (own(allocations, z)?.maximum ?? -1)) return true
  return false
}

export interface HintAlternatives {
  /**
   * Per slice name, per endpoint index: the zones (sorted) the endpoint's hint can name under
   * any order; null for endpoints AddHints does not hint (not ready).
   */
  bySlice: Map<string, (string[] | null)[]>
  /** Every possible per-zone count of zone hints over all ready endpoints; null when not predicted. */
  counts: Record<string, number>[] | null
  /** Ready endpoints whose donation (or not) depends on the slice order. */
  sliceOrder: number
  /** Ready endpoints with more than one possible zone hint. */
  uncertain: number
}

/**
 * Every zone each ready endpoint of `allocatable` (the slices AddHints rewrites, after step 1:
 * every ready endpoint hinted for its own zone) can end up hinted for, and the per-zone counts
 * possible. `allocatedAfterStep1` counts the hints of the unchanged slices plus step 1's.
 * `unchangedRandom`: which unchanged slices stay valid depends on the order; then every zone
 * with an allocation is possible for every rewritten endpoint and the counts are not predicted.
 */
export function hintAlternatives(
  allocatable: readonly EndpointSlice[],
  allocations: Record<string, ZoneAllocation>,
  allocatedAfterStep1: Record<string, number>,
  unchangedRandom: boolean,
): HintAlternatives {
  const bySlice = new Map<string, (string[] | null)[]>()
  const allZones = sortedKeys(allocations)
  // Ready endpoints per zone: in each slice, and in all of them.
  const perSlice = allocatable.map((s) => {
    const c = new Map<string, number>()
    for (const e of s.endpoints ?? []) if (endpointReady(e) && e.zone) c.set(e.zone, (c.get(e.zone) ?? 0) + 1)
    return c
  })
  const total = new Map<string, number>()
  for (const c of perSlice) for (const [z, n] of c) total.set(z, (total.get(z) ?? 0) + n)

  const outcomes = unchangedRandom ? null : givingReceivingOutcomes(allocations, allocatedAfterStep1)
  let sliceOrder = 0
  let uncertain = 0
  allocatable.forEach((slice, si) => {
    const seenInSlice = new Map<string, number>()
    const row: (string[] | null)[] = []
    for (const e of slice.endpoints ?? []) {
      if (!endpointReady(e) || !e.zone) {
        row.push(null)
        continue
      }
      const z = e.zone
      const p = seenInSlice.get(z) ?? 0
      seenInSlice.set(z, p + 1)
      const zones = new Set<string>()
      let orderDependent = false
      if (outcomes === null) {
        for (const a of allZones) zones.add(a)
        zones.add(z)
        if (unchangedRandom) orderDependent = true
      } else {
        for (const o of outcomes) {
          const k = own(o.giving, z) ?? 0
          if (k === 0) {
            zones.add(z)
            continue
          }
          const before = (total.get(z) ?? 0) - (perSlice[si]!.get(z) ?? 0)
          const may = p < k
          const must = before + p < k
          if (may !== must) orderDependent = true
          if (!must) zones.add(z)
          if (may) for (const r of Object.keys(o.receiving)) if ((o.receiving[r] as number) > 0) zones.add(r)
        }
      }
      if (orderDependent) sliceOrder++
      const list = [...zones].sort()
      if (list.length > 1) uncertain++
      row.push(list)
    }
    bySlice.set(slice.metadata.name, row)
  })

  let counts: Record<string, number>[] | null = null
  if (outcomes !== null) {
    const distinct = new Map<string, Record<string, number>>()
    for (const o of outcomes) {
      const c = new Map(Object.entries(allocatedAfterStep1))
      let known = true
      let shortfall = 0
      for (const [z, k] of Object.entries(o.giving)) {
        const donated = Math.min(k, total.get(z) ?? 0)
        shortfall += k - donated
        c.set(z, (c.get(z) ?? 0) - donated)
      }
      // Fewer donors than planned: which receivers go short depends on the order, unless one receives.
      if (shortfall > 0 && Object.keys(o.receiving).length > 1) known = false
      if (!known) {
        distinct.clear()
        break
      }
      let left = shortfall
      for (const [z, k] of Object.entries(o.receiving)) {
        const got = Math.max(0, k - left)
        left -= k - got
        c.set(z, (c.get(z) ?? 0) + got)
      }
      const rec = toRecord(new Map([...c].filter(([, n]) => n !== 0)))
      distinct.set(JSON.stringify(rec), rec)
    }
    if (distinct.size > 0) counts = [...distinct.values()]
  }
  return {bySlice, counts, sliceOrder, uncertain}
}
