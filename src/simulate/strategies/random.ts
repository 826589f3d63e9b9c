// KEP-2004 "random" = the evaluation tool's OriginalAlgorithm
// (modeling/algorithm/original-algorithm.go, OriginalAlgorithm.CreateSliceGroups): one "global"
// slice group holding every endpoint, consumed by every zone with weight 1. This is what
// kube-proxy does without topology: every endpoint is equally likely from everywhere.
import {newGroup, setComp, type Allocation, type Region} from './region.js'

export function random(region: Region): Allocation {
  const Z = region.zones.length
  const g = newGroup('global', Z)
  for (let z = 0; z < Z; z++) {
    setComp(g, z, region.endpoints[z] as number)
    g.weights[z] = 1
  }
  return {groups: [g]}
}
