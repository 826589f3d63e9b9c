// The workload behind a Service and its rollout parameters (src/simulate/workload.ts), and the
// rollout steps they drive (src/simulate/rollout.ts rollout()).
import {describe, expect, it} from 'vitest'
import {rowToClusterState} from '../../src/simulate/dataset-run.js'
import {evaluateSteps} from '../../src/simulate/whatif-steps.js'
import type {Deployment, StatefulSet} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {rollout} from '../../src/simulate/rollout.js'
import {WhatIfError} from '../../src/simulate/whatif.js'
import {
  deploymentParamsProblem,
  planOf,
  resolveFenceposts,
  rolloutSpecOf,
  scaledValue,
  statefulSetMaxUnavailable,
  statefulSetParamsProblem,
  withOverrides,
  workloadsBehind,
  RolloutSpecError,
} from '../../src/simulate/workload.js'

const deployment = (name: string, spec: Deployment['spec'], namespace = 'default'): Deployment => ({apiVersion: 'apps/v1', kind: 'Deployment', metadata: {name, namespace}, spec})
const statefulSet = (name: string, spec: StatefulSet['spec'], namespace = 'default'): StatefulSet => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: {name, namespace},
  spec,
})
const template = (labels: Record<string, string>) => ({metadata: {labels}})

/** 3 zones x 2 nodes, `per` ready endpoints per zone, pods named <svc>-0, <svc>-1, ... (zone by zone). */
function cluster(svcName: string, per: [number, number, number]): ClusterState {
  const s = rowToClusterState({name: 't', zones: per.map((n, i) => ({name: `zone-${'abc'[i]}`, nodes: 2, endpoints: n}))}, svcName)
  let i = 0
  for (const sl of s.endpointSlices) for (const e of sl.endpoints ?? []) e.targetRef = {kind: 'Pod', name: `${svcName}-${i++}`, namespace: 'default'}
  s.services[0]!.spec = {...s.services[0]!.spec, selector: {app: svcName}}
  return s
}

describe('the workload behind a Service', () => {
  const st = cluster('web', [3, 3, 3])
  const svc = st.services[0]!
  it("matches pod template labels against the selector, in the Service's namespace, sorted by kind then name", () => {
    st.deployments = [
      deployment('web-canary', {template: template({app: 'web', track: 'canary'})}),
      deployment('web', {template: template({app: 'web'})}),
      deployment('other', {template: template({app: 'other'})}),
      deployment('web', {template: template({app: 'web'})}, 'elsewhere'),
    ]
    st.statefulSets = [statefulSet('web-db', {template: template({app: 'web'})})]
    expect(workloadsBehind(st, svc).map((w) => `${w.kind}/${w.metadata.name}`)).toEqual(['Deployment/web', 'Deployment/web-canary', 'StatefulSet/web-db'])
  })
  it('a Service without a selector has no workload behind it; a partial label match is no match', () => {
    const noSelector = {...svc, spec: {...svc.spec, selector: undefined}}
    expect(workloadsBehind(st, noSelector)).toEqual([])
    const twoKeys = {...svc, spec: {...svc.spec, selector: {app: 'web', tier: 'front'}}}
    expect(workloadsBehind(st, twoKeys)).toEqual([])
  })
})

describe('parameters as Kubernetes resolves them', () => {
  it('percentages: maxSurge rounds up, maxUnavailable rounds down (intstr.GetScaledValueFromIntOrPercent)', () => {
    expect(resolveFenceposts('25%', '25%', 10)).toEqual({surge: 3, unavailable: 2})
    expect(resolveFenceposts('25%', '25%', 4)).toEqual({surge: 1, unavailable: 1})
    expect(resolveFenceposts('30%', '30%', 9)).toEqual({surge: 3, unavailable: 2})
    expect(resolveFenceposts(2, 1, 9)).toEqual({surge: 2, unavailable: 1})
    expect(scaledValue('1%', 1, true)).toBe(1)
    expect(scaledValue('99%', 1, false)).toBe(0)
  })
  it('both rounding to 0 gives maxUnavailable 1 (ResolveFenceposts); both written as 0 is invalid', () => {
    expect(resolveFenceposts(0, '10%', 5)).toEqual({surge: 0, unavailable: 1})
    expect(deploymentParamsProblem(0, '10%')).toBeNull()
    expect(deploymentParamsProblem(0, 0)).toMatch(/cannot both be 0/)
    expect(deploymentParamsProblem('0%', '0')).toMatch(/cannot both be 0/)
    expect(deploymentParamsProblem('25%', '101%')).toMatch(/maxUnavailable must not be greater than 100%/)
    expect(deploymentParamsProblem('150%', 0)).toBeNull()
    expect(deploymentParamsProblem('lots', 0)).toMatch(/maxSurge must be an integer or a percentage/)
    expect(deploymentParamsProblem(-1, 0)).toMatch(/maxSurge must be a non-negative integer/)
  })
  it('StatefulSet maxUnavailable rounds down, at least 1; 0 is invalid', () => {
    expect(statefulSetMaxUnavailable('50%', 5)).toBe(2)
    expect(statefulSetMaxUnavailable('10%', 5)).toBe(1)
    expect(statefulSetMaxUnavailable(3, 5)).toBe(3)
    expect(statefulSetParamsProblem(0, 0)).toMatch(/greater than 0/)
    expect(statefulSetParamsProblem(0, '0%')).toMatch(/greater than 0/)
    expect(statefulSetParamsProblem(-1, 1)).toMatch(/partition/)
    expect(statefulSetParamsProblem(2, '100%')).toBeNull()
  })
  it('defaults of the API: Deployment replicas 1, RollingUpdate 25%/25%; StatefulSet partition 0, maxUnavailable 1', () => {
    expect(rolloutSpecOf(deployment('d', {}))).toEqual({kind: 'Deployment', type: 'RollingUpdate', replicas: 1, maxSurge: '25%', maxUnavailable: '25%'})
    expect(rolloutSpecOf(deployment('d', {replicas: 6, strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 2}}}))).toEqual({
      kind: 'Deployment',
      type: 'RollingUpdate',
      replicas: 6,
      maxSurge: 2,
      maxUnavailable: '25%',
    })
    expect(rolloutSpecOf(deployment('d', {replicas: 6, strategy: {type: 'Recreate'}}))).toEqual({kind: 'Deployment', type: 'Recreate', replicas: 6})
    expect(rolloutSpecOf(statefulSet('s', {replicas: 5}))).toEqual({kind: 'StatefulSet', type: 'RollingUpdate', name: 's', replicas: 5, partition: 0, maxUnavailable: 1})
    expect(rolloutSpecOf(statefulSet('s', {replicas: 5, updateStrategy: {type: 'OnDelete'}}))).toEqual({kind: 'StatefulSet', type: 'OnDelete', name: 's', replicas: 5})
    expect(() => rolloutSpecOf(deployment('d', {strategy: {type: 'BlueGreen'}}))).toThrow(/unknown strategy type "BlueGreen"/)
  })
  it('--rollout keys override the workload; keys that do not apply are refused', () => {
    const d = rolloutSpecOf(deployment('d', {replicas: 6, strategy: {rollingUpdate: {maxSurge: 2, maxUnavailable: 0}}}))
    expect(withOverrides(d, {maxUnavailable: 1})).toEqual({kind: 'Deployment', type: 'RollingUpdate', replicas: 6, maxSurge: 2, maxUnavailable: 1})
    expect(withOverrides(d, {type: 'Recreate'})).toEqual({kind: 'Deployment', type: 'Recreate', replicas: 6})
    expect(withOverrides(null, {maxSurge: 1})).toEqual({kind: 'Deployment', type: 'RollingUpdate', maxSurge: 1, maxUnavailable: '25%'})
    expect(() => withOverrides(d, {partition: 1})).toThrow(RolloutSpecError)
    expect(() => withOverrides(d, {maxSurge: 0})).toThrow(/cannot both be 0/)
    const s = rolloutSpecOf(statefulSet('s', {replicas: 5}))
    expect(withOverrides(s, {partition: 3, maxUnavailable: 2})).toEqual({kind: 'StatefulSet', type: 'RollingUpdate', name: 's', replicas: 5, partition: 3, maxUnavailable: 2})
    expect(() => withOverrides(s, {maxSurge: 1})).toThrow(/does not surge/)
    expect(() => withOverrides(s, {type: 'Recreate'})).toThrow(/RollingUpdate or OnDelete/)
  })
  it('the plan states what the controller will use', () => {
    const p = planOf({kind: 'Deployment', type: 'RollingUpdate', replicas: 10, maxSurge: '25%', maxUnavailable: '25%'}, 9, {
      workload: {kind: 'Deployment', name: 'web'},
      overridden: [],
    })
    expect(p).toMatchObject({source: 'workload', replicas: 10, resolved: {maxSurge: 3, maxUnavailable: 2}, notes: []})
    const flag = planOf({kind: 'Deployment', type: 'RollingUpdate', maxSurge: 0, maxUnavailable: '10%'}, 5, {workload: null, overridden: []})
    expect(flag).toMatchObject({source: 'flag', replicas: 5, resolved: {maxSurge: 0, maxUnavailable: 1}})
    expect(flag.notes[0]).toMatch(/round to 0/)
    const sts = planOf({kind: 'StatefulSet', type: 'RollingUpdate', name: 's', replicas: 6, partition: 0, maxUnavailable: '50%'}, 6, {
      workload: {kind: 'StatefulSet', name: 's'},
      overridden: [],
    })
    expect(sts).toMatchObject({maxSurge: null, partition: 0, resolved: {maxSurge: 0, maxUnavailable: 3}})
    expect(sts.notes[0]).toMatch(/MaxUnavailableStatefulSet feature gate/)
    expect(planOf({kind: 'StatefulSet', type: 'RollingUpdate', name: 's', replicas: 6, partition: 0, maxUnavailable: 1}, 6, {workload: null, overridden: []}).notes).toEqual([])
  })
})

describe('rollout steps', () => {
  const st = cluster('db', [2, 2, 2])
  const svc = st.services[0]!
  const readyByZone = (s: ClusterState) => {
    const out: Record<string, number> = {}
    for (const sl of s.endpointSlices) for (const e of sl.endpoints ?? []) if (e.conditions?.ready) out[e.zone!] = (out[e.zone!] ?? 0) + 1
    return out
  }
  it('a Deployment spec and the flag-only form give the same steps', () => {
    const a = rollout(st, svc, {kind: 'Deployment', type: 'RollingUpdate', replicas: 6, maxSurge: 1, maxUnavailable: 0})
    const b = rollout(st, svc, {maxSurge: 1, maxUnavailable: 0})
    expect(a.map((x) => [x.action, x.oldPods, x.newReady, x.newNotReady])).toEqual(b.map((x) => [x.action, x.oldPods, x.newReady, x.newNotReady]))
    expect(a.at(-1)).toMatchObject({oldPods: 0, newReady: 6})
  })
  it('maxUnavailable 2 (surge 0): two old pods go first, never fewer than replicas - 2 ready', () => {
    const steps = rollout(st, svc, {kind: 'Deployment', type: 'RollingUpdate', replicas: 6, maxSurge: 0, maxUnavailable: 2})
    expect(steps[1]!.action).toBe('delete 2 old pod(s)')
    for (const x of steps) expect(x.oldPods + x.newReady).toBeGreaterThanOrEqual(4)
    for (const x of steps) expect(x.oldPods + x.newReady + x.newNotReady).toBeLessThanOrEqual(6)
  })
  it('Recreate: every pod down at once, then all new', () => {
    const steps = rollout(st, svc, {kind: 'Deployment', type: 'Recreate', replicas: 6})
    expect(steps.map((x) => [x.action, x.oldPods, x.newReady, x.newNotReady])).toEqual([
      ['start', 6, 0, 0],
      ['delete 6 old pod(s) (Recreate)', 0, 0, 0],
      ['create 6 new pod(s) (not ready)', 0, 0, 6],
      ['6 new pod(s) become ready', 0, 6, 0],
    ])
    const evaluated = evaluateSteps(steps, svc, {strategies: ['Auto']})
    expect(evaluated[1]!.readyByZone).toEqual({'zone-a': 0, 'zone-b': 0, 'zone-c': 0})
    expect(evaluated[1]!.hints).toBe('refused')
    expect(evaluated[3]!.readyByZone).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
  })
  it('StatefulSet: highest ordinal first, maxUnavailable at a time, the pod comes back in its zone', () => {
    const steps = rollout(st, svc, {kind: 'StatefulSet', type: 'RollingUpdate', name: 'db', replicas: 6, partition: 0, maxUnavailable: 2})
    expect(steps.map((x) => x.action)).toEqual([
      'start',
      'recreate db-5, db-4 (not ready)',
      'db-5, db-4 become ready',
      'recreate db-3, db-2 (not ready)',
      'db-3, db-2 become ready',
      'recreate db-1, db-0 (not ready)',
      'db-1, db-0 become ready',
    ])
    // db-4 and db-5 run in zone-c: it has no ready endpoint while they are recreated
    expect(readyByZone(steps[1]!.state)).toEqual({'zone-a': 2, 'zone-b': 2})
    expect(readyByZone(steps[2]!.state)).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
    expect(steps.at(-1)).toMatchObject({oldPods: 0, newReady: 6, newNotReady: 0})
  })
  it('StatefulSet partition: ordinals below it are left alone; by default one pod at a time', () => {
    const steps = rollout(st, svc, {kind: 'StatefulSet', type: 'RollingUpdate', name: 'db', replicas: 6, partition: 4, maxUnavailable: 1})
    expect(steps.map((x) => x.action)).toEqual(['start', 'recreate db-5 (not ready)', 'db-5 becomes ready', 'recreate db-4 (not ready)', 'db-4 becomes ready'])
    expect(steps.at(-1)).toMatchObject({oldPods: 4, newReady: 2})
  })
  it('StatefulSet OnDelete: the start only', () => {
    const steps = rollout(st, svc, {kind: 'StatefulSet', type: 'OnDelete', name: 'db', replicas: 6})
    expect(steps).toHaveLength(1)
    expect(steps[0]!.action).toMatch(/OnDelete/)
  })
  it("podsOf: with other workloads behind the Service, only the pods named as this one's are replaced", () => {
    const mixed = structuredClone(st)
    const eps = mixed.endpointSlices[0]!.endpoints!
    eps.forEach((e, i) => (e.targetRef = {kind: 'Pod', name: i < 4 ? `api-5c6d7e8f9-p${i}xyz` : `api-canary-6b7c8d9e-p${i}xyz`}))
    const steps = rollout(mixed, svc, {kind: 'Deployment', type: 'Recreate', replicas: 2, podsOf: {kind: 'Deployment', name: 'api-canary'}})
    expect(steps.map((x) => [x.action, x.oldPods])).toEqual([
      ['start', 2],
      ['delete 2 old pod(s) (Recreate)', 0],
      ['create 2 new pod(s) (not ready)', 0],
      ['2 new pod(s) become ready', 0],
    ])
    expect(readyByZone(steps[1]!.state)).toEqual({'zone-a': 2, 'zone-b': 2})
  })
  it("deletions spread over the zones (the controller's random tie-break), not down one zone", () => {
    const steps = rollout(cluster('web', [3, 3, 3]), cluster('web', [3, 3, 3]).services[0]!, {
      kind: 'Deployment',
      type: 'RollingUpdate',
      replicas: 9,
      maxSurge: 0,
      maxUnavailable: 3,
    })
    expect(steps[1]!.action).toBe('delete 3 old pod(s)')
    expect(readyByZone(steps[1]!.state)).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
  })
  it('Nodes unreadable (RBAC): new pods are placed by zone, among the zones the Service ran in', () => {
    const blind = {...structuredClone(st), nodes: [], nodesReadable: false}
    const steps = rollout(blind, svc, {kind: 'StatefulSet', type: 'RollingUpdate', name: 'db', replicas: 6, partition: 0, maxUnavailable: 2})
    // db-4 and db-5 leave zone-c (its only pods) and come back there
    expect(readyByZone(steps[2]!.state)).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
    const d = rollout(blind, svc, {kind: 'Deployment', type: 'Recreate', replicas: 6})
    expect(readyByZone(d.at(-1)!.state)).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
    expect(() => rollout({...blind, nodesReadable: true}, svc, {kind: 'Deployment', type: 'Recreate', replicas: 6})).toThrow(/no schedulable Ready node/)
  })
  it('invalid parameters are refused by the stepper too', () => {
    expect(() => rollout(st, svc, {maxSurge: 0, maxUnavailable: '0%'})).toThrow(WhatIfError)
    expect(() => rollout(st, svc, {kind: 'StatefulSet', type: 'RollingUpdate', name: 'db', partition: 0, maxUnavailable: 0})).toThrow(/greater than 0/)
  })
})
