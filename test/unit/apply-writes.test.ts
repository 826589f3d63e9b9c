// apply/writes.ts, apply/predict.ts, apply/refusals.ts, apply/target.ts on literals; the
// requests go to a fake WriteTarget that records them.
import {describe, expect, it} from 'vitest'
import {planHints, planServiceMode, type JsonPatchOp, type TopologyFields} from '../../src/apply/plan.js'
import {expectedHints, predict} from '../../src/apply/predict.js'
import {hintsRefusal, noSelectorWarning, shortLivedHintsWarning} from '../../src/apply/refusals.js'
import {pickTarget} from '../../src/apply/target.js'
import {fieldsLeftToRemove, resetWrites, writesFor, type WriteTarget} from '../../src/apply/writes.js'
import type {EndpointSlice, Node, Service} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'

const TM = 'service.kubernetes.io/topology-mode'
const F = (topologyMode: string | null, topologyAwareHints: string | null, trafficDistribution: string | null): TopologyFields => ({
  topologyMode,
  topologyAwareHints,
  trafficDistribution,
})

const svc = (annotations?: Record<string, string>, td?: string, selector: Record<string, string> | null = {app: 'web'}): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {name: 'web', namespace: 'shop', resourceVersion: '42', uid: 'u1', ...(annotations ? {annotations} : {})},
  spec: {...(selector ? {selector} : {}), ports: [{port: 80}], ...(td ? {trafficDistribution: td} : {})},
})
const node = (name: string, zone: string): Node => ({
  metadata: {name, labels: {'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})
const slice = (name: string, eps: {ip: string; zone: string}[], managedBy = 'importer', service = 'web'): EndpointSlice => ({
  metadata: {
    name,
    namespace: 'shop',
    resourceVersion: '7',
    uid: `uid-${name}`,
    labels: {'kubernetes.io/service-name': service, 'endpointslice.kubernetes.io/managed-by': managedBy},
  },
  addressType: 'IPv4',
  endpoints: eps.map((e) => ({addresses: [e.ip], conditions: {ready: true}, zone: e.zone, nodeName: `n-${e.zone}`})),
})
const nodes = [node('n-zone-a', 'zone-a'), node('n-zone-b', 'zone-b')]
const eps = [
  {ip: '10.0.0.1', zone: 'zone-a'},
  {ip: '10.0.0.2', zone: 'zone-b'},
]

type Call = [string, ...unknown[]]
/** A WriteTarget that records the requests; applyService answers with `applied`. */
function fakeTarget(applied: Service, serverDryRun = false): WriteTarget & {calls: Call[]} {
  const calls: Call[] = []
  return {
    calls,
    serverDryRun,
    applyService: async (name, body, force) => (calls.push(['apply', name, body, force]), applied),
    mergePatchService: async (name, patch) => (calls.push(['merge', name, patch]), applied),
    patchSlice: async (name, ops: JsonPatchOp[]) => (calls.push(['slice', name, ops]), {} as EndpointSlice),
  }
}

describe('fieldsLeftToRemove: the SSA leftover-field removal', () => {
  it.each([
    // after, removeByMergePatch, current (after the apply) -> fields to remove
    [F('Auto', null, null), [], F('Auto', null, null), []],
    [F('Auto', null, null), [], F('Auto', 'Auto', null), ['topologyAwareHints']],
    [F(null, null, 'PreferClose'), ['topologyMode'], F('Auto', null, 'PreferClose'), ['topologyMode']],
    [F(null, null, 'PreferClose'), ['topologyMode'], F(null, null, 'PreferClose'), []],
    [F(null, null, null), ['trafficDistribution'], F('Auto', 'auto', 'PreferClose'), ['trafficDistribution', 'topologyMode', 'topologyAwareHints']],
  ] as const)('%# ', (after, removals, current, expected) => {
    expect(fieldsLeftToRemove(after, removals, current)).toEqual(expected)
  })
})

describe('writesFor', () => {
  it('no changes: no writes', () => {
    expect(writesFor(planServiceMode(svc({[TM]: 'Auto'}), 'Auto'), false)).toEqual([])
  })

  it('Service mode: one write with its journal record; server-side apply, then nothing left to remove', async () => {
    const before = svc()
    const plan = planServiceMode(before, 'Auto')
    const [w, ...rest] = writesFor(plan, true)
    expect(rest).toEqual([])
    expect(w!.ref).toEqual({kind: 'Service', name: 'web'})
    expect(w!.record).toEqual({kind: 'Service', name: 'web', uid: 'u1', state: 'pending', before: F(null, null, null), prior: F(null, null, null), after: F('Auto', null, null)})
    const target = fakeTarget({...svc({[TM]: 'Auto'}), metadata: {...svc({[TM]: 'Auto'}).metadata, resourceVersion: '43'}})
    await w!.run(target)
    expect(target.calls).toEqual([['apply', 'web', plan.write.apply, true]])
  })

  it('Service mode: a field the apply left (another manager owns it) is removed with the resourceVersion just written', async () => {
    const plan = planServiceMode(svc({[TM]: 'Auto'}), 'PreferClose', [
      {manager: 'kubectl-topology', operation: 'Apply', fieldsV1: {'f:metadata': {'f:annotations': {[`f:${TM}`]: {}}}}},
      {manager: 'kubectl-client-side-apply', operation: 'Update', fieldsV1: {'f:metadata': {'f:annotations': {[`f:${TM}`]: {}}}}},
    ])
    const [w] = writesFor(plan, false)
    const answered = svc({[TM]: 'Auto'}, 'PreferClose')
    answered.metadata.resourceVersion = '50'
    const target = fakeTarget(answered)
    await w!.run(target)
    expect(target.calls.map((c) => c[0])).toEqual(['apply', 'merge'])
    expect(target.calls[1]).toEqual(['merge', 'web', {metadata: {resourceVersion: '50', annotations: {[TM]: null}}}])
  })

  it('Service mode, server dry run: the removal goes without a precondition (the apply stored nothing)', async () => {
    const plan = planServiceMode(svc({[TM]: 'Auto'}), 'PreferClose', [
      {manager: 'kubectl-topology', operation: 'Apply', fieldsV1: {'f:metadata': {'f:annotations': {[`f:${TM}`]: {}}}}},
      {manager: 'someone-else', operation: 'Update', fieldsV1: {'f:metadata': {'f:annotations': {[`f:${TM}`]: {}}}}},
    ])
    const target = fakeTarget(svc({[TM]: 'Auto'}, 'PreferClose'), true)
    await writesFor(plan, false)[0]!.run(target)
    expect(target.calls[1]).toEqual(['merge', 'web', {metadata: {annotations: {[TM]: null}}}])
  })

  it('Service mode, one request: replacing the deprecated annotation is a single merge patch', async () => {
    const plan = planServiceMode(svc({'service.kubernetes.io/topology-aware-hints': 'auto'}), 'Auto')
    expect(plan.write.single).not.toBeNull()
    const target = fakeTarget(svc())
    await writesFor(plan, false)[0]!.run(target)
    expect(target.calls).toEqual([['merge', 'web', plan.write.single]])
  })

  it('hints mode: one JSON patch per changed slice, each with its record', async () => {
    const s = svc(undefined, undefined, null)
    const slices = [slice('web-1', eps)]
    const plan = planHints({nodes}, s, slices, 'PreferSameZone')
    const writes = writesFor(plan, false)
    expect(writes.map((w) => w.ref)).toEqual([{kind: 'EndpointSlice', name: 'web-1'}])
    expect(writes[0]!.record).toMatchObject({
      kind: 'EndpointSlice',
      name: 'web-1',
      uid: 'uid-web-1',
      state: 'pending',
      before: [
        {addresses: ['10.0.0.1'], hints: null},
        {addresses: ['10.0.0.2'], hints: null},
      ],
    })
    expect(writes[0]!.record!.after).toEqual([
      {addresses: ['10.0.0.1'], hints: {forZones: [{name: 'zone-a'}]}},
      {addresses: ['10.0.0.2'], hints: {forZones: [{name: 'zone-b'}]}},
    ])
    const target = fakeTarget(s)
    await writes[0]!.run(target)
    expect(target.calls).toEqual([['slice', 'web-1', plan.writes[0]!.patch]])
  })

  it('resetWrites: the Service first, then the slices, without records', async () => {
    const writes = resetWrites({
      changes: {namespace: 'shop', service: 'web', serviceChanges: [], sliceChanges: []},
      service: {name: 'web', before: svc(), after: svc(), patch: {metadata: {resourceVersion: '42'}}},
      slices: [{name: 'web-1', before: slice('web-1', eps), after: slice('web-1', eps), patch: [{op: 'test', path: '/metadata/resourceVersion', value: '7'}]}],
      skipped: [],
      done: [],
    })
    expect(writes.map((w) => [w.ref, w.record])).toEqual([
      [{kind: 'Service', name: 'web'}, null],
      [{kind: 'EndpointSlice', name: 'web-1'}, null],
    ])
    const target = fakeTarget(svc())
    for (const w of writes) await w.run(target)
    expect(target.calls).toEqual([
      ['merge', 'web', {metadata: {resourceVersion: '42'}}],
      ['slice', 'web-1', [{op: 'test', path: '/metadata/resourceVersion', value: '7'}]],
    ])
  })
})

describe('predict', () => {
  const s = svc()
  const state: ClusterState = {nodes, services: [s], endpointSlices: [slice('web-1', eps, 'endpointslice-controller.k8s.io')], serverVersion: '1.34.1'}
  const target = pickTarget(state, 'shop', 'web')!

  it('Service mode: explains the Service as changed, at the server version', () => {
    const prediction = predict(target, planServiceMode(s, 'PreferSameZone'), undefined)
    expect(prediction.kubernetesVersion).toMatch(/^1\.34/)
    expect(prediction.services).toHaveLength(1)
    expect(prediction.services[0]!.mode.path).toBe('traffic-distribution')
    expect(prediction.services[0]!.controller.hintsSet).toBe(true)
    expect(expectedHints(prediction)).toEqual({
      perZone: false,
      predicted: [
        {address: '10.0.0.1', ready: true, hints: {forZones: ['zone-a'], forNodes: []}},
        {address: '10.0.0.2', ready: true, hints: {forZones: ['zone-b'], forNodes: []}},
      ],
    })
  })

  it('--kube-version wins over the server version; Auto is compared per zone', () => {
    const prediction = predict(target, planServiceMode(s, 'Auto'), '1.33')
    expect(prediction.kubernetesVersion).toMatch(/^1\.33/)
    expect(expectedHints(prediction).perZone).toBe(true)
  })

  it('hints mode: explains the slices with the hints written', () => {
    const plan = planHints({nodes}, s, target.slices, 'PreferSameZone')
    const prediction = predict(target, plan, undefined)
    expect(prediction.services[0]!.endpoints.map((e) => e.liveHints)).toEqual([
      {forZones: ['zone-a'], forNodes: []},
      {forZones: ['zone-b'], forNodes: []},
    ])
  })
})

describe('pickTarget', () => {
  it('the Service in the namespace and its slices by name; null when absent', () => {
    const state: ClusterState = {nodes, services: [svc()], endpointSlices: [slice('web-2', eps), slice('web-1', eps), slice('api-1', eps, 'importer', 'api')]}
    expect(pickTarget(state, 'shop', 'web')!.slices.map((x) => x.metadata.name)).toEqual(['web-1', 'web-2'])
    expect(pickTarget(state, 'default', 'web')).toBeNull()
    expect(pickTarget(state, 'shop', 'api')).toBeNull()
  })
})

describe('refusals', () => {
  const s = svc()
  it('controller-managed slices are refused without --force, with the Service-mode command to use instead', () => {
    const plan = planHints({nodes}, s, [slice('web-1', eps, 'endpointslice-controller.k8s.io')], 'PreferSameZone')
    expect(hintsRefusal(plan, 'shop', 'web', false)).toEqual({
      refusal: {
        kind: 'usage',
        message:
          "refusing to write hints onto EndpointSlice(s) web-1: they are managed by the EndpointSlice controller (endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io), which rewrites their hints at its next sync of the Service; set the Service's mode instead: kubectl topology apply svc/web -n shop --mode PreferSameZone (or pass --force to write them anyway, until that sync)",
      },
      warnings: [],
    })
    const forced = hintsRefusal(plan, 'shop', 'web', true)
    expect(forced.refusal).toBeNull()
    expect(forced.warnings).toEqual([
      "--force: writing hints onto controller-managed EndpointSlice(s) web-1; they last only until the EndpointSlice controller's next sync of service web",
    ])
    expect(shortLivedHintsWarning(plan, 'shop', 'web')).toBe(
      "the hints on web-1 last only until the EndpointSlice controller's next sync of service web; to make them stick use: kubectl topology apply svc/web -n shop --mode PreferSameZone",
    )
  })

  it('mirrored slices get a warning; hand-made ones nothing', () => {
    const mirrored = planHints({nodes}, s, [slice('web-1', eps, 'endpointslicemirroring-controller.k8s.io')], 'PreferSameZone')
    expect(hintsRefusal(mirrored, 'shop', 'web', false)).toEqual({
      refusal: null,
      warnings: ['EndpointSlice web-1 is managed by endpointslicemirroring-controller.k8s.io, which rewrites it when the Endpoints object changes; the hints last until then'],
    })
    const plain = planHints({nodes}, s, [slice('web-1', eps)], 'PreferSameZone')
    expect(hintsRefusal(plain, 'shop', 'web', false)).toEqual({refusal: null, warnings: []})
    expect(shortLivedHintsWarning(plain, 'shop', 'web')).toBeNull()
  })

  it('a Service without a selector: the controller writes no hints for it', () => {
    expect(noSelectorWarning(svc())).toBeNull()
    expect(noSelectorWarning(svc(undefined, undefined, null))).toBe(
      'service web has no selector: the EndpointSlice controller does not manage its EndpointSlices, so this change writes no hints; use --hints to write them directly',
    )
  })
})
