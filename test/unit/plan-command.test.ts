// plan's flag values (traffic volume units, price, both-or-neither, --max-counts), check's
// policies built on plan (hints-over-range, hints-through-rollout), and the snapshot round trip
// of HPAs, PDBs and the pod template's zone spread (write, then decode; kubectl Lists too).
import {describe, expect, it} from 'vitest'
import {parseCost, parseMaxCounts, parsePrice, parseVolume} from '../../src/commands/plan-options.js'
import {check} from '../../src/check/check.js'
import {explain} from '../../src/explain/report.js'
import {plan, planForCheck, type CheckPlan} from '../../src/plan/plan.js'
import {parseSnapshot, serializeSnapshot, snapshotYaml} from '../../src/cluster/snapshot/snapshot.js'
import {nodesIn, service, slice, spread, state} from './builders.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {Deployment, HorizontalPodAutoscaler, PodDisruptionBudget} from '../../src/upstream/api/types.js'

describe('plan flag values', () => {
  it('--traffic-volume: bytes, decimal and binary units', () => {
    expect(parseVolume('123')).toBe(123)
    expect(parseVolume('40TiB')).toBe(40 * 2 ** 40)
    expect(parseVolume('40 TB')).toBe(40e12)
    expect(parseVolume('1.5PiB')).toBe(1.5 * 2 ** 50)
    expect(parseVolume('500GB')).toBe(500e9)
    expect(parseVolume('2KiB')).toBe(2048)
    expect(parseVolume('7MB')).toBe(7e6)
    expect(parseVolume('0B')).toBe(0)
  })
  it.each(['-1TiB', 'NaN', 'lots', '40XB', '1e3GB', '', 'TiB', '1.2.3GB'])('--traffic-volume %j is a one-line usage error', (v) => {
    expect(() => parseVolume(v)).toThrowError(/^--traffic-volume: invalid value ".*": use bytes per month with a unit/)
    try {
      parseVolume(v)
    } catch (e) {
      expect((e as {exitCode: number}).exitCode).toBe(2)
      expect((e as Error).message).not.toContain('\n')
    }
  })
  it('--cross-zone-price, both or neither', () => {
    expect(parsePrice('0.01')).toBe(0.01)
    expect(() => parsePrice('-0.01')).toThrowError(/^--cross-zone-price: invalid value "-0.01"/)
    expect(() => parsePrice('$1')).toThrowError(/--cross-zone-price/)
    expect(parseCost(undefined, undefined)).toBeUndefined()
    expect(parseCost('1GiB', '0.5')).toEqual({volumeBytes: 2 ** 30, pricePerGiB: 0.5})
    expect(() => parseCost('1GiB', undefined)).toThrowError('--traffic-volume and --cross-zone-price go together: add --cross-zone-price')
    expect(() => parseCost(undefined, '0.01')).toThrowError('go together: add --traffic-volume')
  })
  it('--max-counts: a whole number of at least 1', () => {
    expect(parseMaxCounts('500')).toBe(500)
    for (const v of ['0', '-3', '2.5', 'x']) expect(() => parseMaxCounts(v)).toThrowError(/^--max-counts: invalid value/)
  })
})

const ZONE = 'topology.kubernetes.io/zone'
const deployment = (replicas: number): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {name: 'web', namespace: 'default'},
  spec: {
    replicas,
    selector: {matchLabels: {app: 'web'}},
    strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 1, maxUnavailable: 0}},
    template: {metadata: {labels: {app: 'web'}}, spec: {topologySpreadConstraints: [{maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule'}]}},
  },
})
const hpa = (min: number, max: number): HorizontalPodAutoscaler => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: {name: 'web', namespace: 'default'},
  spec: {scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: 'web'}, minReplicas: min, maxReplicas: max},
})
const pdb: PodDisruptionBudget = {
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: {name: 'web', namespace: 'default'},
  spec: {selector: {matchLabels: {app: 'web'}}, maxUnavailable: 1},
}

function cluster(
  counts: Record<string, number>,
  extra: Partial<ClusterState> = {},
  annotations: Record<string, string> = {'service.kubernetes.io/topology-mode': 'Auto'},
): ClusterState {
  const svc = service('web', {annotations, selector: {app: 'web'}})
  const n = Object.values(counts).reduce((a, b) => a + b, 0)
  return {...state(nodesIn(['a', 'b', 'c'], 2), [svc], [slice('web', spread(counts))]), deployments: [deployment(n)], statefulSets: [], ...extra}
}

function checkWithPlan(st: ClusterState) {
  const policies = {hintsOverRange: true, hintsThroughRollout: true}
  return check(explain(st, st.services), st.services, policies, plan(st, st.services).services)
}

describe('check: policies built on plan', () => {
  it('hints-over-range fails when Auto loses hints at a count of the HPA range, and names the counts', () => {
    // Three equal zones: Auto refuses 4 (2/1/1) among others (kubernetes/kubernetes#122437).
    const r = checkWithPlan(cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 9)]}))
    const range = r.services[0]!.results.find((x) => x.policy === 'hints-over-range')!
    expect(range.status).toBe('fail')
    expect(range.message).toMatch(/^Auto loses hints at \d+ of 7 counts of 3\.\.9 \(HPA web\): 4/)
    expect(range.details[0]).toMatch(/^4 replicas \(a \d, b \d, c \d\): TopologyAwareHintsDisabled/)
    expect(r.passed).toBe(false)
  })
  it('hints-over-range passes when every count of the range keeps hints', () => {
    const r = checkWithPlan(cluster({a: 3, b: 3, c: 3}, {horizontalPodAutoscalers: [hpa(9, 9)], podDisruptionBudgets: [pdb]}))
    expect(r.services[0]!.results.find((x) => x.policy === 'hints-over-range')).toMatchObject({status: 'pass', message: 'Auto keeps hints at every count of 9..9 (HPA web)'})
  })
  it('hints-through-rollout reports the steps that lose hints (7 keeps them, the surge pod makes 8: 3/3/2 is refused)', () => {
    const auto = checkWithPlan(cluster({a: 3, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(7, 7)]}))
    const [range, ro] = auto.services[0]!.results
    expect(range).toMatchObject({policy: 'hints-over-range', status: 'pass'})
    expect(ro!.status).toBe('fail')
    expect(ro!.details[0]).toMatch(/^at 7 replicas \(today\), step \d+ \(.+, 8 ready\): TopologyAwareHintsDisabled/)
    const off = checkWithPlan(cluster({a: 3, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(7, 7)]}, {}))
    // No topology asked for: both skip.
    expect(off.services[0]!.results.map((x) => x.status)).toEqual(['skip', 'skip'])
    const psz = checkWithPlan({
      ...cluster({a: 3, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(7, 7)]}, {}),
      services: [service('web', {trafficDistribution: 'PreferSameZone', selector: {app: 'web'}})],
    })
    expect(psz.services[0]!.results.map((x) => x.status)).toEqual(['pass', 'pass'])
  })
  it('skips hints-through-rollout without a workload, and without plans', () => {
    const st = {...cluster({a: 2, b: 2, c: 2}), deployments: []}
    expect(checkWithPlan(st).services[0]!.results.find((x) => x.policy === 'hints-through-rollout')).toMatchObject({status: 'skip'})
    expect(check(explain(st, st.services), st.services, {hintsOverRange: true}).services[0]!.results[0]).toMatchObject({status: 'skip', message: 'not planned'})
  })
})

describe('check: plans matched to Services', () => {
  it('takes the plan of the same namespace and name, the first of a name, wherever it is in the list', () => {
    const st = cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 9)]})
    const [p] = plan(st, st.services).services
    const kept = plan(cluster({a: 3, b: 3, c: 3}, {horizontalPodAutoscalers: [hpa(9, 9)], podDisruptionBudgets: [pdb]}), st.services).services[0]!
    const range = (plans: (typeof kept)[]) => check(explain(st, st.services), st.services, {hintsOverRange: true}, plans).services[0]!.results[0]!
    expect(range([p!]).status).toBe('fail')
    // Another Service's plan (another name, or the same name in another namespace) is not taken.
    expect(range([{...kept, name: 'other'}, {...kept, namespace: 'elsewhere'}, p!]).status).toBe('fail')
    expect(range([{...kept, name: 'other'}])).toMatchObject({status: 'skip', message: 'not planned'})
    // Two plans of one name: the first.
    expect(range([kept, p!]).status).toBe('pass')
    expect(range([p!, kept]).status).toBe('fail')
  })
})

describe('snapshot: HPAs, PDBs and the zone spread', () => {
  it('are kept by snapshot and read back, and plan gives the same report', () => {
    const st = cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 12)], podDisruptionBudgets: [pdb]})
    const text = snapshotYaml(serializeSnapshot(st))
    const back = parseSnapshot(text, 'snap.yaml')
    expect(back.horizontalPodAutoscalers).toEqual([hpa(3, 12)])
    expect(back.podDisruptionBudgets).toEqual([pdb])
    expect(back.deployments?.[0]?.spec?.template?.spec?.topologySpreadConstraints).toEqual(deployment(6).spec!.template!.spec!.topologySpreadConstraints)
    expect(plan(back, back.services)).toEqual(plan(st, st.services))
  })
  it('reads `kubectl get hpa,pdb -o yaml` Lists next to the rest', () => {
    const st = cluster({a: 2, b: 2, c: 2})
    const list = {apiVersion: 'v1', kind: 'List', items: [deployment(6), hpa(2, 5), pdb]}
    const back = parseSnapshot(`${snapshotYaml(serializeSnapshot(st))}---\n${JSON.stringify(list)}\n`, 'list.yaml')
    expect(back.horizontalPodAutoscalers?.map((h) => h.spec?.maxReplicas)).toEqual([5])
    expect(back.podDisruptionBudgets?.map((p) => p.metadata.name)).toEqual(['web'])
    const typed = {apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscalerList', items: [{metadata: {name: 'x', namespace: 'default'}, spec: {minReplicas: 'two'}}]}
    expect(() => parseSnapshot(`${snapshotYaml(serializeSnapshot(st))}---\n${JSON.stringify(typed)}\n`, 'bad.yaml')).toThrowError(
      /^bad\.yaml:\d+:\d+: .*spec\.minReplicas must be a non-negative integer/,
    )
  })
})

describe("check's own plan (planForCheck): the range and rollouts under the Service's mode only", () => {
  const modesOf = (p: CheckPlan) => [...p.range.rows.map((r) => Object.keys(r.modes)), ...p.rollouts.flatMap((r) => r.steps.map((x) => Object.keys(x.modes)))]
  it("gives plan's own figures for the Service's mode, and evaluates no other mode", () => {
    const st = cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 9)]})
    const full = plan(st, st.services).services[0]!
    const own = planForCheck(st, st.services[0]!)
    expect(own.currentMode).toBe('Auto')
    expect(own.range.rows.map((r) => [r.replicas, r.zones, r.modes.Auto])).toEqual(full.range.rows.map((r) => [r.replicas, r.zones, r.modes.Auto]))
    expect(own.rollouts.map((r) => [r.replicas, r.at, r.steps.map((x) => [x.step, x.action, x.readyEndpoints, x.modes.Auto]), r.worst.Auto])).toEqual(
      full.rollouts.map((r) => [r.replicas, r.at, r.steps.map((x) => [x.step, x.action, x.readyEndpoints, x.modes.Auto]), r.worst.Auto]),
    )
    expect(own.rollouts.length).toBeGreaterThan(0)
    expect(new Set(modesOf(own).flat())).toEqual(new Set(['Auto']))
    expect(own.workload).toEqual(full.workload)
    expect([own.range.from, own.range.to, own.range.source]).toEqual([3, 9, 'hpa'])
  })
  it('a Service asking for no topology: no state evaluated, and check skips as with the full plan', () => {
    const st = cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 9)]}, {})
    const own = planForCheck(st, st.services[0]!)
    expect([own.currentMode, own.range.rows, own.rollouts]).toEqual(['none', [], []])
    const policies = {hintsOverRange: true, hintsThroughRollout: true}
    expect(check(explain(st, st.services), st.services, policies, [own])).toEqual(check(explain(st, st.services), st.services, policies, plan(st, st.services).services))
  })
  it('check asks a plan function once per Service for both policies, and reports as with the full plans', () => {
    const st = cluster({a: 3, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(7, 7)]})
    const asked: string[] = []
    const policies = {hintsOverRange: true, hintsThroughRollout: true}
    const lazy = check(explain(st, st.services), st.services, policies, (ns, name) => {
      asked.push(`${ns}/${name}`)
      return planForCheck(st, st.services[0]!)
    })
    expect(asked).toEqual(['default/web'])
    expect(lazy).toEqual(check(explain(st, st.services), st.services, policies, plan(st, st.services).services))
    expect(lazy.services[0]!.results.map((r) => r.status)).toEqual(['pass', 'fail'])
  })
})
