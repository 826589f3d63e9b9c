// The advisor's cheaper paths (issues 19/23) give what the plain ones give: a mode set as apply
// sets it, each Service's own slices and Events, and explain's figures-only report.
import {describe, expect, it} from 'vitest'
import {desiredFields, topologyFieldsOf, withFields} from '../../src/apply/plan.js'
import {modeKeepsService, predictedFigures, serviceWithMode} from '../../src/advise/evaluate.js'
import {adviseExplained} from '../../src/advise/advisor.js'
import {ownSlices, ownView} from '../../src/advise/view.js'
import type {TopologyMode} from '../../src/advise/types.js'
import {explain} from '../../src/explain/report.js'
import {FiguresShare} from '../../src/explain/figures-share.js'
import {rowParts} from '../../src/explain/rows.js'
import {slicesOf} from '../../src/simulate/strategies/cluster.js'
import type {EventObject, Service} from '../../src/upstream/api/types.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const MODES: TopologyMode[] = ['Auto', 'PreferSameZone', 'PreferClose', 'PreferSameNode', 'none']

const services: Service[] = [
  service('plain'),
  service('auto', {annotations: {'service.kubernetes.io/topology-mode': 'Auto', team: 'x'}}),
  service('hints', {annotations: {team: 'y', 'service.kubernetes.io/topology-aware-hints': 'auto'}}),
  service('td', {trafficDistribution: 'PreferClose'}),
  service('both', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}, trafficDistribution: 'PreferSameNode'}),
  service('empty-annotations', {annotations: {}}),
  // Keys after the ones a mode sets or removes keep their places.
  service('order', {annotations: {'service.kubernetes.io/topology-mode': 'Auto', team: 'z'}, trafficDistribution: 'PreferClose', internalTrafficPolicy: 'Cluster'}),
  {
    metadata: {name: 'proto', namespace: 'default', annotations: JSON.parse('{"__proto__": "x", "service.kubernetes.io/topology-aware-hints": "Auto"}')},
    spec: JSON.parse('{"__proto__": {"a": 1}, "trafficDistribution": "PreferClose", "selector": {"app": "p"}}'),
  } as Service,
  {metadata: {name: 'no-spec', namespace: 'default', labels: {app: 'x'}, managedFields: [{manager: 'kubectl', operation: 'Apply'}]}} as Service,
]

describe('advisor: serviceWithMode', () => {
  it('is apply withFields on the whole Service: the same keys, values and order, for every mode', () => {
    for (const svc of services) {
      const before = JSON.stringify(svc)
      for (const m of MODES) {
        const want = withFields(svc, desiredFields(topologyFieldsOf(svc), m).fields)
        const got = serviceWithMode(svc, m)
        expect(got, `${svc.metadata.name} ${m}`).toStrictEqual(want)
        expect(JSON.stringify(got), `${svc.metadata.name} ${m}`).toBe(JSON.stringify(want))
      }
      expect(JSON.stringify(svc)).toBe(before)
    }
  })

  it('shares what the mode does not touch with the input instead of deep-copying it (and copies what it does)', () => {
    const svc = services[1]!
    const got = serviceWithMode(svc, 'PreferSameZone')
    expect(got.spec!.ports).toBe(svc.spec!.ports)
    expect(got.spec).not.toBe(svc.spec)
    expect(got.metadata).not.toBe(svc.metadata)
    expect(got.metadata.annotations).toEqual({team: 'x'})
    expect(svc.metadata.annotations).toEqual({'service.kubernetes.io/topology-mode': 'Auto', team: 'x'})
  })
})

describe('advisor: the current mode read from the report', () => {
  it('modeKeepsService: a mode other than Auto whose apply leaves all three fields as they are', () => {
    const keeps = (svc: Service) => MODES.filter((m) => modeKeepsService(svc, m))
    expect(keeps(service('plain'))).toEqual(['none'])
    expect(keeps(service('td', {trafficDistribution: 'PreferSameZone'}))).toEqual(['PreferSameZone'])
    expect(keeps(service('close', {trafficDistribution: 'PreferClose'}))).toEqual(['PreferClose'])
    // Auto is never read from the report: its next sync keeps valid hints, a fresh one need not.
    expect(keeps(service('auto', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}))).toEqual([])
    // apply --mode none removes an annotation that enables hints, and a trafficDistribution.
    expect(keeps(service('hints', {annotations: {'service.kubernetes.io/topology-aware-hints': 'auto'}}))).toEqual([])
    expect(keeps(service('disabled', {annotations: {'service.kubernetes.io/topology-mode': 'Disabled'}}))).toEqual(['none'])
    // A value that is not a string is not what apply would write.
    const odd = service('odd', {trafficDistribution: 'PreferSameZone'})
    odd.metadata.annotations = {'service.kubernetes.io/topology-mode': 7 as unknown as string}
    expect(keeps(odd)).toEqual([])
  })

  it('explainedWith: the current mode takes the figures of the given explanation; without it, the mode is evaluated', () => {
    const svc = service('web', {trafficDistribution: 'PreferSameZone'})
    const st = state(nodesIn(['zone-a', 'zone-b'], 2), [svc], [slice('web', spread({'zone-a': 2, 'zone-b': 2}, true))])
    const s = explain(st, [svc], {kubeVersion: '1.36'}).services[0]!
    const evaluated = adviseExplained(st, svc, s, {kubeVersion: '1.36'})
    const read = adviseExplained(st, svc, s, {kubeVersion: '1.36'}, true)
    expect(read).toEqual(evaluated)
    // A marked explanation shows which was used.
    const marked = {...s, traffic: {...s.traffic, inZoneSharePredicted: 0.125}}
    const current = (r: ReturnType<typeof adviseExplained>) => r.options.find((o) => o.mode === 'PreferSameZone')!.inZone
    expect(current(adviseExplained(st, svc, marked, {kubeVersion: '1.36'}, true))).toBe(0.125)
    expect(current(adviseExplained(st, svc, marked, {kubeVersion: '1.36'}))).toBe(predictedFigures(s).inZone)
    expect(predictedFigures(s).inZone).not.toBe(0.125)
  })
})

describe('advisor: the Service own view', () => {
  const a = service('a')
  const b = service('b')
  const a2 = service('a', {namespace: 'other'})
  const unlabelled = slice('a', spread({z1: 1}), {name: 'loose'})
  delete unlabelled.metadata.labels
  const slices = [
    slice('a', spread({z1: 1}), {name: 'a-1'}),
    slice('b', spread({z1: 2}), {name: 'b-1'}),
    slice('a', spread({z1: 1}), {name: 'a-1', namespace: 'other'}),
    unlabelled,
    slice('a', spread({z2: 1}), {name: 'a-2'}),
  ]
  const ev = (kind: string, name: string, namespace?: string): EventObject => ({involvedObject: {kind, name, ...(namespace ? {namespace} : {})}, reason: 'R'}) as EventObject
  const events = [ev('Service', 'a'), ev('Service', 'a', 'other'), ev('Pod', 'a'), ev('Service', 'b', 'default'), ev('Service', 'a', 'default')]
  const st = {...state(nodesIn(['z1', 'z2']), [a, b, a2], slices), events}

  it('has the slices simulate slicesOf finds, in the same order, for every Service', () => {
    for (const svc of [a, b, a2, service('none')]) expect(ownSlices(st, svc)).toEqual(slicesOf(st, svc))
    expect(ownSlices(st, a).map((s) => s.metadata.name)).toEqual(['a-1', 'a-2'])
  })

  it('has the Events about the Service only, and every Node', () => {
    const v = ownView(st, a)
    expect(v.events).toEqual([events[0], events[4]])
    expect(ownView(st, a2).events).toEqual([events[1]])
    expect(v.nodes).toBe(st.nodes)
    expect(v.services).toEqual([a])
    expect(ownView(state(st.nodes, [a], slices), a)).not.toHaveProperty('events')
  })

  it('a new slices array is grouped anew (the memo is by the array)', () => {
    const more = [...slices, slice('b', spread({z2: 1}), {name: 'b-2'})]
    expect(ownSlices({...st, endpointSlices: more}, b).map((s) => s.metadata.name)).toEqual(['b-1', 'b-2'])
    expect(ownSlices(st, b).map((s) => s.metadata.name)).toEqual(['b-1'])
  })
})

describe('explain: figuresOnly', () => {
  it("leaves lint, advice and the mode's sentences empty, gives the live side as the predicted one, the rows of the live slices, and every other field as without it", () => {
    // One zone: a single-zone lint error and advice on the plain report.
    const svc = service('web', {trafficDistribution: 'PreferSameZone', internalTrafficPolicy: 'Local'})
    const st = state(nodesIn(['z1']), [svc], [slice('web', spread({z1: 2}))])
    const full = explain(st, [svc], {prediction: 'fresh'}).services[0]!
    const figures = explain(st, [svc], {prediction: 'fresh', figuresOnly: true}).services[0]!
    expect(full.lint.length).toBeGreaterThan(0)
    expect(figures.lint).toEqual([])
    expect(figures.advice).toEqual([])
    // The mode's path and values, without its sentences.
    expect(full.mode.why.length).toBeGreaterThan(0)
    expect(figures.mode).toStrictEqual({...full.mode, why: [], warnings: []})
    // The live side is not computed: kube-proxy's verdicts and the traffic figures are the predicted ones.
    const t = full.traffic
    expect(full.zones.some((z) => JSON.stringify(z.kubeProxy) !== JSON.stringify(z.kubeProxyPredicted))).toBe(true)
    // The endpoint rows and zone counts are the live slices' (no prediction applied: these have no
    // hints, so nothing is assigned, no overload figure, no drift), and the slices to update are
    // not computed.
    const liveAsPredicted = {
      ...full,
      mode: {...full.mode, why: [], warnings: []},
      controller: {...full.controller, slicesToUpdate: []},
      traffic: {...t, inZoneShareLive: t.inZoneSharePredicted, maxEndpointOverloadLive: t.maxEndpointOverloadPredicted, worstZoneLive: t.worstZonePredicted},
      zones: full.zones.map((z) => ({...z, kubeProxy: z.kubeProxyPredicted, assigned: z.liveHints, expectedOverload: null})),
      endpoints: full.endpoints.map((e) => ({...e, predictedHints: e.liveHints, drift: false, donatedTo: null})),
      totals: {...full.totals, assigned: full.totals.liveHints},
      drift: {...full.drift, endpoints: 0},
      // The zone falls back on the predicted hints (Local traffic policy): the live-side finding says so.
      findings: ['fallback'],
    }
    expect(full.controller.slicesToUpdate).toEqual(['web-abc'])
    expect(full.drift.endpoints).toBe(2)
    expect(full.findings).toEqual(['drift'])
    expect({...figures, lint: full.lint, advice: full.advice}).toStrictEqual(liveAsPredicted)
  })
})

describe('FiguresShare', () => {
  it('reuses an entry only for the same slice objects in the same order, per address type', () => {
    const a = slice('web', spread({z1: 2}))
    const b = slice('web', spread({z2: 1}))
    const share = new FiguresShare()
    const parts = rowParts()
    const rows = share.liveRows('IPv4', [a, b], parts)
    expect(share.liveRows('IPv4', [a, b], parts)).toBe(rows)
    expect(share.liveRows('IPv4', [b, a], parts)).not.toBe(rows)
    const cleared = share.cleared('IPv4', [a])
    expect(share.cleared('IPv4', [a])).toBe(cleared)
    expect(share.cleared('IPv4', [structuredClone(a)])).not.toBe(cleared)
    expect(share.cleared('IPv6', [a])).not.toBe(cleared)
    // The cleared copies are frozen: a hint writer that forgot to copy would throw.
    expect(Object.isFrozen(cleared[0]!.endpoints![0])).toBe(true)
    expect(a.endpoints!.some((e) => Object.isFrozen(e))).toBe(false)
  })
})
