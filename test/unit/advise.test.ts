// The advisor (src/advise/advisor.ts) at its edges: two zones and four, an overload exactly at
// the bound, a data plane without fallback, the commands it prints, names it must not print.
import {describe, expect, it} from 'vitest'
import {adviseService, keepsWhatIsThere, modesFor, withinBound} from '../../src/advise/advisor.js'
import {modePatch} from '../../src/advise/commands.js'
import {desiredFields, topologyFieldsOf, withFields} from '../../src/apply/plan.js'
import {serviceMode} from '../../src/explain/mode.js'
import {features} from '../../src/upstream/features.js'
import {DEFAULT_MAX_OVERLOAD} from '../../src/advise/types.js'
import type {DataPlane} from '../../src/dataplane/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const auto = {'service.kubernetes.io/topology-mode': 'Auto'}

function one(zones: string[], counts: Record<string, number>, opts: Parameters<typeof service>[1] = {}, hinted = false): ClusterState {
  return state(nodesIn(zones, 1), [service('web', opts)], [slice('web', spread(counts, hinted))])
}
const advise = (st: ClusterState, o: Parameters<typeof adviseService>[2] = {}) => adviseService(st, st.services[0]!, {kubeVersion: '1.36', ...o})

describe('advisor: ranking', () => {
  it('the default bound is 20%', () => {
    expect(DEFAULT_MAX_OVERLOAD).toBe(0.2)
    expect(advise(one(['a', 'b'], {a: 1, b: 1})).bound).toBe(0.2)
  })

  it('two zones: a Service without topology gets PreferSameZone (advice is not switched off for two zones)', () => {
    const r = advise(one(['a', 'b'], {a: 2, b: 2}))
    expect(r.current).toBe('none')
    expect(r.recommended).toBe('PreferSameZone')
    expect(r.options.map((o) => o.mode)).toEqual(['Auto', 'PreferSameZone', 'PreferSameNode', 'none'])
    expect(r.options.find((o) => o.mode === 'none')!.inZone).toBeCloseTo(0.5)
    expect(r.steps).toHaveLength(1)
    expect(r.steps[0]!.command).toBe('kubectl topology apply svc/web -n default --mode PreferSameZone --yes')
    expect(r.steps[0]!.expect).toEqual({mode: 'PreferSameZone', hints: true, inZone: 1})
    expect(keepsWhatIsThere(r)).toBe(false)
  })

  it('two zones, 3/1 with PreferSameZone: +100% in b is above the bound, the Service always gets a step', () => {
    const r = advise(one(['a', 'b'], {a: 3, b: 1}, {trafficDistribution: 'PreferSameZone'}, true))
    expect(r.predicted.worstOverload).toBeCloseTo(1)
    expect(r.predicted.worstZone).toBe('b')
    expect(r.recommended).not.toBe('PreferSameZone')
    expect(r.steps.length).toBeGreaterThan(0)
    expect(r.reasons).toContain('PreferSameZone after the next sync: b overloaded by 100% (above the 20% bound)')
    expect(r.reasons).toContain('PreferSameZone: 100% in-zone, but b overloaded by 100% (above the 20% bound)')
  })

  it('four zones: 2/2/2/2 without topology gets PreferSameZone; 3/3/3/1 with it is 150% over in d', () => {
    const z = ['a', 'b', 'c', 'd']
    const even = advise(one(z, {a: 2, b: 2, c: 2, d: 2}))
    expect(even.recommended).toBe('PreferSameZone')
    expect(even.options.find((o) => o.mode === 'none')!.inZone).toBeCloseTo(0.25)
    const skew = advise(one(z, {a: 3, b: 3, c: 3, d: 1}, {trafficDistribution: 'PreferSameZone'}, true))
    expect(skew.predicted.worstOverload).toBeCloseTo(1.5)
    expect(skew.predicted.worstZone).toBe('d')
    expect(skew.recommended).not.toBe('PreferSameZone')
    expect(skew.steps).toHaveLength(1)
  })

  it('an overload exactly at the bound is within it (inclusive); just below the bound it is not', () => {
    // Two equal zones, 5 and 7 endpoints: zone a's endpoints carry 0.5 / 5 x 12 = 1.2, +20%.
    const st = one(['a', 'b'], {a: 5, b: 7})
    const at = advise(st)
    const psz = at.options.find((o) => o.mode === 'PreferSameZone')!
    expect(psz.worstOverload).toBeCloseTo(0.2, 12)
    expect(psz.withinBound).toBe(true)
    expect(at.recommended).toBe('PreferSameZone')
    expect(at.meetsBound).toBe(true)
    const below = advise(st, {maxOverload: 0.19})
    expect(below.options.find((o) => o.mode === 'PreferSameZone')!.withinBound).toBe(false)
    expect(below.recommended).not.toBe('PreferSameZone')
    expect(below.reasons).toContain('PreferSameZone: 100% in-zone, but a overloaded by 20% (above the 19% bound)')
    expect(withinBound(0.2 + 1e-12, 0.2)).toBe(true)
    expect(withinBound(0.2 + 1e-6, 0.2)).toBe(false)
  })

  it('ties: lower overload, then the current mode, then the fixed order', () => {
    // Every mode with hints gives 100% and 0%: PreferSameNode is kept when it is the current one...
    const kept = advise(one(['a', 'b'], {a: 2, b: 2}, {trafficDistribution: 'PreferSameNode'}, true))
    expect(kept.recommended).toBe('PreferSameNode')
    expect(kept.steps).toEqual([])
    expect(keepsWhatIsThere(kept)).toBe(true)
    // ...and from none, PreferSameZone comes first in the fixed order.
    expect(advise(one(['a', 'b'], {a: 2, b: 2})).recommended).toBe('PreferSameZone')
  })
})

describe('advisor: versions and commands', () => {
  it('the modes follow the API server: 1.30 Auto only, 1.31-1.33 PreferClose, 1.34+ PreferSameZone and PreferSameNode', () => {
    expect(modesFor('1.30')).toEqual(['Auto', 'none'])
    expect(modesFor('1.33')).toEqual(['Auto', 'PreferClose', 'none'])
    expect(modesFor('1.36')).toEqual(['Auto', 'PreferSameZone', 'PreferSameNode', 'none'])
    const r = advise(one(['a', 'b'], {a: 2, b: 2}), {kubeVersion: '1.32'})
    expect(r.recommended).toBe('PreferClose')
    expect(r.steps[0]!.alternative).toBe(`kubectl patch service web -n default --type=merge -p '{"spec":{"trafficDistribution":"PreferClose"}}'`)
    expect(advise(one(['a', 'b'], {a: 2, b: 2}), {kubeVersion: '1.30'}).recommended).toBe('Auto')
  })

  it('switching an Auto Service to trafficDistribution removes the annotation (it wins over the field)', () => {
    const st = one(['a', 'b', 'c'], {a: 4, b: 4, c: 3}, {annotations: auto})
    expect(modePatch(st.services[0]!, 'PreferSameZone')).toEqual({
      metadata: {annotations: {'service.kubernetes.io/topology-mode': null}},
      spec: {trafficDistribution: 'PreferSameZone'},
    })
    // Both set: the annotation still wins, so PreferSameZone is not yet what the controller does.
    const both = one(['a', 'b'], {a: 2, b: 2}, {annotations: auto, trafficDistribution: 'PreferSameZone'})
    expect(modePatch(both.services[0]!, 'PreferSameZone')).toEqual({metadata: {annotations: {'service.kubernetes.io/topology-mode': null}}})
  })

  it('switching a trafficDistribution Service to Auto clears the field too: following the advice leaves no lint', () => {
    // catalog in examples/three-zones.yaml: PreferSameZone with 3/2/1 endpoints on equal zones.
    const st = one(['a', 'b', 'c'], {a: 3, b: 2, c: 1}, {trafficDistribution: 'PreferSameZone'}, true)
    const svc = st.services[0]!
    expect(modePatch(svc, 'Auto')).toEqual({
      metadata: {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}},
      spec: {trafficDistribution: null},
    })
    const r = advise(st)
    expect(r.recommended).toBe('Auto')
    expect(r.steps[0]!.alternative).toBe(
      `kubectl patch service web -n default --type=merge -p '{"metadata":{"annotations":{"service.kubernetes.io/topology-mode":"Auto"}},"spec":{"trafficDistribution":null}}'`,
    )
    // The Service as apply --mode Auto (and the patch) leaves it: no annotation-overrides-traffic-distribution,
    // and the advisor then sees the mode its step promised.
    const after = withFields(svc, desiredFields(topologyFieldsOf(svc), 'Auto').fields)
    expect(after.spec?.trafficDistribution).toBeUndefined()
    expect(serviceMode(after, features('1.36')).warnings.map((w) => w.rule)).toEqual([])
    const followed = advise({...st, services: [after]})
    expect(followed.current).toBe(r.steps[0]!.expect.mode)
  })

  it('none is `apply --mode none` (never reset), and its patch clears the annotation and the field', () => {
    const st = one(['a', 'b'], {a: 3, b: 1}, {annotations: auto, trafficDistribution: 'PreferSameZone'}, true)
    expect(modePatch(st.services[0]!, 'none')).toEqual({
      metadata: {annotations: {'service.kubernetes.io/topology-mode': null}},
      spec: {trafficDistribution: null},
    })
    const r = advise(one(['a', 'b'], {a: 3, b: 1}, {trafficDistribution: 'PreferSameZone'}, true), {kubeVersion: '1.30'})
    // At 1.30 the field is dropped: the Service has no topology, nothing to change.
    expect(r.current).toBe('none')
    for (const s of advise(one(['a', 'b'], {a: 3, b: 1}, {trafficDistribution: 'PreferSameZone'}, true)).steps) expect(s.command).not.toContain('reset')
  })

  it('a name the API server would refuse gets no command, and a reason says so', () => {
    const st = one(['a', 'b'], {a: 2, b: 2}, {namespace: 'Bad_NS'})
    st.endpointSlices[0]!.metadata.namespace = 'Bad_NS'
    const r = advise(st)
    expect(r.recommended).toBe('PreferSameZone')
    expect(r.steps).toEqual([])
    expect(r.reasons.some((x) => x.startsWith('no command printed: the Namespace name is not valid'))).toBe(true)
  })

  it('Auto refused today with a Deployment behind it: keep Auto and scale to a count the controller accepts', () => {
    const st = one(['a', 'b', 'c'], {a: 4, b: 4, c: 3}, {annotations: auto})
    st.deployments = [
      {
        metadata: {name: 'web', namespace: 'default'},
        spec: {replicas: 11, selector: {matchLabels: {app: 'web'}}, template: {metadata: {labels: {app: 'web'}}}},
      } as NonNullable<ClusterState['deployments']>[number],
    ]
    const r = advise(st)
    expect(r.options.find((o) => o.mode === 'Auto')!.hints).toBe(false)
    expect(r.scaledAuto).not.toBeNull()
    expect(r.recommended).toBe('Auto')
    expect(r.steps).toHaveLength(1)
    expect(r.steps[0]!.command).toBe(`kubectl scale deployment/web -n default --replicas=${r.scaledAuto!.replicas}`)
    expect(r.steps[0]!.expect).toMatchObject({mode: 'Auto', hints: true})
    // Without the Deployment: no scale command, the accepted counts in a reason.
    const bare = advise(one(['a', 'b', 'c'], {a: 4, b: 4, c: 3}, {annotations: auto}))
    expect(bare.scaledAuto).toBeNull()
    expect(bare.steps.some((s) => s.command.includes('scale'))).toBe(false)
    expect(bare.reasons.some((x) => x.startsWith('Auto: hints refused at 11 ready endpoints (the controller accepts'))).toBe(true)
  })
})

describe('advisor: a data plane without fallback', () => {
  // Calico eBPF v3.26-v3.30: each endpoint by its hint alone, no safeguard; zone c has no
  // endpoint hinted for it, so its nodes route nowhere: the in-zone share is over the covered traffic.
  const calico: DataPlane = {
    name: 'calico',
    settings: {},
    honoursZoneHints: true,
    honoursNodeHints: false,
    selection: 'calico-annotation',
    paths: [{traffic: 'pods', by: 'calico', honoursZoneHints: true}],
    alsoFound: [],
    evidence: [],
    source: 'flag',
    warnings: [],
  }
  it('divides the in-zone share by the covered share', () => {
    const st = one(['a', 'b', 'c'], {a: 2, b: 2}, {annotations: auto}, true)
    const r = advise(st, {dataPlane: calico})
    expect(r.now.hints).toBe(true)
    expect(r.now.inZone).toBeCloseTo(1, 9)
    // kube-proxy falls back in c (no hint for its zone): c's traffic goes to every endpoint, 2/3 stays in-zone.
    const kp = advise(st)
    expect(kp.now.fallbackZones).toEqual(['c'])
    expect(kp.now.inZone).toBeCloseTo(2 / 3, 9)
  })
})
