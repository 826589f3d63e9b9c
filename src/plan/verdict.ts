// plan's extended verdict: the advisor's bound and ranking (src/advise/advisor.ts) applied over
// the counts the workload runs at, its rollouts, zone losses and the PDB's disruption. Every
// overload figure names the what-if it comes from; when the verdict differs from the advisor's
// at today's count, it says both and why.
import {TIE_ORDER} from '../advise/advisor.js'
import {percent, withinBound} from '../advise/format.js'
import {modeStep} from '../advise/commands.js'
import {commandFor, type NamedArg} from '../advise/shell.js'
import type {Recommendation} from '../advise/types.js'
import {LABEL_ZONE, type Service} from '../upstream/api/types.js'
import type {Figures, PlanMode, RangeRow, RolloutAtCount, ServicePlan, WorkloadInfo, ZoneLoss} from './plan.js'

export interface PlanVerdict {
  mode: PlanMode
  /** The worst overload of the mode over the range, rollouts and zone losses stays within the bound. */
  meetsBound: boolean
  settings: {kind: 'mode' | 'min-replicas' | 'replicas' | 'zone-spread'; value: string; why: string}[]
  commands: string[]
  why: string[]
  /** Why this verdict differs from the advisor's at today's count (null: the same mode). */
  differsFromToday: string | null
}

export interface RecommendInput {
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
  /** The advisor's recommendation at today's count. */
  today: Recommendation | null
}

/** A figure with the what-if it comes from. */
interface Worst {
  value: number
  where: string
}

const atCount = (n: number, at: RolloutAtCount['at']) => `at ${n} replicas${at === 'today' ? '' : ` (${at === 'hpa-min' ? "the HPA's minimum" : "the HPA's maximum"})`}`

/** The worst overload of a mode wherever it keeps hints, over every scenario, with the scenario named. */
function worstOverload(mode: PlanMode, r: RecommendInput, rows: readonly RangeRow[]): Worst {
  const all: {f: Figures | undefined; where: string}[] = [
    ...rows.map((x) => ({f: x.modes[mode], where: `at ${x.replicas} replicas`})),
    ...r.rollouts.flatMap((x) => x.steps.map((s) => ({f: s.modes[mode], where: `during the rollout ${atCount(x.replicas, x.at)} (step ${s.step}: ${s.action})`}))),
    ...r.zoneLosses.flatMap((z) => [
      {f: z.immediate[mode], where: `when ${z.zone} is lost ${atCount(z.replicas, z.at)}`},
      {f: z.rescheduled?.[mode], where: `when ${z.zone} is lost ${atCount(z.replicas, z.at)} and its pods run again elsewhere`},
    ]),
    {f: r.disruption?.modes[mode], where: `when the PDB's ${r.disruption?.evicted ?? 0} eviction(s) hit ${r.disruption?.zone ?? ''}`},
  ]
  let worst: Worst = {value: 0, where: `at ${r.now} replicas`}
  for (const {f, where} of all) if (f && f.maxOverload !== null && f.maxOverload > worst.value + 1e-12) worst = {value: f.maxOverload, where}
  return worst
}

const inZonePct = (x: number) => `${Math.round(x * 100) || 0}%`
const names = (r: RecommendInput, extra: NamedArg[] = []): NamedArg[] => [{kind: 'Service', name: r.svc.metadata.name}, {kind: 'Namespace', name: r.ns}, ...extra]

export function recommend(r: RecommendInput): PlanVerdict {
  const today = r.rows.find((x) => x.replicas === r.now)
  const inZoneToday = (m: PlanMode) => today?.modes[m]?.inZone ?? -1
  const why: string[] = []
  const settings: PlanVerdict['settings'] = []
  const commands: string[] = []
  const bound = percent(r.bound)
  const rows = r.rows
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
  // one today's count (Auto: the count it would be scaled to).
  const candidates = r.modes.map((m) => {
    const considered = r.wl?.hpa
      ? m === 'Auto' && autoMin !== null
        ? rows.filter((x) => x.replicas >= autoMin!)
        : rows
      : rows.filter((x) => x.replicas === (m === 'Auto' ? autoAt : r.now))
    const refused = m === 'Auto' ? considered.filter((x) => !x.modes.Auto?.hints).map((x) => x.replicas) : []
    const worst = worstOverload(m, r, considered)
    const inZone = m === 'Auto' ? (rows.find((x) => x.replicas === autoAt)?.modes.Auto?.inZone ?? -1) : inZoneToday(m)
    return {mode: m, worst, refused, inZone, within: withinBound(worst.value, r.bound)}
  })
  // Auto refused at the count is kept in: its figures (no hints) are none's, and a tie keeps the current mode.
  const ok = candidates.filter((c) => c.within)
  // The advisor's ranking: highest in-zone share, then lowest overload, then no change, then its fixed order.
  const ranked = (ok.length > 0 ? ok : candidates)
    .slice()
    .sort(
      (a, b) =>
        (Math.abs(b.inZone - a.inZone) > 1e-9 ? b.inZone - a.inZone : 0) ||
        (Math.abs(a.worst.value - b.worst.value) > 1e-9 ? a.worst.value - b.worst.value : 0) ||
        Number(b.mode === r.currentMode) - Number(a.mode === r.currentMode) ||
        TIE_ORDER.indexOf(a.mode) - TIE_ORDER.indexOf(b.mode),
    )
  const best = ranked[0]!
  const meetsBound = ok.length > 0
  if (!meetsBound) why.push(`no mode keeps the worst overload within ${bound} over the range, rollouts and zone losses; ${best.mode} has the highest in-zone share`)
  for (const c of candidates) {
    const extra =
      c.mode === 'Auto' && c.refused.length > 0 ? `, hints refused at ${c.refused.length} count(s) (${c.refused.slice(0, 6).join(', ')}${c.refused.length > 6 ? ', ...' : ''})` : ''
    const at = c.mode === 'Auto' && autoAt !== r.now ? ` at ${autoAt} replicas` : ` at today's ${r.now} replicas`
    why.push(
      `${c.mode}: ${c.inZone >= 0 ? inZonePct(c.inZone) : 'n/a'} in-zone${at}; worst overload ${percent(c.worst.value)} ${c.worst.where} (${c.within ? 'within' : 'above'} ${bound})${extra}`,
    )
  }
  if (best.mode !== r.currentMode) {
    settings.push({
      kind: 'mode',
      value: best.mode,
      why: meetsBound ? `the highest in-zone share of the modes whose worst overload stays within ${bound}` : 'the highest in-zone share',
    })
    const step = modeStep(r.svc, best.mode, {mode: best.mode, hints: true, inZone: null})
    if (step) commands.push(step.command)
  }
  if (best.mode === 'Auto' && r.wl?.hpa && autoMin !== null && autoMin > r.wl.hpa.minReplicas) {
    const hpa = r.wl.hpa
    const cost =
      autoMin >= hpa.maxReplicas
        ? `Auto keeps hints only at ${hpa.maxReplicas}, the HPA's maximum: minReplicas ${autoMin} = maxReplicas turns autoscaling off, and the pods go from ${r.wl.replicas} to ${autoMin}`
        : `Auto keeps hints at every count from ${autoMin} to ${hpa.maxReplicas}; the HPA's floor rises from ${hpa.minReplicas} to ${autoMin} (pods now ${r.wl.replicas}, then at least ${autoMin})`
    settings.push({kind: 'min-replicas', value: String(autoMin), why: cost})
    const c = commandFor(
      ['kubectl', 'patch', 'hpa', hpa.name, '-n', r.ns, '--type=merge', '-p', JSON.stringify({spec: {minReplicas: autoMin}})],
      names(r, [{kind: 'HorizontalPodAutoscaler', name: hpa.name}]),
    )
    if (c) commands.push(c)
  }
  if (best.mode === 'Auto' && autoAt !== r.now && r.wl) {
    settings.push({kind: 'replicas', value: String(autoAt), why: `Auto refuses ${r.now} ready endpoints and accepts ${autoAt}`})
    const c = commandFor(['kubectl', 'scale', `${r.wl.kind.toLowerCase()}/${r.wl.name}`, '-n', r.ns, `--replicas=${autoAt}`], names(r, [{kind: r.wl.kind, name: r.wl.name}]))
    if (c) commands.push(c)
  }
  if (r.wl && (r.wl.zoneSpread === null || r.wl.zoneSpread.whenUnsatisfiable !== 'DoNotSchedule') && best.mode !== 'none') {
    const labels = r.workloadLabels ?? {}
    const c = {maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: {matchLabels: labels}}
    settings.push({
      kind: 'zone-spread',
      value: 'maxSkew 1, DoNotSchedule',
      why: 'these figures assume pods spread evenly over the zones; without a DoNotSchedule zone constraint the scheduler only prefers it',
    })
    const cmd = commandFor(
      ['kubectl', 'patch', r.wl.kind.toLowerCase(), r.wl.name, '-n', r.ns, '--type=strategic', '-p', JSON.stringify({spec: {template: {spec: {topologySpreadConstraints: [c]}}}})],
      names(r, [{kind: r.wl.kind, name: r.wl.name}]),
    )
    if (cmd) commands.push(cmd)
  }
  let differsFromToday: string | null = null
  if (r.today && r.today.recommended !== best.mode) {
    const t = candidates.find((c) => c.mode === r.today!.recommended)
    differsFromToday =
      t && !t.within
        ? `at today's count the advice is ${r.today.recommended}; over the range, rollouts and zone losses its worst overload is ${percent(t.worst.value)} ${t.worst.where} (above ${bound}), so ${best.mode}`
        : t && Math.abs(t.inZone - best.inZone) <= 1e-9
          ? `at today's count the advice is ${r.today.recommended}; over the range, rollouts and zone losses ${best.mode} has the same in-zone share (${inZonePct(best.inZone)}) and a lower worst overload (${percent(best.worst.value)} against ${percent(t.worst.value)} ${t.worst.where})`
          : `at today's count the advice is ${r.today.recommended}; over the range, rollouts and zone losses ${best.mode} has the higher in-zone share within ${bound}`
  }
  return {mode: best.mode, meetsBound, settings, commands, why, differsFromToday}
}
