// The placement model for "N replicas" (plan's and the advisor's): today's ready endpoints stay
// where they are; scaling up adds one pod at a time to the zone with the fewest of the Service's
// pods (simulate/whatif.ts addEndpoint), scaling down removes from the most crowded node, then
// the most crowded zone (removeEndpoint). docs/plan.md states its limits.
import {addEndpoint, removeEndpoint} from '../simulate/whatif.js'
import {slicesOf} from '../simulate/strategies/cluster.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'

/** The Service's view of the cluster: the Nodes, the Service, its ready endpoints only (the steady state). */
export function steadyState(state: ClusterState, svc: Service): ClusterState {
  const slices = slicesOf(state, svc).map((s) => ({...s, endpoints: (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).map((e) => ({...e}))}))
  return {nodes: state.nodes, services: [svc], endpointSlices: slices, nodesReadable: state.nodesReadable, ...(state.serverVersion ? {serverVersion: state.serverVersion} : {})}
}

export const readyCount = (state: ClusterState, svc: Service): number =>
  slicesOf(state, svc).reduce((n, s) => n + (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length, 0)

/** Ready endpoints per zone ('' for none), sorted by zone name. */
export function zoneCounts(state: ClusterState, svc: Service): Record<string, number> {
  const m: Record<string, number> = {}
  for (const s of slicesOf(state, svc)) for (const e of s.endpoints ?? []) if (e.conditions?.ready === true) m[e.zone ?? ''] = (m[e.zone ?? ''] ?? 0) + 1
  return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/**
 * States at every count from..to, reached from today's placement by adding (least crowded
 * zone) or removing (most crowded node) one pod at a time. A count no node can take ends the list.
 */
export function statesOverRange(base: ClusterState, svc: Service, from: number, to: number): Map<number, ClusterState> {
  const out = new Map<number, ClusterState>()
  const now = readyCount(base, svc)
  if (now >= from && now <= to) out.set(now, base)
  let cur = base
  for (let n = now - 1; n >= from; n--) {
    cur = structuredClone(cur)
    if (!removeEndpoint(cur, svc)) break
    if (n <= to) out.set(n, cur)
  }
  cur = base
  for (let n = now + 1; n <= to; n++) {
    cur = structuredClone(cur)
    if (!addEndpoint(cur, svc, {ready: true})) break
    if (n >= from) out.set(n, cur)
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]))
}
