import {describe, expect, it} from 'vitest'
import type {TopologyFields} from '../../src/apply/plan.js'
import type {EndpointSlice, Service} from '../../src/upstream/api/types.js'
import {compactJournal, emptyJournal, heldByServer, markState, planReset, recordPending, type ServiceRecord, type SliceRecord} from '../../src/apply/undo.js'

const F = (topologyMode: string | null, topologyAwareHints: string | null, trafficDistribution: string | null): TopologyFields => ({
  topologyMode,
  topologyAwareHints,
  trafficDistribution,
})
const key = {server: 'https://127.0.0.1:6443', context: 'admin', namespace: 'shop', service: 'web'}
const svcRec = (before: TopologyFields, after: TopologyFields): ServiceRecord => ({kind: 'Service', name: 'web', uid: 'u1', state: 'pending', before, prior: before, after})
const svc = (f: TopologyFields, uid = 'u1'): Service => ({
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid,
    resourceVersion: '9',
    annotations: {...(f.topologyMode ? {'service.kubernetes.io/topology-mode': f.topologyMode} : {}), other: 'x'},
  },
  spec: {...(f.trafficDistribution ? {trafficDistribution: f.trafficDistribution} : {})},
})
const sl = (hints: (string | null)[], uid = 'us'): EndpointSlice => ({
  metadata: {name: 's1', uid, resourceVersion: '3'},
  addressType: 'IPv4',
  endpoints: hints.map((h, i) => ({addresses: [`10.0.0.${i}`], ...(h ? {hints: {forZones: [{name: h}]}} : {})})),
})
const rec = (h: (string | null)[]) => h.map((z, i) => ({addresses: [`10.0.0.${i}`], hints: z ? {forZones: [{name: z}]} : null}))
const sliceRec = (before: (string | null)[], after: (string | null)[]): SliceRecord => ({
  kind: 'EndpointSlice',
  name: 's1',
  uid: 'us',
  state: 'pending',
  before: rec(before),
  prior: rec(before),
  after: rec(after),
})

describe('journal records', () => {
  it('a second apply keeps the original value of each field it wrote before, and takes the current value of a field someone else changed', () => {
    let j = recordPending(emptyJournal(key), svcRec(F('Auto', null, null), F(null, null, 'PreferSameZone')))
    j = markState(j, 'Service', 'web', 'written')
    // Someone else set the deprecated annotation; then apply --mode Auto.
    j = recordPending(j, svcRec(F(null, 'disabled', 'PreferSameZone'), F('Auto', null, 'PreferSameZone')))
    const r = j.objects[0] as ServiceRecord
    expect(r.before).toEqual(F('Auto', 'disabled', null))
    expect(r.prior).toEqual(F(null, 'disabled', 'PreferSameZone'))
    expect(r.state).toBe('pending')
  })
  it('per endpoint for slices', () => {
    let j = recordPending(emptyJournal(key), sliceRec([null, null], ['a', 'b']))
    j = recordPending(j, sliceRec(['a', 'x'], ['c', 'c']))
    expect((j.objects[0] as SliceRecord).before).toEqual(rec([null, 'x']))
  })
  it('compactJournal drops objects with nothing to undo', () => {
    expect(compactJournal(recordPending(emptyJournal(key), svcRec(F(null, null, null), F(null, null, null)))).objects).toEqual([])
  })
})

describe('planReset', () => {
  const j = recordPending(recordPending(emptyJournal(key), svcRec(F('Auto', null, null), F(null, null, 'PreferSameZone'))), sliceRec([null, null], ['a', 'b']))

  it('restores what apply changed, with a merge patch carrying the resourceVersion and a JSON patch of the hints', () => {
    const p = planReset(j, {service: svc(F(null, null, 'PreferSameZone')), slices: [sl(['a', 'b'])]})
    expect(p.skipped).toEqual([])
    expect(p.service!.patch).toEqual({metadata: {resourceVersion: '9', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}, spec: {trafficDistribution: null}})
    expect(p.changes.serviceChanges.map((c) => [c.field, c.old, c.new])).toEqual([
      ['topologyMode', null, 'Auto'],
      ['trafficDistribution', 'PreferSameZone', null],
    ])
    expect(p.slices[0]!.patch).toEqual([
      {op: 'replace', path: '/metadata/resourceVersion', value: '3'},
      {op: 'remove', path: '/endpoints/0/hints'},
      {op: 'remove', path: '/endpoints/1/hints'},
    ])
    expect(p.done).toEqual([
      {kind: 'Service', name: 'web'},
      {kind: 'EndpointSlice', name: 's1'},
    ])
  })

  it('leaves a value someone else changed since apply, and reports it; --force restores it', () => {
    const live = {service: svc(F(null, null, 'PreferSameNode')), slices: [sl(['a', 'z'])]}
    const p = planReset(j, live)
    expect(p.changes.serviceChanges.map((c) => c.field)).toEqual(['topologyMode'])
    expect(p.skipped.map((s) => s.reason)).toEqual([
      'spec.trafficDistribution is "PreferSameNode", changed by someone else since apply wrote "PreferSameZone"; left as is (reset --force restores <unset>)',
      'endpoint 10.0.0.1 has hints zones=z, changed by someone else since apply wrote zones=b; left as is (reset --force restores <none>)',
    ])
    expect(p.slices[0]!.patch).toEqual([
      {op: 'replace', path: '/metadata/resourceVersion', value: '3'},
      {op: 'remove', path: '/endpoints/0/hints'},
    ])
    expect(p.done).toEqual([])
    const forced = planReset(j, live, {force: true})
    expect(forced.skipped).toEqual([])
    expect(forced.changes.serviceChanges.map((c) => c.field)).toEqual(['topologyMode', 'trafficDistribution'])
  })

  it('a write that never happened (interrupted: live value is the value before) needs nothing', () => {
    const p = planReset(j, {service: svc(F('Auto', null, null)), slices: [sl([null, null])]})
    expect(p.service).toBeNull()
    expect(p.slices).toEqual([])
    expect(p.done).toHaveLength(2)
  })

  it('a deleted or recreated object is skipped', () => {
    const p = planReset(j, {service: svc(F(null, null, 'PreferSameZone'), 'other-uid'), slices: []})
    expect(p.skipped.map((s) => `${s.kind}: ${s.reason}`)).toEqual(['Service: it was deleted and created again since apply (different uid)', 'EndpointSlice: it no longer exists'])
  })
})

// Issue 20 class 2: a write whose answer was lost.
describe('heldByServer', () => {
  const r = svcRec(F('Auto', null, null), F(null, null, 'PreferClose'))
  it('tells written, not written and unknown apart from a re-read', () => {
    expect(heldByServer(r, {service: svc(F(null, null, 'PreferClose')), slices: []})).toBe('written')
    expect(heldByServer(r, {service: svc(F('Auto', null, null)), slices: []})).toBe('not-written')
    expect(heldByServer(r, {service: svc(F(null, null, 'PreferSameZone')), slices: []})).toBe('unknown')
    expect(heldByServer(r, {service: null, slices: []})).toBe('unknown')
    expect(heldByServer(r, {service: svc(F(null, null, 'PreferClose'), 'other'), slices: []})).toBe('unknown')
  })
  it('slices by their endpoints hints', () => {
    const s = sliceRec(['a', null], ['a', 'b'])
    expect(heldByServer(s, {service: null, slices: [sl(['a', 'b'])]})).toBe('written')
    expect(heldByServer(s, {service: null, slices: [sl(['a', null])]})).toBe('not-written')
  })
})

describe('recordPending after a run whose outcome was never known', () => {
  it('keeps the original before when the live value is the one that run read (its write did not happen)', () => {
    // First apply: Auto -> PreferClose, written. Second apply: PreferClose -> PreferSameZone, answer lost, not stored.
    const first: ServiceRecord = {...svcRec(F('Auto', null, null), F(null, null, 'PreferClose')), state: 'written'}
    const lost: ServiceRecord = {...first, prior: F(null, null, 'PreferClose'), after: F(null, null, 'PreferSameZone'), state: 'unknown'}
    const j = {...emptyJournal(key), objects: [lost]}
    // Third apply reads PreferClose (the lost write was not stored).
    const next = recordPending(j, svcRec(F(null, null, 'PreferClose'), F(null, null, 'PreferSameNode')))
    expect((next.objects[0] as ServiceRecord).before).toEqual(F('Auto', null, null))
  })
})
