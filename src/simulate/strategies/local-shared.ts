// KEP-2004 "local-shared" = the evaluation tool's LocalSharedSliceAlgorithm
// (modeling/algorithm/local-shared-algorithm.go at b2a4aae: CreateSliceGroups, balanceSliceGroups,
// keepDeviationBelowThreshold, createSharedSlice, getExtraEndpointsForSharedSlice,
// sufficientExtraEndpointsForSharedSlice, validContributor; threshold 0.5 from NewAlgorithm("LocalShared")).
//
// Zones without endpoints get no local group: they share one "merged-<zones>" group. Zones that
// stay at or above the overload threshold are pooled into one "shared-<zones>" group. Fallback to
// random when N < |Z| or when contributors run out. Not in the KEP text (the KEP only describes "local").
import {random} from './random.js'
import {GoHeap, Groups, addTo, dev, expected, newGroup, zoneLess, type Allocation, type EndpointDeviation, type Region, setComp} from './region.js'

export function localShared(region: Region, opts: {threshold?: number} = {}): Allocation {
  const threshold = opts.threshold ?? 0.5
  const Z = region.zones.length
  if (region.total < Z) return {...random(region), fallback: 'starting-threshold'}
  const groups = new Groups(region.zones)
  const name = (z: number) => region.zones[z] as string
  const above = (z: number, delta: number): boolean => expected(region, z) / (groups.countOf(z) + delta) - 1 >= threshold
  const validContributor = (z: number): boolean => {
    if (groups.groupOf(z) === undefined || groups.countOf(z) === 1) return false
    return !above(z, -1)
  }
  const deviationOf = (z: number): number | null => {
    if (groups.groupOf(z) === undefined) return null
    return groups.countOf(z) - expected(region, z)
  }

  // needed: {label of the receiving group, count}; the merged group is pushed to the front.
  const needed: {label: string; deviation: number}[] = []
  const urgent: EndpointDeviation[] = []
  const availableItems: number[] = []
  const receiverItems: number[] = []
  for (let z = 0; z < Z; z++) {
    const e = (region.share[z] as number) * region.total
    const deviation = (region.endpoints[z] as number) - e
    if (region.endpoints[z] === 0) {
      urgent.push(dev(z, 1, -deviation))
      continue
    }
    const g = newGroup(name(z), Z)
    g.weights[z] = 1
    setComp(g, z, region.endpoints[z] as number)
    groups.set(g)
    if (validContributor(z)) availableItems.push(z)
    receiverItems.push(z)
    if (deviation <= -1) needed.push({label: name(z), deviation: Math.trunc(-deviation)})
  }
  const available = new GoHeap(availableItems, zoneLess(region, groups, false))
  const receivers = new GoHeap(receiverItems, zoneLess(region, groups, true))

  // balanceSliceGroups
  available.init()
  const merged = newGroup('merged', Z)
  let mergedLabel = 'merged'
  let expectedMerged = 0
  for (const u of urgent) {
    mergedLabel += '-' + name(u.zone)
    expectedMerged += u.deviation * u.weight
    merged.weights[u.zone] = 1
  }
  let mergedDeviation: number
  if (expectedMerged >= 1) {
    // the tool's float fix: ceil to 3 decimals, then round half away from zero (Go math.Round)
    expectedMerged = Math.ceil(expectedMerged * 1000) / 1000
    mergedDeviation = goRound(expectedMerged)
  } else {
    mergedDeviation = Math.ceil(expectedMerged)
  }
  merged.label = mergedLabel
  if (expectedMerged !== 0) {
    groups.set(merged)
    needed.unshift({label: mergedLabel, deviation: mergedDeviation})
  }
  // assign extra endpoints to the zones / merged group in need
  while (needed.length > 0) {
    const receive = needed[0] as {label: string; deviation: number}
    if (available.length === 0) return {...random(region), fallback: 'no-contributor'}
    const candidate = available.pop()
    addTo(groups.groupOf(candidate), candidate, -1)
    addTo(groups.get(receive.label), candidate, 1)
    if (validContributor(candidate)) available.push(candidate)
    receive.deviation--
    if (receive.deviation === 0) needed.shift()
  }
  receivers.init()
  if (!keepBelowThreshold()) return {...random(region), fallback: 'overload-threshold'}
  // final pass: absolute surplus goes to the neediest zone
  while (available.length > 0) {
    const candidate = available.pop()
    const d = deviationOf(candidate)
    if (d === null) return {groups: [], error: `unexpected nil slice group for ${name(candidate)}`}
    if (d < 1) break
    if (receivers.length === 0) break // the tool would panic here (heap.Pop on an empty queue)
    const receiveZone = receivers.pop()
    // The tool loops forever when the neediest zone is the donor itself (possible only when
    // every zone's traffic share is 0, e.g. no nodes): giving to itself changes nothing. We stop.
    if (receiveZone === candidate) break
    addTo(groups.groupOf(receiveZone), candidate, 1)
    receivers.push(receiveZone)
    addTo(groups.groupOf(candidate), candidate, -1)
    if (validContributor(candidate)) available.push(candidate)
  }
  return {groups: groups.list()}

  function keepBelowThreshold(): boolean {
    let urgentZones: number[] = []
    while (receivers.length > 0) {
      const z = receivers.peek()
      if (!above(z, 0)) break
      urgentZones.push(z)
      receivers.pop()
    }
    const extra = new Map<number, number>()
    let extraNumber = 0
    if (urgentZones.length === 0) return true
    while (extraNumber < urgentZones.length) {
      if (available.length > 0) {
        const candidate = available.peek()
        const d = deviationOf(candidate)
        if (d === null) return false
        if (d >= 1) {
          available.pop()
          extra.set(candidate, (extra.get(candidate) ?? 0) + 1)
          extraNumber++
          addTo(groups.groupOf(candidate), candidate, -1)
          if (validContributor(candidate)) available.push(candidate)
          continue
        }
      }
      if (sufficient(urgentZones, extraNumber)) {
        createShared(urgentZones, extra)
        return true
      }
      if (getExtra(extra, urgentZones)) {
        createShared(urgentZones, extra)
        return true
      }
      return false
    }
    // one endpoint per urgent zone, donors in name order
    const donors = [...extra.keys()].sort((a, b) => a - b)
    for (const donor of donors) {
      const list = urgentZones.slice()
      for (const u of list) {
        addTo(groups.groupOf(u), donor, 1)
        urgentZones = urgentZones.slice(1)
        extra.set(donor, (extra.get(donor) as number) - 1)
        if (extra.get(donor) === 0) break
      }
    }
    return true
  }

  function sufficient(urgentZones: number[], extraNumber: number): boolean {
    let load = 0
    let totalEndpoints = extraNumber
    for (const u of urgentZones) totalEndpoints += groups.countOf(u)
    for (const u of urgentZones) load += expected(region, u) / totalEndpoints
    return load - 1 < threshold
  }

  function createShared(urgentZones: number[], extra: Map<number, number>): void {
    let label = 'shared'
    const shared = newGroup('shared', Z)
    for (const u of urgentZones) {
      label += `-${name(u)}`
      const g = groups.groupOf(u)
      if (g !== undefined) for (let z = 0; z < Z; z++) addTo(shared, z, g.comp[z] as number)
      shared.weights[u] = 1
      groups.delete(name(u))
    }
    for (const [z, n] of extra) addTo(shared, z, n)
    shared.label = label
    groups.set(shared)
  }

  function getExtra(extra: Map<number, number>, urgentZones: number[]): boolean {
    let extraNumber = 0
    for (const n of extra.values()) extraNumber += n
    while (!sufficient(urgentZones, extraNumber)) {
      if (available.length === 0) return false
      const candidate = available.pop()
      addTo(groups.groupOf(candidate), candidate, -1)
      if (validContributor(candidate)) available.push(candidate)
      extraNumber++
      extra.set(candidate, (extra.get(candidate) ?? 0) + 1)
    }
    return true
  }
}

/** Go's math.Round: half away from zero. */
function goRound(x: number): number {
  return x < 0 ? -Math.floor(-x + 0.5) : Math.floor(x + 0.5)
}
