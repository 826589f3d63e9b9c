// Literal cases of explain() for figures the CLI tests do not pin: the traffic estimate,
// the expected overload, the allocation figures of a refused Service, the advice's accepted
// counts, and the events explain reports.
import {describe, expect, it} from 'vitest'
import {allocationFigures, explain, type ServiceExplanation} from '../../src/explain/report.js'
import {acceptedCounts} from '../../src/explain/advice.js'
import {adviseService} from '../../src/advise/advisor.js'
import {setNodes} from '../../src/upstream/endpointslice/topologycache/topologycache.js'
import {ANNOTATION_TOPOLOGY_MODE} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {node, service, slice, spread, state} from './builders.js'

const AUTO = {annotations: {[ANNOTATION_TOPOLOGY_MODE]: 'Auto'}}
const zone = (s: ServiceExplanation, name: string) => s.zones.find((z) => z.name === name)!
const only = (st: ClusterState, opts: Parameters<typeof explain>[2] = {}) => {
  const r = explain(st, st.services, opts)
  expect(r.services).toHaveLength(1)
  return r.services[0]!
}
const EQUAL_RATIOS = setNodes([node('a-0', 'zone-a'), node('b-0', 'zone-b'), node('c-0', 'zone-c')]).cpuRatiosByZone!

describe('traffic estimate (estimateTraffic), by hand', () => {
  // Two zones of equal CPU; PreferSameZone; 1 ready endpoint in zone-a, 2 in zone-b; no live hints.
  const st = state(
    [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b')],
    [service('web', {trafficDistribution: 'PreferSameZone'})],
    [slice('web', spread({'zone-a': 1, 'zone-b': 2}))],
  )

  it('zone CPU shares: live (no hints) sends every zone to all 3; predicted keeps each zone at home', () => {
    const s = only(st)
    expect(s.traffic.model).toBe('zone-cpu')
    // live: 0.5 x 1/3 in zone-a + 0.5 x 2/3 in zone-b; every endpoint gets 1/3 of the load, 3 x 1/3 - 1 = 0
    expect(s.traffic.inZoneShareLive).toBeCloseTo(0.5, 12)
    expect(s.traffic.maxEndpointOverloadLive).toBeCloseTo(0, 12)
    // predicted: all in zone; the zone-a endpoint takes 0.5 of the load: 0.5 x 3 - 1 = 0.5
    expect(s.traffic.inZoneSharePredicted).toBe(1)
    expect(s.traffic.maxEndpointOverloadPredicted).toBeCloseTo(0.5, 12)
    expect(s.zones.map((z) => [z.name, z.kubeProxy.mode, z.kubeProxy.routedEndpoints, z.kubeProxyPredicted.mode, z.kubeProxyPredicted.routedEndpoints])).toEqual([
      ['zone-a', '', 3, 'PreferSameZone', 1],
      ['zone-b', '', 3, 'PreferSameZone', 2],
    ])
  })

  it('--traffic zone-a=3,zone-b=1: shares are normalised to 0.75 / 0.25', () => {
    const s = only(st, {traffic: {'zone-a': 3, 'zone-b': 1}})
    expect(s.traffic.model).toBe('custom')
    expect(s.zones.map((z) => z.trafficShare)).toEqual([0.75, 0.25])
    // live: 0.75 x 1/3 + 0.25 x 2/3
    expect(s.traffic.inZoneShareLive).toBeCloseTo(0.75 / 3 + 0.5 / 3, 12)
    expect(s.traffic.inZoneSharePredicted).toBe(1)
    // predicted: the zone-a endpoint takes 0.75 of the load: 0.75 x 3 - 1 = 1.25
    expect(s.traffic.maxEndpointOverloadPredicted).toBeCloseTo(1.25, 12)
  })

  it('a zone with traffic but no routed endpoint is left out of the shares', () => {
    // All traffic from zone-c, which kube-proxy has no endpoint for: nothing is covered.
    const s = only(st, {traffic: {'zone-c': 1}})
    expect(s.traffic).toMatchObject({model: 'custom', inZoneShareLive: 0, inZoneSharePredicted: 0})
    // zone-c has no node: its zone-wide view still routes (no hint for zone-c: fall back to all).
    expect(s.traffic.maxEndpointOverloadPredicted).toBeCloseTo(0, 12)
  })

  it('no shares (no node with a zone and CPU, no --traffic): no estimate', () => {
    const s = only(state([], st.services, st.endpointSlices))
    expect(s.traffic).toEqual({
      model: 'none',
      inZoneShareLive: null,
      inZoneSharePredicted: null,
      maxEndpointOverloadLive: null,
      maxEndpointOverloadPredicted: null,
      worstZoneLive: null,
      worstZonePredicted: null,
    })
  })
})

describe('expected overload = desired / assigned - 1', () => {
  it('topology-mode Auto, upstream TestAddHints "slices to create and update within 3 zone threshold" (0.35 / 0.35 / 0.30, N = 10)', () => {
    const st = state(
      [node('zone-a-0', 'zone-a', {cpu: '3500m'}), node('zone-b-0', 'zone-b', {cpu: '3500m'}), node('zone-c-0', 'zone-c', {cpu: '3000m'})],
      [service('web', AUTO)],
      [slice('web', spread({'zone-a': 5, 'zone-b': 2, 'zone-c': 3}))],
    )
    const s = only(st)
    expect(s.controller.hintsSet).toBe(true)
    expect(s.zones.map((z) => [z.name, z.readyEndpoints, z.assigned, z.donatedIn, z.donatedOut])).toEqual([
      ['zone-a', 5, 4, 0, 1],
      ['zone-b', 2, 3, 1, 0],
      ['zone-c', 3, 3, 0, 0],
    ])
    for (const z of s.zones) expect(z.expectedOverload).toBe(z.desired! / z.assigned - 1)
    expect(zone(s, 'zone-a').expectedOverload).toBeCloseTo(3.5 / 4 - 1, 12) // -0.125
    expect(zone(s, 'zone-b').expectedOverload).toBeCloseTo(3.5 / 3 - 1, 12) // +0.1667
    expect(zone(s, 'zone-c').expectedOverload).toBeCloseTo(0, 12)
    // The first zone-a endpoint is the one donated.
    expect(s.endpoints.filter((e) => e.donatedTo !== null).map((e) => [e.addresses[0], e.donatedTo])).toEqual([['10.0.0.1', 'zone-b']])
  })

  it('trafficDistribution: desired is the traffic share x N', () => {
    const st = state(
      [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b')],
      [service('web', {trafficDistribution: 'PreferSameZone'})],
      [slice('web', spread({'zone-a': 1, 'zone-b': 2}))],
    )
    const s = only(st)
    expect(s.zones.map((z) => [z.desired, z.assigned, z.expectedOverload])).toEqual([
      [1.5, 1, 0.5],
      [1.5, 2, -0.25],
    ])
    expect(s.zones.every((z) => z.minimum === null && z.maximum === null)).toBe(true)
  })

  it('no predicted hints: no expected overload', () => {
    const st = state([node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b')], [service('web')], [slice('web', spread({'zone-a': 1, 'zone-b': 1}))])
    expect(only(st).zones.map((z) => z.expectedOverload)).toEqual([null, null])
  })
})

describe('allocation figures of a refused Service', () => {
  it('allocationFigures: maximum is null when the minimums exceed N (upstream computes none)', () => {
    const four = allocationFigures(4, EQUAL_RATIOS)
    expect(Object.values(four).map((z) => [z.minimum, z.maximum])).toEqual([
      [2, null],
      [2, null],
      [2, null],
    ])
    const nine = allocationFigures(9, EQUAL_RATIOS)
    expect(Object.values(nine).map((z) => [z.desired, z.minimum, z.target, z.maximum])).toEqual([
      [3, 3, 3, 3],
      [3, 3, 3, 3],
      [3, 3, 3, 3],
    ])
  })

  it('explain shows desired and minimum, and no maximum, for 3 equal zones and N = 11', () => {
    const st = state(
      [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b'), node('zone-c-0', 'zone-c')],
      [service('web', AUTO)],
      [slice('web', spread({'zone-a': 4, 'zone-b': 4, 'zone-c': 3}))],
    )
    const s = only(st)
    expect(s.controller).toMatchObject({
      hintsSet: false,
      reason: 'TopologyAwareHintsDisabled',
      message: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (11 endpoints, 3 zones), addressType: IPv4',
    })
    expect(s.zones.map((z) => [z.minimum, z.maximum, z.assigned, z.expectedOverload])).toEqual([
      [4, null, 0, null],
      [4, null, 0, null],
      [4, null, 0, null],
    ])
    expect(s.zones.every((z) => z.desired === EQUAL_RATIOS[z.name]! * 11)).toBe(true)
    expect(s.findings).toContain('hints-refused')
  })
})

describe('advice: accepted counts', () => {
  it('acceptedCounts: 3 equal zones around 11 -> below 10, 9, 7 (8 is refused), above 12, 13, 14', () => {
    expect(acceptedCounts(11, EQUAL_RATIOS)).toEqual({below: [10, 9, 7], above: [12, 13, 14]})
    expect(acceptedCounts(4, EQUAL_RATIOS)).toEqual({below: [3], above: [6, 7, 9]})
  })

  it("the advisor's reason names the nearest count below and the three above", () => {
    const st = state(
      [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b'), node('zone-c-0', 'zone-c')],
      [service('web', AUTO)],
      [slice('web', spread({'zone-a': 4, 'zone-b': 4, 'zone-c': 3}))],
    )
    const r = adviseService(st, st.services[0]!, {})
    expect(r.reasons).toContain('Auto: hints refused at 11 ready endpoints (the controller accepts 10, 12, 13, 14); 33% in-zone, worst overload 0% (within the 20% bound)')
  })
})

describe('events explain reports', () => {
  const st = state(
    [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b'), node('zone-c-0', 'zone-c')],
    [service('web', AUTO)],
    [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))],
  )

  it('hints already in place: nothing to write, and no event (the live hints say the controller marked the Service populated)', () => {
    const s = only(st)
    expect(s.controller.slicesToUpdate).toEqual([])
    expect(s.drift.endpoints).toBe(0)
    expect(s.controller.state).toEqual({hintsPopulated: true, inferredFrom: 'live-hints'})
    expect(s.controller.event).toBeNull()
  })

  it('leaving Auto with own-zone hints in place, no Events read: the Warning "Topology Aware Hints has been disabled" is a "may" (issue 23), hints removed', () => {
    // Own-zone hints only could be trafficDistribution's, whose path never sets the mark: before, the
    // Warning was predicted as certain.
    const off = {...st, services: [service('web')]}
    const s = only(off)
    expect(s.controller).toMatchObject({
      path: 'none',
      hintsSet: false,
      reason: 'TopologyNotRequested',
      event: null,
      mayRecord: {type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Topology Aware Hints has been disabled, addressType: IPv4'},
      slicesToUpdate: ['web-abc'],
      state: {hintsPopulated: true, inferredFrom: 'unknown'},
    })
  })

  it('Nodes unreadable (RBAC): no Auto prediction, the live hints are shown', () => {
    const s = only({...st, nodes: [], nodesReadable: false})
    expect(s.controller).toMatchObject({reason: 'NodesUnreadable', hintsSet: true, event: null, slicesToUpdate: []})
    expect(s.findings).not.toContain('hints-refused')
    expect(s.advice[0]!.code).toBe('nodes-unreadable')
  })
})

describe('rows that must add up (issue 23)', () => {
  it("slices of another manager, hinted, and none ready of the controller's: every zone with an overload figure shows the desired count it is measured against", () => {
    // Before: desired null (the Auto heuristic has no figure) next to an overload of +0%.
    const own = slice('web', [{zone: 'zone-a', ready: false}], {name: 'web-own'})
    const mesh = slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true), {name: 'web-mesh', managed: false})
    mesh.endpoints!.forEach((e, i) => (e.addresses = [`10.9.0.${i + 1}`]))
    const st = state([node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b'), node('zone-c-0', 'zone-c')], [service('web', AUTO)], [own, mesh])
    const s = only(st)
    expect(s.zones.map((z) => [z.name, z.desired, z.assigned, z.expectedOverload])).toEqual([
      ['zone-a', 3, 3, 0],
      ['zone-b', 3, 3, 0],
      ['zone-c', 3, 3, 0],
    ])
    for (const z of s.zones) if (z.expectedOverload !== null) expect(z.desired).not.toBeNull()
  })

  it('a zone named only by hints (no node in it) gets no kube-proxy verdict: reason no-nodes, nothing routed', () => {
    // Before: zone-x got {mode: PreferSameZone, routedEndpoints: 1}, although no kube-proxy runs there.
    const sl = slice(
      'web',
      [
        {zone: 'zone-a', hint: ['zone-x']},
        {zone: 'zone-b', hint: ['zone-b']},
      ],
      {name: 'web-mesh', managed: false},
    )
    const st = state([node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b')], [service('web', {selector: null})], [sl])
    const x = only(st).zones.find((z) => z.name === 'zone-x')!
    const none = {mode: '', fallback: false, reason: 'no-nodes', routedEndpoints: 0, nodesPreferSameNode: 0}
    expect([x.kubeProxy, x.kubeProxyPredicted]).toEqual([none, none])
    // Nodes unreadable: no zone is known to be empty, the verdict stays.
    expect(only({...st, nodes: [], nodesReadable: false}).zones.find((z) => z.name === 'zone-x')!.kubeProxy.reason).not.toBe('no-nodes')
  })
})
