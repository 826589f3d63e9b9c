// Policy evaluation for `kubectl topology check`: a pure function over the explain model
// (src/explain/report.ts) and the Services it explains. Every verdict is read from the
// ExplainReport (controller verdict, kube-proxy verdicts per zone, expected overload, ready
// endpoints, drift, the mode's lint warnings); the lint rules that need more than the mode
// (single-zone cluster, internalTrafficPolicy Local) look at the Service and the cluster
// summary. Schema of the output: schema/check.v1.json.
import type {ExplainReport, LintIssue, ServiceExplanation, ZoneRow} from '../explain/report.js'
import type {CheckPlan} from '../plan/plan.js'
import type {Service} from '../upstream/api/types.js'
import type {DataPlaneReport} from '../dataplane/describe.js'
import {checkHintsOverRange, checkHintsThroughRollout} from './plan-policies.js'
import {checkProxyTopology} from './proxy-policy.js'
import {DEFAULT_MAX_OVERLOAD, type Recommendation} from '../advise/types.js'
import {percent, withinBound} from '../advise/format.js'
import {parseRatio} from '../state/ratio.js'
import {trafficBasis} from '../explain/traffic.js'

export const CHECK_SCHEMA_VERSION = 'kubectl-topology.io/v1'

export type PolicyName =
  | 'require-hints'
  | 'no-fallback'
  | 'max-overload'
  | 'min-endpoints-per-zone'
  | 'no-drift'
  | 'lint'
  | 'data-plane-hints'
  | 'proxy-topology'
  | 'hints-over-range'
  | 'hints-through-rollout'

export interface CheckPolicies {
  /** A Service that asks for topology-aware routing gets hints at the controller's next sync. */
  requireHints?: boolean
  /** No zone with nodes has kube-proxy fall back to every endpoint (now, or after the next sync). */
  noFallback?: boolean
  /** Largest expected overload of a zone's assigned endpoints (0.2 = 20 %), with the predicted hints. */
  maxOverload?: number
  /** Every zone with counted nodes has at least this many ready endpoints. */
  minEndpointsPerZone?: number
  /** Live hints equal what the controller writes at its next sync. */
  noDrift?: boolean
  /** Configuration lint (annotations, trafficDistribution, version support, single zone, internalTrafficPolicy). */
  lint?: boolean
  /** A Service that has or asks for hints runs on a data plane that honours them (--require-data-plane-hints). */
  dataPlaneHonoursHints?: boolean
  /** No client path through a mesh or gateway ignores the Service's topology setting (--require-proxy-topology; needs --client-paths). */
  proxyHonoursTopology?: boolean
  /** plan: the Service's mode keeps hints at every count of the HPA's range (without an HPA: plan's default range). */
  hintsOverRange?: boolean
  /** plan: no step of the workload's rollout loses hints. */
  hintsThroughRollout?: boolean
}

export type CheckStatus = 'pass' | 'fail' | 'skip'

export type {LintIssue}

export interface PolicyResult {
  policy: PolicyName
  status: CheckStatus
  /** One line: why it passed, failed or was skipped. */
  message: string
  /** Per-zone or per-rule details (may be empty). */
  details: string[]
  /** lint only: every issue found, errors and warnings. */
  issues?: LintIssue[]
}

export interface ServiceCheck {
  namespace: string
  name: string
  addressType: ServiceExplanation['addressType']
  path: ServiceExplanation['mode']['path']
  managedByController: boolean
  hintsSet: boolean
  passed: boolean
  results: PolicyResult[]
  /** The advisor's recommendation at the check's bound (the same object explain shows); null when none was attached. */
  recommendation: Recommendation | null
}

export interface CheckReport {
  apiVersion: typeof CHECK_SCHEMA_VERSION
  kind: 'TopologyCheck'
  kubernetesVersion: string
  versionSource: ExplainReport['versionSource']
  warnings: string[]
  /** The data plane assumed (explain's report); absent when none was given. */
  dataPlane?: DataPlaneReport
  policies: EffectivePolicies
  summary: {services: number; passed: number; failed: number; checks: number; failures: number; skipped: number}
  passed: boolean
  services: ServiceCheck[]
}

/** Policies with every field present (null: not evaluated). */
export interface EffectivePolicies {
  requireHints: boolean
  noFallback: boolean
  maxOverload: number | null
  minEndpointsPerZone: number | null
  noDrift: boolean
  lint: boolean
  dataPlaneHonoursHints: boolean
  proxyHonoursTopology: boolean
  hintsOverRange: boolean
  hintsThroughRollout: boolean
}

/** What `check` evaluates when no policy is given: hints for Services that ask, no fallback, the advisor's overload bound, lint. */
export const DEFAULT_POLICIES: CheckPolicies = {requireHints: true, noFallback: true, maxOverload: DEFAULT_MAX_OVERLOAD, lint: true, dataPlaneHonoursHints: true}

function effectivePolicies(p: CheckPolicies): EffectivePolicies {
  return {
    requireHints: p.requireHints === true,
    noFallback: p.noFallback === true,
    maxOverload: p.maxOverload ?? null,
    minEndpointsPerZone: p.minEndpointsPerZone ?? null,
    noDrift: p.noDrift === true,
    lint: p.lint === true,
    dataPlaneHonoursHints: p.dataPlaneHonoursHints === true,
    proxyHonoursTopology: p.proxyHonoursTopology === true,
    hintsOverRange: p.hintsOverRange === true,
    hintsThroughRollout: p.hintsThroughRollout === true,
  }
}

export function hasAnyPolicy(p: CheckPolicies): boolean {
  const e = effectivePolicies(p)
  return (
    e.requireHints ||
    e.noFallback ||
    e.maxOverload !== null ||
    e.minEndpointsPerZone !== null ||
    e.noDrift ||
    e.lint ||
    e.dataPlaneHonoursHints ||
    e.proxyHonoursTopology ||
    e.hintsOverRange ||
    e.hintsThroughRollout
  )
}

const OFF_VALUES = new Set(['', 'Disabled', 'disabled'])

/**
 * True when the Service asks for topology-aware routing in any form, also one the controller
 * ignores (annotation "AUTO", an unsupported trafficDistribution): those fail require-hints
 * rather than being skipped.
 */
function requestsTopology(s: ServiceExplanation): boolean {
  if (s.mode.path !== 'none') return true
  if (s.mode.annotationValue !== undefined && !OFF_VALUES.has(s.mode.annotationValue)) return true
  return s.mode.trafficDistribution !== undefined && s.mode.trafficDistribution !== ''
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`
const zoneHasNodes = (z: ZoneRow) => z.nodes.counted + z.nodes.ignored > 0

/** True when a policy needs plan's figures (the caller then passes the plans to check()). */
export const needsPlan = (p: CheckPolicies): boolean => p.hintsOverRange === true || p.hintsThroughRollout === true

/**
 * `report`'s Services are taken once each, in order, as the loop reaches them: an explainAdvised
 * report, or explainAdvisedEach's head and iteration (`check -A` then holds no explanation but
 * the one being checked). `_services`: kept for callers; the lint rules read what explain
 * recorded. `plans`: plan's figures per Service (namespace/name, the first of a name), for
 * hints-over-range and hints-through-rollout; or a function giving the Service's plan when the
 * loop reaches it (the check command plans each Service in turn, and holds no plan but one).
 */
/** Looked up by name, not searched per Service: 4 million comparisons for `check -A` on 2,000 Services. */
function planByName(plans: readonly CheckPlan[]): (s: ServiceExplanation) => CheckPlan | undefined {
  const byName = new Map<string, Map<string, CheckPlan>>()
  for (const p of plans) {
    let names = byName.get(p.namespace)
    if (names === undefined) byName.set(p.namespace, (names = new Map()))
    if (!names.has(p.name)) names.set(p.name, p)
  }
  return (s) => byName.get(s.namespace)?.get(s.name)
}

export function check(
  report: Omit<ExplainReport, 'services'> & {services: Iterable<ServiceExplanation>},
  _services: readonly Service[],
  policies: CheckPolicies,
  plans: readonly CheckPlan[] | ((namespace: string, name: string) => CheckPlan | undefined) = [],
): CheckReport {
  const eff = effectivePolicies(policies)
  const planOf = typeof plans === 'function' ? (s: ServiceExplanation) => plans(s.namespace, s.name) : planByName(plans)
  const planeUnknown = report.dataPlane?.name === 'unknown'
  const out: ServiceCheck[] = []
  for (const s of report.services) {
    const results: PolicyResult[] = []
    if (eff.requireHints) results.push(checkRequireHints(s))
    if (eff.noFallback) results.push(checkNoFallback(s))
    if (eff.maxOverload !== null) results.push(checkMaxOverload(s, eff.maxOverload))
    if (eff.minEndpointsPerZone !== null) results.push(checkMinEndpoints(s, eff.minEndpointsPerZone))
    if (eff.noDrift) results.push(checkNoDrift(s))
    if (eff.lint) results.push(checkLint(s))
    // An unknown data plane: one warning for the report (below), not a SKIP row per Service.
    if (eff.dataPlaneHonoursHints && !planeUnknown) results.push(checkDataPlaneHints(s, report.dataPlane))
    // Without the meshes and gateways read: one warning for the report (below), not a SKIP row per Service.
    if (eff.proxyHonoursTopology && report.routes) results.push(checkProxyTopology(s))
    // Planned once for both policies, and let go with the Service.
    const planned = eff.hintsOverRange || eff.hintsThroughRollout ? planOf(s) : undefined
    if (eff.hintsOverRange) results.push(checkHintsOverRange(planned))
    if (eff.hintsThroughRollout) results.push(checkHintsThroughRollout(planned))
    out.push({
      namespace: s.namespace,
      name: s.name,
      addressType: s.addressType,
      path: s.mode.path,
      managedByController: s.mode.managedByController,
      hintsSet: s.controller.hintsSet,
      passed: results.every((r) => r.status !== 'fail'),
      results,
      recommendation: s.recommendation ?? null,
    })
  }
  const all = out.flatMap((s) => s.results)
  const failed = out.filter((s) => !s.passed).length
  return {
    apiVersion: CHECK_SCHEMA_VERSION,
    kind: 'TopologyCheck',
    kubernetesVersion: report.kubernetesVersion,
    versionSource: report.versionSource,
    warnings: [
      ...report.warnings,
      ...(eff.dataPlaneHonoursHints && planeUnknown && report.dataPlane && out.length > 0
        ? [`data-plane-hints not checked (data plane: ${report.dataPlane.description}): name the data plane with --data-plane to check that nodes honour the hints`]
        : []),
      ...(eff.proxyHonoursTopology && !report.routes && out.length > 0
        ? ['proxy-topology not checked: the meshes and gateways were not read (add --client-paths, or use a snapshot taken with it)']
        : []),
    ],
    ...(report.dataPlane ? {dataPlane: report.dataPlane} : {}),
    policies: eff,
    summary: {
      services: out.length,
      passed: out.length - failed,
      failed,
      checks: all.length,
      failures: all.filter((r) => r.status === 'fail').length,
      skipped: all.filter((r) => r.status === 'skip').length,
    },
    passed: failed === 0,
    services: out,
  }
}

// ---- policies -------------------------------------------------------------------------

function result(policy: PolicyName, status: CheckStatus, message: string, details: string[] = []): PolicyResult {
  return {policy, status, message, details}
}

function checkRequireHints(s: ServiceExplanation): PolicyResult {
  const c = s.controller
  const anyLive = s.endpoints.some((e) => (e.liveHints?.forZones.length ?? 0) > 0)
  if (!requestsTopology(s) && !(anyLive && !s.mode.managedByController)) {
    return result('require-hints', 'skip', 'topology-aware routing is not requested (no topology-mode annotation, no spec.trafficDistribution)')
  }
  if (!s.mode.managedByController) {
    // Selector-less Service: its slices are written by someone else; judge the live hints.
    const ready = s.endpoints.filter((e) => e.controllerReady)
    const unhinted = ready.filter((e) => (e.liveHints?.forZones.length ?? 0) === 0)
    if (ready.length === 0) return result('require-hints', 'fail', 'no ready endpoint (the Service has no selector: its EndpointSlices are not managed by the controller)')
    if (unhinted.length > 0) {
      return result(
        'require-hints',
        'fail',
        `${unhinted.length} of ${ready.length} ready endpoints carry no zone hint (the Service has no selector: only whoever writes its EndpointSlices sets hints)`,
        unhinted.slice(0, 10).map((e) => `${e.addresses[0] ?? '?'} (${e.slice})`),
      )
    }
    return result('require-hints', 'pass', `all ${ready.length} ready endpoints carry zone hints (written outside the EndpointSlice controller)`)
  }
  if (c.hintsSet) {
    const how = s.mode.path === 'topology-mode-auto' ? 'topology-mode Auto' : `trafficDistribution ${s.mode.trafficDistribution}`
    return result('require-hints', 'pass', `hints set (${how}, ${c.totalReadyEndpoints} ready endpoints)`)
  }
  if (s.mode.path === 'none') {
    // Asked for, but in a form the controller ignores.
    const why = s.mode.warnings[0]?.message ?? s.mode.why.at(-1) ?? 'no topology path applies'
    return result('require-hints', 'fail', `the controller removes hints: ${why}`)
  }
  return result('require-hints', 'fail', `hints dropped: ${c.reason}: ${c.message}`, [
    ...s.advice.filter((a) => a.code === 'fix-nodes').map((a) => a.message),
    ...(s.recommendation?.reasons.filter((r) => r.startsWith('Auto: hints refused')) ?? []),
  ])
}

/**
 * data-plane-hints: a Service that has or asks for hints runs on a data plane that honours them
 * (explain's per-Service data-plane notice). Skipped when the data plane is unknown or not given.
 */
function checkDataPlaneHints(s: ServiceExplanation, plane: DataPlaneReport | undefined): PolicyResult {
  const hinted = s.endpoints.some((e) => (e.liveHints?.forZones.length ?? 0) > 0 || (e.liveHints?.forNodes.length ?? 0) > 0)
  if (!requestsTopology(s) && !hinted) return result('data-plane-hints', 'skip', 'topology-aware routing is not requested and no endpoint carries hints')
  if (!s.applicability.proxied) return result('data-plane-hints', 'skip', 'the Service is not proxied (headless or ExternalName): no data plane load-balances it')
  if (plane === undefined) return result('data-plane-hints', 'skip', 'no data plane given')
  if (plane.name === 'unknown')
    return result('data-plane-hints', 'skip', `the data plane is ${plane.description}: whether nodes honour the hints is unknown (name it with --data-plane)`)
  const n = s.dataPlane
  if (n?.ignoresHints) return result('data-plane-hints', 'fail', n.message, n.fix ? [`fix: ${n.fix}`] : [])
  return result('data-plane-hints', 'pass', n ? `${plane.description} uses the hints, with its own rules: ${n.message}` : `${plane.description} honours the hints`)
}

/** kube-proxy verdicts that are not about hints: nothing (ready) to route to at all; a data plane that ignores hints (data-plane-hints says so). */
const NOT_A_TOPOLOGY_FALLBACK = new Set(['no-endpoints', 'no-ready-endpoints', 'ignored-by-data-plane'])

function checkNoFallback(s: ServiceExplanation): PolicyResult {
  const falls = (v: ZoneRow['kubeProxy']) => v.fallback && !NOT_A_TOPOLOGY_FALLBACK.has(v.reason ?? '')
  const hinted = (pick: (e: ServiceExplanation['endpoints'][number]) => {forZones: string[]; forNodes: string[]} | null) =>
    s.endpoints.some((e) => {
      const h = pick(e)
      return h !== null && (h.forZones.length > 0 || h.forNodes.length > 0)
    })
  const liveApplies = s.mode.path !== 'none' || hinted((e) => e.liveHints)
  const nextApplies = s.mode.path !== 'none' || hinted((e) => e.predictedHints)
  const now = liveApplies ? s.zones.filter((z) => zoneHasNodes(z) && falls(z.kubeProxy)) : []
  const next = nextApplies ? s.zones.filter((z) => zoneHasNodes(z) && falls(z.kubeProxyPredicted)) : []
  if (now.length === 0 && next.length === 0) {
    const using = s.zones.filter((z) => zoneHasNodes(z) && z.kubeProxy.mode !== '').length
    return result('no-fallback', 'pass', using > 0 ? `kube-proxy uses the hints in all ${using} zones with nodes` : 'no zone falls back (no hints in use)')
  }
  const details = [
    ...now.map((z) => `${z.name}: falls back now (${z.kubeProxy.reason})`),
    ...next.filter((z) => !now.includes(z)).map((z) => `${z.name}: falls back after the controller's next sync (${z.kubeProxyPredicted.reason})`),
  ]
  const names = [...new Set([...now, ...next].map((z) => z.name))]
  return result('no-fallback', 'fail', `kube-proxy ignores the hints in ${names.join(', ')}: traffic from there goes to every endpoint`, details)
}

/**
 * max-overload: the worst per-endpoint overload after the next sync (explain's figure, the
 * advisor's `predicted`) is within the bound (inclusive). Skipped without a traffic model.
 */
function checkMaxOverload(s: ServiceExplanation, max: number): PolicyResult {
  const worst = s.traffic.maxEndpointOverloadPredicted
  if (worst === null) return result('max-overload', 'skip', 'no traffic model (no zone CPU shares and no --traffic): the overload is unknown')
  const basis = trafficBasis(s.traffic.model)
  const where = s.traffic.worstZonePredicted !== null ? ` in ${s.traffic.worstZonePredicted}` : ''
  const figure = `worst overload after the next sync ${percent(Math.max(0, worst))}${where}`
  const zones = s.zones.filter((z) => z.expectedOverload !== null && !withinBound(z.expectedOverload, max))
  const details = zones.map(
    (z) => `${z.name}: ${pct(z.expectedOverload!)} (desired ${z.desired === null ? '-' : z.desired.toFixed(2)} endpoints of traffic, ${z.assigned} assigned)`,
  )
  if (withinBound(worst, max)) return result('max-overload', 'pass', `${figure} (bound ${percent(max)}; ${basis})`)
  return result('max-overload', 'fail', `${figure}, above the ${percent(max)} bound (${basis})`, details)
}

function checkMinEndpoints(s: ServiceExplanation, min: number): PolicyResult {
  if (!requestsTopology(s) && !s.endpoints.some((e) => (e.liveHints?.forZones.length ?? 0) > 0)) {
    return result('min-endpoints-per-zone', 'skip', 'topology-aware routing is not requested: the zone spread of endpoints does not decide routing')
  }
  const zones = s.zones.filter((z) => z.nodes.counted > 0)
  if (zones.length === 0) return result('min-endpoints-per-zone', 'fail', 'no zone has a counted node (ready worker with a zone label and CPU)')
  const low = zones.filter((z) => z.readyEndpoints < min)
  if (low.length === 0) {
    const least = zones.reduce((m, z) => Math.min(m, z.readyEndpoints), Number.POSITIVE_INFINITY)
    return result('min-endpoints-per-zone', 'pass', `every zone has at least ${least} ready endpoints (minimum ${min})`)
  }
  return result(
    'min-endpoints-per-zone',
    'fail',
    `fewer than ${min} ready endpoints in ${low.map((z) => z.name).join(', ')}`,
    low.map((z) => `${z.name}: ${z.readyEndpoints} ready`),
  )
}

export function checkNoDrift(s: ServiceExplanation): PolicyResult {
  if (!s.mode.managedByController) {
    return result('no-drift', 'skip', 'the Service has no selector: the controller does not manage its EndpointSlices')
  }
  if (s.drift.endpoints === 0 && !s.drift.zoneCounts) return result('no-drift', 'pass', 'live hints match what the controller writes at its next sync')
  const slices = s.controller.slicesToUpdate
  return result(
    'no-drift',
    'fail',
    s.drift.endpoints > 0
      ? `the live hints of ${s.drift.endpoints} endpoint(s) differ from what the controller writes at its next sync`
      : 'the live per-zone counts of zone hints are none the controller writes at its next sync, in any order',
    slices.length > 0 ? [`slices to rewrite: ${slices.join(', ')}`] : [],
  )
}

// ---- lint -----------------------------------------------------------------------------

/** The Service's configuration findings: explain's list (one list for explain, check, watch and plan). */
function lintIssues(s: ServiceExplanation): LintIssue[] {
  return s.lint
}

function checkLint(s: ServiceExplanation): PolicyResult {
  const issues = lintIssues(s)
  const errors = issues.filter((i) => i.severity === 'error')
  const warnings = issues.filter((i) => i.severity === 'warning')
  const details = issues.map((i) => `${i.severity} ${i.rule}: ${i.message}`)
  let r: PolicyResult
  if (errors.length > 0) {
    r = result('lint', 'fail', `${errors.length} error(s)${warnings.length ? `, ${warnings.length} warning(s)` : ''}: ${errors.map((e) => e.rule).join(', ')}`, details)
  } else if (warnings.length > 0) {
    r = result('lint', 'pass', `${warnings.length} warning(s): ${warnings.map((e) => e.rule).join(', ')}`, details)
  } else {
    r = result('lint', 'pass', 'no issues')
  }
  r.issues = issues
  return r
}

// ---- policy file ----------------------------------------------------------------------

export class PolicyFileError extends Error {}

const POLICY_KEYS: Record<string, 'boolean' | 'ratio' | 'count'> = {
  requireHints: 'boolean',
  noFallback: 'boolean',
  maxOverload: 'ratio',
  minEndpointsPerZone: 'count',
  noDrift: 'boolean',
  lint: 'boolean',
  dataPlaneHonoursHints: 'boolean',
  proxyHonoursTopology: 'boolean',
  hintsOverRange: 'boolean',
  hintsThroughRollout: 'boolean',
}

/**
 * Validates a parsed policy file:
 *   apiVersion: kubectl-topology.io/v1
 *   kind: CheckPolicy
 *   policies: {requireHints: true, noFallback: true, maxOverload: 0.2, minEndpointsPerZone: 2, noDrift: true, lint: true,
 *              hintsOverRange: true, hintsThroughRollout: true}
 * Throws PolicyFileError with one line naming the offending field.
 */
export function parsePolicyDocument(doc: unknown): CheckPolicies {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
  if (!isObj(doc)) throw new PolicyFileError('expected a mapping with apiVersion, kind: CheckPolicy and policies')
  for (const k of Object.keys(doc)) {
    if (!['apiVersion', 'kind', 'policies'].includes(k)) throw new PolicyFileError(`unknown field "${k}" (expected apiVersion, kind, policies)`)
  }
  if (doc.apiVersion !== undefined && doc.apiVersion !== CHECK_SCHEMA_VERSION)
    throw new PolicyFileError(`apiVersion must be "${CHECK_SCHEMA_VERSION}", got ${JSON.stringify(doc.apiVersion)}`)
  if (doc.kind !== undefined && doc.kind !== 'CheckPolicy') throw new PolicyFileError(`kind must be "CheckPolicy", got ${JSON.stringify(doc.kind)}`)
  if (!isObj(doc.policies)) throw new PolicyFileError('"policies" must be a mapping, e.g. policies: {requireHints: true, maxOverload: 0.2}')
  const out: CheckPolicies = {}
  for (const [k, v] of Object.entries(doc.policies)) {
    const type = POLICY_KEYS[k]
    if (type === undefined) throw new PolicyFileError(`unknown policy "policies.${k}" (known: ${Object.keys(POLICY_KEYS).join(', ')})`)
    if (type === 'boolean') {
      if (typeof v !== 'boolean') throw new PolicyFileError(`policies.${k} must be true or false, got ${JSON.stringify(v)}`)
      ;(out as Record<string, unknown>)[k] = v
    } else if (type === 'ratio') {
      // "20%" or 0.2, as --max-overload; 20 is refused with both spellings (state/ratio.ts).
      const r = typeof v === 'number' || typeof v === 'string' ? parseRatio(v) : {error: `invalid value ${JSON.stringify(v)}: give "20%" or 0.2`, misread: false}
      if ('error' in r) throw new PolicyFileError(r.misread ? `policies.${k} ${JSON.stringify(v)}: ${r.error}` : `policies.${k}: ${r.error}`)
      out.maxOverload = r.value
    } else {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new PolicyFileError(`policies.${k} must be a non-negative integer, got ${JSON.stringify(v)}`)
      out.minEndpointsPerZone = v
    }
  }
  return out
}

/** File policies, then flags on top (a flag that is given wins). */
export function mergePolicies(file: CheckPolicies | undefined, flags: CheckPolicies): CheckPolicies {
  const out: CheckPolicies = {...(file ?? {})}
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) (out as Record<string, unknown>)[k] = v
  return out
}
