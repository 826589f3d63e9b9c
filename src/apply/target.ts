// Picking the one Service apply works on out of a read state, with its EndpointSlices.
import {LABEL_SERVICE_NAME, type EndpointSlice} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {PlanTarget} from './predict.js'

/** The Service namespace/name and its EndpointSlices (any manager, by name); null when the state has no such Service. */
export function pickTarget(state: ClusterState, namespace: string, name: string): PlanTarget | null {
  const service = state.services.find((s) => s.metadata.name === name && (s.metadata.namespace ?? 'default') === namespace)
  if (!service) return null
  return {state, service, slices: slicesOf(state, namespace, name)}
}

export function slicesOf(state: ClusterState, namespace: string, name: string): EndpointSlice[] {
  return state.endpointSlices
    .filter((s) => (s.metadata.namespace ?? 'default') === namespace && s.metadata.labels?.[LABEL_SERVICE_NAME] === name)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
}
