// simulate --rollout / --workload: the flags, and which rollout each Service gets (from the
// flag's numbers, or from the Deployment/StatefulSet behind the Service with the flag's keys
// as overrides). Loaded by simulate's run() only when --rollout is given.
import {CliError, ExitCode, type ExitCodeValue} from '../errors.js'
import type {IntOrString, Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {
  kindOf,
  planOf,
  readyPodsOf,
  rolloutSpecOf,
  RolloutSpecError,
  withOverrides,
  workloadName,
  workloadsBehind,
  type RolloutOverrides,
  type RolloutPlan,
  type RolloutSpec,
  type WorkloadKind,
} from '../simulate/workload.js'

export const FROM_WORKLOAD = 'from-workload'
const KEYS = ['maxSurge', 'maxUnavailable', 'replicas', 'partition', 'type'] as const
const USAGE = `${FROM_WORKLOAD}[,KEY=VALUE...] or maxSurge=25%,maxUnavailable=0[,replicas=N] (keys: ${KEYS.join(', ')})`

export interface RolloutFlag {
  fromWorkload: boolean
  overrides: RolloutOverrides
  /** The keys given, in the order given. */
  keys: string[]
}

/** --rollout: `from-workload` and/or KEY=VALUE pairs, comma-separated. */
export function parseRolloutFlag(text: string): RolloutFlag {
  const out: RolloutFlag = {fromWorkload: false, overrides: {}, keys: []}
  for (const raw of text.split(',')) {
    const part = raw.trim()
    if (part === '') continue
    if (part === FROM_WORKLOAD) {
      out.fromWorkload = true
      continue
    }
    const kv = /^([a-zA-Z]+)=(.*)$/.exec(part)
    if (!kv) throw new CliError(`--rollout: invalid entry "${part}": expected ${USAGE}`, ExitCode.USAGE)
    const key = kv[1]!
    const value = kv[2]!.trim()
    if (!(KEYS as readonly string[]).includes(key)) throw new CliError(`--rollout: unknown key "${key}" (use ${USAGE})`, ExitCode.USAGE)
    if (out.keys.includes(key)) throw new CliError(`--rollout: ${key} is given twice`, ExitCode.USAGE)
    out.keys.push(key)
    switch (key) {
      case 'maxSurge':
      case 'maxUnavailable':
        if (!/^\d+%?$/.test(value)) throw new CliError(`--rollout: ${key} must be an integer or a percentage, got "${value}"`, ExitCode.USAGE)
        out.overrides[key] = intOrPercent(value)
        break
      case 'replicas':
      case 'partition':
        if (!/^\d+$/.test(value)) throw new CliError(`--rollout: ${key} must be a non-negative integer, got "${value}"`, ExitCode.USAGE)
        out.overrides[key] = Number(value)
        break
      case 'type':
        if (!['RollingUpdate', 'Recreate', 'OnDelete'].includes(value))
          throw new CliError(`--rollout: type must be RollingUpdate, Recreate (Deployment) or OnDelete (StatefulSet), got "${value}"`, ExitCode.USAGE)
        out.overrides.type = value
        break
    }
  }
  if (!out.fromWorkload && out.keys.length === 0) throw new CliError(`--rollout: expected ${USAGE}`, ExitCode.USAGE)
  if (!out.fromWorkload && (out.overrides.partition !== undefined || out.overrides.type === 'OnDelete')) {
    throw new CliError(
      `--rollout: ${out.overrides.partition !== undefined ? 'partition' : 'type=OnDelete'} applies to a StatefulSet: use --rollout ${FROM_WORKLOAD},... with a StatefulSet behind the Service`,
      ExitCode.USAGE,
    )
  }
  return out
}

const intOrPercent = (v: string): IntOrString => (v.endsWith('%') ? v : Number(v))

const KIND_NAMES: Record<string, WorkloadKind> = {
  deployment: 'Deployment',
  deployments: 'Deployment',
  deploy: 'Deployment',
  'deployment.apps': 'Deployment',
  'deployments.apps': 'Deployment',
  statefulset: 'StatefulSet',
  statefulsets: 'StatefulSet',
  sts: 'StatefulSet',
  'statefulset.apps': 'StatefulSet',
  'statefulsets.apps': 'StatefulSet',
}

/** --workload deployment/NAME | statefulset/NAME (kubectl's resource names and short names). */
export function parseWorkloadFlag(text: string): {kind: WorkloadKind; name: string} {
  const m = /^([^/]+)\/(.+)$/.exec(text.trim())
  const kind = m ? KIND_NAMES[m[1]!.toLowerCase()] : undefined
  if (!m || kind === undefined) throw new CliError(`--workload: expected deployment/NAME or statefulset/NAME, got "${text}"`, ExitCode.USAGE)
  return {kind, name: m[2]!}
}

export interface ResolvedRollout {
  spec: RolloutSpec
  plan: RolloutPlan
}

/**
 * The rollout of one Service. Returns a warning instead of throwing when several Services are
 * simulated and this one has no (single) workload behind it: the others still get theirs.
 */
export function resolveRollout(
  state: ClusterState,
  svc: Service,
  flag: RolloutFlag,
  workload: {kind: WorkloadKind; name: string} | undefined,
  ctx: {readyEndpoints: number; manyServices: boolean; source: 'live' | 'snapshot' | 'synthetic'},
): ResolvedRollout | {warning: string} {
  try {
    if (!flag.fromWorkload && workload === undefined) {
      const spec = withOverrides(null, flag.overrides)
      return {spec, plan: planOf(spec, ctx.readyEndpoints, {workload: null, overridden: flag.keys})}
    }
    if (ctx.source === 'synthetic')
      throw new CliError(`--rollout ${FROM_WORKLOAD}: a synthetic cluster has no workloads: give the parameters, e.g. --rollout maxSurge=25%,maxUnavailable=0`, ExitCode.USAGE)
    if (state.deployments === undefined && state.statefulSets === undefined) {
      throw new CliError(
        `--rollout ${FROM_WORKLOAD}: the snapshot holds no Deployments or StatefulSets: take it with \`kubectl topology snapshot\`, or add deployments,statefulsets to \`kubectl get\`; or give the parameters, e.g. --rollout maxSurge=25%,maxUnavailable=0`,
        ExitCode.NOT_FOUND,
      )
    }
    const ns = svc.metadata.namespace ?? 'default'
    const behind = workloadsBehind(state, svc)
    const names = behind.map((w) => workloadName({kind: kindOf(w), name: w.metadata.name}))
    const who = `Service ${ns}/${svc.metadata.name}`
    let chosen = behind[0]
    if (workload !== undefined) {
      chosen = behind.find((w) => kindOf(w) === workload.kind && w.metadata.name === workload.name)
      if (chosen === undefined) {
        return fail(
          `--workload: no ${workloadName(workload)} behind ${who}${names.length > 0 ? ` (behind it: ${names.join(', ')})` : ` (no Deployment or StatefulSet in namespace "${ns}" has pod template labels matching its selector${selectorText(svc)})`}`,
          ExitCode.NOT_FOUND,
          ctx.manyServices,
        )
      }
    } else if (behind.length === 0) {
      return fail(
        `--rollout ${FROM_WORKLOAD}: no Deployment or StatefulSet in namespace "${ns}" has pod template labels matching the selector of ${who}${selectorText(svc)}; give the parameters, e.g. --rollout maxSurge=25%,maxUnavailable=0`,
        ExitCode.NOT_FOUND,
        ctx.manyServices,
      )
    } else if (behind.length > 1) {
      return fail(
        `--rollout ${FROM_WORKLOAD}: ${behind.length} workloads are behind ${who} (${names.join(', ')}): pick one with --workload ${names[0]}`,
        ExitCode.USAGE,
        ctx.manyServices,
      )
    }
    const w = chosen!
    const ref = {kind: kindOf(w), name: w.metadata.name}
    const spec = withOverrides(rolloutSpecOf({...w, kind: ref.kind}), flag.overrides)
    let note: string | null = null
    if (behind.length > 1) {
      // Other workloads' pods are behind the Service too: only this one's are replaced.
      spec.podsOf = ref
      const {own, others} = readyPodsOf(state, svc, ref)
      const naming = ref.kind === 'StatefulSet' ? `${ref.name}-<ordinal>` : `${ref.name}-<hash>-<suffix>`
      note = `${behind.length} workloads are behind ${who}: the rollout replaces the ${own} ready endpoint(s) whose pods are named ${naming}; the other ${others} stay`
    }
    const plan = planOf(spec, ctx.readyEndpoints, {workload: ref, overridden: flag.keys})
    if (note !== null) plan.notes.unshift(note)
    return {spec, plan}
  } catch (e) {
    if (e instanceof RolloutSpecError) throw new CliError(`--rollout: ${e.message}`, ExitCode.USAGE)
    throw e
  }
}

function fail(message: string, code: ExitCodeValue, soft: boolean): {warning: string} {
  if (soft) return {warning: `${message.replace(/^--(rollout|workload)[^:]*: /, '')}; no rollout for it`}
  throw new CliError(message, code)
}

function selectorText(svc: Service): string {
  const sel = svc.spec?.selector
  if (!sel || Object.keys(sel).length === 0) return ' (it has no selector)'
  return ` (${Object.entries(sel)
    .map(([k, v]) => `${k}=${v}`)
    .join(',')})`
}
