// The EndpointSlice controller's per-Service state that decides its events, as far as the
// cluster shows it (ours). Upstream (k8s.io/endpointslice v0.36.3) keeps, in memory, the set
// topologycache.go `hintsPopulatedByService`:
//  - AddHints inserts the Service when it sets hints (SetHints/setHintsLocked) and records
//    Normal `TopologyAwareHintsEnabled` only if it was not in the set;
//  - every AddHints refusal calls RemoveHints (the Service leaves the set) and records a Warning
//    `TopologyAwareHintsDisabled` with the reason, on every sync;
//  - reconciler.go reconcileByAddressType, off the Auto path, records Warning
//    `TopologyAwareHintsDisabled` "Topology Aware Hints has been disabled" if the Service was in
//    the set (HasPopulatedHints), then calls RemoveHints.
// So every change of the mark records an Event, and the latest of those two reasons tells the
// mark (until the controller restarts, which empties the set silently, or the Events expire).
// Without such an Event, the live hints of ready endpoints tell it, as far as they can:
//  - none: not populated (assumed);
//  - one hinted for another zone: only AddHints donates, so populated (a zone-less endpoint
//    hinted for zone "" is trafficdist's, before 1.33: its own zone);
//  - node hints: only trafficDistribution (PreferSameNode) writes them, so not populated;
//  - own-zone hints only (AddHints with nothing to donate, or trafficDistribution): on the Auto
//    path populated, unless the Service also has trafficDistribution and the Events were read
//    (AddHints would have recorded Enabled: the hints are trafficDistribution's, written before
//    a switch the controller has not synced yet); off the Auto path not populated when the
//    Events were read (no Enabled recorded), else populated only without trafficDistribution.
// Events expire (the API server's --event-ttl, 1 h by default), so an old Auto Service with
// own-zone hints and trafficDistribution set is taken for trafficDistribution's.
// Without the Events (a List file, or no permission to list them), own-zone hints only cannot
// tell whose they are: the mark is then `unknown` (hintsPopulated keeps the guess above), and
// an Event that depends on it is predicted as one the controller may record, not as a fact.
// Unless the next sync leaves the hints as they are (steady, `settledState`): the mark changes
// only at a sync (AddHints sets it; the first sync off Auto records Disabled and clears it, and
// a Service update queues that sync), so hints the current path would write are taken as
// written by it, as own-zone hints on the Auto path without trafficDistribution are. A switch
// the controller has not synced yet that leaves the same hints is not visible (as Auto's own-zone
// hints after a switch from trafficDistribution are not).

import {CONTROLLER_NAME, type EndpointSlice, type EventObject, type Service, type TopologyEvent} from '../upstream/api/types.js'
import type {TopologyPath} from '../upstream/endpointslice/reconciler.js'

/** The component name the EndpointSlice controller records Events under. */
const CONTROLLER_EVENT_SOURCE = 'endpoint-slice-controller'

export interface ControllerState {
  /** Whether the controller has the Service marked "hints populated" before its next sync. */
  hintsPopulated: boolean
  /**
   * events: the latest Enabled/Disabled Event (or, read and none recorded, their absence); live-hints: the
   * hints on its slices; assumed: nothing said (no Event, no hints); unknown: Events not read and the
   * hints could be either path's (hintsPopulated is then a guess).
   */
  inferredFrom: 'events' | 'live-hints' | 'assumed' | 'unknown'
}

const time = (e: EventObject): number => {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp
  const ms = t ? Date.parse(t) : 0
  return Number.isNaN(ms) ? 0 : ms
}
const rv = (e: EventObject): bigint => {
  try {
    return BigInt(e.metadata?.resourceVersion ?? '0')
  } catch {
    return 0n
  }
}

/** The controller's latest TopologyAwareHintsEnabled/Disabled Event on the Service (by time, then resourceVersion). */
function latestTopologyEvent(service: Service, events: readonly EventObject[] | undefined): EventObject | null {
  let best: EventObject | null = null
  for (const e of events ?? []) {
    const io = e.involvedObject
    if (io?.kind !== 'Service' || io.name !== service.metadata.name || (io.namespace ?? 'default') !== (service.metadata.namespace ?? 'default')) continue
    if (io.uid && service.metadata.uid && io.uid !== service.metadata.uid) continue
    const source = e.source?.component || e.reportingComponent
    if (source !== CONTROLLER_EVENT_SOURCE && source !== CONTROLLER_NAME) continue
    if (e.reason !== 'TopologyAwareHintsEnabled' && e.reason !== 'TopologyAwareHintsDisabled') continue
    if (best === null || time(e) > time(best) || (time(e) === time(best) && rv(e) > rv(best))) best = e
  }
  return best
}

/** What the cluster shows of the controller's "hints populated" mark for the Service (see the header). */
export function controllerState(service: Service, path: TopologyPath, managedSlices: readonly EndpointSlice[], events: readonly EventObject[] | undefined): ControllerState {
  const latest = latestTopologyEvent(service, events)
  if (latest !== null) return {hintsPopulated: latest.reason === 'TopologyAwareHintsEnabled', inferredFrom: 'events'}
  let zoneHints = false
  let foreignZone = false
  let nodeHints = false
  // Indexed loops without a closure per endpoint: they run over every endpoint of the Service,
  // once per call (mostly before V8 optimises them).
  for (let i = 0; i < managedSlices.length; i++) {
    const eps = managedSlices[i]!.endpoints ?? []
    for (let j = 0; j < eps.length; j++) {
      const e = eps[j]!
      if (e.conditions?.ready !== true) continue
      const hints = e.hints
      if (hints == null) continue
      if ((hints.forNodes?.length ?? 0) > 0) nodeHints = true
      const zones = hints.forZones
      if (zones == null || zones.length === 0) continue
      zoneHints = true
      // A zone-less endpoint hinted for zone "" is trafficdist's (before 1.33), never AddHints'
      // (which refuses when an endpoint has no zone): its own zone, not a donation.
      if (foreignZone) continue
      const own = e.zone ?? ''
      for (let k = 0; k < zones.length; k++) if (zones[k]!.name !== own) foreignZone = true
    }
  }
  if (!zoneHints) return {hintsPopulated: false, inferredFrom: 'assumed'}
  // Only AddHints hints an endpoint for another zone; only trafficDistribution writes node hints.
  if (foreignZone) return {hintsPopulated: true, inferredFrom: 'live-hints'}
  if (nodeHints) return {hintsPopulated: false, inferredFrom: 'live-hints'}
  // Own-zone hints only: AddHints with nothing to donate, or trafficDistribution.
  const td = service.spec?.trafficDistribution
  const tdSet = td !== undefined && td !== null && td !== ''
  if (path === 'topology-mode-auto') {
    if (!tdSet) return {hintsPopulated: true, inferredFrom: 'live-hints'}
    return events !== undefined ? {hintsPopulated: false, inferredFrom: 'events'} : {hintsPopulated: true, inferredFrom: 'unknown'}
  }
  if (events !== undefined) return {hintsPopulated: false, inferredFrom: 'events'}
  return {hintsPopulated: !tdSet, inferredFrom: 'unknown'}
}

/**
 * The mark when it is `unknown` (own-zone hints only, no Events) and the next sync leaves every
 * hint as it is: the controller has synced the Service on its current path, which leaves the
 * mark set on the Auto path (AddHints wrote these hints) and clear off it (reconciler.go clears it
 * at the first sync off Auto). Null when the sync changes hints: the path before it is unknown.
 */
export function settledState(path: TopologyPath, steady: boolean): ControllerState | null {
  return steady ? {hintsPopulated: path === 'topology-mode-auto', inferredFrom: 'live-hints'} : null
}

/**
 * The event under a guessed mark (`guessed`) and under the other value (`other`): the same, it is
 * certain; else no event is certain and the one either guess records is one the controller may record.
 */
export function eventUnderGuess(guessed: TopologyEvent | null, other: TopologyEvent | null): {event: TopologyEvent | null; mayRecord?: TopologyEvent} {
  const same = guessed === null || other === null ? guessed === other : guessed.type === other.type && guessed.reason === other.reason && guessed.message === other.message
  if (same) return {event: guessed}
  const may = guessed ?? other
  return may === null ? {event: null} : {event: null, mayRecord: may}
}
