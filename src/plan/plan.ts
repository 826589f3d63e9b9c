// `kubectl topology plan`: what to set so that routing stays local and no zone is overloaded,
// through autoscaling, rollouts and a zone loss, and what the cross-zone traffic costs.
// Pure: every figure is explain()'s own, computed on the Service as it would be at each
// replica count, rollout step and zone loss (so plan and explain cannot disagree), with pods
// placed by the placement model below. Schema: schema/plan.v1.json; guide: docs/plan.md.
//
// Placement model (the scheduler, simplified; docs/plan.md states its limits):
//   - the steady state: today's ready endpoints stay where they are; scaling up adds one pod
//     at a time to the zone with the fewest of the Service's pods (ties: zone name), on the
//     node of that zone with the fewest (ties: node name): what PodTopologySpread on
//     topology.kubernetes.io/zone (maxSkew >= 1) makes the scheduler do; scaling down removes
//     from the most crowded node, then the most crowded zone (the ReplicaSet controller's
//     deletion ranking);
//   - without a zone spread constraint the scheduler only prefers a balanced spread
//     (its default constraints are ScheduleAnyway), so real placement can be less even than
//     the model: the recommendation then proposes a constraint;
//   - resources, affinities, taints and node scoring are not modelled.
import {explain, type ExplainOptions, type LintIssue, type MeasuredTrafficReport, type ServiceExplanation} from '../explain/report.js'
import {rollout} from '../simulate/rollout.js'
import {Placer, removeEndpoint, withoutZone} from '../simulate/whatif.js'
import {kindOf, rolloutSpecOf, scaledValue, workloadsBehind, type WorkloadKind} from '../simulate/workload.js'
import type {ClusterState} from '../state/cluster-state.js'
import {
  LABEL_ZONE,
  type Deployment,
  type HorizontalPodAutoscaler,
  type LabelSelector,
  type PodDisruptionBudget,
  type Service,
  type StatefulSet,
  type TopologySpreadConstraint,
} from '../upstream/api/types.js'
import {features as featuresFor, formatVersion} from '../upstream/features.js'
import {adviseExplained, modesFor} from '../advise/advisor.js'
import {currentModeOf, serviceWithMode} from '../advise/evaluate.js'
import {readyCount, statesOverRange, steadyState, zoneCounts} from '../advise/placement.js'
import {DEFAULT_MAX_OVERLOAD, type Recommendation, type TopologyMode} from '../advise/types.js'
import {recommend, type PlanVerdict} from './verdict.js'

export {statesOverRange}

export const PLAN_SCHEMA_VERSION = 'kubectl-topology.io/v1'

/** The advisor's modes (src/advise/types.ts). */
export type PlanMode = TopologyMode

export interface PlanOptions {
  kubeVersion?: string
  versionSource?: 'server' | 'flag' | 'default'
  /** Worst per-endpoint overload allowed (0.2 = 20%, upstream's threshold). */
  maxOverload?: number
  /** Traffic share per zone (default: zone CPU share, upstream's assumption). */
  traffic?: Record<string, number>
  /** Measured traffic by "namespace/name" (--traffic-from): a Service found here is planned under its measured client mix. */
  measured?: ExplainOptions['measured']
  /** Monthly traffic of the Service in bytes and the price per GiB crossing zones (both or neither). */
  cost?: {volumeBytes: number; pricePerGiB: number}
  /** Without an HPA the range is 1 .. max(3 x today, 3); an upper bound on how many counts are evaluated. */
  maxCounts?: number
}

/** explain's figures for one state under one mode. */
export interface Figures {
  /** The controller writes hints. */
  hints: boolean
  /** The controller's reason (upstream's event reason on the Auto path). */
  reason: string
  /** Expected share of requests served in their own zone (null: no traffic model). */
  inZone: number | null
  /** Largest expected per-endpoint overload (0.2 = 20% above an even share). */
  maxOverload: number | null
  /** Zones whose kube-proxy falls back to every endpoint with the predicted hints. */
  fallbackZones: string[]
}

export type ModeFigures = Partial<Record<PlanMode, Figures>>

export interface RangeRow {
  replicas: number
  /** Ready endpoints per zone under the placement model. */
  zones: Record<string, number>
  modes: ModeFigures
}

export interface RolloutPlanStep {
  step: number
  action: string
  readyEndpoints: number
  modes: ModeFigures
}

export interface RolloutAtCount {
  replicas: number
  at: 'today' | 'hpa-min' | 'hpa-max'
  steps: RolloutPlanStep[]
  /** Per mode: the worst figures over the steps (hints lost at any step, lowest in-zone, highest overload). */
  worst: ModeFigures
}

export interface ZoneLoss {
  replicas: number
  at: 'today' | 'hpa-min' | 'hpa-max'
  zone: string
  /** Right after the loss: the zone's nodes and endpoints are gone. */
  immediate: ModeFigures
  /** Once the lost pods run again in the other zones (null: no node left to run them). */
  rescheduled: ModeFigures | null
}

export interface WorkloadInfo {
  kind: WorkloadKind
  name: string
  replicas: number
  /** The zone spread constraint of the pod template (null: none). */
  zoneSpread: {maxSkew: number; whenUnsatisfiable: string} | null
  hpa: {name: string; minReplicas: number; maxReplicas: number} | null
  pdb: {name: string; allowedDisruptions: number} | null
}

export interface CostLine {
  mode: PlanMode
  crossZoneShare: number | null
  /** Per month, in the price's currency (null without --traffic-volume and --cross-zone-price). */
  monthlyCost: number | null
}

export interface ServicePlan {
  namespace: string
  name: string
  currentMode: PlanMode
  readyEndpoints: number
  modes: PlanMode[]
  workload: WorkloadInfo | null
  range: {from: number; to: number; source: 'hpa' | 'default'; rows: RangeRow[]}
  rollouts: RolloutAtCount[]
  zoneLosses: ZoneLoss[]
  /** Evicting as many pods as the PodDisruptionBudget allows, all from the most crowded zone (a drain). */
  disruption: {evicted: number; zone: string; modes: ModeFigures} | null
  /** The advisor's recommendation at today's count: the same object explain, check and watch show. */
  recommendation: Recommendation
  /** plan's verdict over the range, rollouts, zone losses and the PDB (the advisor's bound and ranking, more scenarios). */
  extended: PlanVerdict
  /** now: the current mode with the hints live now; recommended: the extended verdict's mode at today's count. */
  cost: {volumeBytes: number | null; pricePerGiB: number | null; now: CostLine; recommended: CostLine; byMode: CostLine[]}
  notes: string[]
  /** The Service's configuration findings today: explain's list (the one check --lint and watch show). */
  lint: LintIssue[]
  /** With --traffic-from, when the Service's traffic was measured: explain's measured figures (absent otherwise). */
  measured?: MeasuredTrafficReport
}

export interface PlanReport {
  apiVersion: typeof PLAN_SCHEMA_VERSION
  kind: 'TopologyPlan'
  kubernetesVersion: string
  versionSource: 'server' | 'flag' | 'default'
  maxOverload: number
  placementModel: 'zone-balanced'
  warnings: string[]
  services: ServicePlan[]
}

const DEFAULT_MAX_COUNTS = 1000

// ---- evaluating one state ---------------------------------------------------------------

/** The Service with `mode` set as `kubectl topology apply --mode` sets it (the advisor's). */
export const withMode = serviceWithMode

function figuresOf(s: ServiceExplanation): Figures {
  return {
    hints: s.controller.hintsSet,
    reason: s.controller.reason,
    inZone: s.traffic.inZoneSharePredicted,
    maxOverload: s.traffic.maxEndpointOverloadPredicted,
    fallbackZones: s.zones.filter((z) => z.kubeProxyPredicted.fallback).map((z) => z.name),
  }
}

/** explain's figures for the Service in `state` under each mode (prediction: fresh, as after a rewrite of the slices). */
function evaluate(state: ClusterState, svc: Service, modes: readonly PlanMode[], opts: PlanOptions): ModeFigures {
  const out: ModeFigures = {}
  for (const mode of modes) {
    const s = withMode(svc, mode)
    const services = state.services.map((x) => (x === svc ? s : x))
    const report = explain({...state, services}, [s], {kubeVersion: opts.kubeVersion, traffic: opts.traffic, prediction: 'fresh'})
    const first = report.services[0]
    if (first !== undefined) out[mode] = figuresOf(first)
  }
  return out
}

// ---- the workload, its HPA and PDB --------------------------------------------------------

function zoneSpreadOf(w: Deployment | StatefulSet): WorkloadInfo['zoneSpread'] {
  const list: TopologySpreadConstraint[] = w.spec?.template?.spec?.topologySpreadConstraints ?? []
  const zone = list.filter((c) => c.topologyKey === LABEL_ZONE)
  if (zone.length === 0) return null
  // The strictest one: DoNotSchedule before ScheduleAnyway, then the smallest skew.
  const c = [...zone].sort((a, b) => Number(b.whenUnsatisfiable === 'DoNotSchedule') - Number(a.whenUnsatisfiable === 'DoNotSchedule') || (a.maxSkew ?? 1) - (b.maxSkew ?? 1))[0]!
  return {maxSkew: c.maxSkew ?? 1, whenUnsatisfiable: c.whenUnsatisfiable ?? 'DoNotSchedule'}
}

/** The HPA whose scaleTargetRef names the workload (autoscaling/v2 defaults: minReplicas 1). */
function hpaFor(state: ClusterState, ns: string, w: {kind: WorkloadKind; name: string}): WorkloadInfo['hpa'] {
  const hpa = (state.horizontalPodAutoscalers ?? []).find(
    (h: HorizontalPodAutoscaler) => (h.metadata.namespace ?? 'default') === ns && h.spec?.scaleTargetRef?.kind === w.kind && h.spec?.scaleTargetRef?.name === w.name,
  )
  if (hpa === undefined) return null
  const min = hpa.spec?.minReplicas ?? 1
  const max = hpa.spec?.maxReplicas ?? min
  return {name: hpa.metadata.name, minReplicas: Math.max(1, min), maxReplicas: Math.max(Math.max(1, min), max)}
}

function selectorMatches(sel: LabelSelector | null | undefined, labels: Record<string, string>): boolean {
  if (sel === null || sel === undefined) return false
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false
  for (const r of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, r.key)
    const val = labels[r.key]
    const values = r.values ?? []
    if (r.operator === 'In' && !(has && values.includes(val as string))) return false
    if (r.operator === 'NotIn' && has && values.includes(val as string)) return false
    if (r.operator === 'Exists' && !has) return false
    if (r.operator === 'DoesNotExist' && has) return false
  }
  return true
}

/**
 * Disruptions the PDB allows with `replicas` healthy pods (the disruption controller's
 * arithmetic: minAvailable and maxUnavailable percentages round up; at least 0).
 */
export function allowedDisruptions(pdb: PodDisruptionBudget, replicas: number): number {
  const spec = pdb.spec ?? {}
  if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) return Math.max(0, Math.min(replicas, scaledValue(spec.maxUnavailable, replicas, true)))
  if (spec.minAvailable !== undefined && spec.minAvailable !== null) return Math.max(0, replicas - scaledValue(spec.minAvailable, replicas, true))
  return 0
}

function workloadInfo(state: ClusterState, svc: Service, readyNow: number): {info: WorkloadInfo; workload: Deployment | StatefulSet} | null {
  const ws = workloadsBehind(state, svc)
  const w = ws[0]
  if (w === undefined) return null
  const kind = kindOf(w)
  const ns = svc.metadata.namespace ?? 'default'
  const labels = w.spec?.template?.metadata?.labels ?? {}
  const pdb = (state.podDisruptionBudgets ?? []).find((p) => (p.metadata.namespace ?? 'default') === ns && selectorMatches(p.spec?.selector, labels))
  const replicas = w.spec?.replicas ?? 1
  return {
    workload: w,
    info: {
      kind,
      name: w.metadata.name,
      replicas,
      zoneSpread: zoneSpreadOf(w),
      hpa: hpaFor(state, ns, {kind, name: w.metadata.name}),
      pdb: pdb === undefined ? null : {name: pdb.metadata.name, allowedDisruptions: allowedDisruptions(pdb, readyNow)},
    },
  }
}

// ---- states at each count -----------------------------------------------------------------

function worstOf(steps: readonly ModeFigures[], modes: readonly PlanMode[]): ModeFigures {
  const out: ModeFigures = {}
  for (const m of modes) {
    const all = steps.map((s) => s[m]).filter((f): f is Figures => f !== undefined)
    if (all.length === 0) continue
    const lost = all.find((f) => !f.hints)
    const inZones = all.map((f) => f.inZone).filter((x): x is number => x !== null)
    const overloads = all.map((f) => f.maxOverload).filter((x): x is number => x !== null)
    out[m] = {
      hints: lost === undefined,
      reason: (lost ?? all[0]!).reason,
      inZone: inZones.length ? Math.min(...inZones) : null,
      maxOverload: overloads.length ? Math.max(...overloads) : null,
      fallbackZones: [...new Set(all.flatMap((f) => f.fallbackZones))].sort(),
    }
  }
  return out
}

// ---- the plan ------------------------------------------------------------------------------

function costLine(mode: PlanMode, f: Figures | undefined, cost: PlanOptions['cost']): CostLine {
  const share = f?.inZone === null || f?.inZone === undefined ? null : Math.max(0, 1 - f.inZone)
  const monthlyCost = share === null || cost === undefined ? null : ((cost.volumeBytes * share) / 2 ** 30) * cost.pricePerGiB
  return {mode, crossZoneShare: share, monthlyCost}
}

/** A Service explain gives no explanation of (none in the state): nothing to advise. */
function emptyAdvice(current: PlanMode, bound: number): Recommendation {
  const none = {hints: false, reason: 'NotExplained', inZone: null, worstOverload: null, worstZone: null, fallbackZones: []}
  return {bound, current, now: none, predicted: none, options: [], scaledAuto: null, recommended: current, meetsBound: true, reasons: [`keep ${current}`], steps: []}
}

/** What check's plan policies read of a Service's plan (src/check/plan-policies.ts). */
export type CheckPlan = Pick<ServicePlan, 'namespace' | 'name' | 'currentMode' | 'workload' | 'range' | 'rollouts'>

/**
 * The range and the rollouts of a Service's plan: planService's first half, and all check
 * needs. ownModeOnly: each state evaluated under the Service's own mode only, and no state at
 * all when it asks for no topology (check's plan policies then skip).
 */
function rangeAndRollouts(state: ClusterState, svc: Service, opts: PlanOptions, ownModeOnly = false) {
  const ns = svc.metadata.namespace ?? 'default'
  const modes = modesFor(opts.kubeVersion)
  const notes: string[] = []
  const current = explain(state, [svc], {kubeVersion: opts.kubeVersion, traffic: opts.traffic, ...(opts.measured ? {measured: opts.measured} : {})}).services[0]
  const currentMode: PlanMode = current === undefined ? 'none' : currentModeOf(current)
  const base = steadyState(state, svc)
  const now = readyCount(base, svc)
  const wl = workloadInfo(state, svc, now)
  const hpa = wl?.info.hpa ?? null
  const from = hpa ? hpa.minReplicas : 1
  const to = Math.min(hpa ? hpa.maxReplicas : Math.max(3 * Math.max(now, wl?.info.replicas ?? 0), 3), from + (opts.maxCounts ?? DEFAULT_MAX_COUNTS) - 1)
  if (hpa && hpa.maxReplicas > to) notes.push(`the HPA allows up to ${hpa.maxReplicas} replicas; plan evaluates ${from}..${to}`)
  // check reads the Service's own mode, when the version has it (plan's modes), and nothing else.
  const only: readonly PlanMode[] | undefined = ownModeOnly ? modes.filter((m) => m === currentMode) : undefined
  if (ownModeOnly && currentMode === 'none')
    return {ns, modes, notes, current, currentMode, base, now, wl, hpa, from, to, states: new Map<number, ClusterState>(), rows: [], points: [], rollouts: []}
  const states = statesOverRange(base, svc, Math.min(from, now), Math.max(to, now))
  const rows: RangeRow[] = []
  for (const [n, st] of states) if (n >= from && n <= to) rows.push({replicas: n, zones: zoneCounts(st, svc), modes: evaluate(st, svc, only ?? modes, opts)})
  if (rows.length < to - from + 1) notes.push(`no schedulable Ready node with a zone label for some counts: the range ends at ${rows.at(-1)?.replicas ?? 0}`)

  // Counts for rollouts and zone losses: today's and the HPA's bounds.
  const points: {n: number; at: RolloutAtCount['at']}[] = [{n: now, at: 'today'}]
  if (hpa)
    for (const [n, at] of [
      [hpa.minReplicas, 'hpa-min'],
      [hpa.maxReplicas, 'hpa-max'],
    ] as const)
      if (!points.some((p) => p.n === n) && states.has(n)) points.push({n, at})
  const rollouts: RolloutAtCount[] = []
  const lossModes = only ?? modes.filter((m) => m !== 'none')
  for (const p of points) {
    const st = states.get(p.n)
    if (st === undefined || p.n === 0 || !wl) continue
    try {
      const spec = {...rolloutSpecOf(wl.workload), replicas: p.n}
      const steps = rollout(st, svc, spec).map((r) => ({
        step: r.step,
        action: r.action,
        readyEndpoints: readyCount(r.state, svc),
        modes: evaluate(r.state, svc, lossModes, opts),
      }))
      rollouts.push({
        replicas: p.n,
        at: p.at,
        steps,
        worst: worstOf(
          steps.map((s) => s.modes),
          lossModes,
        ),
      })
    } catch (e) {
      notes.push(`rollout at ${p.n} replicas: ${(e as Error).message}`)
    }
  }
  return {ns, modes, notes, current, currentMode, base, now, wl, hpa, from, to, states, rows, points, rollouts}
}

/**
 * check's plan of a Service (hints-over-range, hints-through-rollout): the range and the
 * rollouts, with only the Service's own mode evaluated (the only one check reads), and no zone
 * loss, disruption, advice or cost. A Service asking for no topology: no state evaluated.
 */
export function planForCheck(state: ClusterState, svc: Service, opts: PlanOptions = {}): CheckPlan {
  const p = rangeAndRollouts(state, svc, optionsFor(svc, opts), true)
  return {
    namespace: p.ns,
    name: svc.metadata.name,
    currentMode: p.currentMode,
    workload: p.wl?.info ?? null,
    range: {from: p.from, to: p.to, source: p.hpa ? 'hpa' : 'default', rows: p.rows},
    rollouts: p.rollouts,
  }
}

export function planService(state: ClusterState, svc: Service, opts: PlanOptions = {}): ServicePlan {
  const bound = opts.maxOverload ?? DEFAULT_MAX_OVERLOAD
  const {ns, modes, notes, current, currentMode, base, now, wl, hpa, from, to, states, rows, points, rollouts} = rangeAndRollouts(state, svc, opts)
  const zoneLosses: ZoneLoss[] = []
  const lossModes = modes.filter((m) => m !== 'none')
  for (const p of points) {
    const st = states.get(p.n)
    if (st === undefined || p.n === 0) continue
    const zones = [...new Set(st.nodes.map((n) => n.metadata.labels?.[LABEL_ZONE]).filter((z): z is string => !!z))].sort()
    if (zones.length < 2) continue
    for (const zone of zones) {
      const lost = withoutZone(st, zone)
      const immediate = evaluate(lost, svc, lossModes, opts)
      // withoutZone's state is a copy of its own: the lost pods are placed into it, one Placer for all.
      let again: ClusterState | null = lost
      const placer = new Placer(lost, svc)
      for (let k = readyCount(lost, svc); k < p.n; k++) {
        if (!placer.add({ready: true})) {
          again = null
          break
        }
      }
      zoneLosses.push({replicas: p.n, at: p.at, zone, immediate, rescheduled: again === null ? null : evaluate(again, svc, lossModes, opts)})
    }
  }
  let disruption: ServicePlan['disruption'] = null
  if (wl?.info.pdb && wl.info.pdb.allowedDisruptions > 0 && now > 0) {
    const zc = zoneCounts(base, svc)
    const zone = Object.entries(zc).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0]
    const evicted = Math.min(wl.info.pdb.allowedDisruptions, zc[zone] ?? 0)
    const st = structuredClone(base)
    for (let i = 0; i < evicted; i++) removeEndpoint(st, svc, (e) => (e.zone ?? '') === zone)
    disruption = {evicted, zone, modes: evaluate(st, svc, lossModes, opts)}
  }

  const advice = current === undefined ? null : adviseExplained(state, svc, current, {kubeVersion: opts.kubeVersion, traffic: opts.traffic, maxOverload: bound})
  const extended = recommend({
    svc,
    ns,
    modes,
    rows,
    rollouts,
    zoneLosses,
    disruption,
    wl: wl?.info ?? null,
    now,
    bound,
    currentMode,
    workloadLabels: wl?.workload.spec?.template?.metadata?.labels ?? null,
    today: advice,
  })
  const today = rows.find((r) => r.replicas === now)?.modes ?? evaluate(base, svc, modes, opts)
  const byMode = modes.map((m) => costLine(m, today[m], opts.cost))
  // Now: the hints live now (the advisor's `now`, explain's figure), not the mode after a sync.
  const nowFigures: Figures | undefined = advice
    ? {hints: advice.now.hints, reason: advice.now.reason, inZone: advice.now.inZone, maxOverload: advice.now.worstOverload, fallbackZones: advice.now.fallbackZones}
    : undefined
  return {
    namespace: ns,
    name: svc.metadata.name,
    currentMode,
    readyEndpoints: now,
    modes,
    workload: wl?.info ?? null,
    range: {from, to, source: hpa ? 'hpa' : 'default', rows},
    rollouts,
    zoneLosses,
    disruption,
    recommendation: advice ?? emptyAdvice(currentMode, bound),
    extended,
    cost: {
      volumeBytes: opts.cost?.volumeBytes ?? null,
      pricePerGiB: opts.cost?.pricePerGiB ?? null,
      now: costLine(currentMode, nowFigures, opts.cost),
      recommended: costLine(extended.mode, today[extended.mode], opts.cost),
      byMode,
    },
    notes,
    lint: current?.lint ?? [],
    ...(current?.traffic.measured !== undefined ? {measured: current.traffic.measured} : {}),
  }
}

export function plan(state: ClusterState, services: readonly Service[], opts: PlanOptions = {}): PlanReport {
  const f = featuresFor(opts.kubeVersion)
  const warnings: string[] = f.warning ? [f.warning] : []
  if (state.nodesReadable === false) warnings.push('Nodes could not be read: the zone CPU shares, and so every Auto figure, are unknown')
  return {
    apiVersion: PLAN_SCHEMA_VERSION,
    kind: 'TopologyPlan',
    kubernetesVersion: formatVersion(f.version),
    versionSource: opts.versionSource ?? (opts.kubeVersion ? 'flag' : 'default'),
    maxOverload: opts.maxOverload ?? DEFAULT_MAX_OVERLOAD,
    placementModel: 'zone-balanced',
    warnings,
    services: services.map((svc) => planService(state, svc, optionsFor(svc, opts))),
  }
}

/** A measured Service: every figure of its plan (each mode, count, rollout, zone loss) under its measured client mix. */
function optionsFor(svc: Service, opts: PlanOptions): PlanOptions {
  const m = opts.measured?.get(`${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}`)
  return m === undefined ? opts : {...opts, traffic: m.mix}
}
