// Port of the topology part of k8s.io/endpointslice reconciler.go (k8s.io/endpointslice
// v0.36.3, from Kubernetes v1.36.3): `Reconciler.validTrafficDistribution` and the hint branch
// of `Reconciler.reconcileByAddressType`, predicting per (Service, addressType) what the
// EndpointSlice controller does to hints:
//
//   canUseTD = validTrafficDistribution(td) && !hintsEnabled(annotations)
//   if topologyCache != nil && hintsEnabled(annotations):
//       create, update, events = topologyCache.AddHints(sliceInfo)
//   else:
//       if topologyCache != nil:
//           if topologyCache.HasPopulatedHints(svc): events += Warning TopologyAwareHintsDisabled
//           topologyCache.RemoveHints(svc, addressType)
//       if !canUseTD: create, update = RemoveHintsFromSlices(sliceInfo)
//   if canUseTD:
//       create, update, _ = trafficdist.ReconcileHints(td, create, update, unchangedSlices(...))
//
// Version gates (features.ts): the reconciler's `WithPreferSameTrafficDistributionEnabled`
// option is the PreferSameTrafficDistribution gate; before 1.33 the option was
// `WithTrafficDistributionEnabled` (the ServiceTrafficDistribution gate), without which the
// field is ignored.

import {TD_PREFER_CLOSE, TD_PREFER_SAME_NODE, TD_PREFER_SAME_ZONE, type AddressType, type Endpoint, type EndpointSlice, type Service, type TopologyEvent} from '../api/types.js'
import type {Features} from '../features.js'
import {MESSAGES} from './topologycache/event.js'
import type {SliceLists} from './topologycache/sliceinfo.js'
import {addHints, type AddHintsResult} from './topologycache/topologycache.js'
import {formatWithAddressType, removeHintsFromSlices} from './topologycache/utils.js'
import {reconcileHints} from './trafficdist/trafficdist.js'
import {hintsEnabled} from './utils.js'

/**
 * reconciler.go `validTrafficDistribution` plus version gating: the field must be honoured at
 * this version (1.31+), and PreferSameZone/PreferSameNode need the PreferSameTrafficDistribution
 * gate (1.34+). Exact, case-sensitive comparison; any other value (including "" and unknown
 * future values) is not usable.
 */
export function trafficDistributionUsable(value: string | undefined | null, f: Features): boolean {
  if (!f.trafficDistributionField) return false
  if (value === undefined || value === null) return false
  if (value === TD_PREFER_CLOSE) return true
  if (!f.preferSameTrafficDistribution) return false
  return value === TD_PREFER_SAME_ZONE || value === TD_PREFER_SAME_NODE
}

/** Which hint writer reconcileByAddressType runs: AddHints, trafficdist.ReconcileHints, or neither. */
export type TopologyPath = 'topology-mode-auto' | 'traffic-distribution' | 'none'

/**
 * The branch reconcileByAddressType takes for this Service: the annotation (if the topology
 * cache is running and the value is Auto/auto) beats a usable trafficDistribution; with
 * neither, the controller strips every hint.
 */
export function topologyPath(service: Service, f: Features): TopologyPath {
  const annotationAuto = hintsEnabled(service.metadata?.annotations)
  const td = service.spec?.trafficDistribution ?? undefined
  if (f.topologyAwareHints && annotationAuto) return 'topology-mode-auto'
  if (trafficDistributionUsable(td, f) && !annotationAuto) return 'traffic-distribution'
  return 'none'
}

/**
 * next-sync: the live controller-managed slices are the "unchanged" list (what the controller
 * does at its next sync, reusing valid existing hints).
 * fresh: every slice is rebuilt (to-update list, hints cleared on all endpoints first), as when
 * the controller rewrites slices whose endpoints changed.
 */
export type PredictionMode = 'next-sync' | 'fresh'

export interface HintPrediction {
  path: TopologyPath
  /** Predicted slices, same order and same names as the input. */
  slices: EndpointSlice[]
  /** Events the controller records on the Service during this sync (in order). */
  events: TopologyEvent[]
  /** True when the chosen path left hints on the endpoints (AddHints succeeded, or trafficDistribution wrote any hint). */
  hintsSet: boolean
  /** The full AddHints result, on the topology-mode-auto path only. */
  addHints?: AddHintsResult
  /** Names (input order) of slices whose endpoint hints differ between input and prediction (empty with `changes: false`). */
  changedSliceNames: string[]
  /**
   * Names (input order) of slices the controller would write (its update list). In fresh mode
   * that is every slice; in next-sync mode the unchanged slices that had to be rewritten. A
   * written slice can end up with the same hints it had.
   */
  writtenSliceNames: string[]
}

export interface PredictHintsArgs {
  service: Service
  /** Controller-managed slices of this Service, all of `addressType`. Names must be unique. */
  slices: EndpointSlice[]
  addressType: AddressType
  /** Zone CPU ratios from setNodes (null when node information is insufficient). */
  ratios: Record<string, number> | null
  features: Features
  mode: PredictionMode
  /** Whether the topology cache had this Service marked "hints populated" before this sync. */
  populated?: boolean
  /** false: AddHints skips its alternatives (AddHintsInput.alternatives). Default true. */
  alternatives?: boolean
  /**
   * fresh mode: `clearedSlices(slices)`, when the caller has them already (the advisor's modes of
   * one Service share one such list). Read only, never mutated: every hint writer copies the
   * slices it writes (and may be frozen). Ignored in next-sync mode.
   */
  cleared?: readonly EndpointSlice[]
  /** false: `changedSliceNames` is not computed (left empty), for a caller that reads only the predicted hints. Default true. */
  changes?: boolean
}

/**
 * fresh mode: a copy of a slice with every endpoint's hints cleared (ours). The same as
 * cloneSlice then `delete ep.hints` on each copy (the same keys in the same order), but each
 * endpoint is built without the key: `delete` turns every endpoint into a dictionary-mode
 * object, which made each later copy of it and each read of its fields slow (the advisor's
 * per-mode evaluations of 50,000 endpoints, docs/design.md).
 */
function clearHints(slice: EndpointSlice): EndpointSlice {
  const copy = {...slice}
  const eps = slice.endpoints
  if (Array.isArray(eps)) {
    const out = new Array<Endpoint>(eps.length)
    for (let i = 0; i < eps.length; i++) {
      const {hints: _, ...rest} = eps[i]!
      out[i] = rest
    }
    copy.endpoints = out
  }
  return copy
}

/** fresh mode's update list (ours): each slice as `clearHints` copies it, in order (see there). */
export function clearedSlices(slices: readonly EndpointSlice[]): EndpointSlice[] {
  return slices.map(clearHints)
}

/** The names of an endpoint's zone or node hints (ours). */
function namesOf(ep: Endpoint, key: 'forZones' | 'forNodes'): string[] {
  const list = ep.hints?.[key]
  return list == null ? [] : list.map((z) => z.name)
}

/** Two endpoints carry the same hints (ours, for `changedSliceNames`). */
function sameHints(a: Endpoint | undefined, b: Endpoint | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  // nil hints and hints with empty lists are treated alike (as kube-proxy does).
  const eq = (x: string[], y: string[]) => x.length === y.length && x.every((v, i) => v === y[i])
  return eq(namesOf(a, 'forZones'), namesOf(b, 'forZones')) && eq(namesOf(a, 'forNodes'), namesOf(b, 'forNodes'))
}

/** Two slices' endpoints carry the same hints, endpoint by endpoint (ours). */
function sliceHintsEqual(a: EndpointSlice, b: EndpointSlice): boolean {
  if (a === b) return true // an unchanged slice, returned as the same object
  const ea = a.endpoints ?? []
  const eb = b.endpoints ?? []
  if (ea.length !== eb.length) return false
  return ea.every((ep, i) => sameHints(ep, eb[i]))
}

/**
 * Some endpoint of some slice of the lists carries a zone or node hint (ours: `hintsSet` on the
 * trafficDistribution path): a non-empty forZones or forNodes list. Indexed loops over the lists
 * as they are (no joined copy, no list of names per endpoint): this runs once per Service and mode.
 */
function hasAnyHint(lists: readonly (readonly EndpointSlice[])[]): boolean {
  for (let l = 0; l < lists.length; l++) {
    const slices = lists[l]!
    for (let i = 0; i < slices.length; i++) {
      const eps = slices[i]!.endpoints
      if (eps == null) continue
      for (let j = 0; j < eps.length; j++) {
        const h = eps[j]!.hints
        if (h != null && ((h.forZones?.length ?? 0) > 0 || (h.forNodes?.length ?? 0) > 0)) return true
      }
    }
  }
  return false
}

/**
 * reconciler.go `reconcileByAddressType`, its hint part: predicts the hints the EndpointSlice
 * controller writes for one (Service, addressType).
 * Pure: inputs are not mutated; the output keeps the input slice order and names.
 */
export function predictHints(args: PredictHintsArgs): HintPrediction {
  const {service, slices, addressType, ratios, features: f, mode} = args
  const populated = args.populated === true

  // (A Service has one slice or a few: the set of names is made only for more than one.)
  const seen = slices.length > 1 ? new Set<string>() : undefined
  for (let i = 0; i < slices.length; i++) {
    const s = slices[i]!
    const name = s.metadata?.name
    if (typeof name !== 'string' || name === '') throw new Error('predictHints: every EndpointSlice needs metadata.name')
    if (seen?.has(name)) throw new Error(`predictHints: duplicate EndpointSlice name ${JSON.stringify(name)}`)
    if (s.addressType !== addressType) {
      throw new Error(`predictHints: EndpointSlice ${JSON.stringify(name)} has addressType ${s.addressType}, expected ${addressType}`)
    }
    seen?.add(name)
  }

  let lists: SliceLists
  if (mode === 'fresh') {
    const cleared = args.cleared ?? clearedSlices(slices)
    let same = cleared.length === slices.length
    for (let i = 0; same && i < cleared.length; i++) same = cleared[i]!.metadata.name === slices[i]!.metadata.name
    if (!same) throw new Error('predictHints: the cleared slices are not those of `slices`')
    lists = {toCreate: [], toUpdate: [...cleared], unchanged: []}
  } else lists = {toCreate: [], toUpdate: [], unchanged: [...slices]}

  const annotations = service.metadata?.annotations
  const td = service.spec?.trafficDistribution ?? undefined
  const annotationEnabled = hintsEnabled(annotations)
  const canUseTD = trafficDistributionUsable(td, f) && !annotationEnabled
  const path = topologyPath(service, f)

  const events: TopologyEvent[] = []
  let addHintsResult: AddHintsResult | undefined
  let hintsSet = false

  if (f.topologyAwareHints && annotationEnabled) {
    addHintsResult = addHints(ratios, {
      addressType,
      toCreate: lists.toCreate,
      toUpdate: lists.toUpdate,
      unchanged: lists.unchanged,
      populated,
      ...(args.alternatives === false ? {alternatives: false} : {}),
    })
    lists = {toCreate: addHintsResult.toCreate, toUpdate: addHintsResult.toUpdate, unchanged: addHintsResult.unchanged}
    events.push(...addHintsResult.events)
    hintsSet = addHintsResult.hintsSet
  } else {
    if (f.topologyAwareHints && populated) {
      events.push({
        type: 'Warning',
        reason: 'TopologyAwareHintsDisabled',
        message: formatWithAddressType(MESSAGES.topologyAwareHintsDisabled, addressType),
      })
    }
    // fresh: every slice is in the update list with its hints cleared already (clearHints), and
    // nothing is created or unchanged, so RemoveHintsFromSlices would return copies of the same
    // slices with nothing removed: the lists are its result as they are (the same keys and values).
    if (!canUseTD && mode !== 'fresh') {
      lists = removeHintsFromSlices(lists)
    }
  }

  if (canUseTD) {
    // Upstream recomputes unchangedSlices(existing, toUpdate, toDelete); with nothing created
    // or deleted here that is exactly the current unchanged list.
    lists = reconcileHints(td, lists, {emptyZoneHint: f.trafficDistEmptyZoneHint})
    hintsSet = hasAnyHint([lists.toCreate, lists.toUpdate, lists.unchanged])
  }

  // Map the controller's lists back to the input order by name.
  const byName = new Map<string, EndpointSlice>()
  const written = new Set<string>()
  for (const s of lists.unchanged) byName.set(s.metadata.name, s)
  for (const list of [lists.toCreate, lists.toUpdate])
    for (const s of list) {
      byName.set(s.metadata.name, s)
      written.add(s.metadata.name)
    }
  const predicted = new Array<EndpointSlice>(slices.length)
  for (let i = 0; i < slices.length; i++) {
    const out = byName.get(slices[i]!.metadata.name)
    if (out === undefined) throw new Error(`predictHints: slice ${slices[i]!.metadata.name} was lost by the hint writer`)
    predicted[i] = out
  }

  const prediction: HintPrediction = {
    path,
    slices: predicted,
    events,
    hintsSet,
    changedSliceNames: args.changes === false ? [] : slices.filter((s, i) => !sliceHintsEqual(s, predicted[i]!)).map((s) => s.metadata.name),
    writtenSliceNames: slices.filter((s) => written.has(s.metadata.name)).map((s) => s.metadata.name),
  }
  if (addHintsResult !== undefined) prediction.addHints = addHintsResult
  return prediction
}
