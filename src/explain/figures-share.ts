// What the advisor's per-mode evaluations of one Service share (ExplainOptions.figuresShare): the
// facts of its slices that no mode changes, computed at the first mode and reused by the others
// while the slices are the same objects (the engine never mutates its input). Pure.
//
// Each entry remembers the slices it was computed from and is used only for the same slices, in
// the same order (compared object by object): a share passed with another Service, or with the
// same Service in another state (plan's counts, the advisor's "Auto at N replicas"), computes
// its entry again.
import type {AddressType, EndpointSlice} from '../upstream/api/types.js'
import {clearedSlices} from '../upstream/endpointslice/reconciler.js'
import {Rows, type RowParts} from './rows.js'

interface Entry<T> {
  sources: readonly EndpointSlice[]
  value: T
}

const sameSlices = (a: readonly EndpointSlice[], b: readonly EndpointSlice[]) => a.length === b.length && a.every((s, i) => s === b[i])

/** Freezes a cleared copy: its slice object, its endpoints array and each endpoint (what the hint writers would otherwise be free to change). */
function frozenCopy(slice: EndpointSlice): EndpointSlice {
  const eps = slice.endpoints
  if (Array.isArray(eps)) {
    for (let i = 0; i < eps.length; i++) Object.freeze(eps[i])
    Object.freeze(eps)
  }
  return Object.freeze(slice)
}

export class FiguresShare {
  private readonly rowsByType = new Map<AddressType, Entry<Rows>>()
  private readonly clearedByType = new Map<AddressType, Entry<readonly EndpointSlice[]>>()

  /**
   * The endpoint rows and per-zone counts of `slices` (the live ones) with no prediction applied:
   * each row's predicted hints are its live ones (figuresOnly reads only their mode-independent
   * facts: zones, readiness, addresses). Read only: shared by every report made with this share.
   */
  liveRows(addressType: AddressType, slices: readonly EndpointSlice[], parts: RowParts): Rows {
    const e = this.rowsByType.get(addressType)
    if (e !== undefined && sameSlices(e.sources, slices)) return e.value
    const rows = liveRows(slices, parts)
    this.rowsByType.set(addressType, {sources: slices.slice(), value: rows})
    return rows
  }

  /** predictHints' fresh update list for `managed` (clearedSlices), frozen. */
  cleared(addressType: AddressType, managed: readonly EndpointSlice[]): readonly EndpointSlice[] {
    const e = this.clearedByType.get(addressType)
    if (e !== undefined && sameSlices(e.sources, managed)) return e.value
    const cleared = Object.freeze(clearedSlices(managed).map(frozenCopy))
    this.clearedByType.set(addressType, {sources: managed.slice(), value: cleared})
    return cleared
  }
}

/** The rows of `slices` with each slice as its own prediction (figuresOnly; see FiguresShare.liveRows). */
export function liveRows(slices: readonly EndpointSlice[], parts: RowParts): Rows {
  const rows = new Rows(parts, slices)
  for (let i = 0; i < slices.length; i++) rows.addSlice(slices[i]!, slices[i]!, undefined)
  return rows
}
