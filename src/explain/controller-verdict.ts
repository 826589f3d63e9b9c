// What the EndpointSlice controller does with a Service's slices at its next sync, as explain
// reports it (reason, message, event, random choices), and the Auto heuristic's per-zone
// figures. Pure.

import type {HintPrediction, PredictionMode, TopologyPath} from '../upstream/endpointslice/reconciler.js'
import {OVERLOAD_THRESHOLD} from '../upstream/endpointslice/topologycache/topologycache.js'
import type {AddressType, Service} from '../upstream/api/types.js'
import type {ControllerState} from './controller-state.js'
import {countReady, sortStrings} from './helpers.js'
import type {ControllerVerdict, RandomChoices} from './report-types.js'

export function controllerVerdict(
  prediction: HintPrediction | null,
  path: TopologyPath,
  managed: boolean,
  predictionMode: PredictionMode,
  addressType: AddressType,
  service: Service,
  readyInSlices: number,
  state: ControllerState,
): ControllerVerdict {
  if (!managed || prediction === null) {
    return {
      path: 'not-managed',
      hintsSet: false,
      reason: 'NotManagedByController',
      message:
        service.spec?.type === 'ExternalName'
          ? 'the Service is of type ExternalName: the EndpointSlice controller gives it no endpoints'
          : 'the Service has no selector: the EndpointSlice controller does not manage its EndpointSlices, so their hints stay as written',
      event: null,
      totalReadyEndpoints: readyInSlices,
      prediction: predictionMode,
      slicesToUpdate: [],
      randomChoices: NO_RANDOM_CHOICES,
      state,
    }
  }
  const total = prediction.addHints?.totalReady ?? countReady(prediction.slices)
  const base = {
    path,
    hintsSet: prediction.hintsSet,
    totalReadyEndpoints: total,
    prediction: predictionMode,
    slicesToUpdate: prediction.changedSliceNames,
    randomChoices: prediction.addHints?.randomChoices ? {...NO_RANDOM_CHOICES, ...prediction.addHints.randomChoices} : NO_RANDOM_CHOICES,
    state,
  }
  if (path === 'topology-mode-auto') {
    const event = prediction.events.find((e) => e.reason === 'TopologyAwareHintsDisabled') ?? prediction.events[0] ?? null
    // Hints set on a Service already marked populated: no event, the state is still "enabled".
    const enabled = `Topology Aware Hints has been enabled, addressType: ${addressType}`
    return {...base, reason: event?.reason ?? 'TopologyAwareHintsEnabled', message: event?.message ?? enabled, event}
  }
  if (path === 'traffic-distribution') {
    const td = service.spec?.trafficDistribution ?? ''
    return {
      ...base,
      reason: 'TrafficDistribution',
      message: prediction.hintsSet
        ? `trafficDistribution ${td}: every ready endpoint is hinted for its own zone${td === 'PreferSameNode' ? ' and node' : ''} (the controller records no event on this path)`
        : `trafficDistribution ${td}: no ready endpoint to hint`,
      event: prediction.events[0] ?? null,
    }
  }
  return {
    ...base,
    reason: 'TopologyNotRequested',
    message: 'neither the topology-mode annotation (Auto) nor a usable spec.trafficDistribution is set: the controller removes any hints',
    event: prediction.events[0] ?? null,
  }
}

export const NO_RANDOM_CHOICES: RandomChoices = Object.freeze({tieBreaks: 0, receiverChoices: 0, sliceOrder: 0, unchangedOrder: false, uncertainEndpoints: 0, countsCertain: true})

/**
 * desired/minimum/target/maximum per zone for N endpoints, also when the controller refuses
 * (getAllocations stops at the first failed check; explain still shows the figures).
 */
export function allocationFigures(n: number, ratios: Record<string, number>): Record<string, {desired: number; minimum: number; target: number; maximum: number | null}> {
  const out: Record<string, {desired: number; minimum: number; target: number; maximum: number | null}> = {}
  let sumMin = 0
  for (const zone of sortStrings(Object.keys(ratios))) {
    const desired = ratios[zone]! * n
    const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)))
    sumMin += minimum
    out[zone] = {desired, minimum, target: Math.max(desired, minimum), maximum: 0}
  }
  // Upstream computes the maximum only once the minimums fit (sum <= N).
  for (const z of Object.values(out)) z.maximum = sumMin <= n ? z.minimum + (n - sumMin) : null
  return out
}
