// Port of k8s.io/endpointslice topologycache/sliceinfo.go (k8s.io/endpointslice v0.36.3, from
// Kubernetes v1.36.3): `SliceInfo` and its methods `getTotalReadyEndpoints` and
// `getAllocatedHintsByZone`, as pure functions. Unchanged slices that must change are
// deep-copied onto the update list, exactly like upstream; the others are returned as the same
// objects.

import type {EndpointSlice} from '../../api/types.js'
import type {ZoneAllocation} from './utils.js'
import {cloneSlice, getHintsByZone, numReadyEndpoints, toRecord} from './utils.js'

/** sliceinfo.go `SliceInfo`, without ServiceKey and AddressType (passed on their own). */
export interface SliceLists {
  toCreate: EndpointSlice[]
  toUpdate: EndpointSlice[]
  unchanged: EndpointSlice[]
}

/** sliceinfo.go `SliceInfo.getTotalReadyEndpoints`: ready endpoints over create + update + unchanged. */
export function getTotalReadyEndpoints(si: Partial<SliceLists>): number {
  let total = 0
  for (const list of [si.toCreate, si.toUpdate, si.unchanged]) {
    for (const slice of list ?? []) total += numReadyEndpoints(slice.endpoints)
  }
  return total
}

/**
 * sliceinfo.go `SliceInfo.getAllocatedHintsByZone`: walks the unchanged slices in order; valid ones
 * stay unchanged and their hints are counted, invalid ones are deep-copied onto the update list.
 */
export function getAllocatedHintsByZone(
  unchanged: EndpointSlice[],
  allocations: Record<string, ZoneAllocation>,
): {allocated: Map<string, number>; stillUnchanged: EndpointSlice[]; moved: EndpointSlice[]} {
  const allocated = new Map<string, number>()
  const stillUnchanged: EndpointSlice[] = []
  const moved: EndpointSlice[] = []
  for (const slice of unchanged) {
    const hintsByZone = getHintsByZone(slice, toRecord(allocated), allocations)
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
