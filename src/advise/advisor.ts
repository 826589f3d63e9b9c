// THE advisor: for one Service in one ClusterState, one bound, one traffic assumption and one
// Kubernetes version, one recommendation (src/advise/types.ts). explain's "What to do", plan's
// verdict at today's count, check's max-overload and watch's line all read it. Pure.
//
// Ranking: among the modes whose worst overload is within the bound (inclusive), the highest
// in-zone share; ties: the lower overload, then keeping the current mode, then a fixed order.
// A Service whose worst overload after the next sync is above the bound always gets a step.
import {explain, type ServiceExplanation} from '../explain/report.js'
import {acceptedCounts} from '../explain/advice.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'
import {acceptedTrafficDistributions, featuresCached as featuresFor} from '../upstream/features.js'
import {kindOf, workloadsBehind, type WorkloadKind} from '../simulate/workload.js'
import {currentModeOf, figuresWithMode, modeKeepsService, nextSyncIsFresh, nowFigures, predictedFigures} from './evaluate.js'
import {FiguresShare} from '../explain/figures-share.js'
import {modeStep, scaleStep} from './commands.js'
import {readyCount, statesOverRange, steadyState} from './placement.js'
import {invalidName} from './shell.js'
import {ownView} from './view.js'
import {percent, withinBound} from './format.js'
import {
  BOUND_TOLERANCE,
  DEFAULT_MAX_OVERLOAD,
  type AdviseOptions,
  type Figures,
  type ModeOption,
  type Recommendation,
  type ScaledAuto,
  type Step,
  type TopologyMode,
} from './types.js'

/** The order ties are broken in, after in-zone share, overload and keeping the current mode. */
// At equal figures a trafficDistribution value before Auto: it has no CPU arithmetic that can
// refuse hints at another count.
export const TIE_ORDER: readonly TopologyMode[] = ['PreferSameZone', 'PreferClose', 'Auto', 'PreferSameNode', 'none']

/** The modes this Kubernetes version offers: Auto, the trafficDistribution values its API server keeps, none. */
export function modesFor(kubeVersion: string | undefined): TopologyMode[] {
  const accepted = acceptedTrafficDistributions(featuresFor(kubeVersion))
  // PreferClose only where it is the one value (from 1.34 it is PreferSameZone's old name).
  return ['Auto', ...accepted.filter((v) => v !== 'PreferClose' || accepted.length === 1), 'none']
}

export {withinBound}
const inZonePct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 100) || 0}%`)

function figuresLine(f: Figures, bound: number): string {
  const o = f.worstOverload
  if (o === null) return `${inZonePct(f.inZone)} in-zone`
  const where = f.worstZone !== null ? ` in ${f.worstZone}` : ''
  return `${inZonePct(f.inZone)} in-zone, worst overload ${percent(Math.max(0, o))}${where} (${withinBound(o, bound) ? 'within' : 'above'} the ${percent(bound)} bound)`
}

/** The HPA that scales the workload, if any (then a scale would be undone by it). */
function hasHpa(state: ClusterState, ns: string, kind: WorkloadKind, name: string): boolean {
  return (state.horizontalPodAutoscalers ?? []).some(
    (h) => (h.metadata.namespace ?? 'default') === ns && h.spec?.scaleTargetRef?.kind === kind && h.spec?.scaleTargetRef?.name === name,
  )
}

/** Zone CPU shares as the controller computes them (null when it computes none). */
function ratiosOf(s: ServiceExplanation): Record<string, number> | null {
  const zones = s.zones.filter((z) => z.cpuRatio !== null && z.cpuRatio > 0)
  return zones.length > 0 ? Object.fromEntries(zones.map((z) => [z.name, z.cpuRatio!])) : null
}

/**
 * `{mode, ...f, withinBound}` with the fields written out (the same keys in the same order): a
 * spread after another key is a copy at run time, and this is made for every mode of every Service.
 */
const optionOf = (mode: TopologyMode, f: Figures, bound: number): ModeOption => ({
  mode,
  hints: f.hints,
  reason: f.reason,
  inZone: f.inZone,
  worstOverload: f.worstOverload,
  worstZone: f.worstZone,
  fallbackZones: f.fallbackZones,
  withinBound: withinBound(f.worstOverload, bound),
})

/** The recommendation for `svc`, explained with the advisor's options. */
export function adviseService(state: ClusterState, svc: Service, opts: AdviseOptions = {}): Recommendation {
  const s = explain(state, [svc], {kubeVersion: opts.kubeVersion, traffic: opts.traffic, ...(opts.dataPlane ? {dataPlane: opts.dataPlane} : {})}).services[0]
  if (s === undefined) throw new Error(`adviseService: explain gave no explanation of ${svc.metadata.name}`)
  return adviseExplained(state, svc, s, opts)
}

/**
 * The recommendation for `svc`, given explain's explanation of it as it is (same options).
 * `explainedWith`: `s` was made by explain() of `state` with these options' version, traffic and
 * data plane (explainAdvised): the current mode's figures are then read from it when evaluating
 * that mode would give the same (modeKeepsService), instead of one more explain() run.
 */
export function adviseExplained(state: ClusterState, svc: Service, s: ServiceExplanation, opts: AdviseOptions = {}, explainedWith = false): Recommendation {
  const bound = opts.maxOverload ?? DEFAULT_MAX_OVERLOAD
  const current = currentModeOf(s)
  const now = nowFigures(s)
  const predicted = predictedFigures(s)
  const reasons: string[] = []
  const keep = (why: string): Recommendation => ({
    bound,
    current,
    now,
    predicted,
    options: [],
    scaledAuto: null,
    recommended: current,
    meetsBound: withinBound(predicted.worstOverload, bound),
    reasons: [why],
    steps: [],
  })
  if (!s.applicability.proxied) return keep(`keep ${current}: the Service is not proxied (headless or ExternalName), so no setting changes where its traffic goes`)
  if (!s.mode.managedByController)
    return keep(`keep ${current}: the Service has no selector, so the EndpointSlice controller does not manage its EndpointSlices and no mode changes their hints`)

  const modes = modesFor(opts.kubeVersion)
  if (!modes.includes(current)) modes.splice(modes.length - 1, 0, current)
  // The Service's own view (every Node, the Service, its slices, its Events): each option costs
  // one explain of this Service, not of the cluster's every slice (src/advise/view.ts).
  const ns = svc.metadata.namespace ?? 'default'
  const own = ownView(state, svc)
  const options: ModeOption[] = []
  // What no mode changes (the live rows, the hint-cleared slices) is computed once for all of them.
  const share = new FiguresShare()
  // The current mode's figures are the report's when evaluating it would give the same.
  const reads = explainedWith && modeKeepsService(svc, current) && nextSyncIsFresh(own.endpointSlices)
  for (const m of modes) {
    const f = reads && m === current ? predicted : figuresWithMode(own, svc, m, opts, share)
    if (f !== null) options.push(optionOf(m, f, bound))
  }
  const auto = options.find((o) => o.mode === 'Auto')
  const n = s.controller.totalReadyEndpoints

  // Auto refused at today's count: the nearest counts the controller accepts.
  let accepted: number[] = []
  let scaledAuto: ScaledAuto | null = null
  let workload: {kind: WorkloadKind; name: string} | null = null
  const ratios = ratiosOf(s)
  if (auto && !auto.hints && auto.reason === 'TopologyAwareHintsDisabled' && ratios !== null && n > 0) {
    const {below, above} = acceptedCounts(n, ratios)
    accepted = [...below.slice(0, 1), ...above].sort((a, b) => a - b)
    const w = workloadsBehind(state, svc)[0]
    if (w !== undefined && !hasHpa(state, ns, kindOf(w), w.metadata.name) && (w.spec?.replicas ?? 1) === readyCount(own, svc)) {
      workload = {kind: kindOf(w), name: w.metadata.name}
      const nearest = accepted.slice().sort((a, b) => Math.abs(a - n) - Math.abs(b - n) || b - a)[0]
      const at = nearest === undefined ? undefined : statesOverRange(steadyState(own, svc), svc, nearest, nearest).get(nearest)
      const f = at === undefined ? null : figuresWithMode(at, svc, 'Auto', opts)
      if (f !== null && f.hints && nearest !== undefined) scaledAuto = {mode: 'Auto', ...f, withinBound: withinBound(f.worstOverload, bound), replicas: nearest}
    }
  }

  // Ranking. A current mode whose overload after the next sync is above the bound is not kept.
  const predictedAbove = !withinBound(predicted.worstOverload, bound)
  type Candidate = {option: ModeOption; scaled: boolean}
  const all: Candidate[] = [...options.map((o) => ({option: o, scaled: false})), ...(scaledAuto ? [{option: scaledAuto, scaled: true}] : [])]
  const keepable = (c: Candidate) => !(predictedAbove && !c.scaled && c.option.mode === current)
  const eligible = all.filter(keepable)
  const inBound = eligible.filter((c) => c.option.withinBound)
  const pool = inBound.length > 0 ? inBound : eligible
  const score = (c: Candidate) => c.option.inZone ?? -1
  const isKeep = (c: Candidate) => !c.scaled && c.option.mode === current
  const ranked = pool.slice().sort((a, b) => {
    const d = score(b) - score(a)
    if (Math.abs(d) > BOUND_TOLERANCE) return d
    const o = (a.option.worstOverload ?? 0) - (b.option.worstOverload ?? 0)
    if (Math.abs(o) > BOUND_TOLERANCE) return o
    if (isKeep(a) !== isKeep(b)) return isKeep(a) ? -1 : 1
    return TIE_ORDER.indexOf(a.option.mode) - TIE_ORDER.indexOf(b.option.mode) || Number(a.scaled) - Number(b.scaled)
  })
  const best = ranked[0]
  if (best === undefined) return keep(`keep ${current}: no mode could be evaluated for this Service`)
  const meetsBound = best.option.withinBound
  const recommended = best.option.mode

  // Reasons: the verdict, the current figures when above the bound, then each option.
  if (isKeep(best)) reasons.push(`keep ${current}: ${figuresLine(best.option, bound)}${meetsBound ? '' : '; no mode keeps the worst overload within the bound'}`)
  else if (best.scaled)
    reasons.push(
      `${current === 'Auto' ? 'keep' : 'switch to'} Auto and scale to ${scaledAuto!.replicas} replicas (the controller refuses ${n}): ${figuresLine(best.option, bound)}`,
    )
  else
    reasons.push(
      meetsBound
        ? `switch to ${recommended}: ${figuresLine(best.option, bound)}, the highest in-zone share within the bound`
        : `switch to ${recommended}: no mode keeps the worst overload within the ${percent(bound)} bound; ${recommended} has the highest in-zone share (${figuresLine(best.option, bound)})`,
    )
  if (predictedAbove && predicted.worstOverload !== null)
    reasons.push(`${current} after the next sync: ${predicted.worstZone ?? 'a zone'} overloaded by ${percent(predicted.worstOverload)} (above the ${percent(bound)} bound)`)
  const bestInZone = score(best)
  for (const o of options) {
    if (!o.withinBound && (o.inZone ?? -1) > bestInZone + BOUND_TOLERANCE && o.worstOverload !== null)
      reasons.push(`${o.mode}: ${inZonePct(o.inZone)} in-zone, but ${o.worstZone ?? 'a zone'} overloaded by ${percent(o.worstOverload)} (above the ${percent(bound)} bound)`)
    else if (o.mode === 'Auto' && !o.hints && o.reason === 'TopologyAwareHintsDisabled')
      reasons.push(`Auto: hints refused at ${n} ready endpoints${accepted.length > 0 ? ` (the controller accepts ${accepted.join(', ')})` : ''}; ${figuresLine(o, bound)}`)
    else reasons.push(`${o.mode}: ${figuresLine(o, bound)}${o.hints || o.mode === 'none' ? '' : `, no hints (${o.reason})`}`)
  }
  if (scaledAuto && !best.scaled) reasons.push(`Auto at ${scaledAuto.replicas} replicas: ${figuresLine(scaledAuto, bound)}`)
  if (recommended === 'Auto' && !best.scaled && auto && !auto.hints && workload === null && accepted.length > 0)
    reasons.push(`Auto gets hints at ${accepted.join(', ')} ready endpoints (no Deployment or StatefulSet without an HPA is known behind the Service, so no scale command)`)

  // Steps.
  const steps: Step[] = []
  const bad = invalidName([
    {kind: 'Service', name: svc.metadata.name},
    {kind: 'Namespace', name: svc.metadata.namespace ?? 'default'},
  ])
  const wantMode = recommended !== current
  if ((wantMode || best.scaled) && bad !== null) reasons.push(`no command printed: the ${bad}`)
  else {
    if (wantMode) {
      const target = options.find((o) => o.mode === recommended)!
      const step = modeStep(svc, recommended, {mode: recommended, hints: target.hints, inZone: target.inZone})
      if (step) steps.push(step)
    }
    if (best.scaled && workload !== null && scaledAuto !== null) {
      const step = scaleStep(svc, workload, scaledAuto.replicas, {mode: 'Auto', hints: true, inZone: scaledAuto.inZone})
      if (step) steps.push(step)
      else reasons.push(`no scale command printed: the ${workload.kind} name is not valid`)
    }
  }
  return {bound, current, now, predicted, options, scaledAuto, recommended, meetsBound, reasons, steps}
}

/** Whether the recommendation is to keep what is there and the Service is within the bound after the next sync. */
export function keepsWhatIsThere(r: Recommendation): boolean {
  return r.steps.length === 0 && r.recommended === r.current && withinBound(r.predicted.worstOverload, r.bound)
}
