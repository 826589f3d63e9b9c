// Rolling updates for simulate --rollout and plan: the steps of a Deployment's or StatefulSet's
// update, each a state of the cluster (whatif.ts Views of one working state, placed by whatif.ts's
// Placer and Remover: the placement model of every what-if).
import {serviceView} from './strategies/cluster.js'
import type {Endpoint, EndpointSlice, Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {deploymentParamsProblem, podNameMatcher, resolveFenceposts, statefulSetMaxUnavailable, statefulSetParamsProblem, type RolloutSpec} from './workload.js'
import {clone, countBy, Placer, Remover, serviceSlices, Views, WhatIfError, workingCopy} from './whatif.js'

// ---- rolling update -----------------------------------------------------------------------------

/** The flag-only form (a Deployment's rolling update), kept for callers that give just the numbers. */
export interface RolloutParams {
  maxSurge: number | string
  maxUnavailable: number | string
  /** desired replicas (default: the Service's ready endpoints) */
  replicas?: number
}

export interface RolloutStep {
  step: number
  action: string
  oldPods: number
  newReady: number
  newNotReady: number
  state: ClusterState
}

/**
 * Steps through an update of the workload's pods: every ready endpoint of the Service (or,
 * with spec.podsOf, every one whose pod name is the workload's) is a pod of the old revision;
 * not-ready ones are dropped first; other endpoints stay as they are:
 *   Deployment RollingUpdate: create new pods (not ready), they become ready, old pods are
 *     deleted while at least replicas - maxUnavailable stay ready and at most replicas +
 *     maxSurge exist (ResolveFenceposts arithmetic). New pods are placed by the spread rule,
 *     old pods go from the node with the most old pods first.
 *   Deployment Recreate: every old pod is deleted, then all new pods are created, then ready.
 *   StatefulSet RollingUpdate: from the highest ordinal down to the partition, maxUnavailable
 *     pods at a time are deleted and recreated (not ready, in the zone they left: a
 *     StatefulSet pod keeps its identity and usually its zonal volume), then become ready.
 *     Ordinals come from the endpoints' pod names (<statefulset>-<ordinal>).
 *   StatefulSet OnDelete: nothing happens until pods are deleted: only the start.
 */
/**
 * The most replicas a rollout simulates: Kubernetes' documented limit of Pods in a cluster,
 * 150,000 (kubernetes.io "Considerations for large clusters"; --replicas has the same bound).
 * A snapshot's Deployment of 175,008,532 replicas spun rollout() for ever (issue 20).
 */
const MAX_ROLLOUT_REPLICAS = 150_000
/**
 * The most work a rollout simulates, in steps times the size of the cluster state each step copies
 * and scores (nodes, endpoints, and the new pods): 1,000,000, about 20 s on the reference machine
 * (bench/simulate-scale.mjs: some 20 µs per endpoint and step) and a few hundred MB. 400 replicas
 * one at a time on a small cluster (1,203 steps) fit; 150,000 one at a time do not, and are
 * refused before the first step instead of running for hours.
 */
export const MAX_ROLLOUT_WORK = 1_000_000

/** The nodes, endpoints and new pods one step copies. */
function stepSize(state: ClusterState, replicas: number): number {
  let n = state.nodes.length + replicas
  for (const s of state.endpointSlices) n += s.endpoints?.length ?? 0
  return n
}

/** Refuses a rollout of `steps` steps over a state of `size` when it is more work than MAX_ROLLOUT_WORK. */
function checkWork(what: string, steps: number, size: number): void {
  if (steps * size <= MAX_ROLLOUT_WORK) return
  throw new WhatIfError(
    `--rollout: ${what} take about ${steps} steps, each a copy of ${size} nodes, endpoints and pods: more than the ${MAX_ROLLOUT_WORK} (steps times copies) a simulation runs; raise maxSurge or maxUnavailable, or roll fewer replicas`,
  )
}

export function rollout(state: ClusterState, svc: Service, params: RolloutSpec | RolloutParams): RolloutStep[] {
  const spec: RolloutSpec = 'kind' in params ? params : {kind: 'Deployment', type: 'RollingUpdate', ...params}
  // Slices and endpoint lists of its own (the input is never changed); the steps are Views of it.
  const cur = workingCopy(state)
  for (const s of serviceSlices(cur, svc)) s.endpoints = (s.endpoints ?? []).filter((e) => e.conditions?.ready === true)
  const matches = spec.podsOf === undefined ? null : podNameMatcher(spec.podsOf)
  // The rolled workload's pods among the Service's (ready) endpoints; new pods are named new-N.
  const own = (e: Endpoint) => !isNew(e) && (matches === null || matches(e.targetRef?.name ?? ''))
  const R =
    spec.replicas ??
    serviceSlices(cur, svc)
      .flatMap((s) => s.endpoints ?? [])
      .filter(own).length
  if (R === 0) throw new WhatIfError('--rollout: 0 replicas (and no ready endpoint): nothing to roll')
  if (!(R <= MAX_ROLLOUT_REPLICAS)) {
    throw new WhatIfError(`--rollout: ${R} replicas: more than the ${MAX_ROLLOUT_REPLICAS} Pods a cluster holds (Kubernetes' documented limit); simulate a smaller rollout`)
  }
  // Without Nodes (RBAC), new pods are placed by zone among those the Service runs in now.
  const zonesAtStart =
    cur.nodesReadable === false
      ? [
          ...new Set(
            serviceView(cur, svc)
              .ready.map((e) => e.zone)
              .filter((z): z is string => z !== null),
          ),
        ]
      : undefined
  if (spec.kind === 'StatefulSet') {
    if (spec.type === 'OnDelete') {
      const old = serviceSlices(cur, svc)
        .flatMap((s) => s.endpoints ?? [])
        .filter(own).length
      return [{step: 0, action: 'start (OnDelete: no pod is replaced until it is deleted)', oldPods: old, newReady: 0, newNotReady: 0, state: cur}]
    }
    const problem = statefulSetParamsProblem(spec.partition, spec.maxUnavailable)
    if (problem !== null) throw new WhatIfError(`--rollout: ${problem}`)
    return statefulSetRollout(cur, svc, spec.name, R, spec.partition, statefulSetMaxUnavailable(spec.maxUnavailable, R), zonesAtStart, matches === null)
  }
  if (spec.type === 'Recreate') return recreate(cur, svc, R, own, zonesAtStart)
  const problem = deploymentParamsProblem(spec.maxSurge, spec.maxUnavailable)
  if (problem !== null) throw new WhatIfError(`--rollout: ${problem}`)
  const {surge, unavailable} = resolveFenceposts(spec.maxSurge, spec.maxUnavailable, R)
  // Each round replaces at least maxSurge + maxUnavailable of the old pods, in up to three steps
  // (the new ones beyond the old count are created in the first).
  const oldPods = serviceSlices(cur, svc)
    .flatMap((s) => s.endpoints ?? [])
    .filter(own).length
  const rounds = Math.ceil(Math.min(oldPods, R) / Math.max(1, surge + unavailable)) + 2
  checkWork(`${R} replicas, ${surge + unavailable} at a time (maxSurge ${surge}, maxUnavailable ${unavailable}),`, 3 * rounds, stepSize(cur, R + surge))
  return deploymentRollout(cur, svc, R, surge, unavailable, own, zonesAtStart)
}

// Simulated new pods: "~" never appears in a real pod name.
const NEW_PREFIX = '~new-'
const isNew = (e: Endpoint) => e.targetRef?.name?.startsWith(NEW_PREFIX) === true
const NOWHERE = '--rollout: no schedulable Ready node with a zone label to place the new pods on'

function deploymentRollout(
  start: ClusterState,
  svc: Service,
  R: number,
  surge: number,
  unavailable: number,
  isOld: (e: Endpoint) => boolean,
  zonesAtStart: string[] | undefined,
): RolloutStep[] {
  // One working state that one Placer and one Remover change as the controllers would, each
  // step a copy-on-write view of it: a step costs what it changes (a pod placed: the zone's
  // nodes; a pod removed: a heap operation; a pod ready: its slice), not a copy and a scan of
  // every endpoint (quadratic for a rollout one pod at a time, issue 23).
  const views = new Views(start)
  const placer = new Placer(start, svc, views.touched)
  const remover = new Remover(start, svc, isOld, views.touched)
  const notReady: {e: Endpoint; slice: EndpointSlice}[] = []
  let made = 0
  let old = serviceSlices(start, svc)
    .flatMap((s) => s.endpoints ?? [])
    .filter(isOld).length
  let newReady = 0
  let newNotReady = 0
  const steps: RolloutStep[] = [{step: 0, action: 'start', oldPods: old, newReady, newNotReady, state: views.take()}]
  const push = (action: string) => steps.push({step: steps.length, action, oldPods: old, newReady, newNotReady, state: views.take()})
  const size = stepSize(start, R + surge)
  for (let guard = 0; guard < 4 * R + 10 && (old > 0 || newReady < R); guard++) {
    // The estimate above bounds the rounds; this bounds a loop that would not end for another reason.
    checkWork(`${R} replicas`, steps.length, size)
    // scale up the new ReplicaSet
    const canCreate = Math.min(R + surge - (old + newReady + newNotReady), R - (newReady + newNotReady))
    if (canCreate > 0) {
      for (let i = 0; i < canCreate; i++) {
        const added = placer.addOne({ready: false, name: `${NEW_PREFIX}${++made}`, knownZones: zonesAtStart})
        if (added === null) throw new WhatIfError(NOWHERE)
        remover.added(added.e)
        notReady.push(added)
      }
      newNotReady += canCreate
      push(`create ${canCreate} new pod(s) (not ready)`)
    }
    if (newNotReady > 0) {
      becomeReady(notReady, views.touched)
      notReady.length = 0
      const became = newNotReady
      newReady += newNotReady
      newNotReady = 0
      push(`${became} new pod(s) become ready`)
    }
    // scale down the old ReplicaSet
    const canDelete = Math.min(old, old + newReady - (R - unavailable))
    if (canDelete > 0) {
      remover.remove(canDelete, (e, slice) => placer.removed(e, slice))
      old -= canDelete
      push(`delete ${canDelete} old pod(s)`)
    } else if (canCreate <= 0 && newNotReady === 0) {
      break
    }
  }
  return steps
}

/** The pods become ready: each a new endpoint object in its slice (a view may hold the old one), the list's entries pointing to it. */
function becomeReady(pods: {e: Endpoint; slice: EndpointSlice}[], touched: Set<EndpointSlice>): void {
  for (const p of pods) {
    const eps = p.slice.endpoints!
    const i = eps.indexOf(p.e)
    if (i < 0) continue
    p.e = eps[i] = {...p.e, conditions: {ready: true, serving: true, terminating: false}}
    touched.add(p.slice)
  }
}

function recreate(start: ClusterState, svc: Service, R: number, isOld: (e: Endpoint) => boolean, zonesAtStart: string[] | undefined): RolloutStep[] {
  const old = serviceSlices(start, svc)
    .flatMap((s) => s.endpoints ?? [])
    .filter(isOld).length
  const steps: RolloutStep[] = [{step: 0, action: 'start', oldPods: old, newReady: 0, newNotReady: 0, state: start}]
  let cur = clone(start)
  let made = 0
  for (const s of serviceSlices(cur, svc)) s.endpoints = (s.endpoints ?? []).filter((e) => !isOld(e))
  steps.push({step: 1, action: `delete ${old} old pod(s) (Recreate)`, oldPods: 0, newReady: 0, newNotReady: 0, state: cur})
  cur = clone(cur)
  const placer = new Placer(cur, svc)
  for (let i = 0; i < R; i++) {
    if (!placer.add({ready: false, name: `${NEW_PREFIX}${++made}`, knownZones: zonesAtStart})) throw new WhatIfError(NOWHERE)
  }
  steps.push({step: 2, action: `create ${R} new pod(s) (not ready)`, oldPods: 0, newReady: 0, newNotReady: R, state: cur})
  cur = clone(cur)
  for (const s of serviceSlices(cur, svc)) for (const e of s.endpoints ?? []) if (isNew(e)) e.conditions = {ready: true, serving: true, terminating: false}
  steps.push({step: 3, action: `${R} new pod(s) become ready`, oldPods: 0, newReady: R, newNotReady: 0, state: cur})
  return steps
}

function statefulSetRollout(
  start: ClusterState,
  svc: Service,
  name: string,
  R: number,
  partition: number,
  maxUnavailable: number,
  zonesAtStart: string[] | undefined,
  allEndpointsAreItsPods: boolean,
): RolloutStep[] {
  let made = 0
  const ordinalRe = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-(\\d+)$`)
  const ordinalOf = (e: Endpoint): number | null => {
    const m = ordinalRe.exec(e.targetRef?.name ?? '')
    return m ? Number(m[1]) : null
  }
  const ready = serviceView(start, svc).ready
  const eps = serviceSlices(start, svc).flatMap((s) => s.endpoints ?? [])
  const named = eps.map((e) => ({name: e.targetRef?.name ?? '', ordinal: ordinalOf(e)})).filter((x): x is {name: string; ordinal: number} => x.ordinal !== null)
  // Pods to update, in the controller's order: highest ordinal first, down to the partition.
  // Without <name>-<ordinal> pod names (and no other workload behind the Service) the ordinals
  // are unknown: the same number of pods is taken by the removal rule (node with the most first).
  const targets: (string | null)[] =
    named.length > 0 || !allEndpointsAreItsPods
      ? named
          .filter((x) => x.ordinal >= partition && x.ordinal < R)
          .sort((a, b) => b.ordinal - a.ordinal)
          .map((x) => x.name)
      : Array.from({length: Math.max(0, Math.min(ready.length, R) - partition)}, () => null)
  checkWork(`${targets.length} pods, ${maxUnavailable} at a time (maxUnavailable),`, 2 * Math.ceil(targets.length / maxUnavailable), stepSize(start, 0))
  let old = allEndpointsAreItsPods && named.length === 0 ? ready.length : named.length
  let newReady = 0
  // As deploymentRollout: one working state, one Placer, each step a view. A named pod is found
  // by its name; without ordinals one Remover takes the pods (every endpoint there at the start
  // is a candidate: the recreated pods are new ones, never candidates).
  const views = new Views(start)
  const placer = new Placer(start, svc, views.touched)
  const remover = targets.some((t) => t === null) ? new Remover(start, svc, () => true, views.touched) : null
  const byName = new Map<string, {e: Endpoint; slice: EndpointSlice}[]>()
  for (const slice of serviceSlices(start, svc)) {
    for (const e of slice.endpoints ?? []) {
      const n = e.targetRef?.name
      if (n !== undefined) byName.set(n, [...(byName.get(n) ?? []), {e, slice}])
    }
  }
  const steps: RolloutStep[] = [{step: 0, action: 'start', oldPods: old, newReady, newNotReady: 0, state: views.take()}]
  for (let i = 0; i < targets.length; i += maxUnavailable) {
    const batch = targets.slice(i, i + maxUnavailable)
    const names: string[] = []
    const fresh = new Set<string>()
    for (const target of batch) {
      let gone: Endpoint | null = null
      if (target === null) {
        remover!.remove(1, (e, slice) => {
          placer.removed(e, slice)
          gone = e
        })
      } else {
        gone = takeNamed(start, byName, target, placer, views.touched)
      }
      if (gone === null) continue
      const g: Endpoint = gone
      const podName = target ?? `${NEW_PREFIX}${++made}`
      fresh.add(podName)
      names.push(target ?? g.targetRef?.name ?? podName)
      const added = placer.addOne({ready: false, name: podName, zone: g.zone ?? undefined, knownZones: zonesAtStart})
      if (added === null) throw new WhatIfError(NOWHERE)
      remover?.added(added.e)
      byName.set(podName, [...(byName.get(podName) ?? []), added])
    }
    old -= names.length
    steps.push({step: steps.length, action: `recreate ${names.join(', ')} (not ready)`, oldPods: old, newReady, newNotReady: names.length, state: views.take()})
    // Every endpoint of a recreated pod's name becomes ready (a second endpoint of that name too).
    for (const podName of fresh) becomeReady(byName.get(podName) ?? [], views.touched)
    newReady += names.length
    steps.push({step: steps.length, action: `${names.join(', ')} ${names.length === 1 ? 'becomes' : 'become'} ready`, oldPods: old, newReady, newNotReady: 0, state: views.take()})
  }
  return steps
}

/**
 * Takes the endpoint of the pod named `target` out of its slice: takeEndpoint with a filter on the
 * pod name, without a scan. When several endpoints have that name (two slices, a copy), takeEndpoint's
 * rule picks among them: the most on their node, then the most of the Service's in their zone, then the
 * node name, the first in slice order.
 */
function takeNamed(state: ClusterState, byName: Map<string, {e: Endpoint; slice: EndpointSlice}[]>, target: string, placer: Placer, touched: Set<EndpointSlice>): Endpoint | null {
  const all = byName.get(target) ?? []
  if (all.length === 0) return null
  let best = all[0]!
  if (all.length > 1) {
    // In slice order, as takeEndpoint sees them.
    const at = (x: {e: Endpoint; slice: EndpointSlice}) => [state.endpointSlices.indexOf(x.slice), x.slice.endpoints!.indexOf(x.e)] as const
    all.sort((x, y) => at(x)[0] - at(y)[0] || at(x)[1] - at(y)[1])
    best = all[0]!
    const onNode = countBy(
      all.map((x) => x.e),
      (e) => e.nodeName ?? '',
    )
    for (const x of all.slice(1)) {
      const a = onNode.get(x.e.nodeName ?? '') ?? 0
      const b = onNode.get(best.e.nodeName ?? '') ?? 0
      if (a !== b) {
        if (a > b) best = x
        continue
      }
      const za = placer.inZone(x.e.zone ?? '')
      const zb = placer.inZone(best.e.zone ?? '')
      if (za !== zb) {
        if (za > zb) best = x
        continue
      }
      if ((x.e.nodeName ?? '') < (best.e.nodeName ?? '')) best = x
    }
  }
  const eps = best.slice.endpoints!
  eps.splice(eps.indexOf(best.e), 1)
  touched.add(best.slice)
  placer.removed(best.e, best.slice)
  byName.set(
    target,
    all.filter((x) => x !== best),
  )
  return best.e
}
