// What apply predicts: explain() run on the state as it will be after the plan is written,
// and the part of that prediction apply --wait compares the controller's work with.
import {explain, type ExplainReport} from '../explain/report.js'
import type {EndpointSlice, Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {HintsPlan, ServicePlan} from './plan.js'
import type {PredictedEndpoint} from './wait.js'

export type Plan = ServicePlan | HintsPlan

/** The Service apply works on, with the state it was read from and its EndpointSlices. */
export interface PlanTarget {
  state: ClusterState
  service: Service
  /** The Service's EndpointSlices, any manager, by name. */
  slices: EndpointSlice[]
}

/**
 * explain() for the state after the change: the Service as modified (what the controller
 * writes at its next sync), or the slices with the new hints. kubeVersion: --kube-version.
 */
export function predict(target: PlanTarget, plan: Plan, kubeVersion: string | undefined): ExplainReport {
  const version = kubeVersion ?? target.state.serverVersion
  const opts = {
    kubeVersion: version,
    versionSource: kubeVersion ? ('flag' as const) : target.state.serverVersion ? ('server' as const) : ('default' as const),
    prediction: 'next-sync' as const,
  }
  if (plan.kind === 'service') {
    const state = {...target.state, services: target.state.services.map((s) => (s === target.service ? plan.after : s))}
    return explain(state, [plan.after], opts)
  }
  const after = new Map<string, EndpointSlice>(plan.writes.map((w) => [w.name, w.after]))
  const state = {...target.state, endpointSlices: target.state.endpointSlices.map((s) => (target.slices.includes(s) ? (after.get(s.metadata.name) ?? s) : s))}
  return explain(state, [target.service], opts)
}

/**
 * What apply --wait expects to find on the slices: each predicted endpoint's hints (null when
 * none), compared per zone when topology-mode Auto decides (which endpoint a zone donates is
 * random upstream).
 */
export function expectedHints(prediction: ExplainReport): {predicted: PredictedEndpoint[]; perZone: boolean} {
  const perZone = prediction.services.some((s) => s.controller.path === 'topology-mode-auto')
  const predicted = prediction.services.flatMap((s) =>
    s.endpoints.map((e) => ({
      address: e.addresses[0] ?? '',
      ready: e.controllerReady,
      hints: e.predictedHints && (e.predictedHints.forZones.length || e.predictedHints.forNodes.length) ? e.predictedHints : null,
    })),
  )
  return {predicted, perZone}
}
