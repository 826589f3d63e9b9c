import {describe, expect, it} from 'vitest'
import {
  computeHints,
  desiredFields,
  fieldOwnership,
  planHints,
  planServiceMode,
  serviceWrite,
  sliceHintsPatch,
  topologyFieldsOf,
  withFields,
  type TopologyFields,
} from '../../src/apply/plan.js'
import {validateSliceHints} from '../../src/apply/validate-hints.js'
import {compareHints} from '../../src/apply/wait.js'
import type {EndpointSlice, Node, Service} from '../../src/upstream/api/types.js'

const TM = 'service.kubernetes.io/topology-mode'
const TAH = 'service.kubernetes.io/topology-aware-hints'
const F = (topologyMode: string | null, topologyAwareHints: string | null, trafficDistribution: string | null): TopologyFields => ({
  topologyMode,
  topologyAwareHints,
  trafficDistribution,
})

const svc = (annotations?: Record<string, string>, td?: string): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {name: 'web', namespace: 'shop', resourceVersion: '42', uid: 'u1', labels: {app: 'web'}, ...(annotations ? {annotations} : {})},
  spec: {selector: {app: 'web'}, ports: [{port: 80}], ...(td ? {trafficDistribution: td} : {})},
})

const node = (name: string, zone: string, cpu = '4'): Node => ({
  metadata: {name, labels: {'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu}, conditions: [{type: 'Ready', status: 'True'}]},
})

const slice = (name: string, eps: {ip: string; zone?: string; node?: string; ready?: boolean; hints?: string[]}[], managedBy = 'importer'): EndpointSlice => ({
  metadata: {name, namespace: 'shop', resourceVersion: '7', uid: `uid-${name}`, labels: {'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': managedBy}},
  addressType: 'IPv4',
  endpoints: eps.map((e) => ({
    addresses: [e.ip],
    conditions: {ready: e.ready ?? true},
    ...(e.zone !== undefined ? {zone: e.zone} : {}),
    ...(e.node !== undefined ? {nodeName: e.node} : {}),
    ...(e.hints ? {hints: {forZones: e.hints.map((name) => ({name}))}} : {}),
  })),
})

describe('desiredFields: the fewest changes that make the controller take the mode', () => {
  it.each([
    // [current, mode, expected]
    [F(null, null, null), 'Auto', F('Auto', null, null)],
    [F('auto', null, null), 'Auto', F('auto', null, null)],
    [F(null, 'disabled', null), 'Auto', F('Auto', null, null)],
    [F(null, 'Auto', null), 'Auto', F('Auto', null, null)],
    // Auto clears trafficDistribution: the annotation wins over it, so it would only be a
    // lint (annotation-overrides-traffic-distribution) and a mode waiting to come back.
    [F(null, null, 'PreferClose'), 'Auto', F('Auto', null, null)],
    [F('Auto', null, 'PreferSameZone'), 'Auto', F('Auto', null, null)],
    [F(null, 'auto', 'PreferSameNode'), 'Auto', F('Auto', null, null)],
    [F(null, null, null), 'PreferSameZone', F(null, null, 'PreferSameZone')],
    [F('Auto', null, null), 'PreferSameZone', F(null, null, 'PreferSameZone')],
    [F('Disabled', null, null), 'PreferSameZone', F('Disabled', null, 'PreferSameZone')],
    [F(null, 'auto', 'PreferClose'), 'PreferSameNode', F(null, null, 'PreferSameNode')],
    [F('Auto', 'Auto', null), 'PreferClose', F(null, null, 'PreferClose')],
    // deprecated "disabled" wins, so topology-mode Auto does not override: nothing to remove
    [F('Auto', 'disabled', null), 'PreferSameZone', F('Auto', 'disabled', 'PreferSameZone')],
    [F('Auto', null, 'PreferSameZone'), 'none', F(null, null, null)],
    [F('Disabled', null, null), 'none', F('Disabled', null, null)],
    [F(null, null, null), 'none', F(null, null, null)],
  ] as const)('%o + --mode %s -> %o', (cur, mode, want) => {
    expect(desiredFields(cur, mode).fields).toEqual(want)
  })

  it('withFields changes only the three fields', () => {
    const s = svc({[TM]: 'Auto', 'x/y': 'z'}, 'PreferClose')
    const out = withFields(s, F(null, null, 'PreferSameZone'))
    expect(out).toEqual({...s, metadata: {...s.metadata, annotations: {'x/y': 'z'}}, spec: {...s.spec, trafficDistribution: 'PreferSameZone'}})
    expect(s.metadata.annotations).toEqual({[TM]: 'Auto', 'x/y': 'z'}) // input untouched
    expect(topologyFieldsOf(out)).toEqual(F(null, null, 'PreferSameZone'))
  })
})

describe('serviceWrite: server-side apply configuration and removals', () => {
  it('sets a field with an apply carrying the resourceVersion read', () => {
    const p = planServiceMode(svc(), 'PreferSameZone')
    expect(p.write).toEqual({
      apply: {apiVersion: 'v1', kind: 'Service', metadata: {name: 'web', namespace: 'shop', resourceVersion: '42'}, spec: {trafficDistribution: 'PreferSameZone'}},
      removeByMergePatch: [],
      single: null,
    })
    expect(p.changes.serviceChanges).toEqual([{field: 'trafficDistribution', path: 'spec.trafficDistribution', old: null, new: 'PreferSameZone', reason: '--mode PreferSameZone'}])
  })

  it('a field another manager owns is removed with a merge patch; one only we own by leaving it out of the apply', () => {
    const managed = [
      {manager: 'kubectl-topology', operation: 'Apply', fieldsV1: {'f:spec': {'f:trafficDistribution': {}}}},
      {manager: 'kubectl', operation: 'Update', fieldsV1: {'f:metadata': {'f:annotations': {[`f:${TM}`]: {}}}}},
    ]
    expect(fieldOwnership(managed)).toEqual({ours: new Set(['trafficDistribution']), others: new Set(['topologyMode'])})
    // We own trafficDistribution and the after-state keeps it: it must stay in our configuration.
    const keep = serviceWrite(svc(undefined, 'PreferSameZone'), F(null, null, 'PreferSameZone'), F('Auto', null, 'PreferSameZone'), managed)
    expect(keep.apply).toMatchObject({metadata: {annotations: {[TM]: 'Auto'}}, spec: {trafficDistribution: 'PreferSameZone'}})
    // --mode none: ours goes by omission, the other manager's needs a merge patch.
    const off = serviceWrite(svc({[TM]: 'Auto'}, 'PreferSameZone'), F('Auto', null, 'PreferSameZone'), F(null, null, null), managed)
    expect(off.apply).toEqual({apiVersion: 'v1', kind: 'Service', metadata: {name: 'web', namespace: 'shop', resourceVersion: '42'}})
    expect(off.removeByMergePatch).toEqual(['topologyMode'])
  })

  it('replacing the deprecated annotation by topology-mode is one merge patch (the API server refuses the two with different values)', () => {
    const p = planServiceMode(svc({[TAH]: 'disabled'}), 'Auto')
    expect(p.write.apply).toBeNull()
    expect(p.write.single).toEqual({metadata: {resourceVersion: '42', annotations: {[TM]: 'Auto', [TAH]: null}}})
  })

  it('no change, no write', () => {
    expect(planServiceMode(svc(undefined, 'PreferSameZone'), 'PreferSameZone').write).toEqual({apply: null, removeByMergePatch: [], single: null})
  })
})

describe('hints', () => {
  const nodes = [node('a1', 'zone-a'), node('b1', 'zone-b'), node('c1', 'zone-c')]
  const eps = [
    {ip: '10.0.0.1', zone: 'zone-a', node: 'a1'},
    {ip: '10.0.0.2', zone: 'zone-b', node: 'b1'},
    {ip: '10.0.0.3', zone: 'zone-c', node: 'c1', ready: false, hints: ['zone-a']},
  ]

  it('PreferSameZone / PreferSameNode: the trafficDistribution heuristic, not-ready endpoints get none', () => {
    const z = computeHints({nodes}, [slice('s1', eps)], 'PreferSameZone').slices[0]!
    expect(z.endpoints!.map((e) => e.hints ?? null)).toEqual([{forZones: [{name: 'zone-a'}]}, {forZones: [{name: 'zone-b'}]}, null])
    const n = computeHints({nodes}, [slice('s1', eps)], 'PreferSameNode').slices[0]!
    expect(n.endpoints![0]!.hints).toEqual({forZones: [{name: 'zone-a'}], forNodes: [{name: 'a1'}]})
  })

  it('Auto: AddHints with the zone CPU ratios; a refusal is reported', () => {
    const six = [1, 2].flatMap((i) => ['a', 'b', 'c'].map((z) => ({ip: `10.0.${i}.${z.charCodeAt(0)}`, zone: `zone-${z}`, node: `${z}1`})))
    const r = computeHints({nodes}, [slice('s1', six)], 'Auto')
    expect(r.refusals).toEqual([])
    expect(r.slices[0]!.endpoints!.map((e) => e.hints?.forZones?.[0]?.name)).toEqual(six.map((e) => e.zone))
    const refused = computeHints({nodes}, [slice('s1', six.slice(0, 2))], 'Auto')
    expect(refused.refusals).toEqual(['Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4'])
  })

  it('planHints: per-endpoint changes, controller-managed slices, JSON patch touching only hints with the resourceVersion', () => {
    const mine = slice('s1', eps)
    const theirs = slice('s2', [{ip: '10.0.9.1', zone: 'zone-a', node: 'a1'}], 'endpointslice-controller.k8s.io')
    const p = planHints({nodes}, svc(), [theirs, mine], 'PreferSameZone')
    expect(p.controllerManaged).toEqual(['s2'])
    expect(p.changes.sliceChanges.map((c) => [c.name, c.endpoints.map((e) => [e.addresses[0], e.old, e.new])])).toEqual([
      [
        's1',
        [
          ['10.0.0.1', null, {forZones: ['zone-a'], forNodes: []}],
          ['10.0.0.2', null, {forZones: ['zone-b'], forNodes: []}],
          ['10.0.0.3', {forZones: ['zone-a'], forNodes: []}, null],
        ],
      ],
      ['s2', [['10.0.9.1', null, {forZones: ['zone-a'], forNodes: []}]]],
    ])
    expect(p.writes.find((w) => w.name === 's1')!.patch).toEqual([
      {op: 'replace', path: '/metadata/resourceVersion', value: '7'},
      {op: 'add', path: '/endpoints/0/hints', value: {forZones: [{name: 'zone-a'}]}},
      {op: 'add', path: '/endpoints/1/hints', value: {forZones: [{name: 'zone-b'}]}},
      {op: 'remove', path: '/endpoints/2/hints'},
    ])
  })

  it('no change, no patch', () => {
    const s = slice('s1', [{ip: '10.0.0.1', zone: 'zone-a', hints: ['zone-a']}])
    expect(sliceHintsPatch(s, s)).toEqual([{op: 'replace', path: '/metadata/resourceVersion', value: '7'}])
    expect(planHints({nodes}, svc(), [s], 'PreferSameZone').writes).toEqual([])
  })
})

describe('validateSliceHints (what the API server validates)', () => {
  const withHints = (forZones: string[], forNodes: string[] = []): EndpointSlice => ({
    metadata: {name: 's'},
    addressType: 'IPv4',
    endpoints: [{addresses: ['10.0.0.1'], hints: {forZones: forZones.map((name) => ({name})), forNodes: forNodes.map((name) => ({name}))}}],
  })
  it('accepts valid names, including the empty zone', () => {
    expect(validateSliceHints(withHints(['zone-a', '', 'Z_1.x'], ['node-1.example']))).toEqual([])
  })
  it('at most 8 per list', () => {
    expect(validateSliceHints(withHints(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']))).toEqual([
      {path: 'endpoints[0].hints.forZones', message: 'Too many: 9: must have at most 8 items'},
    ])
    expect(validateSliceHints(withHints([], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']))[0]!.path).toBe('endpoints[0].hints.forNodes')
  })
  it('invalid and duplicate names, with field paths', () => {
    const errs = validateSliceHints(withHints(['inv@lid', 'x', 'x', 'a'.repeat(64)], ['Node_1']))
    expect(errs.map((e) => e.path)).toEqual([
      'endpoints[0].hints.forZones[0].name',
      'endpoints[0].hints.forZones[2].name',
      'endpoints[0].hints.forZones[3].name',
      'endpoints[0].hints.forNodes[0].name',
    ])
    expect(errs[0]!.message).toMatch(/^Invalid value: "inv@lid"/)
    expect(errs[1]!.message).toBe('Duplicate value: "x"')
    expect(errs[2]!.message).toMatch(/no more than 63 characters/)
  })
})

describe('compareHints (apply --wait)', () => {
  const live = [
    slice('s', [
      {ip: '1', zone: 'a', hints: ['a']},
      {ip: '2', zone: 'b', hints: ['a']},
      {ip: '3', zone: 'b', hints: ['b']},
    ]),
  ]
  const h = (z: string) => ({forZones: [z], forNodes: []})
  it('exact per endpoint', () => {
    expect(
      compareHints(
        [
          {address: '1', ready: true, hints: h('a')},
          {address: '2', ready: true, hints: h('b')},
        ],
        live,
        false,
      ),
    ).toEqual([{subject: '2', expected: 'zones=b', actual: 'zones=a'}])
  })
  it('per zone where upstream is random', () => {
    // Which b endpoint is donated to a is random upstream: only the counts matter.
    const pred = [
      {address: '1', ready: true, hints: h('a')},
      {address: '2', ready: true, hints: h('b')},
      {address: '3', ready: true, hints: h('a')},
    ]
    expect(compareHints(pred, live, true)).toEqual([])
    expect(
      compareHints(
        pred.map((p) => ({...p, hints: h('a')})),
        live,
        true,
      ),
    ).toEqual([
      {subject: 'zone a', expected: '3 endpoints hinted', actual: '2 endpoints hinted'},
      {subject: 'zone b', expected: '0 endpoints hinted', actual: '1 endpoints hinted'},
    ])
  })
})
