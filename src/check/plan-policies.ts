// check's policies built on plan (src/plan/plan.ts): the Service's own mode, judged over the
// replica counts it runs at and through its workload's rollout. Pure: the plans are computed
// by the caller (the check command) only when one of these policies is asked for.
import type {CheckPlan, Figures, PlanMode} from '../plan/plan.js'
import type {PolicyResult} from './check.js'

const list = (xs: readonly number[]) => `${xs.slice(0, 8).join(', ')}${xs.length > 8 ? `, ... (${xs.length} counts)` : ''}`

/** The mode plan evaluates for the Service as it is; null when it asks for no topology. */
const modeOf = (p: CheckPlan): PlanMode | null => (p.currentMode === 'none' ? null : p.currentMode)

/**
 * hints-over-range: the Service's mode keeps hints at every count of the HPA's range (without
 * an HPA: plan's default range, 1 to 3x today), pods placed as plan's placement model places them.
 */
export function checkHintsOverRange(p: CheckPlan | undefined): PolicyResult {
  const policy = 'hints-over-range' as const
  if (p === undefined) return {policy, status: 'skip', message: 'not planned', details: []}
  const mode = modeOf(p)
  if (mode === null) return {policy, status: 'skip', message: 'the Service does not ask for topology-aware routing', details: []}
  const range = `${p.range.from}..${p.range.to} (${p.range.source === 'hpa' ? `HPA ${p.workload?.hpa?.name ?? ''}` : 'no HPA: 1 to 3x today'})`
  const lost = p.range.rows.filter((r) => r.modes[mode]?.hints === false)
  if (lost.length === 0) return {policy, status: 'pass', message: `${mode} keeps hints at every count of ${range}`, details: []}
  const details = lost.slice(0, 8).map(
    (r) =>
      `${r.replicas} replicas (${Object.entries(r.zones)
        .map(([z, n]) => `${z || '<no zone>'} ${n}`)
        .join(', ')}): ${r.modes[mode]!.reason}`,
  )
  return {policy, status: 'fail', message: `${mode} loses hints at ${lost.length} of ${p.range.rows.length} counts of ${range}: ${list(lost.map((r) => r.replicas))}`, details}
}

/** hints-through-rollout: no step of the workload's rollout (today's count and the HPA's bounds) loses hints. */
export function checkHintsThroughRollout(p: CheckPlan | undefined): PolicyResult {
  const policy = 'hints-through-rollout' as const
  if (p === undefined) return {policy, status: 'skip', message: 'not planned', details: []}
  const mode = modeOf(p)
  if (mode === null) return {policy, status: 'skip', message: 'the Service does not ask for topology-aware routing', details: []}
  if (p.workload === null)
    return {policy, status: 'skip', message: 'no Deployment or StatefulSet behind the Service (read with its workloads: live, or a kubectl topology snapshot)', details: []}
  if (p.rollouts.length === 0) return {policy, status: 'skip', message: "no rollout could be modelled (see plan's notes)", details: []}
  const details: string[] = []
  for (const r of p.rollouts) {
    const lost = r.steps.filter((s) => (s.modes[mode] as Figures | undefined)?.hints === false)
    for (const s of lost.slice(0, 4)) details.push(`at ${r.replicas} replicas (${r.at}), step ${s.step} (${s.action}, ${s.readyEndpoints} ready): ${s.modes[mode]!.reason}`)
  }
  const counts = p.rollouts.map((r) => `${r.replicas} (${r.at})`).join(', ')
  if (details.length === 0) return {policy, status: 'pass', message: `${mode} keeps hints at every step of the ${p.workload.kind}'s rollout at ${counts} replicas`, details: []}
  return {policy, status: 'fail', message: `${mode} loses hints during the ${p.workload.kind}'s rollout`, details}
}
