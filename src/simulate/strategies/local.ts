// KEP-2004 "local" (the KEP's recommended algorithm) = the evaluation tool's LocalSliceAlgorithm
// (modeling/algorithm/local-slice-algorithm.go at b2a4aae: CreateSliceGroups, balanceSliceGroups,
// validContributor, deviationAboveThreshold; constructed in algorithms.go NewAlgorithm("Local")
// with threshold 0.5 and startingThreshold 3).
//
// KEP text vs code (the code is followed):
//  * starting threshold: the KEP says "3 x zones"; the code falls back when N < 3*|Z| (strict), so
//    9 endpoints in 3 zones DO subset;
//  * overload threshold: "exceeding 50%" in the KEP; the code tests ov >= 0.5 (exactly 50% counts);
//  * padding/hysteresis and lazy rebalancing are not in the code (see padding.ts for the KEP's padding);
//  * phase 2 (floor fill) exists only in the code.
import {random} from './random.js'
import {GoHeap, Groups, addTo, expected, newGroup, zoneLess, type Allocation, type Region, setComp} from './region.js'

export interface LocalOptions {
  /** overload threshold θ (0.5) */
  threshold?: number
  /** starting threshold multiplier (3): fall back to random when N < startingThreshold * |Z| */
  startingThreshold?: number
}

export function local(region: Region, opts: LocalOptions = {}): Allocation {
  const threshold = opts.threshold ?? 0.5
  const startingThreshold = opts.startingThreshold ?? 3
  const Z = region.zones.length
  if (region.total < startingThreshold * Z) return {...random(region), fallback: 'starting-threshold'}

  const groups = new Groups(region.zones)
  const name = (z: number) => region.zones[z] as string
  const above = (z: number, delta: number): boolean => expected(region, z) / (groups.countOf(z) + delta) - 1 >= threshold
  const validContributor = (z: number): boolean => groups.countOf(z) > 1 && !above(z, -1)

  const availableItems: number[] = []
  const receiverItems: number[] = []
  const allItems: number[] = []
  for (let z = 0; z < Z; z++) {
    const g = newGroup(name(z), Z)
    g.weights[z] = 1
    setComp(g, z, region.endpoints[z] as number)
    groups.set(g)
    if (validContributor(z)) availableItems.push(z)
    if (above(z, 0)) receiverItems.push(z)
    allItems.push(z)
  }
  const available = new GoHeap(availableItems, zoneLess(region, groups, false))
  const receivers = new GoHeap(receiverItems, zoneLess(region, groups, true))
  const all = new GoHeap(allItems, zoneLess(region, groups, true))

  // balanceSliceGroups, phase 1: bring every receiver under the threshold, or downgrade.
  available.init()
  receivers.init()
  while (receivers.length > 0) {
    const receiver = receivers.pop()
    while (available.length > 0) {
      if (!above(receiver, 0)) break
      const candidate = available.pop()
      addTo(groups.groupOf(receiver), candidate, 1)
      addTo(groups.groupOf(candidate), candidate, -1)
      if (validContributor(candidate)) available.push(candidate)
    }
    if (above(receiver, 0)) return {...random(region), fallback: 'overload-threshold'}
  }
  // Phase 2 (optional in the tool's comments, always run): floor fill.
  all.init()
  while (available.length > 0) {
    const candidate = available.pop()
    let deviation = groups.countOf(candidate) - expected(region, candidate)
    if (deviation < 1) break
    while (all.length > 0) {
      const receiver = all.pop()
      let receiverDeviation = groups.countOf(receiver) - expected(region, receiver)
      if (receiverDeviation > -1) return {groups: groups.list()}
      while (deviation >= 1 && receiverDeviation <= -1) {
        addTo(groups.groupOf(receiver), candidate, 1)
        addTo(groups.groupOf(candidate), candidate, -1)
        deviation--
        receiverDeviation++
      }
      all.push(receiver)
      if (deviation < 1) break
    }
  }
  return {groups: groups.list()}
}
