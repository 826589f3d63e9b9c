// Port of k8s.io/endpointslice topologycache/topologycache.go (k8s.io/endpointslice v0.36.3,
// from Kubernetes v1.36.3; mirrored in kubernetes/kubernetes staging/src/k8s.io/endpointslice):
// the EndpointSlice controller's topology cache, which writes the zone hints of
// `service.kubernetes.io/topology-mode: Auto`. `TopologyCache.SetNodes`, `AddHints`,
// `getAllocations`, `hasExcludedLabels` and the `overloadThreshold` constant, as pure
// functions: the cache's state (ratios, stored hint counts, the "populated" mark) is passed in
// and returned instead of kept.
//
// Floating point follows upstream's float64 operations in the same order:
//   desired = ratio * N;  minimum = Math.ceil(desired * (5 / 6));  target = max(desired, minimum)
// where 5/6 === 0.8333333333333334 is the double Go's constant 1/(1+0.2) becomes.
//
// getAllocations visits zones in sorted order where upstream iterates a Go map; the outcome
// does not depend on it (the "sum of minimums > N" refusal fires for any order, with the same
// message).
//
// Purity: nothing passed in is mutated. Slices that upstream changes in place (to-create,
// to-update) are deep-copied first; unchanged slices that must change are deep-copied and
// moved to the update list, exactly like upstream. Unchanged slices that stay unchanged are
// returned as the same objects.
//
// Not-ready endpoints: upstream's `endpoint.Hints = nil` for not-ready endpoints in AddHints
// assigns to a loop copy, so it has no effect. We reproduce upstream: not-ready endpoints in
// the to-create/to-update lists keep whatever hints they already had.
//
// SetNodes, as upstream, in node list order:
//  1. skip nodes with a node-role.kubernetes.io/control-plane or .../master label (any value);
//  2. skip nodes that are not Ready (the first condition of type Ready must be "True");
//  3. any other node with no/empty topology.kubernetes.io/zone label or zero allocatable CPU
//     stops the loop: the node info is insufficient and the ratios are nil (cluster-wide);
//  4. otherwise its CPU is added (exactly, as a Quantity) to its zone and to the total.
// Afterwards: total zero, insufficient info or fewer than 2 zones -> cpuByZone and ratios nil;
// else ratio[zone] = float64(zone.MilliValue()) / float64(total.MilliValue()).
// Differences that cannot arise with real API data: allocatable CPU that does not parse is
// treated as 0, and negative CPU (rejected by API validation) is treated like zero CPU, where
// upstream would add the negative amount.

import {LABEL_CONTROL_PLANE, LABEL_MASTER, LABEL_ZONE, type AddressType, type Node, type TopologyEvent} from '../../api/types.js'
import {nanoToMilli, parseNano, QuantityError} from '../../apimachinery/quantity.js'
import {MESSAGES} from './event.js'
import {hintAlternatives, unchangedOrderMatters, type HintAlternatives} from './randomness.js'
import {getAllocatedHintsByZone, getTotalReadyEndpoints, type SliceLists} from './sliceinfo.js'
import {
  cloneSlice,
  endpointReady,
  formatWithAddressType,
  getGivingAndReceivingZones,
  hintsByZoneWithin,
  recordToMap,
  redistributeInPlace,
  sliceHintFacts,
  isNodeReady,
  OVERLOAD_FACTOR,
  removeHintsFromSlices,
  sortedKeys,
  toRecord,
  type ZoneAllocation,
} from './utils.js'

// overloadThreshold and the allocation type are declared in topologycache.go; utils.ts holds
// them here because utils.go's functions use them too and these modules must not import each
// other in a cycle. Re-exported, so they are found where upstream declares them.
export {OVERLOAD_THRESHOLD, type ZoneAllocation} from './utils.js'

export type AllocationOutcome = {ok: true; allocations: Record<string, ZoneAllocation>} | {ok: false; message: string}

export interface AddHintsInput extends SliceLists {
  addressType: AddressType
  /** whether the cache already had this service marked "hints populated" (decides the Enabled event) */
  populated?: boolean
  /**
   * false: skip randomness.ts hintAlternatives (not upstream's: the other hints Go's random
   * orders could give), for a caller that reads only the hints written; then no `alternatives`
   * and randomChoices.sliceOrder 0. Default true.
   */
  alternatives?: boolean
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
   * sliceOrder = ready endpoints whose donation depends on the order of the slices (a Go map's
   * in the reconciler); unchangedOrder = which unchanged slices keep their hints depends on it.
   * Absent when the allocation never got that far.
   */
  randomChoices?: {tieBreaks: number; receiverChoices: number; sliceOrder: number; unchangedOrder: boolean}
  /** Every hint each rewritten ready endpoint can get over all of upstream's random orders (randomness.ts). */
  alternatives?: HintAlternatives
}

// ---- allocations ----------------------------------------------------------------------------

/** topologycache.go `TopologyCache.getAllocations`; zones are visited in sorted order. */
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

  const allocations: Record<string, ZoneAllocation> = Object.fromEntries([...partial].map(([zone, a]) => [zone, {...a, maximum: a.minimum + numEndpoints - minTotal}]))
  return {ok: true, allocations}
}

// ---- AddHints ------------------------------------------------------------------------------

/** The Warning `TopologyAwareHintsDisabled` event AddHints records (an `EventBuilder`). */
function disabledEvent(message: string, addressType: AddressType): TopologyEvent {
  return {type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: formatWithAddressType(message, addressType)}
}

/**
 * AddHints' early returns: the event, `RemoveHints` (the entry is dropped, so none is
 * returned) and `RemoveHintsFromSlices`.
 */
function refuse(message: string, addressType: AddressType, lists: SliceLists, totalReady: number, allocations: Record<string, ZoneAllocation> | null): AddHintsResult {
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
 * topologycache.go `TopologyCache.AddHints` for one (service, addressType), given the cluster's CPU
 * ratios (from setNodes). On success the cache entry upstream stores is allocatedHintsByZone
 * and the service becomes "hints populated"; on refusal upstream deletes the entry and clears
 * the mark, and every hint is removed.
 */
export function addHints(ratios: Record<string, number> | null, input: AddHintsInput): AddHintsResult {
  const {addressType} = input
  // Each unchanged slice read once (utils.ts sliceHintFacts), for the total, getAllocatedHintsByZone and randomness.ts.
  const unchangedFacts = input.unchanged.map(sliceHintFacts)
  const totalReady = getTotalReadyEndpoints(input, unchangedFacts)
  const outcome = getAllocations(totalReady, ratios)
  if (!outcome.ok) {
    return refuse(outcome.message, addressType, input, totalReady, null)
  }
  const {allocations} = outcome

  const {allocated, stillUnchanged, moved} = getAllocatedHintsByZone(input.unchanged, allocations, unchangedFacts)
  const unchangedOrder = unchangedOrderMatters(input.unchanged, allocations, (_s, i) => hintsByZoneWithin(unchangedFacts[i]!.hintsByZone, {}, allocations))
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
  const afterStep1 = toRecord(allocated)
  const {giving, receiving, tieBreaks} = getGivingAndReceivingZones(allocations, afterStep1)
  const alternatives = input.alternatives === false ? undefined : hintAlternatives(allocatable, allocations, afterStep1, unchangedOrder)

  // Step 3: redistribute.
  const choices = {receiverChoices: 0}
  const redistributions = redistributeInPlace(allocatable, recordToMap(giving), recordToMap(receiving), choices)
  const randomChoices = {tieBreaks, receiverChoices: choices.receiverChoices, sliceOrder: alternatives?.sliceOrder ?? 0, unchangedOrder}
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
    ...(alternatives === undefined ? {} : {alternatives}),
  }
}

// ---- SetNodes ------------------------------------------------------------------------------

/** What `TopologyCache.SetNodes` stores: its sufficientNodeInfo, cpuByZone and cpuRatiosByZone. */
export interface NodeInfo {
  sufficientNodeInfo: boolean
  /** milli-CPU per zone (sorted keys); null when the node info is insufficient */
  cpuByZone: Record<string, number> | null
  /** float64 share of the total per zone (sorted keys); null when the node info is insufficient */
  cpuRatiosByZone: Record<string, number> | null
}

/** A node's allocatable CPU, exactly (nano units) and as MilliValue(); `error` when it does not parse. */
export interface AllocatableCPU {
  nano: bigint
  milli: number
  /** set when allocatable cpu could not be parsed (then 0, like upstream's zero value) */
  error?: string
}

/**
 * `node.Status.Allocatable.Cpu()` (k8s.io/api core/v1 resource.go `ResourceList.Cpu`), parsed
 * as resource.ParseQuantity does; a missing entry is the zero Quantity, and a value that does
 * not parse counts as 0 (with `error` set).
 */
function allocatableCPU(node: Node): AllocatableCPU {
  const raw = node.status?.allocatable && Object.hasOwn(node.status.allocatable, 'cpu') ? node.status.allocatable.cpu : undefined
  return parseCPU(raw)
}

/** ParseQuantity + MilliValue of a raw allocatable value; a value that does not parse counts as 0. */
function parseCPU(raw: unknown): AllocatableCPU {
  try {
    const nano = parseNano(raw as string | undefined)
    return {nano, milli: nanoToMilli(nano)}
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e
    return {nano: 0n, milli: 0, error: e.message}
  }
}

/**
 * `allocatableCPU` for many nodes: nodes of a cluster have a handful of distinct allocatable CPU
 * values, so each is parsed once per cache.
 */
export function allocatableCPUCache(): (node: Node) => AllocatableCPU {
  const parsed = new Map<unknown, AllocatableCPU>()
  return (node) => {
    const raw = node.status?.allocatable && Object.hasOwn(node.status.allocatable, 'cpu') ? node.status.allocatable.cpu : undefined
    let p = parsed.get(raw)
    if (p === undefined) parsed.set(raw, (p = parseCPU(raw)))
    return p
  }
}

/** topologycache.go `hasExcludedLabels`: a control-plane or master role label, with any value. */
export function hasExcludedLabels(labels: Record<string, string> | undefined): boolean {
  if (!labels) return false
  return Object.hasOwn(labels, LABEL_CONTROL_PLANE) || Object.hasOwn(labels, LABEL_MASTER)
}

/**
 * The zone of a node as SetNodes reads it: its topology.kubernetes.io/zone label; null when
 * the label is absent (the legacy failure-domain label is not read).
 */
export function nodeZone(node: Node): string | null {
  const labels = node.metadata?.labels
  return labels && Object.hasOwn(labels, LABEL_ZONE) ? (labels[LABEL_ZONE] as string) : null
}

/**
 * topologycache.go `TopologyCache.SetNodes`: the zone CPU ratios the controller allocates hints
 * by (see the header for the rules).
 */
export function setNodes(nodes: Node[]): NodeInfo {
  // Upstream adds each node's Quantity to its zone's and to the total. Nodes share a handful of
  // allocatable CPU values (cpuOf returns one object per value), so the nodes of each (zone,
  // value) are counted and the exact sums made once per pair afterwards: the same integers,
  // without a BigInt addition (an allocation) per node.
  const countsByZone = new Map<string, Map<AllocatableCPU, number>>()
  let sufficientNodeInfo = true
  const cpuOf = allocatableCPUCache()

  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!
    if (hasExcludedLabels(node.metadata?.labels)) continue
    if (!isNodeReady(node)) continue
    const cpu = cpuOf(node)
    const zone = nodeZone(node)
    // Negative CPU (impossible with API data) is treated like zero CPU.
    if (zone === null || zone === '' || cpu.nano <= 0n) {
      countsByZone.clear()
      sufficientNodeInfo = false
      break
    }
    let counts = countsByZone.get(zone)
    if (counts === undefined) countsByZone.set(zone, (counts = new Map()))
    counts.set(cpu, (counts.get(cpu) ?? 0) + 1)
  }
  const nanoByZone = new Map<string, bigint>()
  let totalNano = 0n
  for (const [zone, counts] of countsByZone) {
    let nano = 0n
    for (const [cpu, n] of counts) nano += cpu.nano * BigInt(n)
    nanoByZone.set(zone, nano)
    totalNano += nano
  }

  if (totalNano === 0n || !sufficientNodeInfo || nanoByZone.size < 2) {
    return {sufficientNodeInfo: false, cpuByZone: null, cpuRatiosByZone: null}
  }

  const totalMilli = nanoToMilli(totalNano)
  const zones = [...nanoByZone.keys()].sort()
  const cpuByZone = Object.fromEntries(zones.map((z) => [z, nanoToMilli(nanoByZone.get(z) as bigint)]))
  // float64(zoneMilli) / float64(totalMilli): Number() of the integers, then one division.
  const cpuRatiosByZone = Object.fromEntries(zones.map((z) => [z, (cpuByZone[z] as number) / totalMilli]))
  return {sufficientNodeInfo: true, cpuByZone, cpuRatiosByZone}
}
