// The placement model for "N replicas" (plan's and the advisor's): today's ready endpoints stay
// where they are; scaling up adds one pod at a time to the zone with the fewest of the Service's
// pods (simulate/whatif.ts addEndpoint, its Placer), scaling down removes from the most crowded
// node, then the most crowded zone (removeEndpoint, its Remover). docs/plan.md states its limits.
import {Placer, Remover, Views, workingCopy} from '../simulate/whatif.js'
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
 *
 * One Placer (or Remover) walks a working copy one pod at a time, as addEndpoint (removeEndpoint)
 * on a fresh copy of the previous state would, and each count kept is a copy-on-write view of the
 * working copy (whatif.ts Views: the Nodes, the Service, the endpoint objects and every slice
 * that did not change are shared). A count costs the slices' list and the one slice that changed,
 * not a deep copy of the state and a scan of every endpoint (issue 23: plan over an HPA range
 * 1..500 spent most of its time there).
 */
export function statesOverRange(base: ClusterState, svc: Service, from: number, to: number): Map<number, ClusterState> {
  const out = new Map<number, ClusterState>()
  const now = readyCount(base, svc)
  if (now >= from && now <= to) out.set(now, base)
  if (from < now) {
    const work = workingCopy(base)
    const views = new Views(work)
    const remover = new Remover(work, svc, () => true, views.touched)
    for (let n = now - 1; n >= from; n--) {
      if (remover.remove(1) === 0) break
      if (n <= to) out.set(n, views.take())
    }
  }
  if (to > now) {
    const work = workingCopy(base)
    const views = new Views(work)
    const placer = new Placer(work, svc, views.touched)
    for (let n = now + 1; n <= to; n++) {
      if (!placer.add({ready: true})) break
      if (n >= from) out.set(n, views.take())
    }
  }
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]))
}
