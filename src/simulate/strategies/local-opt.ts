// KEP-2004 "local-opt" = the evaluation tool's LocalSliceAlgorithmOpt
// (modeling/algorithm/local-slice-algorithm-opt.go, last changed in 94a721a, unchanged at b2a4aae:
// CreateSliceGroups, balanceSliceGroups; utils.go assignEndpoints).
//
// No threshold and no fallback. A zone above its expectation keeps floor(E) and offers ceil(surplus);
// a zone below keeps all and asks for trunc(deficit) (which can be 0). Receivers in name order take
// first-fit from donors in name order; when donors run out the rest of the need is ignored (and the
// leftover step below is skipped, as the tool returns early); leftover offers go to one "global" group
// every zone consumes with weight 1/|Z|.
import {Groups, assignEndpoints, dev, newGroup, type Allocation, type EndpointDeviation, type Region, setComp} from './region.js'

export function localOpt(region: Region): Allocation {
  const Z = region.zones.length
  const groups = new Groups(region.zones)
  const name = (z: number) => region.zones[z] as string
  const available: EndpointDeviation[] = []
  const needed: EndpointDeviation[] = []
  for (let z = 0; z < Z; z++) {
    const g = newGroup(name(z), Z)
    g.weights[z] = 1
    const e = (region.share[z] as number) * region.total
    const deviation = (region.endpoints[z] as number) - e
    if (deviation > 0) {
      available.push(dev(z, Math.trunc(Math.ceil(deviation))))
      setComp(g, z, Math.trunc(e))
    } else if (deviation < 0) {
      needed.push(dev(z, Math.trunc(-deviation)))
      setComp(g, z, region.endpoints[z] as number)
    } else {
      setComp(g, z, region.endpoints[z] as number)
    }
    groups.set(g)
  }
  for (const entry of needed.slice()) {
    if (available.length === 0) return {groups: groups.list()}
    assignEndpoints({...entry}, available, groups, region)
  }
  if (available.length !== 0) {
    const global = newGroup('global', Z)
    for (let z = 0; z < Z; z++) global.weights[z] = 1 / Z
    for (const extra of available) setComp(global, extra.zone, extra.deviation)
    groups.set(global)
  }
  return {groups: groups.list()}
}
