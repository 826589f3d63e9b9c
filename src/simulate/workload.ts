// The workload behind a Service and its rollout parameters, for `simulate --rollout`.
// Pure: plain objects in, plain objects out.
//
// "Behind the Service" = a Deployment or StatefulSet in the Service's namespace whose pod
// template labels match the Service's selector (every key=value of the selector is a
// template label): the pods it creates are the Service's endpoints.
//
// Parameters follow the API's defaults and the controllers' arithmetic:
//   Deployment  spec.replicas (default 1); spec.strategy.type RollingUpdate (default) with
//               maxSurge / maxUnavailable (default 25% each; surge rounds up, unavailable down,
//               both 0 after rounding -> unavailable 1: deploymentutil.ResolveFenceposts),
//               or Recreate (every old pod goes before any new one is created).
//   StatefulSet spec.updateStrategy.type RollingUpdate (default) with partition (default 0:
//               ordinals >= partition are updated, highest first) and maxUnavailable (default
//               1, rounds down, at least 1), no surge; or OnDelete (the controller replaces a
//               pod only when someone deletes it: no rollout steps). maxUnavailable needs the
//               MaxUnavailableStatefulSet feature gate (alpha 1.24, beta 1.35, off by default
//               through 1.36.3: `kube-apiserver --help`); with the gate off the API server drops
//               the field, so a StatefulSet read from the cluster carries it only where it applies.
import {slicesOf} from './strategies/cluster.js'
import type {Deployment, IntOrString, Service, StatefulSet} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'

export type WorkloadKind = 'Deployment' | 'StatefulSet'

interface WorkloadRef {
  kind: WorkloadKind
  namespace: string
  name: string
}

export class RolloutSpecError extends Error {}

/** The rollout that `rollout()` steps through. */
export type RolloutSpec = (
  | {kind: 'Deployment'; type: 'RollingUpdate'; replicas?: number; maxSurge: IntOrString; maxUnavailable: IntOrString}
  | {kind: 'Deployment'; type: 'Recreate'; replicas?: number}
  | {kind: 'StatefulSet'; type: 'RollingUpdate'; name: string; replicas?: number; partition: number; maxUnavailable: IntOrString}
  | {kind: 'StatefulSet'; type: 'OnDelete'; name: string; replicas?: number}
) & {
  /**
   * Set when other workloads' pods are behind the Service too: only the endpoints whose pod
   * names are this workload's (podNameMatcher) are its pods; the others stay as they are.
   * Unset: every endpoint of the Service is a pod of the rolled workload.
   */
  podsOf?: {kind: WorkloadKind; name: string}
}

/** Keys of `--rollout` that override a workload's values (or give them without one). */
export interface RolloutOverrides {
  type?: string
  maxSurge?: IntOrString
  maxUnavailable?: IntOrString
  partition?: number
  replicas?: number
}

const DEPLOYMENT_DEFAULT_MAX_SURGE = '25%'
const DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE = '25%'
const STATEFULSET_DEFAULT_MAX_UNAVAILABLE = 1

// ---- which workload ---------------------------------------------------------------------------

const workloadKey = (kind: WorkloadKind, name: string) => `${kind === 'Deployment' ? 'deployment' : 'statefulset'}/${name}`
export const workloadName = (w: {kind: WorkloadKind; name: string}) => workloadKey(w.kind, w.name)

/** True when the Service's selector selects the pods of this template (a Service without a selector selects nothing). */
export function selectsTemplate(svc: Service, templateLabels: Record<string, string> | null | undefined): boolean {
  const sel = svc.spec?.selector
  if (sel === undefined || sel === null || Object.keys(sel).length === 0) return false
  const labels = templateLabels ?? {}
  return Object.entries(sel).every(([k, v]) => Object.hasOwn(labels, k) && labels[k] === v)
}

const templateLabels = (w: Deployment | StatefulSet) => w.spec?.template?.metadata?.labels ?? undefined

/** Deployments and StatefulSets behind the Service, sorted by kind then name. */
export function workloadsBehind(state: ClusterState, svc: Service): (Deployment | StatefulSet)[] {
  const ns = svc.metadata.namespace ?? 'default'
  const inNs = (w: Deployment | StatefulSet) => (w.metadata.namespace ?? 'default') === ns
  const byName = (a: {metadata: {name: string}}, b: {metadata: {name: string}}) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0)
  const deployments = (state.deployments ?? []).filter((d) => inNs(d) && selectsTemplate(svc, templateLabels(d))).sort(byName)
  const statefulSets = (state.statefulSets ?? []).filter((s) => inNs(s) && selectsTemplate(svc, templateLabels(s))).sort(byName)
  return [...deployments.map((d) => ({...d, kind: 'Deployment' as const})), ...statefulSets.map((s) => ({...s, kind: 'StatefulSet' as const}))]
}

export function kindOf(w: Deployment | StatefulSet): WorkloadKind {
  return w.kind === 'StatefulSet' ? 'StatefulSet' : 'Deployment'
}

/**
 * Whether a pod name is one the workload's controller gives: a Deployment's pods are
 * <deployment>-<pod-template-hash>-<5 random> (the ReplicaSet's name, then generateName), a
 * StatefulSet's <statefulset>-<ordinal>.
 */
export function podNameMatcher(w: {kind: WorkloadKind; name: string}): (podName: string) => boolean {
  const base = w.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const re = w.kind === 'StatefulSet' ? new RegExp(`^${base}-\\d+$`) : new RegExp(`^${base}-[a-z0-9]+-[a-z0-9]{5}$`)
  return (podName) => re.test(podName)
}

/** Ready endpoints of the Service whose pods are the workload's (by name), and the others. */
export function readyPodsOf(state: ClusterState, svc: Service, w: {kind: WorkloadKind; name: string}): {own: number; others: number} {
  const matches = podNameMatcher(w)
  let own = 0
  let others = 0
  const seen = new Set<string>()
  for (const sl of slicesOf(state, svc)) {
    for (const e of sl.endpoints ?? []) {
      const a = e.addresses?.[0]
      if (e.conditions?.ready !== true || a === undefined || seen.has(`${sl.addressType}/${a}`)) continue
      seen.add(`${sl.addressType}/${a}`)
      if (matches(e.targetRef?.name ?? '')) own++
      else others++
    }
  }
  return {own, others}
}

// ---- int-or-percent arithmetic (k8s.io/apimachinery intstr) ------------------------------------

const INT_OR_PERCENT = /^(\d+)(%?)$/

/** Checks an int-or-string value as the API server's validation does; returns a problem or null. */
function intOrPercentProblem(v: IntOrString): string | null {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 ? null : `must be a non-negative integer, got ${v}`
  if (!INT_OR_PERCENT.test(v.trim())) return `must be an integer or a percentage (e.g. 25%), got "${v}"`
  return null
}

/** The value as written, as a number or percentage: {value, percent}. */
function parseIntOrPercent(v: IntOrString): {value: number; percent: boolean} {
  if (typeof v === 'number') return {value: v, percent: false}
  const m = INT_OR_PERCENT.exec(v.trim())
  if (!m) throw new RolloutSpecError(`not an integer or a percentage: "${v}"`)
  return {value: Number(m[1]), percent: m[2] === '%'}
}

/** intstr.GetScaledValueFromIntOrPercent: a percentage of total, rounded up or down. */
export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number {
  const {value, percent} = parseIntOrPercent(v)
  if (!percent) return value
  return roundUp ? Math.ceil((value * total) / 100) : Math.floor((value * total) / 100)
}

/**
 * deploymentutil.ResolveFenceposts: maxSurge rounds up, maxUnavailable down; when both come
 * out 0 (rounding; validation refuses both 0 as written), maxUnavailable is 1.
 */
export function resolveFenceposts(maxSurge: IntOrString, maxUnavailable: IntOrString, replicas: number): {surge: number; unavailable: number} {
  const surge = scaledValue(maxSurge, replicas, true)
  let unavailable = scaledValue(maxUnavailable, replicas, false)
  if (surge === 0 && unavailable === 0) unavailable = 1
  return {surge, unavailable}
}

/** getStatefulSetMaxUnavailable: rounds down, at least 1. */
export function statefulSetMaxUnavailable(maxUnavailable: IntOrString, replicas: number): number {
  return Math.max(1, scaledValue(maxUnavailable, replicas, false))
}

/** Validation of a Deployment's rolling update parameters (apps ValidateRollingUpdateDeployment). */
export function deploymentParamsProblem(maxSurge: IntOrString, maxUnavailable: IntOrString): string | null {
  const surgeProblem = intOrPercentProblem(maxSurge)
  if (surgeProblem) return `maxSurge ${surgeProblem}`
  const unavailableProblem = intOrPercentProblem(maxUnavailable)
  if (unavailableProblem) return `maxUnavailable ${unavailableProblem}`
  const u = parseIntOrPercent(maxUnavailable)
  if (u.percent && u.value > 100) return `maxUnavailable must not be greater than 100%, got "${maxUnavailable}"`
  if (parseIntOrPercent(maxSurge).value === 0 && u.value === 0) return 'maxSurge and maxUnavailable cannot both be 0 (the API server refuses it: nothing could ever be replaced)'
  return null
}

/** Validation of a StatefulSet's rolling update parameters (apps ValidateStatefulSetUpdateStrategy). */
export function statefulSetParamsProblem(partition: number, maxUnavailable: IntOrString): string | null {
  if (!Number.isInteger(partition) || partition < 0) return `partition must be a non-negative integer, got ${partition}`
  const problem = intOrPercentProblem(maxUnavailable)
  if (problem) return `maxUnavailable ${problem}`
  const u = parseIntOrPercent(maxUnavailable)
  if (u.value === 0) return 'maxUnavailable must be greater than 0 for a StatefulSet'
  if (u.percent && u.value > 100) return `maxUnavailable must not be greater than 100%, got "${maxUnavailable}"`
  return null
}

// ---- from a workload ---------------------------------------------------------------------------

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
const ios = (v: unknown): IntOrString | undefined => (typeof v === 'number' || typeof v === 'string' ? v : undefined)

/** The rollout a workload's spec describes, with the API's defaults for what is unset. */
export function rolloutSpecOf(w: Deployment | StatefulSet): RolloutSpec {
  const replicas = num(w.spec?.replicas) ?? 1
  if (kindOf(w) === 'Deployment') {
    const d = w as Deployment
    const type = d.spec?.strategy?.type ?? 'RollingUpdate'
    if (type === 'Recreate') return {kind: 'Deployment', type: 'Recreate', replicas}
    if (type !== 'RollingUpdate') throw new RolloutSpecError(`deployment/${w.metadata.name}: unknown strategy type "${type}" (RollingUpdate or Recreate)`)
    const ru = d.spec?.strategy?.rollingUpdate
    return {
      kind: 'Deployment',
      type: 'RollingUpdate',
      replicas,
      maxSurge: ios(ru?.maxSurge) ?? DEPLOYMENT_DEFAULT_MAX_SURGE,
      maxUnavailable: ios(ru?.maxUnavailable) ?? DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE,
    }
  }
  const s = w as StatefulSet
  const type = s.spec?.updateStrategy?.type ?? 'RollingUpdate'
  if (type === 'OnDelete') return {kind: 'StatefulSet', type: 'OnDelete', name: w.metadata.name, replicas}
  if (type !== 'RollingUpdate') throw new RolloutSpecError(`statefulset/${w.metadata.name}: unknown update strategy type "${type}" (RollingUpdate or OnDelete)`)
  const ru = s.spec?.updateStrategy?.rollingUpdate
  return {
    kind: 'StatefulSet',
    type: 'RollingUpdate',
    name: w.metadata.name,
    replicas,
    partition: num(ru?.partition) ?? 0,
    maxUnavailable: ios(ru?.maxUnavailable) ?? STATEFULSET_DEFAULT_MAX_UNAVAILABLE,
  }
}

/**
 * Applies `--rollout` keys on top of a workload's spec (or, without a workload, on the
 * defaults of a Deployment's rolling update) and validates the result.
 */
export function withOverrides(base: RolloutSpec | null, o: RolloutOverrides): RolloutSpec {
  const replicas = o.replicas ?? base?.replicas
  const rep = replicas === undefined ? {} : {replicas}
  const kind = base?.kind ?? 'Deployment'
  let spec: RolloutSpec
  if (kind === 'Deployment') {
    if (o.partition !== undefined) throw new RolloutSpecError("partition applies to a StatefulSet's rolling update, not a Deployment's")
    const type = o.type ?? base?.type ?? 'RollingUpdate'
    if (type === 'Recreate') {
      if (o.maxSurge !== undefined || o.maxUnavailable !== undefined) throw new RolloutSpecError('maxSurge and maxUnavailable apply to type=RollingUpdate, not Recreate')
      spec = {kind, type, ...rep}
    } else if (type === 'RollingUpdate') {
      const b = base?.kind === 'Deployment' && base.type === 'RollingUpdate' ? base : null
      const maxSurge = o.maxSurge ?? b?.maxSurge ?? DEPLOYMENT_DEFAULT_MAX_SURGE
      const maxUnavailable = o.maxUnavailable ?? b?.maxUnavailable ?? DEPLOYMENT_DEFAULT_MAX_UNAVAILABLE
      const problem = deploymentParamsProblem(maxSurge, maxUnavailable)
      if (problem) throw new RolloutSpecError(problem)
      spec = {kind, type, ...rep, maxSurge, maxUnavailable}
    } else {
      throw new RolloutSpecError(`type must be RollingUpdate or Recreate for a Deployment, got "${type}"`)
    }
  } else {
    const name = (base as {name: string}).name
    if (o.maxSurge !== undefined) throw new RolloutSpecError('a StatefulSet does not surge: maxSurge applies to Deployments')
    const type = o.type ?? base?.type ?? 'RollingUpdate'
    if (type === 'OnDelete') {
      if (o.maxUnavailable !== undefined || o.partition !== undefined) throw new RolloutSpecError('partition and maxUnavailable apply to type=RollingUpdate, not OnDelete')
      spec = {kind, type, name, ...rep}
    } else if (type === 'RollingUpdate') {
      const b = base?.kind === 'StatefulSet' && base.type === 'RollingUpdate' ? base : null
      const partition = o.partition ?? b?.partition ?? 0
      const maxUnavailable = o.maxUnavailable ?? b?.maxUnavailable ?? STATEFULSET_DEFAULT_MAX_UNAVAILABLE
      const problem = statefulSetParamsProblem(partition, maxUnavailable)
      if (problem) throw new RolloutSpecError(problem)
      spec = {kind, type, name, ...rep, partition, maxUnavailable}
    } else {
      throw new RolloutSpecError(`type must be RollingUpdate or OnDelete for a StatefulSet, got "${type}"`)
    }
  }
  if (spec.replicas !== undefined && (!Number.isInteger(spec.replicas) || spec.replicas < 0))
    throw new RolloutSpecError(`replicas must be a non-negative integer, got ${spec.replicas}`)
  return spec
}

// ---- what the report says ----------------------------------------------------------------------

export interface RolloutPlan {
  /** flag: every parameter from --rollout; workload: read from the workload behind the Service (keys in `overridden` from the flag). */
  source: 'flag' | 'workload'
  workload: {kind: WorkloadKind; name: string} | null
  kind: WorkloadKind
  type: 'RollingUpdate' | 'Recreate' | 'OnDelete'
  replicas: number
  /** As written (after defaults and overrides); null where the strategy has none. */
  maxSurge: IntOrString | null
  maxUnavailable: IntOrString | null
  partition: number | null
  /** In pods, as the controller resolves them for `replicas`. */
  resolved: {maxSurge: number; maxUnavailable: number}
  overridden: string[]
  notes: string[]
}

/** The plan for a spec (replicas resolved: the spec's, else the Service's ready endpoints). */
export function planOf(spec: RolloutSpec, readyEndpoints: number, from: {workload: {kind: WorkloadKind; name: string} | null; overridden: string[]}): RolloutPlan {
  const replicas = spec.replicas ?? readyEndpoints
  const notes: string[] = []
  let maxSurge: IntOrString | null = null
  let maxUnavailable: IntOrString | null = null
  let partition: number | null = null
  let resolved = {maxSurge: 0, maxUnavailable: 0}
  if (spec.kind === 'Deployment' && spec.type === 'RollingUpdate') {
    maxSurge = spec.maxSurge
    maxUnavailable = spec.maxUnavailable
    const r = resolveFenceposts(spec.maxSurge, spec.maxUnavailable, replicas)
    resolved = {maxSurge: r.surge, maxUnavailable: r.unavailable}
    if (scaledValue(spec.maxSurge, replicas, true) === 0 && scaledValue(spec.maxUnavailable, replicas, false) === 0) {
      notes.push('maxSurge and maxUnavailable both round to 0: the Deployment controller uses maxUnavailable 1')
    }
  } else if (spec.kind === 'Deployment') {
    resolved = {maxSurge: 0, maxUnavailable: replicas}
  } else if (spec.type === 'OnDelete') {
    notes.push('OnDelete: the StatefulSet controller replaces a pod only when it is deleted; no rollout steps')
  } else {
    maxUnavailable = spec.maxUnavailable
    partition = spec.partition
    resolved = {maxSurge: 0, maxUnavailable: statefulSetMaxUnavailable(spec.maxUnavailable, replicas)}
    if (resolved.maxUnavailable > 1) {
      notes.push(
        'a StatefulSet replaces more than one pod at a time only with the MaxUnavailableStatefulSet feature gate (off by default through Kubernetes 1.36); without it, one at a time',
      )
    }
    if (spec.partition >= replicas) notes.push(`partition ${spec.partition} >= replicas ${replicas}: no pod is updated`)
  }
  return {
    source: from.workload === null ? 'flag' : 'workload',
    workload: from.workload,
    kind: spec.kind,
    type: spec.type,
    replicas,
    maxSurge,
    maxUnavailable,
    partition,
    resolved,
    overridden: from.overridden,
    notes,
  }
}
