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
import {explain, type LintIssue, type ServiceExplanation} from '../explain/report.js'
import {addEndpoint, removeEndpoint, rollout, withoutZone} from '../simulate/whatif.js'
import {kindOf, rolloutSpecOf, scaledValue, workloadsBehind, type WorkloadKind} from '../simulate/workload.js'
import {slicesOf} from '../simulate/strategies/cluster.js'
import type {ClusterState} from '../state/cluster-state.js'
import {
  ANNOTATION_TOPOLOGY_AWARE_HINTS,
  ANNOTATION_TOPOLOGY_MODE,
  LABEL_ZONE,
  type Deployment,
  type HorizontalPodAutoscaler,
  type LabelSelector,
  type PodDisruptionBudget,
  type Service,
  type StatefulSet,
  type TopologySpreadConstraint,
} from '../upstream/api/types.js'
import {acceptedTrafficDistributions, features as featuresFor, formatVersion} from '../upstream/features.js'

export const PLAN_SCHEMA_VERSION = 'kubectl-topology.io/v1'

export type PlanMode = 'Auto' | 'PreferClose' | 'PreferSameZone' | 'PreferSameNode' | 'none'

export interface PlanOptions {
  kubeVersion?: string
  versionSource?: 'server' | 'flag' | 'default'
  /** Worst per-endpoint overload allowed (0.2 = 20%, upstream's threshold). */
  maxOverload?: number
  /** Traffic share per zone (default: zone CPU share, upstream's assumption). */
  traffic?: Record<string, number>
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

export interface Recommendation {
  mode: PlanMode
  /** The worst overload of the mode over the range, rollouts and zone losses stays within --max-overload. */
  meetsBound: boolean
  settings: {kind: 'mode' | 'min-replicas' | 'replicas' | 'zone-spread'; value: string; why: string}[]
  commands: string[]
  why: string[]
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
  recommendation: Recommendation
  cost: {volumeBytes: number | null; pricePerGiB: number | null; now: CostLine; recommended: CostLine; byMode: CostLine[]}
  notes: string[]
  /** The Service's configuration findings today: explain's list (the one check --lint and watch show). */
  lint: LintIssue[]
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

export const DEFAULT_MAX_OVERLOAD = 0.2
const DEFAULT_MAX_COUNTS = 1000

// ---- evaluating one state ---------------------------------------------------------------

/** The Service with only `mode` set (the annotation or spec.trafficDistribution). */
export function withMode(svc: Service, mode: PlanMode): Service {
  const annotations = {...(svc.metadata.annotations ?? {})}
  delete annotations[ANNOTATION_TOPOLOGY_MODE]
  delete annotations[ANNOTATION_TOPOLOGY_AWARE_HINTS]
  if (mode === 'Auto') annotations[ANNOTATION_TOPOLOGY_MODE] = 'Auto'
  const spec = {...(svc.spec ?? {})}
  delete spec.trafficDistribution
  if (mode !== 'Auto' && mode !== 'none') spec.trafficDistribution = mode
  return {...svc, metadata: {...svc.metadata, annotations}, spec}
}

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
export function evaluate(state: ClusterState, svc: Service, modes: readonly PlanMode[], opts: PlanOptions): ModeFigures {
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
export function hpaFor(state: ClusterState, ns: string, w: {kind: WorkloadKind; name: string}): WorkloadInfo['hpa'] {
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

/** The Service's view of the cluster: the Nodes, the Service, its ready endpoints only (the steady state). */
function steadyState(state: ClusterState, svc: Service): ClusterState {
  const slices = slicesOf(state, svc).map((s) => ({...s, endpoints: (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).map((e) => ({...e}))}))
  return {nodes: state.nodes, services: [svc], endpointSlices: slices, nodesReadable: state.nodesReadable, ...(state.serverVersion ? {serverVersion: state.serverVersion} : {})}
}

const readyCount = (state: ClusterState, svc: Service) => slicesOf(state, svc).reduce((n, s) => n + (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length, 0)

function zoneCounts(state: ClusterState, svc: Service): Record<string, number> {
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

function currentModeOf(s: ServiceExplanation | undefined): PlanMode {
  if (s === undefined) return 'none'
  if (s.mode.path === 'topology-mode-auto') return 'Auto'
  if (s.mode.path === 'traffic-distribution') {
    const v = s.mode.trafficDistribution
    if (v === 'PreferSameZone' || v === 'PreferSameNode' || v === 'PreferClose') return v
  }
  return 'none'
}

/** The modes this Kubernetes version offers, in the order plan ranks ties. */
export function modesFor(kubeVersion: string | undefined): PlanMode[] {
  const accepted = acceptedTrafficDistributions(featuresFor(kubeVersion))
  // PreferClose only where it is the one value (from 1.34 it is PreferSameZone's old name).
  return ['Auto', ...accepted.filter((v) => v !== 'PreferClose' || accepted.length === 1), 'none']
}

function costLine(mode: PlanMode, f: Figures | undefined, cost: PlanOptions['cost']): CostLine {
  const share = f?.inZone === null || f?.inZone === undefined ? null : Math.max(0, 1 - f.inZone)
  const monthlyCost = share === null || cost === undefined ? null : ((cost.volumeBytes * share) / 2 ** 30) * cost.pricePerGiB
  return {mode, crossZoneShare: share, monthlyCost}
}

const pct = (x: number) => `${Math.round(x * 100) || 0}%`

export function planService(state: ClusterState, svc: Service, opts: PlanOptions = {}): ServicePlan {
  const bound = opts.maxOverload ?? DEFAULT_MAX_OVERLOAD
  const ns = svc.metadata.namespace ?? 'default'
  const modes = modesFor(opts.kubeVersion)
  const notes: string[] = []
  const current = explain(state, [svc], {kubeVersion: opts.kubeVersion, traffic: opts.traffic}).services[0]
  const currentMode = currentModeOf(current)
  const base = steadyState(state, svc)
  const now = readyCount(base, svc)
  const wl = workloadInfo(state, svc, now)
  const hpa = wl?.info.hpa ?? null
  const from = hpa ? hpa.minReplicas : 1
  const to = Math.min(hpa ? hpa.maxReplicas : Math.max(3 * Math.max(now, wl?.info.replicas ?? 0), 3), from + (opts.maxCounts ?? DEFAULT_MAX_COUNTS) - 1)
  if (hpa && hpa.maxReplicas > to) notes.push(`the HPA allows up to ${hpa.maxReplicas} replicas; plan evaluates ${from}..${to}`)
  const states = statesOverRange(base, svc, Math.min(from, now), Math.max(to, now))
  const rows: RangeRow[] = []
  for (const [n, st] of states) if (n >= from && n <= to) rows.push({replicas: n, zones: zoneCounts(st, svc), modes: evaluate(st, svc, modes, opts)})
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
  const zoneLosses: ZoneLoss[] = []
  const lossModes = modes.filter((m) => m !== 'none')
  for (const p of points) {
    const st = states.get(p.n)
    if (st === undefined || p.n === 0) continue
    if (wl) {
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
    const zones = [...new Set(st.nodes.map((n) => n.metadata.labels?.[LABEL_ZONE]).filter((z): z is string => !!z))].sort()
    if (zones.length < 2) continue
    for (const zone of zones) {
      const lost = withoutZone(st, zone)
      const immediate = evaluate(lost, svc, lossModes, opts)
      let again: ClusterState | null = structuredClone(lost)
      for (let k = readyCount(again, svc); k < p.n; k++) {
        if (!addEndpoint(again, svc, {ready: true})) {
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

  const recommendation = recommend({
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
  })
  const today = rows.find((r) => r.replicas === now)?.modes ?? evaluate(base, svc, modes, opts)
  const byMode = modes.map((m) => costLine(m, today[m], opts.cost))
  const nowFigures = modes.includes(currentMode) ? today[currentMode] : evaluate(base, svc, [currentMode], opts)[currentMode]
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
    recommendation,
    cost: {
      volumeBytes: opts.cost?.volumeBytes ?? null,
      pricePerGiB: opts.cost?.pricePerGiB ?? null,
      now: costLine(currentMode, nowFigures, opts.cost),
      recommended: costLine(recommendation.mode, today[recommendation.mode], opts.cost),
      byMode,
    },
    notes,
    lint: current?.lint ?? [],
  }
}

interface RecommendInput {
  svc: Service
  ns: string
  modes: PlanMode[]
  rows: RangeRow[]
  rollouts: RolloutAtCount[]
  zoneLosses: ZoneLoss[]
  disruption: ServicePlan['disruption']
  wl: WorkloadInfo | null
  now: number
  bound: number
  currentMode: PlanMode
  workloadLabels: Record<string, string> | null
}

/** Worst overload of a mode wherever it keeps hints (a fallback spreads evenly), over every scenario. */
function worstOverload(mode: PlanMode, figures: readonly (Figures | undefined)[]): number {
  let worst = 0
  for (const f of figures) if (f && f.maxOverload !== null) worst = Math.max(worst, f.maxOverload)
  return worst
}

function scenarioFigures(mode: PlanMode, r: RecommendInput, rows: readonly RangeRow[]): (Figures | undefined)[] {
  return [
    ...rows.map((x) => x.modes[mode]),
    ...r.rollouts.flatMap((x) => x.steps.map((s) => s.modes[mode])),
    ...r.zoneLosses.flatMap((z) => [z.immediate[mode], z.rescheduled?.[mode]]),
    r.disruption?.modes[mode],
  ]
}

export function recommend(r: RecommendInput): Recommendation {
  const name = r.svc.metadata.name
  const today = r.rows.find((x) => x.replicas === r.now)
  const inZoneToday = (m: PlanMode) => today?.modes[m]?.inZone ?? -1
  const why: string[] = []
  const settings: Recommendation['settings'] = []
  const commands: string[] = []
  let rows = r.rows
  // Auto with the HPA: the smallest minReplicas from which every count up to max keeps hints.
  let autoMin: number | null = null
  if (r.wl?.hpa && rows.some((x) => x.modes.Auto && !x.modes.Auto.hints)) {
    for (let i = rows.length - 1; i >= 0; i--) {
      if (!rows[i]!.modes.Auto?.hints) break
      autoMin = rows[i]!.replicas
    }
  }
  // Auto without an HPA, refused at today's count: the nearest count it accepts (a scale of the workload).
  let autoAt = r.now
  if (!r.wl?.hpa && r.wl && today?.modes.Auto && !today.modes.Auto.hints) {
    const accepted = rows.filter((x) => x.modes.Auto?.hints).map((x) => x.replicas)
    const nearest = accepted.sort((a, b) => Math.abs(a - r.now) - Math.abs(b - r.now) || b - a)[0]
    if (nearest !== undefined) autoAt = nearest
  }
  // The counts the workload runs at: with an HPA its whole range (for Auto from autoMin), without
  // one today's count (Auto: the count it would be scaled to). The rest of the range is shown, not judged.
  const candidates = r.modes.map((m) => {
    const considered = r.wl?.hpa
      ? m === 'Auto' && autoMin !== null
        ? rows.filter((x) => x.replicas >= autoMin!)
        : rows
      : rows.filter((x) => x.replicas === (m === 'Auto' ? autoAt : r.now))
    const refused = m === 'Auto' ? considered.filter((x) => !x.modes.Auto?.hints).map((x) => x.replicas) : []
    const overload = worstOverload(m, scenarioFigures(m, r, considered))
    const inZone = m === 'Auto' ? (rows.find((x) => x.replicas === autoAt)?.modes.Auto?.inZone ?? -1) : inZoneToday(m)
    return {mode: m, overload, refused, inZone}
  })
  const ok = candidates.filter((c) => c.overload <= r.bound + 1e-9 && !(c.mode === 'Auto' && c.refused.includes(autoAt)))
  // Highest in-zone share, then lowest overload, then no change, then the order of r.modes.
  const ranked = (ok.length > 0 ? ok : candidates)
    .slice()
    .sort(
      (a, b) =>
        b.inZone - a.inZone || a.overload - b.overload || Number(b.mode === r.currentMode) - Number(a.mode === r.currentMode) || r.modes.indexOf(a.mode) - r.modes.indexOf(b.mode),
    )
  const best = ranked[0]!
  const meetsBound = ok.length > 0
  if (!meetsBound) why.push(`no mode keeps the worst overload within ${pct(r.bound)} over the range, rollouts and zone losses; ${best.mode} has the highest in-zone share`)
  for (const c of candidates) {
    const state = c.overload <= r.bound + 1e-9 ? 'within' : 'above'
    const extra =
      c.mode === 'Auto' && c.refused.length > 0 ? `, hints refused at ${c.refused.length} count(s) (${c.refused.slice(0, 6).join(', ')}${c.refused.length > 6 ? ', ...' : ''})` : ''
    const at = c.mode === 'Auto' && autoAt !== r.now ? ` at ${autoAt} replicas` : ' today'
    why.push(`${c.mode}: ${c.inZone >= 0 ? pct(c.inZone) : 'n/a'} in-zone${at}, worst overload ${pct(c.overload)} (${state} ${pct(r.bound)})${extra}`)
  }
  const ref = `svc/${name} -n ${r.ns}`
  if (best.mode !== r.currentMode) {
    settings.push({
      kind: 'mode',
      value: best.mode,
      why: meetsBound ? `the highest in-zone share of the modes whose worst overload stays within ${pct(r.bound)}` : 'the highest in-zone share',
    })
    commands.push(best.mode === 'none' ? `kubectl topology reset ${ref}` : `kubectl topology apply ${ref} --mode ${best.mode}`)
  }
  if (best.mode === 'Auto' && r.wl?.hpa && autoMin !== null && autoMin > r.wl.hpa.minReplicas) {
    settings.push({kind: 'min-replicas', value: String(autoMin), why: `Auto keeps hints at every count from ${autoMin} to ${r.wl.hpa.maxReplicas}`})
    commands.push(`kubectl patch hpa ${r.wl.hpa.name} -n ${r.ns} --type=merge -p '{"spec":{"minReplicas":${autoMin}}}'`)
  }
  if (best.mode === 'Auto' && autoAt !== r.now && r.wl) {
    settings.push({kind: 'replicas', value: String(autoAt), why: `Auto refuses ${r.now} ready endpoints and accepts ${autoAt}`})
    commands.push(`kubectl scale ${r.wl.kind.toLowerCase()}/${r.wl.name} -n ${r.ns} --replicas=${autoAt}`)
  }
  if (r.wl && (r.wl.zoneSpread === null || r.wl.zoneSpread.whenUnsatisfiable !== 'DoNotSchedule') && best.mode !== 'none') {
    const labels = r.workloadLabels ?? {}
    const c = {maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: {matchLabels: labels}}
    settings.push({
      kind: 'zone-spread',
      value: 'maxSkew 1, DoNotSchedule',
      why: 'these figures assume pods spread evenly over the zones; without a DoNotSchedule zone constraint the scheduler only prefers it',
    })
    commands.push(
      `kubectl patch ${r.wl.kind.toLowerCase()} ${r.wl.name} -n ${r.ns} --type=strategic -p '${JSON.stringify({spec: {template: {spec: {topologySpreadConstraints: [c]}}}})}'`,
    )
  }
  return {mode: best.mode, meetsBound, settings, commands, why}
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
    services: services.map((svc) => planService(state, svc, opts)),
  }
}
