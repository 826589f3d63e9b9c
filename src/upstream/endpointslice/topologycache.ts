// The upstream EndpointSlice controller's topology cache (service.kubernetes.io/topology-mode:
// Auto hint allocation), as pure functions. Reference: k8s.io/endpointslice
// topologycache/{topologycache,utils,sliceinfo,event}.go (mirrored in kubernetes/kubernetes
// staging/src/k8s.io/endpointslice), and /work/shared/spec/upstream-behaviour.md §4-8, §15-16.
//
// Floating point follows upstream's float64 operations in the same order:
//   desired = ratio * N;  minimum = Math.ceil(desired * (5 / 6));  target = max(desired, minimum)
// where 5/6 === 0.8333333333333334 is the double Go's constant 1/(1+0.2) becomes.
//
// Deterministic choices where upstream iterates a Go map (random order). We use sorted zone
// names (plain JS string sort, UTF-16 code-unit order) everywhere:
//  * getAllocations visits zones in sorted order (the outcome does not depend on it: the
//    "sum of minimums > N" refusal fires for any order, with the same message);
//  * getGivingAndReceivingZones: the "largest" surplus/deficit is the first value strictly
//    greater than everything seen before (starting from 0), scanning zones in sorted order, so
//    ties go to the first zone in sorted order;
//  * redistributeHints: an endpoint of a giving zone goes to the first receiving zone in sorted
//    order that still has something left to receive.
// Per-zone counts are usually, but not always, independent of these choices (spec §15.2).
//
// Purity: nothing passed in is mutated. Slices that upstream changes in place (to-create,
// to-update) are deep-copied first; unchanged slices that must change are deep-copied and
// moved to the update list, exactly like upstream. Unchanged slices that stay unchanged are
// returned as the same objects.
//
// Not-ready endpoints: upstream's `endpoint.Hints = nil` for not-ready endpoints in AddHints
// and redistributeHints assigns to a loop copy, so it has no effect. We reproduce upstream:
// not-ready endpoints in the to-create/to-update lists keep whatever hints they already had.
// (RemoveHintsFromSlices does clear them, as it indexes the slice.)

import type {AddressType, Endpoint, EndpointSlice, TopologyEvent} from '../api/types.js'

export {nodeReady} from './nodes.js'

/** overloadThreshold: the maximum overload any individual endpoint should be exposed to. */
export const OVERLOAD_THRESHOLD = 0.2
/** The double Go's constant expression 1/(1+overloadThreshold) evaluates to. */
const OVERLOAD_FACTOR = 5 / 6

/** Event message texts (topologycache/event.go), without the ", addressType: X" suffix. */
export const MESSAGES = {
  noZoneSpecified: 'One or more endpoints do not have a zone specified',
  noAllocatedHintsForZones: 'No hints allocated for zones',
  topologyAwareHintsEnabled: 'Topology Aware Hints has been enabled',
  topologyAwareHintsDisabled: 'Topology Aware Hints has been disabled',
  insufficientNodeInfo: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
  nodesReadyInOneZoneOnly: 'Nodes only ready in one zone',
  insufficientNumberOfEndpoints: 'Insufficient number of endpoints',
  minAllocationExceedsOverloadThreshold:
    'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold',
} as const

/** Upstream FormatWithAddressType. */
export function formatWithAddressType(message: string, addressType: AddressType): string {
  return `${message}, addressType: ${addressType}`
}

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

export type AllocationOutcome =
  | {ok: true; allocations: Record<string, ZoneAllocation>}
  | {ok: false; message: string}

export interface SliceLists {
  toCreate: EndpointSlice[]
  toUpdate: EndpointSlice[]
  unchanged: EndpointSlice[]
}

export interface AddHintsInput extends SliceLists {
  addressType: AddressType
  /** whether the cache already had this service marked "hints populated" (decides the Enabled event) */
  populated?: boolean
}

export interface AddHintsResult extends SliceLists {
  events: TopologyEvent[]
  hintsSet: boolean
  totalReady: number
  /** null when refused before allocations */
  allocations: Record<string, ZoneAllocation> | null
  /** the stored cache entry, null when refused */
  allocatedHintsByZone: Record<string, number> | null
  giving: Record<string, number>
  receiving: Record<string, number>
  /** message without the addressType suffix */
  refusal?: {message: string}
  /**
   * Where upstream's result depends on Go's random map order and ours on sorted zone names:
   * tieBreaks = giving/receiving steps where two zones had the same largest surplus or deficit
   * (per-zone counts may differ upstream); receiverChoices = donated endpoints that could have
   * gone to another receiving zone (which endpoint goes where may differ; counts do not).
   * Absent when the allocation never got that far.
   */
  randomChoices?: {tieBreaks: number; receiverChoices: number}
}

// ---- small helpers ------------------------------------------------------------------------

function own<T>(rec: Record<string, T> | null | undefined, key: string): T | undefined {
  return rec && Object.hasOwn(rec, key) ? rec[key] : undefined
}

function sortedKeys(rec: Record<string, unknown> | Map<string, unknown>): string[] {
  return (rec instanceof Map ? [...rec.keys()] : Object.keys(rec)).sort()
}

/** A Map as a plain record with sorted keys (Object.fromEntries defines own data properties). */
function toRecord<T>(m: Map<string, T>): Record<string, T> {
  return Object.fromEntries(sortedKeys(m).map((k) => [k, m.get(k) as T]))
}

/**
 * A deep copy of plain (JSON-shaped) data, like structuredClone for the objects and arrays a
 * snapshot or an API list holds, several times faster on small slices. Keys are defined as own
 * properties (Object.fromEntries), so a key named "__proto__" stays a plain key.
 */
function clonePlain<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clonePlain) as T
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.keys(v).map((k) => [k, clonePlain((v as Record<string, unknown>)[k])])) as T
  }
  return v
}

function cloneSlice(slice: EndpointSlice): EndpointSlice {
  return clonePlain(slice)
}

/** Upstream EndpointReady: the Ready condition must be set and true (unset counts as not ready). */
export function endpointReady(endpoint: Endpoint): boolean {
  return endpoint.conditions?.ready === true
}

function numReadyEndpoints(endpoints: Endpoint[] | null | undefined): number {
  let total = 0
  // Indexed loops here and in getHintsByZone: they run over every endpoint of a Service, mostly
  // before V8 optimises them, where for-of allocates an iterator result per element.
  for (let i = 0; i < (endpoints?.length ?? 0); i++) if (endpointReady(endpoints![i]!)) total++
  return total
}

/** Upstream SliceInfo.getTotalReadyEndpoints: ready endpoints over create + update + unchanged. */
export function getTotalReadyEndpoints(si: Partial<SliceLists>): number {
  let total = 0
  for (const list of [si.toCreate, si.toUpdate, si.unchanged]) {
    for (const slice of list ?? []) total += numReadyEndpoints(slice.endpoints)
  }
  return total
}

// ---- allocations ----------------------------------------------------------------------------

/** Upstream TopologyCache.getAllocations; zones are visited in sorted order. */
export function getAllocations(numEndpoints: number, cpuRatiosByZone: Record<string, number> | null): AllocationOutcome {
  if (cpuRatiosByZone === null || cpuRatiosByZone === undefined) {
    return {ok: false, message: MESSAGES.insufficientNodeInfo}
  }
  const zones = sortedKeys(cpuRatiosByZone)
  if (zones.length < 2) return {ok: false, message: MESSAGES.nodesReadyInOneZoneOnly}
  if (zones.length > numEndpoints) {
    return {
      ok: false,
      message: `${MESSAGES.insufficientNumberOfEndpoints} (${numEndpoints} endpoints, ${zones.length} zones)`,
    }
  }

  let remainingMinEndpoints = numEndpoints
  let minTotal = 0
  const partial = new Map<string, Omit<ZoneAllocation, 'maximum'>>()
  for (const zone of zones) {
    const ratio = cpuRatiosByZone[zone] as number
    const desired = ratio * numEndpoints
    const minimum = Math.ceil(desired * OVERLOAD_FACTOR)
    partial.set(zone, {desired, minimum, target: Math.max(desired, minimum)})
    minTotal += minimum
    remainingMinEndpoints -= minimum
    if (remainingMinEndpoints < 0) {
      return {
        ok: false,
        message: `${MESSAGES.minAllocationExceedsOverloadThreshold} (${numEndpoints} endpoints, ${zones.length} zones)`,
      }
    }
  }

  const allocations: Record<string, ZoneAllocation> = Object.fromEntries(
    [...partial].map(([zone, a]) => [zone, {...a, maximum: a.minimum + numEndpoints - minTotal}]),
  )
  return {ok: true, allocations}
}

// ---- reuse of existing hints --------------------------------------------------------------

/**
 * Upstream getHintsByZone: the number of hints per zone in an (unchanged) slice, or null when
 * the slice's hints are invalid: a ready endpoint without zone hints, a hint for a zone without
 * allocation, or more hints for a zone than its maximum allows on top of what is already
 * allocated. Not-ready endpoints are ignored.
 */
export function getHintsByZone(
  slice: EndpointSlice,
  allocatedHintsByZone: Record<string, number>,
  allocations: Record<string, Pick<ZoneAllocation, 'maximum'>>,
): Record<string, number> | null {
  const hintsByZone = new Map<string, number>()
  const endpoints = slice.endpoints ?? []
  for (let i = 0; i < endpoints.length; i++) {
    const endpoint = endpoints[i]!
    if (!endpointReady(endpoint)) continue
    const forZones = endpoint.hints?.forZones
    if (!endpoint.hints || !forZones || forZones.length === 0) return null
    for (let k = 0; k < forZones.length; k++) {
      const zone = forZones[k]!.name
      if (own(allocations, zone) === undefined) return null
      hintsByZone.set(zone, (hintsByZone.get(zone) ?? 0) + 1)
    }
  }
  for (const [zone, numHints] of hintsByZone) {
    const alreadyAllocated = own(allocatedHintsByZone, zone) ?? 0
    const allocation = own(allocations, zone)
    if (allocation === undefined || numHints + alreadyAllocated > allocation.maximum) return null
  }
  return toRecord(hintsByZone)
}

/**
 * Upstream SliceInfo.getAllocatedHintsByZone: walks the unchanged slices in order; valid ones
 * stay unchanged and their hints are counted, invalid ones are deep-copied onto the update list.
 */
function getAllocatedHintsByZone(
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

// ---- giving and receiving ------------------------------------------------------------------

/** Upstream getMost, over zones in sorted order: the first value strictly greater than all before it (from 0). */
function getMost(zones: Map<string, number>): [string, number, boolean] {
  let zone = ''
  let num = 0
  for (const z of sortedKeys(zones)) {
    const n = zones.get(z) as number
    if (n > num) {
      zone = z
      num = n
    }
  }
  // Another zone with the same largest value: Go's map order decides between them.
  let tied = false
  if (zone !== '') for (const [z, n] of zones) if (z !== zone && n === num) tied = true
  return [zone, num, tied]
}

/**
 * Upstream getGivingAndReceivingZones: how many endpoints each zone should give away and
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
  let tieBreaks = 0
  for (;;) {
    const [givingZone, numToGive, givingTied] = getMost(givingDesired)
    const [receivingZone, numToReceive, receivingTied] = getMost(receivingDesired)
    // Stop if either side is missing, both have < 1 left, or either has < 0.5 left.
    // (Upstream tests for "no zone" with the empty string; a zone named "" cannot have an
    // allocation through SetNodes, since nodes without a zone label stop SetNodes.)
    if (
      givingZone === '' ||
      receivingZone === '' ||
      (numToGive < 1.0 && numToReceive < 1.0) ||
      numToGive < 0.5 ||
      numToReceive < 0.5
    ) {
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

/** In-place redistribution over slices we own (already copies). Returns the per-zone changes. */
function redistributeInPlace(
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

function recordToMap(rec: Record<string, number>): Map<string, number> {
  return new Map(sortedKeys(rec).map((k) => [k, rec[k] as number]))
}

/**
 * Upstream redistributeHints: walks the slices' ready endpoints in order and re-hints
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

function hasAnyHints(slice: EndpointSlice): boolean {
  return (slice.endpoints ?? []).some((ep) => ep.hints !== undefined && ep.hints !== null)
}

function clearHints(slice: EndpointSlice): void {
  for (const ep of slice.endpoints ?? []) delete ep.hints
}

/**
 * Upstream RemoveHintsFromSlices: every endpoint of the to-create and to-update slices loses
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
 * Upstream serviceOverloaded: true if, under the current ratios, the stored hint counts of a
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

// ---- AddHints ------------------------------------------------------------------------------

function disabledEvent(message: string, addressType: AddressType): TopologyEvent {
  return {type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: formatWithAddressType(message, addressType)}
}

function refuse(
  message: string,
  addressType: AddressType,
  lists: SliceLists,
  totalReady: number,
  allocations: Record<string, ZoneAllocation> | null,
): AddHintsResult {
  const removed = removeHintsFromSlices(lists)
  return {
    ...removed,
    events: [disabledEvent(message, addressType)],
    hintsSet: false,
    totalReady,
    allocations,
    allocatedHintsByZone: null,
    giving: {},
    receiving: {},
    refusal: {message},
  }
}

/**
 * Upstream TopologyCache.AddHints for one (service, addressType), given the cluster's CPU
 * ratios (from setNodes). On success the cache entry upstream stores is allocatedHintsByZone
 * and the service becomes "hints populated"; on refusal upstream deletes the entry and clears
 * the mark, and every hint is removed.
 */
export function addHints(ratios: Record<string, number> | null, input: AddHintsInput): AddHintsResult {
  const {addressType} = input
  const totalReady = getTotalReadyEndpoints(input)
  const outcome = getAllocations(totalReady, ratios)
  if (!outcome.ok) {
    return refuse(outcome.message, addressType, input, totalReady, null)
  }
  const {allocations} = outcome

  const {allocated, stillUnchanged, moved} = getAllocatedHintsByZone(input.unchanged, allocations)
  const toCreate = input.toCreate.map(cloneSlice)
  const toUpdate = [...input.toUpdate.map(cloneSlice), ...moved]
  const allocatable = [...toCreate, ...toUpdate]

  // Step 1: same-zone hints for every ready endpoint as a starting point.
  for (const slice of allocatable) {
    for (const endpoint of slice.endpoints ?? []) {
      // Upstream's `endpoint.Hints = nil` here only clears a loop copy: existing hints survive.
      if (!endpointReady(endpoint)) continue
      if (endpoint.zone === undefined || endpoint.zone === null || endpoint.zone === '') {
        return refuse(MESSAGES.noZoneSpecified, addressType, {toCreate, toUpdate, unchanged: stillUnchanged}, totalReady, allocations)
      }
      allocated.set(endpoint.zone, (allocated.get(endpoint.zone) ?? 0) + 1)
      endpoint.hints = {forZones: [{name: endpoint.zone}]}
    }
  }

  // Step 2: which zones give and which receive.
  const {giving, receiving, tieBreaks} = getGivingAndReceivingZones(allocations, toRecord(allocated))

  // Step 3: redistribute.
  const choices = {receiverChoices: 0}
  const redistributions = redistributeInPlace(allocatable, recordToMap(giving), recordToMap(receiving), choices)
  const randomChoices = {tieBreaks, receiverChoices: choices.receiverChoices}
  for (const [zone, diff] of redistributions) allocated.set(zone, (allocated.get(zone) ?? 0) + diff)

  if (allocated.size === 0) {
    const r = refuse(MESSAGES.noAllocatedHintsForZones, addressType, {toCreate, toUpdate, unchanged: stillUnchanged}, totalReady, allocations)
    return {...r, giving, receiving, randomChoices}
  }

  const events: TopologyEvent[] = []
  if (!input.populated) {
    events.push({
      type: 'Normal',
      reason: 'TopologyAwareHintsEnabled',
      message: formatWithAddressType(MESSAGES.topologyAwareHintsEnabled, addressType),
    })
  }
  return {
    toCreate,
    toUpdate,
    unchanged: stillUnchanged,
    events,
    hintsSet: true,
    totalReady,
    allocations,
    allocatedHintsByZone: toRecord(allocated),
    giving,
    receiving,
    randomChoices,
  }
}
