// KEP-2004 "local-weighted" = the evaluation tool's LocalWeightedSliceAlgorithm
// (modeling/algorithm/local-weighted-slice-algorithm.go, last changed in fc2299e, unchanged at
// b2a4aae: CreateSliceGroups, balanceSliceGroups; utils.go assignEndpoints).
//
// No threshold and no fallback. Integer surplus/deficit (Go int(): truncation toward zero) moves
// whole endpoints first-fit in zone-name order; the fractional rest goes through "shared-..."
// groups with fractional consumer weights (an API addition the KEP lists as an alternative).
//
// Reproduced as-is from the code: group labels are built from the donor (only when the donor also
// consumes it) and the receivers, and stored in a map by label, so two groups that end up with the
// same label (e.g. "shared-zone1" from two donors) REPLACE each other: the first group's endpoints
// drop out of every group (the measures report them as unassignedEndpoints).
import {Groups, assignEndpoints, dev, newGroup, type Allocation, type EndpointDeviation, type Region, setComp} from './region.js'

export function localWeighted(region: Region): Allocation {
  const Z = region.zones.length
  const groups = new Groups(region.zones)
  const name = (z: number) => region.zones[z] as string
  const available: EndpointDeviation[] = []
  const needed: EndpointDeviation[] = []
  const wAvailable: EndpointDeviation[] = []
  const wNeeded: EndpointDeviation[] = []
  for (let z = 0; z < Z; z++) {
    const g = newGroup(name(z), Z)
    g.weights[z] = 1
    const e = (region.share[z] as number) * region.total
    const deviation = (region.endpoints[z] as number) - e
    const intDeviation = Math.trunc(deviation)
    if (intDeviation === 0) {
      setComp(g, z, Math.trunc(e))
    } else if (intDeviation > 0) {
      available.push(dev(z, intDeviation))
      setComp(g, z, Math.trunc(e))
    } else {
      needed.push(dev(z, -intDeviation))
      setComp(g, z, region.endpoints[z] as number)
    }
    groups.set(g)
    const decimal = deviation - intDeviation
    if (decimal > 0) wAvailable.push(dev(z, 1, 1 - decimal, true))
    else if (decimal < 0) wNeeded.push(dev(z, 1, -decimal))
  }

  // balanceSliceGroups: whole endpoints first (range over a snapshot of the list, as Go's range does)
  for (const entry of needed.slice()) {
    const receive = {...entry}
    if (available.length === 0) {
      receive.weight = 1
      wNeeded.push(receive)
      continue
    }
    assignEndpoints(receive, available, groups, region)
    if (receive.deviation > 0) {
      receive.weight = 1
      wNeeded.push(receive)
    }
  }
  for (const extra of available) wAvailable.push({...extra, weight: 1})

  // fractional endpoints through shared groups with consumer weights
  for (const entry of wAvailable.slice()) {
    const extra = {...entry}
    const shared = newGroup('shared', Z)
    let label = 'shared'
    if (extra.consumeByLocal) {
      shared.weights[extra.zone] = extra.weight
      label += '-' + name(extra.zone)
      extra.weight = 1 - extra.weight
      extra.consumeByLocal = false
    }
    setComp(shared, extra.zone, extra.deviation)
    while (wNeeded.length > 0) {
      const receive = wNeeded[0] as EndpointDeviation
      const d = receive.deviation * receive.weight - extra.deviation * extra.weight
      if (d === 0) {
        shared.weights[receive.zone] = (shared.weights[receive.zone] as number) + extra.weight
        label += '-' + name(receive.zone)
        wNeeded.shift()
        break
      }
      if (d > 0) {
        shared.weights[receive.zone] = (shared.weights[receive.zone] as number) + extra.weight
        label += '-' + name(receive.zone)
        receive.deviation = 1
        receive.weight = d
        break
      }
      shared.weights[receive.zone] = (shared.weights[receive.zone] as number) + (receive.deviation * receive.weight) / extra.deviation
      label += '-' + name(receive.zone)
      extra.weight -= shared.weights[receive.zone] as number
      wNeeded.shift()
    }
    shared.label = label
    groups.set(shared)
  }
  return {groups: groups.list()}
}
