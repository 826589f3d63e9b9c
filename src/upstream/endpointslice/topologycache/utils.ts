// Port of k8s.io/endpointslice topologycache/utils.go (k8s.io/endpointslice v0.36.3, from
// Kubernetes v1.36.3): `RemoveHintsFromSlices`, `FormatWithAddressType`, `redistributeHints`,
// `getGivingAndReceivingZones`, `getMost`, `getHintsByZone`, `serviceOverloaded`,
// `isNodeReady`, `numReadyEndpoints` and `EndpointReady`, as pure functions.
//
// Deterministic choices where upstream iterates a Go map (random order). We use sorted zone
// names (plain JS string sort, UTF-16 code-unit order):
//  * getGivingAndReceivingZones: the "largest" surplus/deficit is the first value strictly
//    greater than everything seen before (starting from 0), scanning zones in sorted order, so
//    ties go to the first zone in sorted order;
//  * redistributeHints: an endpoint of a giving zone goes to the first receiving zone in sorted
//    order that still has something left to receive.
// With a tie, upstream's per-zone counts can differ from ours (two zones with the same surplus:
// either may give); with several receivers, which endpoint goes where can differ, the counts
// cannot. The order of the slices (a Go map's in the reconciler) decides which endpoints are
// donated. randomness.ts (ours) computes every outcome upstream can have.
//
// Purity: nothing passed in is mutated; slices upstream changes in place are deep-copied first.
//
// Not-ready endpoints: upstream's `endpoint.Hints = nil` for not-ready endpoints in
// redistributeHints assigns to a loop copy, so it has no effect, and we reproduce that.
// (RemoveHintsFromSlices does clear them, as it indexes the slice.)

import type {AddressType, Endpoint, EndpointSlice, Node} from '../../api/types.js'
import type {SliceLists} from './sliceinfo.js'

/** topologycache.go overloadThreshold (declared here, see topologycache.ts). */
export const OVERLOAD_THRESHOLD = 0.2
/** The double Go's constant expression 1/(1+overloadThreshold) evaluates to. */
export const OVERLOAD_FACTOR = 5 / 6

/** topologycache.go `allocation` (its `desired` is our `target`), plus the float64 `desired` it starts from. */
export interface ZoneAllocation {
  /** ratio * N */
  desired: number
  /** ceil(desired * 5/6) */
  minimum: number
  /** max(desired, minimum): what upstream stores as allocation.desired and balances towards */
  target: number
  /** minimum + N - sum of minimums; only used to decide whether existing hints can be reused */
  maximum: number
}

/** utils.go `FormatWithAddressType`. */
export function formatWithAddressType(message: string, addressType: AddressType): string {
  return `${message}, addressType: ${addressType}`
}

// ---- JS stand-ins for Go map reads, map iteration and DeepCopy (not upstream functions) ----

/** Go's `v, ok := m[key]` on a record, reading own keys only ("constructor" is a plain zone). */
export function own<T>(rec: Record<string, T> | null | undefined, key: string): T | undefined {
  return rec && Object.hasOwn(rec, key) ? rec[key] : undefined
}

/** Keys in sorted order: where Go iterates a map in random order, we iterate sorted zone names. */
export function sortedKeys(rec: Record<string, unknown> | Map<string, unknown>): string[] {
  return (rec instanceof Map ? [...rec.keys()] : Object.keys(rec)).sort()
}

/**
 * A Map as a plain record with sorted keys, each an own data property (as Object.fromEntries
 * defines them; a zone named "__proto__" is a plain key). Built in a loop: fromEntries over a
 * mapped list of pairs made three arrays per call, and AddHints makes several records per call,
 * in each of the advisor's Auto evaluations (docs/design.md, "The advisor's cost").
 */
export function toRecord<T>(m: ReadonlyMap<string, T>): Record<string, T> {
  const keys = sortedKeys(m as Map<string, T>)
  const out: Record<string, T> = {}
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!
    if (k === '__proto__') Object.defineProperty(out, k, {value: m.get(k), enumerable: true, writable: true, configurable: true})
    else out[k] = m.get(k) as T
  }
  return out
}

/**
 * `EndpointSlice.DeepCopy()`, for what a copy is used for here: the port writes only
 * `endpoint.hints`, always by replacing or deleting the whole field (`ep.hints = {...}`,
 * `delete ep.hints`: topologycache.go `setHintsForZones`-style assignments, trafficdist.go's
 * heuristics, `RemoveHintsFromSlices`), never inside a hints object or any other part of a slice.
 * So the copy is a new slice object with a new `endpoints` array of new endpoint objects, and the
 * rest (addresses, conditions, targetRef, the hints objects themselves, metadata) is shared with
 * the original, which the engine never mutates. A full deep copy of every slice was a quarter
 * of the advisor's CPU time (docs/design.md, "The advisor's cost"). Spread defines own data
 * properties, so a key named "__proto__" stays a plain key.
 */
export function cloneSlice(slice: EndpointSlice): EndpointSlice {
  const copy = {...slice}
  const eps = slice.endpoints
  if (Array.isArray(eps)) {
    const out = new Array<Endpoint>(eps.length)
    for (let i = 0; i < eps.length; i++) out[i] = {...eps[i]!}
    copy.endpoints = out
  }
  return copy
}

/** utils.go `EndpointReady`: the Ready condition must be set and true (unset counts as not ready). */
export function endpointReady(endpoint: Endpoint): boolean {
  return endpoint.conditions?.ready === true
}

/** utils.go `numReadyEndpoints`. */
export function numReadyEndpoints(endpoints: Endpoint[] | null | undefined): number {
  let total = 0
  // Indexed loops here and in getHintsByZone: they run over every endpoint of a Service, mostly
  // before V8 optimises them, where for-of allocates an iterator result per element.
  for (let i = 0; i < (endpoints?.length ?? 0); i++) if (endpointReady(endpoints![i]!)) total++
  return total
}

// ---- reuse of existing hints --------------------------------------------------------------

/**
 * utils.go `getHintsByZone`: the number of hints per zone in an (unchanged) slice, or null when
 * the slice's hints are invalid: a ready endpoint without zone hints, a hint for a zone without
 * allocation, or more hints for a zone than its maximum allows on top of what is already
 * allocated. Not-ready endpoints are ignored.
 */
export function getHintsByZone(
  slice: EndpointSlice,
  allocatedHintsByZone: Record<string, number>,
  allocations: Record<string, Pick<ZoneAllocation, 'maximum'>>,
): Record<string, number> | null {
  return hintsByZoneWithin(sliceHintFacts(slice).hintsByZone, allocatedHintsByZone, allocations)
}

/**
 * What `numReadyEndpoints` and `getHintsByZone` read from one slice, in one pass over its
 * endpoints (ours: AddHints reads each unchanged slice three times, for the total, in
 * getAllocatedHintsByZone and for randomness.ts; the facts are read once and shared).
 */
export interface SliceHintFacts {
  /** numReadyEndpoints of the slice's endpoints. */
  ready: number
  /** Per zone, the zone hints of the ready endpoints (in the order first met); null when a ready endpoint has no zone hint. */
  hintsByZone: Map<string, number> | null
}

/** `SliceHintFacts` of a slice (see there). */
export function sliceHintFacts(slice: EndpointSlice): SliceHintFacts {
  const endpoints = slice.endpoints ?? []
  let ready = 0
  let hintsByZone: Map<string, number> | null = new Map()
  // Indexed loop (see numReadyEndpoints). Most endpoints name one zone, the previous one's as
  // often as not: its count is kept aside until another zone comes.
  let last: string | null = null
  let lastCount = 0
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = endpoints[i]!
    if (!endpointReady(endpoint)) continue
    ready++
    if (hintsByZone === null) continue
    const forZones = endpoint.hints?.forZones
    if (!endpoint.hints || !forZones || forZones.length === 0) {
      hintsByZone = null
      continue
    }
    for (let k = 0; k < forZones.length; k++) {
      const zone = forZones[k]!.name
      if (zone === last) {
        lastCount++
        continue
      }
      if (last !== null) hintsByZone.set(last, lastCount)
      last = zone
      lastCount = (hintsByZone.get(zone) ?? 0) + 1
    }
  }
  if (hintsByZone !== null && last !== null) hintsByZone.set(last, lastCount)
  return {ready, hintsByZone}
}

/**
 * `getHintsByZone` from the slice's hint counts (`SliceHintFacts.hintsByZone`): null when they
 * are null (a ready endpoint without zone hints), when a zone has no allocation, or when a zone's
 * hints with those already allocated exceed its maximum. (Upstream returns nil at the first
 * endpoint hinted for a zone without allocation; the result does not depend on when.)
 */
export function hintsByZoneWithin(
  hintsByZone: ReadonlyMap<string, number> | null,
  allocatedHintsByZone: Record<string, number>,
  allocations: Record<string, Pick<ZoneAllocation, 'maximum'>>,
): Record<string, number> | null {
  if (hintsByZone === null) return null
  for (const [zone, numHints] of hintsByZone) {
    const alreadyAllocated = own(allocatedHintsByZone, zone) ?? 0
    const allocation = own(allocations, zone)
    if (allocation === undefined || numHints + alreadyAllocated > allocation.maximum) return null
  }
  return toRecord(hintsByZone as Map<string, number>)
}

// ---- giving and receiving ------------------------------------------------------------------

/**
 * utils.go `getMost`, over zones in sorted order: the first value strictly greater than all before
 * it (from 0). `sorted`: the map's keys in sorted order (getGivingAndReceivingZones sorts them
 * once: its loop only sets keys the maps already have).
 */
function getMost(zones: Map<string, number>, sorted: readonly string[]): [string, number, boolean] {
  let zone = ''
  let num = 0
  for (let i = 0; i < sorted.length; i++) {
    const z = sorted[i]!
    const n = zones.get(z) as number
    if (n > num) {
      zone = z
      num = n
    }
  }
  // Another zone with the same largest value: Go's map order decides between them.
  let tied = false
  if (zone !== '') for (let i = 0; i < sorted.length; i++) if (sorted[i] !== zone && zones.get(sorted[i]!) === num) tied = true
  return [zone, num, tied]
}

/**
 * utils.go `getGivingAndReceivingZones`: how many endpoints each zone should give away and
 * receive, from the allocations' targets and the hints allocated so far. Only zones with an
 * allocation take part.
 */
export function getGivingAndReceivingZones(
  allocations: Record<string, Pick<ZoneAllocation, 'target'>>,
  allocatedHintsByZone: Record<string, number>,
): {giving: Record<string, number>; receiving: Record<string, number>; tieBreaks: number} {
  const givingDesired = new Map<string, number>()
  const receivingDesired = new Map<string, number>()
  for (const zone of sortedKeys(allocations)) {
    const allocatedHints = own(allocatedHintsByZone, zone) ?? 0
    const target = (allocations[zone] as Pick<ZoneAllocation, 'target'>).target
    if (allocatedHints > target) givingDesired.set(zone, allocatedHints - target)
    else if (allocatedHints < target) receivingDesired.set(zone, target - allocatedHints)
  }

  const giving = new Map<string, number>()
  const receiving = new Map<string, number>()
  const givingZones = sortedKeys(givingDesired)
  const receivingZones = sortedKeys(receivingDesired)
  let tieBreaks = 0
  for (;;) {
    const [givingZone, numToGive, givingTied] = getMost(givingDesired, givingZones)
    const [receivingZone, numToReceive, receivingTied] = getMost(receivingDesired, receivingZones)
    // Stop if either side is missing, both have < 1 left, or either has < 0.5 left.
    // (Upstream tests for "no zone" with the empty string; a zone named "" cannot have an
    // allocation through SetNodes, since nodes without a zone label stop SetNodes.)
    if (givingZone === '' || receivingZone === '' || (numToGive < 1.0 && numToReceive < 1.0) || numToGive < 0.5 || numToReceive < 0.5) {
      break
    }
    if (givingTied) tieBreaks++
    if (receivingTied) tieBreaks++
    giving.set(givingZone, (giving.get(givingZone) ?? 0) + 1)
    givingDesired.set(givingZone, numToGive - 1)
    receiving.set(receivingZone, (receiving.get(receivingZone) ?? 0) + 1)
    receivingDesired.set(receivingZone, numToReceive - 1)
  }
  return {giving: toRecord(giving), receiving: toRecord(receiving), tieBreaks}
}

// ---- redistribution ------------------------------------------------------------------------

/** utils.go `redistributeHints`, in place, over slices we own (already copies). Returns the per-zone changes. */
export function redistributeInPlace(
  slices: EndpointSlice[],
  givingZones: Map<string, number>,
  receivingZones: Map<string, number>,
  choices?: {receiverChoices: number},
): Map<string, number> {
  const redistributions = new Map<string, number>()
  for (const slice of slices) {
    for (const endpoint of slice.endpoints ?? []) {
      // Upstream sets a copy's hints to nil here (no effect); not-ready endpoints are skipped.
      if (!endpointReady(endpoint)) continue
      if (givingZones.size === 0 || receivingZones.size === 0) return redistributions
      if (endpoint.zone === undefined || endpoint.zone === null || endpoint.zone === '') continue

      const givingZone = endpoint.zone
      const numToGive = givingZones.get(givingZone)
      if (numToGive !== undefined && numToGive > 0) {
        // Two or more zones still receiving: Go's map order picks which one gets this endpoint.
        if (choices && [...receivingZones.values()].filter((n) => n > 0).length > 1) choices.receiverChoices++
        for (const receivingZone of sortedKeys(receivingZones)) {
          const numToReceive = receivingZones.get(receivingZone) as number
          if (numToReceive > 0) {
            endpoint.hints = {forZones: [{name: receivingZone}]}
            if (numToGive === 1) givingZones.delete(givingZone)
            else givingZones.set(givingZone, numToGive - 1)
            if (numToReceive === 1) receivingZones.delete(receivingZone)
            else receivingZones.set(receivingZone, numToReceive - 1)
            redistributions.set(receivingZone, (redistributions.get(receivingZone) ?? 0) + 1)
            redistributions.set(givingZone, (redistributions.get(givingZone) ?? 0) - 1)
            break
          }
        }
      }
    }
  }
  return redistributions
}

/** A record as a Map in sorted key order (the mutable giving/receiving maps of redistributeHints). */
export function recordToMap(rec: Record<string, number>): Map<string, number> {
  return new Map(sortedKeys(rec).map((k) => [k, rec[k] as number]))
}

/**
 * utils.go `redistributeHints`: walks the slices' ready endpoints in order and re-hints
 * endpoints of giving zones to receiving zones. Returns deep copies of the slices (the inputs
 * are not changed) and the per-zone change in allocated hints.
 */
export function redistributeHints(
  slices: EndpointSlice[],
  givingZones: Record<string, number>,
  receivingZones: Record<string, number>,
): {slices: EndpointSlice[]; redistributions: Record<string, number>} {
  const copies = slices.map(cloneSlice)
  const redistributions = redistributeInPlace(copies, recordToMap(givingZones), recordToMap(receivingZones))
  return {slices: copies, redistributions: toRecord(redistributions)}
}

// ---- removing hints ------------------------------------------------------------------------

/** RemoveHintsFromSlices: some endpoint of an unchanged slice has non-nil hints. */
function hasAnyHints(slice: EndpointSlice): boolean {
  return (slice.endpoints ?? []).some((ep) => ep.hints !== undefined && ep.hints !== null)
}

/** RemoveHintsFromSlices: `slice.Endpoints[i].Hints = nil` for every endpoint. */
function clearHints(slice: EndpointSlice): void {
  for (const ep of slice.endpoints ?? []) delete ep.hints
}

/**
 * utils.go `RemoveHintsFromSlices`: every endpoint of the to-create and to-update slices loses
 * its hints (the returned slices are copies); each unchanged slice with any endpoint whose
 * hints are non-nil is deep-copied, cleared and appended to the update list. "nil hints" is
 * represented by the absence of the `hints` field.
 */
export function removeHintsFromSlices(si: SliceLists): SliceLists {
  const toCreate = si.toCreate.map(cloneSlice)
  const toUpdate = si.toUpdate.map(cloneSlice)
  toCreate.forEach(clearHints)
  toUpdate.forEach(clearHints)
  const unchanged: EndpointSlice[] = []
  for (const slice of si.unchanged) {
    if (hasAnyHints(slice)) {
      const copy = cloneSlice(slice)
      clearHints(copy)
      toUpdate.push(copy)
    } else {
      unchanged.push(slice)
    }
  }
  return {toCreate, toUpdate, unchanged}
}

// ---- overload ------------------------------------------------------------------------------

/**
 * utils.go `serviceOverloaded` (called by topologycache.go `GetOverloadedServices`): true if, under the current ratios, the stored hint counts of a
 * (service, addressType) leave some zone below its minimum. An empty entry is never
 * overloaded; nil/empty ratios make any non-empty entry overloaded.
 */
export function serviceOverloaded(hintsByZone: Record<string, number>, ratios: Record<string, number> | null): boolean {
  const zonesWithHints = Object.keys(hintsByZone)
  if (zonesWithHints.length === 0) return false
  if (ratios === null || ratios === undefined || Object.keys(ratios).length === 0) return true
  let totalEndpoints = 0
  for (const zone of sortedKeys(hintsByZone)) totalEndpoints += hintsByZone[zone] as number
  for (const zone of sortedKeys(ratios)) {
    const svcEndpoints = own(hintsByZone, zone)
    if (svcEndpoints === undefined) return true
    // Go: svcEndpoints < int(minEndpoints), int() truncating toward zero.
    const minEndpoints = Math.trunc(Math.ceil(totalEndpoints * (ratios[zone] as number) * OVERLOAD_FACTOR))
    if (svcEndpoints < minEndpoints) return true
  }
  return false
}

// ---- nodes ---------------------------------------------------------------------------------

/** utils.go `isNodeReady`: the first condition of type Ready decides; it must be "True". */
export function isNodeReady(node: Node): boolean {
  const conditions = node.status?.conditions ?? []
  for (let i = 0; i < conditions.length; i++) {
    if (conditions[i]!.type === 'Ready') return conditions[i]!.status === 'True'
  }
  return false
}
