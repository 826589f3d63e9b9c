// The plan engine on literal clusters: placement over the range, Auto's refusals (4/4/3 over
// three equal zones, kubernetes/kubernetes#122437), the HPA's range and minReplicas advice,
// rollout steps, zone loss, the PDB's disruption, cost arithmetic, and agreement with explain.
import {describe, expect, it} from 'vitest'
import {allowedDisruptions, plan, planService, statesOverRange, withMode} from '../../src/plan/plan.js'
import {explain} from '../../src/explain/report.js'
import {explainAdvised} from '../../src/advise/report.js'
import {nodesIn, service, slice, spread, state} from './builders.js'
import type {Deployment, HorizontalPodAutoscaler, PodDisruptionBudget} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'

const ZONES = ['a', 'b', 'c']
function deployment(replicas: number, opts: {spread?: boolean} = {}): Deployment {
  return {
    metadata: {name: 'web', namespace: 'default'},
    spec: {
      replicas,
      template: {
        metadata: {labels: {app: 'web'}},
        ...(opts.spread ? {spec: {topologySpreadConstraints: [{maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule'}]}} : {}),
      },
    },
  }
}
const hpa = (min: number, max: number): HorizontalPodAutoscaler => ({
  metadata: {name: 'web', namespace: 'default'},
  spec: {scaleTargetRef: {kind: 'Deployment', name: 'web'}, minReplicas: min, maxReplicas: max},
})

function cluster(
  counts: Record<string, number>,
  extra: Partial<ClusterState> = {},
  annotations: Record<string, string> = {'service.kubernetes.io/topology-mode': 'Auto'},
): ClusterState {
  const svc = service('web', {annotations})
  const n = Object.values(counts).reduce((a, b) => a + b, 0)
  return {...state(nodesIn(ZONES, 2), [svc], [slice('web', spread(counts))]), deployments: [deployment(n, {spread: true})], ...extra}
}

describe('plan: replica range', () => {
  it('evaluates 1 .. 3x today without an HPA, placing pods zone-balanced from today', () => {
    const st = cluster({a: 2, b: 2, c: 2})
    const p = planService(st, st.services[0]!)
    expect(p.range).toMatchObject({from: 1, to: 18, source: 'default'})
    expect(p.range.rows.map((r) => r.replicas)).toEqual(Array.from({length: 18}, (_, i) => i + 1))
    const seven = p.range.rows.find((r) => r.replicas === 7)!
    expect(Object.values(seven.zones).sort()).toEqual([2, 2, 3])
    for (const r of p.range.rows)
      expect(Math.max(...Object.values(r.zones)) - Math.min(...Object.values(r.zones), ...(Object.keys(r.zones).length < 3 ? [0] : []))).toBeLessThanOrEqual(1)
  })

  it('Auto refuses 11 = 4/4/3 over three equal zones and accepts 12 (kubernetes#122437)', () => {
    const st = cluster({a: 4, b: 4, c: 3})
    const p = planService(st, st.services[0]!)
    const row = (n: number) => p.range.rows.find((r) => r.replicas === n)!
    expect(row(11).modes.Auto!.hints).toBe(false)
    expect(row(12).modes.Auto!.hints).toBe(true)
    expect(row(12).modes.Auto!.inZone).toBeCloseTo(1, 9)
    expect(row(11).modes.PreferSameZone!.hints).toBe(true)
    // PreferSameZone with 4/4/3 and equal traffic: the zone with 3 endpoints serves 1/3 of the traffic
    expect(row(11).modes.PreferSameZone!.maxOverload).toBeCloseTo((1 / 3 / 3) * 11 - 1, 9)
  })

  it('every figure equals explain on the same cluster scaled to that count', () => {
    const st = cluster({a: 3, b: 2, c: 2})
    const svc = st.services[0]!
    const p = planService(st, svc)
    const states = statesOverRange(st, svc, 1, 21)
    for (const row of p.range.rows) {
      const s = states.get(row.replicas)!
      for (const mode of ['Auto', 'PreferSameZone'] as const) {
        const m = withMode(svc, mode)
        const e = explain({...s, services: [m]}, [m], {prediction: 'fresh'}).services[0]!
        expect(row.modes[mode]!.hints).toBe(e.controller.hintsSet)
        expect(row.modes[mode]!.inZone).toBe(e.traffic.inZoneSharePredicted)
        expect(row.modes[mode]!.maxOverload).toBe(e.traffic.maxEndpointOverloadPredicted)
      }
    }
  })

  it('follows the HPA: min..max, and advises the minReplicas from which Auto always keeps hints', () => {
    const st = cluster({a: 4, b: 4, c: 4}, {horizontalPodAutoscalers: [hpa(2, 20)]})
    const p = planService(st, st.services[0]!)
    expect(p.workload?.hpa).toEqual({name: 'web', minReplicas: 2, maxReplicas: 20})
    expect(p.range).toMatchObject({from: 2, to: 20, source: 'hpa'})
    const refused = p.range.rows.filter((r) => !r.modes.Auto!.hints).map((r) => r.replicas)
    expect(refused.length).toBeGreaterThan(0)
    const rec = p.extended
    expect(rec.mode).toBe('Auto')
    const min = rec.settings.find((s) => s.kind === 'min-replicas')
    expect(min).toBeDefined()
    for (const r of p.range.rows) if (r.replicas >= Number(min!.value)) expect(r.modes.Auto!.hints).toBe(true)
    expect(rec.commands).toContain(`kubectl patch hpa web -n default --type=merge -p '{"spec":{"minReplicas":${min!.value}}}'`)
  })

  it('a minReplicas equal to the HPA maximum says that autoscaling is then off and how the pods change', () => {
    // 3 equal zones, HPA 3..12 around 6 ready: Auto is refused at 4, 5, 8, 11 and keeps hints only at 12 from the top.
    const st = cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 12)]})
    const p = planService(st, st.services[0]!)
    const rows = p.range.rows.filter((r) => !r.modes.Auto!.hints).map((r) => r.replicas)
    expect(rows).toContain(11)
    expect(p.extended.mode).toBe('Auto')
    const min = p.extended.settings.find((s) => s.kind === 'min-replicas')!
    expect(min.value).toBe('12')
    expect(min.why).toBe("Auto keeps hints only at 12, the HPA's maximum: minReplicas 12 = maxReplicas turns autoscaling off, and the pods go from 6 to 12")
  })
})

describe('plan: rollouts, zone loss, disruption', () => {
  it('steps through the Deployment rollout with maxSurge/maxUnavailable defaults', () => {
    const st = cluster({a: 4, b: 4, c: 4})
    const p = planService(st, st.services[0]!)
    const r = p.rollouts.find((x) => x.at === 'today')!
    expect(r.replicas).toBe(12)
    expect(r.steps[0]!.action).toBe('start')
    expect(r.steps.length).toBeGreaterThan(3)
    // new pods not ready while old ones stay: some step has fewer than 12 ready endpoints
    expect(Math.min(...r.steps.map((s) => s.readyEndpoints))).toBeLessThan(12)
    expect(r.worst.Auto).toBeDefined()
  })

  it('loses each zone, immediately and once rescheduled', () => {
    const st = cluster({a: 4, b: 4, c: 4})
    const p = planService(st, st.services[0]!)
    expect(p.zoneLosses.map((z) => z.zone)).toEqual(['a', 'b', 'c'])
    const lossA = p.zoneLosses[0]!
    expect(lossA.rescheduled).not.toBeNull()
    // 12 pods over two equal zones: Auto accepts 6/6
    expect(lossA.rescheduled!.Auto!.hints).toBe(true)
  })

  it('PDB: allowed disruptions with the disruption controller rounding', () => {
    const pdb = (spec: PodDisruptionBudget['spec']): PodDisruptionBudget => ({metadata: {name: 'p', namespace: 'default'}, spec})
    expect(allowedDisruptions(pdb({minAvailable: '50%'}), 5)).toBe(2)
    expect(allowedDisruptions(pdb({maxUnavailable: '25%'}), 5)).toBe(2)
    expect(allowedDisruptions(pdb({minAvailable: 5}), 5)).toBe(0)
    expect(allowedDisruptions(pdb({maxUnavailable: 1}), 5)).toBe(1)
    const st = cluster(
      {a: 4, b: 4, c: 4},
      {podDisruptionBudgets: [{metadata: {name: 'web', namespace: 'default'}, spec: {selector: {matchLabels: {app: 'web'}}, maxUnavailable: 2}}]},
    )
    const p = planService(st, st.services[0]!)
    expect(p.workload?.pdb).toEqual({name: 'web', allowedDisruptions: 2})
    expect(p.disruption).toMatchObject({evicted: 2, zone: 'a'})
  })
})

describe('plan: recommendation and cost', () => {
  it('recommends and prices: cross-zone share times volume times price', () => {
    const st = cluster({a: 4, b: 4, c: 3}, {}, {})
    const p = planService(st, st.services[0]!, {cost: {volumeBytes: 40 * 2 ** 40, pricePerGiB: 0.01}})
    expect(p.currentMode).toBe('none')
    const none = p.cost.byMode.find((c) => c.mode === 'none')!
    expect(none.crossZoneShare).toBeCloseTo(1 - (4 / 11) * (1 / 3) * 2 - (3 / 11) * (1 / 3), 9)
    expect(none.monthlyCost).toBeCloseTo(40 * 1024 * none.crossZoneShare! * 0.01, 6)
    expect(p.cost.now.monthlyCost).toBe(none.monthlyCost)
    // PreferSameZone overloads zone c's 3 endpoints by 22% (> 20%); Auto refuses 11 but accepts 12
    expect(p.extended.mode).toBe('Auto')
    expect(p.extended.settings.map((s) => [s.kind, s.value])).toEqual([
      ['mode', 'Auto'],
      ['replicas', '12'],
    ])
    expect(p.extended.commands.slice(0, 2)).toEqual(['kubectl topology apply svc/web -n default --mode Auto --yes', 'kubectl scale deployment/web -n default --replicas=12'])
    // At today's count the advisor says the same: switch to Auto, then scale to 12 (explain's object).
    expect(p.recommendation.recommended).toBe('Auto')
    expect(p.recommendation.steps.map((x) => x.command)).toEqual([
      'kubectl topology apply svc/web -n default --mode Auto --yes',
      'kubectl scale deployment/web -n default --replicas=12',
    ])
    expect(p.recommendation).toEqual(explainAdvised(st, st.services).services[0]!.recommendation)
  })

  it('with a 0% bound only none stays within it, and the why names each mode above it with the number and where', () => {
    // No workload behind the Service: today's count only (the range is shown, not judged).
    const st = state(nodesIn(ZONES, 2), [service('web')], [slice('web', spread({a: 1, b: 5, c: 5}))])
    const p = planService(st, st.services[0]!, {maxOverload: 0})
    expect(p.extended.mode).toBe('none')
    expect(p.extended.why).toContain(
      "Auto: 33% in-zone at today's 11 replicas; worst overload 10% when a is lost at 11 replicas and its pods run again elsewhere (above 0%), hints refused at 1 count(s) (11)",
    )
    expect(p.extended.meetsBound).toBe(true)
    expect(p.extended.why).toContain("PreferSameZone: 100% in-zone at today's 11 replicas; worst overload 266.7% at 11 replicas (above 0%)")
    expect(p.recommendation.recommended).toBe('none')
    expect(p.recommendation.reasons).toContain('PreferSameZone: 100% in-zone, but a overloaded by 266.7% (above the 0% bound)')
  })

  it("when the extended verdict differs from today's recommendation, it says both and why", () => {
    // Auto refused at 11 (4/4/3), no workload: today keep Auto (33%, like none); over the zone losses Auto reaches 16.7%.
    const st = state(nodesIn(ZONES, 2), [service('web', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})], [slice('web', spread({a: 4, b: 4, c: 3}))])
    const p = planService(st, st.services[0]!)
    expect(p.recommendation.recommended).toBe('Auto')
    expect(p.extended.mode).toBe('none')
    expect(p.extended.differsFromToday).toBe(
      "at today's count the advice is Auto; over the range, rollouts and zone losses none has the same in-zone share (33%) and a lower worst overload (0% against 16.7% when a is lost at 11 replicas)",
    )
  })

  it('the bound is inclusive: an overload exactly at it is within (two zones, 5 and 7 endpoints: +20% in a)', () => {
    const st = {...state(nodesIn(['a', 'b'], 1), [service('web')], [slice('web', spread({a: 5, b: 7}))])}
    const p = planService(st, st.services[0]!)
    expect(p.range.rows.find((r) => r.replicas === 12)!.modes.PreferSameZone!.maxOverload).toBeCloseTo(0.2, 12)
    expect(p.extended.mode).toBe('PreferSameZone')
    expect(p.extended.why).toContain("PreferSameZone: 100% in-zone at today's 12 replicas; worst overload 20% at 12 replicas (within 20%)")
    expect(p.recommendation.recommended).toBe('PreferSameZone')
    // Just below it: Auto (92% in-zone, 0%) ranks first.
    expect(planService(st, st.services[0]!, {maxOverload: 0.19}).extended.mode).toBe('Auto')
  })

  it('without a DoNotSchedule zone constraint, proposes one', () => {
    const st = {...cluster({a: 2, b: 2, c: 2}), deployments: [deployment(6)]}
    const p = planService(st, st.services[0]!)
    const s = p.extended.settings.find((x) => x.kind === 'zone-spread')
    expect(s).toBeDefined()
    expect(p.extended.commands.some((c) => c.includes('topologySpreadConstraints'))).toBe(true)
  })

  it('is deterministic and modes follow the version', () => {
    const st = cluster({a: 2, b: 2, c: 2})
    expect(JSON.stringify(plan(st, st.services))).toBe(JSON.stringify(plan(st, st.services)))
    expect(plan(st, st.services, {kubeVersion: '1.30'}).services[0]!.modes).toEqual(['Auto', 'none'])
    expect(plan(st, st.services, {kubeVersion: '1.32'}).services[0]!.modes).toEqual(['Auto', 'PreferClose', 'none'])
    expect(plan(st, st.services, {kubeVersion: '1.35'}).services[0]!.modes).toEqual(['Auto', 'PreferSameZone', 'PreferSameNode', 'none'])
  })
})

describe('plan: JSON schema', () => {
  it('real reports validate against schema/plan.v1.json', async () => {
    const {default: Ajv2020} = await import('ajv/dist/2020.js')
    const {readFileSync} = await import('node:fs')
    const schema = JSON.parse(readFileSync(new URL('../../schema/plan.v1.json', import.meta.url), 'utf8'))
    const validate = new Ajv2020.default({allErrors: true, strict: true}).compile(schema)
    const pdb: PodDisruptionBudget = {metadata: {name: 'web', namespace: 'default'}, spec: {selector: {matchLabels: {app: 'web'}}, maxUnavailable: 1}}
    for (const st of [cluster({a: 4, b: 4, c: 3}), cluster({a: 2, b: 2, c: 2}, {horizontalPodAutoscalers: [hpa(3, 9)], podDisruptionBudgets: [pdb]}), cluster({a: 1}, {}, {})]) {
      const report = JSON.parse(JSON.stringify(plan(st, st.services, {cost: {volumeBytes: 2 ** 40, pricePerGiB: 0.02}})))
      expect(validate(report), JSON.stringify(validate.errors)).toBe(true)
    }
  })
})

describe('plan: property over random clusters', () => {
  it("Auto's verdict at every count equals explain's on the scaled cluster and the controller's arithmetic (getAllocations)", async () => {
    const fc = await import('fast-check')
    const {setNodes} = await import('../../src/upstream/endpointslice/topologycache/topologycache.js')
    const {getAllocations} = await import('../../src/upstream/endpointslice/topologycache/topologycache.js')
    const {node} = await import('./builders.js')
    const arb = fc.record({
      zones: fc.array(fc.record({nodes: fc.integer({min: 1, max: 3}), cpu: fc.constantFrom('2', '4', '8', '1500m'), pods: fc.integer({min: 0, max: 6})}), {
        minLength: 2,
        maxLength: 4,
      }),
      hpa: fc.option(fc.record({min: fc.integer({min: 1, max: 5}), span: fc.integer({min: 0, max: 12})}), {nil: undefined}),
    })
    fc.assert(
      fc.property(arb, ({zones, hpa: h}) => {
        const names = zones.map((_, i) => `z${i}`)
        const nodes = zones.flatMap((z, i) => Array.from({length: z.nodes}, (_, k) => node(`z${i}-${k}`, names[i]!, {cpu: z.cpu})))
        const counts = Object.fromEntries(zones.map((z, i) => [names[i]!, z.pods]).filter(([, n]) => (n as number) > 0))
        const svc = service('web', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
        const eps = spread(counts).map((e, i) => ({...e, nodeName: `${e.zone}-${i % zones[names.indexOf(e.zone as string)]!.nodes}`}))
        const st: ClusterState = {
          ...state(nodes, [svc], [slice('web', eps)]),
          deployments: [deployment(eps.length, {spread: true})],
          ...(h ? {horizontalPodAutoscalers: [hpa(h.min, h.min + h.span)]} : {}),
        }
        const p = planService(st, svc)
        const states = statesOverRange(st, svc, Math.min(p.range.from, eps.length), Math.max(p.range.to, eps.length))
        const ratios = setNodes(nodes).cpuRatiosByZone
        for (const row of p.range.rows) {
          const s = states.get(row.replicas)!
          const e = explain({...s, services: [svc]}, [svc], {prediction: 'fresh'}).services[0]!
          expect(row.modes.Auto!.hints).toBe(e.controller.hintsSet)
          expect(row.modes.Auto!.inZone).toBe(e.traffic.inZoneSharePredicted)
          expect(row.modes.Auto!.hints).toBe(ratios !== null && getAllocations(row.replicas, ratios).ok)
          expect(Object.values(row.zones).reduce((a, b) => a + b, 0)).toBe(row.replicas)
        }
      }),
      {numRuns: 40, seed: 7},
    )
  })
})

describe('plan: the same findings as explain, check and watch', () => {
  it('internalTrafficPolicy Local with Auto: the lint finding is in the plan', () => {
    const st = cluster({a: 2, b: 2, c: 2})
    st.services[0]!.spec!.internalTrafficPolicy = 'Local'
    const p = planService(st, st.services[0]!)
    expect(p.lint.map((l) => l.rule)).toEqual(['internal-traffic-policy-local'])
    expect(p.lint).toEqual(explain(st, st.services).services[0]!.lint)
  })
})
