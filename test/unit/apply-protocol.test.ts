// apply/protocol.ts: the write protocol's decisions, on literals.
import {describe, expect, it} from 'vitest'
import {
  finish,
  forgetDone,
  journalAfterWrite,
  journalAfterWrites,
  journalBeforeWrites,
  journalFileAction,
  MAX_CONFLICT_RETRIES,
  onConflict,
  outcomeText,
  refList,
  refText,
  willAttemptWrite,
  writeGate,
  type RunOutcome,
} from '../../src/apply/protocol.js'
import type {ApplyReport} from '../../src/apply/report.js'
import type {Journal, ServiceRecord, SliceRecord} from '../../src/apply/undo.js'

const F = (topologyMode: string | null, trafficDistribution: string | null = null) => ({topologyMode, topologyAwareHints: null, trafficDistribution})
const svcRec = (before: string | null, after: string | null, state: ServiceRecord['state'] = 'pending'): ServiceRecord => ({
  kind: 'Service',
  name: 'web',
  uid: 'u1',
  state,
  before: F(before),
  prior: F(before),
  after: F(after),
})
const sliceRec = (name: string, before: string[], after: string[]): SliceRecord => ({
  kind: 'EndpointSlice',
  name,
  uid: `uid-${name}`,
  state: 'pending',
  before: [{addresses: ['10.0.0.1'], hints: before.length ? {forZones: before.map((n) => ({name: n}))} : null}],
  prior: [{addresses: ['10.0.0.1'], hints: before.length ? {forZones: before.map((n) => ({name: n}))} : null}],
  after: [{addresses: ['10.0.0.1'], hints: {forZones: after.map((n) => ({name: n}))}}],
})
const journal = (objects: Journal['objects'] = [], history: Journal['history'] = []): Journal => ({
  apiVersion: 'kubectl-topology.io/v1',
  kind: 'ApplyJournal',
  server: 'https://k8s.example:6443',
  context: 'kind',
  namespace: 'shop',
  service: 'web',
  objects,
  history,
})
const outcome = (o: Partial<RunOutcome>): RunOutcome => ({written: [], unknown: [], failed: [], notWritten: [], conflict: null, interrupted: null, error: null, ...o})
const SVC = {kind: 'Service' as const, name: 'web'}
const ES1 = {kind: 'EndpointSlice' as const, name: 'web-1'}
const ES2 = {kind: 'EndpointSlice' as const, name: 'web-2'}

describe('refText / refList', () => {
  it('names objects as kubectl does', () => {
    expect(refText(SVC)).toBe('service/web')
    expect(refText(ES1)).toBe('endpointslice/web-1')
    expect(refList([SVC, ES1])).toBe('service/web, endpointslice/web-1')
    expect(refList([])).toBe('none')
  })
})

describe('willAttemptWrite: the permission check runs only when a write will be attempted', () => {
  it.each([
    // changed, dryRun, yes, canPrompt, json -> attempt
    [false, 'server', true, true, false, false],
    [true, 'server', false, false, true, true],
    [true, 'client', true, true, false, false],
    [true, 'none', true, false, true, true],
    [true, 'none', false, true, false, true],
    [true, 'none', false, true, true, false],
    [true, 'none', false, false, false, false],
  ] as const)('changed=%s dry-run=%s yes=%s prompt=%s json=%s -> %s', (changed, dryRun, yes, canPrompt, json, expected) => {
    expect(willAttemptWrite(changed, {dryRun, yes, canPrompt, json})).toBe(expected)
  })
})

describe('writeGate: what happens to a plan with changes', () => {
  it.each([
    ['client', false, true, false, 'dry-run'],
    ['client', true, true, false, 'dry-run'],
    ['server', false, false, true, 'write'],
    ['none', true, false, true, 'write'],
    ['none', false, true, false, 'ask'],
    ['none', false, false, false, 'preview'],
    ['none', false, true, true, 'preview'],
  ] as const)('dry-run=%s yes=%s prompt=%s json=%s -> %s', (dryRun, yes, canPrompt, json, expected) => {
    expect(writeGate({dryRun, yes, canPrompt, json})).toBe(expected)
  })
})

describe('onConflict', () => {
  it(`retries ${MAX_CONFLICT_RETRIES} times, then gives up`, () => {
    expect(MAX_CONFLICT_RETRIES).toBe(3)
    expect([0, 1, 2, 3, 4].map((a) => onConflict(a))).toEqual(['retry', 'retry', 'retry', 'give-up', 'give-up'])
    expect(onConflict(0, 0)).toBe('give-up')
  })
})

describe('journal first', () => {
  it('records every planned object as pending and the action as started, before any request', () => {
    const j = journalBeforeWrites(journal(), [svcRec(null, 'Auto'), null, sliceRec('web-1', [], ['zone-a'])], {time: '2026-11-25T12:00:00.000Z', action: 'apply --mode Auto'})
    expect(j.objects.map((o) => [o.kind, o.name, o.state])).toEqual([
      ['Service', 'web', 'pending'],
      ['EndpointSlice', 'web-1', 'pending'],
    ])
    expect(j.history).toEqual([{time: '2026-11-25T12:00:00.000Z', action: 'apply --mode Auto', outcome: 'started'}])
    expect(journalBeforeWrites(journal(), [svcRec(null, 'Auto')], undefined).history).toEqual([])
  })

  it('keeps the first before of an object an earlier apply wrote', () => {
    const earlier = journal([{...svcRec(null, 'Auto'), state: 'written'}])
    const j = journalBeforeWrites(earlier, [svcRec('Auto', 'PreferSameZone')], undefined)
    expect(j.objects[0]).toMatchObject({before: F(null), prior: F('Auto'), after: F('PreferSameZone'), state: 'pending'})
  })

  it('marks an object written after its request', () => {
    const j = journalAfterWrite(journal([svcRec(null, 'Auto'), sliceRec('web-1', [], ['zone-a'])]), SVC)
    expect(j.objects.map((o) => o.state)).toEqual(['written', 'pending'])
  })

  it('after the run: objects not written go back to their earlier record (or leave), the history gets the outcome', () => {
    const pre = journal([{...sliceRec('web-2', [], ['zone-b']), state: 'written'}])
    const during = journal(
      [{...svcRec(null, 'Auto'), state: 'written'}, sliceRec('web-1', [], ['zone-a']), {...sliceRec('web-2', ['zone-b'], ['zone-c'])}],
      [{time: 't', action: 'apply --hints', outcome: 'started'}],
    )
    const j = journalAfterWrites(during, pre, outcome({written: [SVC], failed: [ES1], notWritten: [ES2], error: 'write EndpointSlice web-1: boom'}), {
      time: 't',
      action: 'apply --hints',
    })
    expect(j.objects.map((o) => [o.name, o.state])).toEqual([
      ['web', 'written'],
      ['web-2', 'written'],
    ])
    expect(j.objects[1]).toEqual(pre.objects[0])
    expect(j.history).toEqual([{time: 't', action: 'apply --hints', outcome: 'failed: write EndpointSlice web-1: boom (service/web)'}])
  })

  it('drops records whose before equals their after', () => {
    const j = journalAfterWrites(journal([{...svcRec('Auto', 'Auto'), state: 'written'}]), null, outcome({written: [SVC]}), undefined)
    expect(j.objects).toEqual([])
    expect(journalFileAction(j)).toBe('remove')
    expect(journalFileAction(journal([svcRec(null, 'Auto')]))).toBe('write')
  })

  it.each([
    [outcome({written: [SVC, ES1]}), 'written (service/web, endpointslice/web-1)'],
    [outcome({conflict: SVC, notWritten: [SVC]}), 'conflict: re-planning (nothing written)'],
    [outcome({interrupted: 'SIGINT', written: [SVC], notWritten: [ES1]}), 'interrupted by SIGINT (service/web)'],
    [outcome({error: 'forbidden', failed: [SVC]}), 'failed: forbidden (nothing written)'],
  ])('outcomeText %#', (o, text) => {
    expect(outcomeText(o)).toBe(text)
  })

  it('reset: forgetDone drops the objects restored or already at their original value', () => {
    const j = journal([svcRec(null, 'Auto'), sliceRec('web-1', [], ['zone-a']), sliceRec('web-2', [], ['zone-b'])])
    expect(forgetDone(j, [SVC, ES2]).objects.map((o) => o.name)).toEqual(['web-1'])
    expect(forgetDone(j, []).objects).toHaveLength(3)
  })
})

describe('finish: one for apply and reset', () => {
  const report = (changed: boolean): ApplyReport => ({
    apiVersion: 'kubectl-topology.io/v1',
    kind: 'TopologyApply',
    namespace: 'shop',
    service: 'web',
    mode: 'Auto',
    strategy: null,
    dryRun: 'none',
    changed,
    changes: {service: [], endpointSlices: []},
    prediction: [],
    warnings: [],
    result: {status: 'preview', written: [], failed: [], notWritten: [], retries: 0, message: ''},
  })

  it('sets the status and message without touching the report passed in', () => {
    const r = report(true)
    const done = finish(r, 'applied', 'Applied: service/web.', 0, false)
    expect(done).toEqual({report: {...r, result: {...r.result, status: 'applied', message: 'Applied: service/web.'}}, exitCode: 0})
    expect(r.result.status).toBe('preview')
  })

  it.each([
    // changed, code, --exit-code -> exit code
    [true, 0, false, 0],
    [true, 0, true, 1],
    [false, 0, true, 0],
    [false, 130, false, 130],
    [true, 8, true, 8],
    [false, 1, false, 1],
  ])('changed=%s code=%s --exit-code=%s -> %s', (changed, code, flag, exit) => {
    expect(finish(report(changed), 'preview', '', code, flag).exitCode).toBe(exit)
  })
})
