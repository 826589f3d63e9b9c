// Port of k8s.io/endpointslice topologycache/sliceinfo.go (k8s.io/endpointslice v0.36.3, from
// Kubernetes v1.36.3): `SliceInfo` and its methods `getTotalReadyEndpoints` and
// `getAllocatedHintsByZone`, as pure functions. Unchanged slices that must change are
// deep-copied onto the update list, exactly like upstream; the others are returned as the same
// objects.

import type {EndpointSlice} from '../../api/types.js'
import type {ZoneAllocation} from './utils.js'
import {cloneSlice, hintsByZoneWithin, numReadyEndpoints, sliceHintFacts, toRecord, type SliceHintFacts} from './utils.js'

/** sliceinfo.go `SliceInfo`, without ServiceKey and AddressType (passed on their own). */
export interface SliceLists {
  toCreate: EndpointSlice[]
  toUpdate: EndpointSlice[]
  unchanged: EndpointSlice[]
}

/**
 * sliceinfo.go `SliceInfo.getTotalReadyEndpoints`: ready endpoints over create + update + unchanged.
 * `unchangedFacts`: the unchanged slices' `sliceHintFacts`, in their order, when already read.
 */
export function getTotalReadyEndpoints(si: Partial<SliceLists>, unchangedFacts?: readonly SliceHintFacts[]): number {
  let total = 0
  for (const list of [si.toCreate, si.toUpdate]) {
    for (const slice of list ?? []) total += numReadyEndpoints(slice.endpoints)
  }
  if (unchangedFacts !== undefined) for (const f of unchangedFacts) total += f.ready
  else for (const slice of si.unchanged ?? []) total += numReadyEndpoints(slice.endpoints)
  return total
}

/**
 * sliceinfo.go `SliceInfo.getAllocatedHintsByZone`: walks the unchanged slices in order; valid ones
 * stay unchanged and their hints are counted, invalid ones are deep-copied onto the update list.
 * `facts`: the slices' `sliceHintFacts`, in their order, when already read (getHintsByZone of a
 * slice is `hintsByZoneWithin` of its facts).
 */
export function getAllocatedHintsByZone(
  unchanged: EndpointSlice[],
  allocations: Record<string, ZoneAllocation>,
  facts?: readonly SliceHintFacts[],
): {allocated: Map<string, number>; stillUnchanged: EndpointSlice[]; moved: EndpointSlice[]} {
  const allocated = new Map<string, number>()
  const stillUnchanged: EndpointSlice[] = []
  const moved: EndpointSlice[] = []
  for (let i = 0; i < unchanged.length; i++) {
    const slice = unchanged[i]!
    const hintsByZone = hintsByZoneWithin((facts?.[i] ?? sliceHintFacts(slice)).hintsByZone, toRecord(allocated), allocations)
    if (hintsByZone === null) {
      moved.push(cloneSlice(slice))
    } else {
      stillUnchanged.push(slice)
      for (const zone of Object.keys(hintsByZone)) {
        allocated.set(zone, (allocated.get(zone) ?? 0) + (hintsByZone[zone] as number))
      }
    }
  }
  return {allocated, stillUnchanged, moved}
}
