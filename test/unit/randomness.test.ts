// Issue 13 (engine): what the EndpointSlice controller leaves to Go's random orders, and its
// per-Service "hints populated" mark, pinned with literals. Each case failed before the fix:
// explain took the slices in name order and called any other order drift, and it assumed a
// first sync (an Enabled event, never the Disabled one of leaving Auto).
import {describe, expect, it} from 'vitest'
import {explain, type ServiceExplanation} from '../../src/explain/report.js'
import {renderExplain} from '../../src/render/explain.js'
import {checkNoDrift} from '../../src/check/check.js'
import {givingReceivingOutcomes, hintAlternatives} from '../../src/upstream/endpointslice/topologycache/randomness.js'
import {ANNOTATION_TOPOLOGY_MODE, type EndpointSlice, type EventObject} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {node, service, slice, state, type EpSpec} from './builders.js'

const AUTO = {annotations: {[ANNOTATION_TOPOLOGY_MODE]: 'Auto'}}
const NODES = [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b')]

/** A slice whose addresses start at 10.<base>.0.1, so two slices do not share addresses. */
function named(name: string, base: number, eps: EpSpec[]): EndpointSlice {
  const s = slice('web', eps, {name})
  s.endpoints!.forEach((e, i) => (e.addresses = [`10.${base}.0.${i + 1}`]))
  return s
}

// Equal zones, N = 8 ready: zone-a holds 6, zone-b 2; targets 4 and 4, so zone-a gives 2.
// Upstream donates the first two zone-a endpoints of whichever slice it walks first.
const a = (hint?: string): EpSpec => (hint ? {zone: 'zone-a', hint: [hint]} : {zone: 'zone-a'})
const b = (hint?: string): EpSpec => (hint ? {zone: 'zone-b', hint: [hint]} : {zone: 'zone-b'})
function twoSlices(h1: (string | undefined)[], h2: (string | undefined)[]): ClusterState {
  return state(NODES, [service('web', AUTO)], [named('web-1', 1, [a(h1[0]), a(h1[1]), a(h1[2])]), named('web-2', 2, [a(h2[0]), a(h2[1]), a(h2[2]), b(h2[3]), b(h2[4])])])
}
const only = (st: ClusterState, prediction: 'fresh' | 'next-sync' = 'fresh'): ServiceExplanation => explain(st, st.services, {prediction}).services[0]!

describe('several slices, topology-mode Auto: the slice order is random', () => {
  it('the live hints of the other order (web-2 walked first) are no drift', () => {
    const s = only(twoSlices(['zone-a', 'zone-a', 'zone-a'], ['zone-b', 'zone-b', 'zone-a', 'zone-b', 'zone-b']))
    expect(s.drift).toEqual({endpoints: 0, zoneCounts: false})
    expect(s.findings).not.toContain('drift')
    expect(checkNoDrift(s).status).toBe('pass')
  })

  it('-o wide shows the alternatives where upstream picks at random, not only our pick (issue 23)', () => {
    const st = twoSlices([], [])
    const text = renderExplain(explain(st, st.services, {prediction: 'fresh'}), {format: 'wide'})
    const rows = text.split('\n').filter((l) => /^10\.[12]\.0\.\d/.test(l))
    expect(text).toMatch(/PREDICTED HINTS\s+ALTERNATIVES\s+DONATED/)
    // 10.1.0.1: predicted zone-b (donated), but upstream may as well keep it in zone-a
    expect(rows.find((l) => l.startsWith('10.1.0.1 '))).toMatch(/\szones=zone-b\s+any of zone-a,zone-b\s+-> zone-b$/)
    expect(rows.find((l) => l.startsWith('10.1.0.3 '))).toMatch(/\szones=zone-a\s+-\s+-$/)
    expect(rows.filter((l) => l.includes('any of zone-a,zone-b'))).toHaveLength(4)
  })

  it('says which endpoints are uncertain and what they can get; the per-zone counts are certain', () => {
    const s = only(twoSlices([], []))
    expect(s.endpoints.map((e) => e.alternatives)).toEqual([['zone-a', 'zone-b'], ['zone-a', 'zone-b'], null, ['zone-a', 'zone-b'], ['zone-a', 'zone-b'], null, null, null])
    // Our pick (name order) is one of them.
    expect(s.endpoints.map((e) => e.predictedHints?.forZones[0])).toEqual(['zone-b', 'zone-b', 'zone-a', 'zone-a', 'zone-a', 'zone-a', 'zone-b', 'zone-b'])
    expect(s.controller.randomChoices).toEqual({tieBreaks: 0, receiverChoices: 0, sliceOrder: 4, unchangedOrder: false, uncertainEndpoints: 4, countsCertain: true})
  })

  it('a hint no order gives is drift (the third zone-a endpoint of a slice is never donated)', () => {
    const s = only(twoSlices(['zone-a', 'zone-a', 'zone-b'], ['zone-b', 'zone-a', 'zone-a', 'zone-b', 'zone-b']))
    expect(s.endpoints.filter((e) => e.drift).map((e) => e.addresses[0])).toEqual(['10.1.0.3'])
  })

  it('per-endpoint possible but counts impossible (four donated where two are): zoneCounts drift', () => {
    const s = only(twoSlices(['zone-b', 'zone-b', 'zone-a'], ['zone-b', 'zone-b', 'zone-a', 'zone-b', 'zone-b']))
    expect(s.drift).toEqual({endpoints: 0, zoneCounts: true})
    expect(s.findings).toContain('drift')
    expect(checkNoDrift(s).status).toBe('fail')
  })

  it("one slice: the walk order is the slice's own, nothing is uncertain", () => {
    const st = state(NODES, [service('web', AUTO)], [named('web-1', 1, [a(), a(), a(), a(), a(), a(), b(), b()])])
    const s = only(st)
    expect(s.endpoints.every((e) => e.alternatives === null)).toBe(true)
    expect(s.controller.randomChoices.sliceOrder).toBe(0)
  })
})

describe('ties and receivers (randomness.ts)', () => {
  it('a tie for the largest surplus: either zone gives, both outcomes listed', () => {
    const alloc = {a: {target: 2}, b: {target: 2}, c: {target: 4}}
    expect(givingReceivingOutcomes(alloc, {a: 3, b: 3, c: 2})).toEqual([{giving: {a: 1, b: 1}, receiving: {c: 2}}])
    const alloc2 = {a: {target: 2.5}, b: {target: 2.5}, c: {target: 3}}
    // a and b each 0.5 over: one of them gives the one endpoint c lacks.
    expect(givingReceivingOutcomes(alloc2, {a: 3, b: 3, c: 2})).toEqual([
      {giving: {a: 1}, receiving: {c: 1}},
      {giving: {b: 1}, receiving: {c: 1}},
    ])
  })

  it('a long walk (thousands of endpoints to give) does not need the call stack (--replicas 100000 overflowed it)', () => {
    // One giver, one receiver: a single path, one step per endpoint given.
    expect(givingReceivingOutcomes({a: {target: 5_000}, b: {target: 19_000}}, {a: 19_000, b: 5_000})).toEqual([{giving: {a: 14_000}, receiving: {b: 14_000}}])
    // Longer than the walk's budget (20,000 states): not predicted, as before, rather than a crash.
    expect(givingReceivingOutcomes({a: {target: 5_000}, b: {target: 30_000}}, {a: 30_000, b: 5_000})).toBeNull()
  })

  it('several receivers: a donated endpoint may go to any of them', () => {
    const sl = named('web-1', 1, [a(), a(), a(), a()])
    const alloc = {
      'zone-a': {desired: 2, minimum: 2, target: 2, maximum: 2},
      'zone-b': {desired: 1, minimum: 1, target: 1, maximum: 1},
      'zone-c': {desired: 1, minimum: 1, target: 1, maximum: 1},
    }
    const alt = hintAlternatives([sl], alloc, {'zone-a': 4}, false)
    expect(alt.bySlice.get('web-1')).toEqual([['zone-b', 'zone-c'], ['zone-b', 'zone-c'], ['zone-a'], ['zone-a']])
    expect(alt.counts).toEqual([{'zone-a': 2, 'zone-b': 1, 'zone-c': 1}])
  })
})

describe('the controller\'s "hints populated" mark and its events', () => {
  const hinted = [named('web-1', 1, [a('zone-a'), a('zone-a'), b('zone-b'), b('zone-b')])]
  const ev = (reason: string, message: string, time: string, rv: string): EventObject => ({
    metadata: {name: `web.${rv}`, namespace: 'default', resourceVersion: rv},
    involvedObject: {kind: 'Service', name: 'web', namespace: 'default'},
    reason,
    message,
    type: reason.endsWith('Enabled') ? 'Normal' : 'Warning',
    source: {component: 'endpoint-slice-controller'},
    lastTimestamp: time,
  })
  const ENABLED = ev('TopologyAwareHintsEnabled', 'Topology Aware Hints has been enabled, addressType: IPv4', '2026-11-25T10:00:00Z', '10')
  const DISABLED = ev('TopologyAwareHintsDisabled', 'Topology Aware Hints has been disabled, addressType: IPv4', '2026-11-25T10:00:00Z', '11')
  const run = (svc: ReturnType<typeof service>, slices: EndpointSlice[], events?: EventObject[]) => {
    const st: ClusterState = {...state(NODES, [svc], slices), ...(events ? {events} : {})}
    return explain(st, st.services).services[0]!.controller
  }

  it('enabled from none (no hints, no event): Normal TopologyAwareHintsEnabled', () => {
    const c = run(service('web', AUTO), [named('web-1', 1, [a(), a(), b(), b()])])
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'assumed'})
    expect(c.event?.reason).toBe('TopologyAwareHintsEnabled')
  })

  it('enabled, already populated (its Enabled event is the latest): no event', () => {
    const c = run(service('web', AUTO), hinted, [ENABLED])
    expect(c.state).toEqual({hintsPopulated: true, inferredFrom: 'events'})
    expect(c.event).toBeNull()
    expect(c.hintsSet).toBe(true)
  })

  it('Auto again after it was switched off (the Disabled event is the latest, same second, later resourceVersion): Enabled', () => {
    const c = run(service('web', AUTO), hinted, [ENABLED, DISABLED])
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'events'})
    expect(c.event?.reason).toBe('TopologyAwareHintsEnabled')
  })

  it('disabled after populated: Warning TopologyAwareHintsDisabled "Topology Aware Hints has been disabled"', () => {
    const c = run(service('web'), hinted, [ENABLED])
    expect(c.event).toEqual({type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Topology Aware Hints has been disabled, addressType: IPv4'})
  })

  it('Auto -> PreferSameZone after populated: the same Warning, then trafficDistribution hints', () => {
    const c = run(service('web', {trafficDistribution: 'PreferSameZone'}), hinted, [ENABLED])
    expect(c).toMatchObject({path: 'traffic-distribution', hintsSet: true, event: {reason: 'TopologyAwareHintsDisabled'}})
  })

  it('PreferSameZone in its steady state (own-zone hints, Events read, none recorded): nothing recorded', () => {
    const c = run(service('web', {trafficDistribution: 'PreferSameZone'}), hinted, [])
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'events'})
    expect(c.event).toBeNull()
    expect(c.mayRecord).toBeUndefined()
  })

  it('issue 23: own-zone hints written by trafficDistribution, switched to none, Events not read (a List file): the Disabled Event is a "may", not a fact', () => {
    // Before: state {hintsPopulated: true, inferredFrom: 'live-hints'} and event TopologyAwareHintsDisabled
    // "has been disabled", which the controller does not record (its mark is set only on the Auto path).
    const c = run(service('web'), hinted)
    expect(c.state).toEqual({hintsPopulated: true, inferredFrom: 'unknown'})
    expect(c.event).toBeNull()
    expect(c.mayRecord).toEqual({type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Topology Aware Hints has been disabled, addressType: IPv4'})
    // The same switch with the Events read (none recorded: the hints were trafficDistribution's): no event at all.
    const read = run(service('web'), hinted, [])
    expect([read.state.inferredFrom, read.event, read.mayRecord]).toEqual(['events', null, undefined])
  })

  it('PreferSameZone steady state without Events: the hints are its own, so the mark is clear and no event is recorded (no "may")', () => {
    // The first sync off Auto records Disabled and clears the mark; hints the next sync leaves as they
    // are say that sync has happened (controller-mark.test.ts has the List-file cases).
    const c = run(service('web', {trafficDistribution: 'PreferSameZone'}), hinted)
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'live-hints'})
    expect(c.event).toBeNull()
    expect(c.mayRecord).toBeUndefined()
  })

  it('refused: the Warning with its reason at every sync, populated or not', () => {
    const few = [named('web-1', 1, [a('zone-a')])]
    for (const events of [undefined, [ENABLED]]) {
      const c = run(service('web', AUTO), few, events)
      expect(c.event).toEqual({type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Insufficient number of endpoints (1 endpoints, 2 zones), addressType: IPv4'})
    }
  })

  it('PreferSameNode -> none before the controller synced (node hints: trafficDistribution wrote them): no event', () => {
    const psn = [
      named('web-1', 1, [
        {zone: 'zone-a', node: 'zone-a-0', hint: ['zone-a']},
        {zone: 'zone-b', node: 'zone-b-0', hint: ['zone-b']},
      ]),
    ]
    psn[0]!.endpoints!.forEach((e) => (e.hints!.forNodes = [{name: e.nodeName!}]))
    const c = run(service('web'), psn)
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'live-hints'})
    expect(c.event).toBeNull()
  })

  it('PreferSameZone -> Auto before the controller synced (Events read, none recorded): Enabled', () => {
    const c = run(service('web', {...AUTO, trafficDistribution: 'PreferSameZone'}), hinted, [])
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'events'})
    expect(c.event?.reason).toBe('TopologyAwareHintsEnabled')
  })

  it('PreferClose at 1.31-1.32 with a zone-less endpoint hinted for zone "" (trafficdist\'s, not a donation): not populated, no event', () => {
    // Found by the matrix on 1.31 (traffic variant, a re-sync step): the "" hint was read as
    // a donation, so explain predicted "Topology Aware Hints has been disabled" and the controller recorded nothing.
    const sl = named('web-1', 1, [a('zone-a'), b('zone-b'), {zone: null, node: 'nozone-0', hint: ['']}])
    const svc = service('web', {trafficDistribution: 'PreferClose'})
    const nodes = [...NODES, node('nozone-0', null)]
    for (const events of [undefined, []]) {
      const st: ClusterState = {...state(nodes, [svc], [sl]), ...(events ? {events} : {})}
      const c = explain(st, st.services, {kubeVersion: '1.31'}).services[0]!.controller
      expect(c.state.hintsPopulated).toBe(false)
      expect(c.event).toBeNull()
    }
  })

  it('a donated hint off the Auto path: AddHints wrote it, so populated', () => {
    const donated = [named('web-1', 1, [a('zone-b'), a('zone-a'), b('zone-b')])]
    const c = run(service('web', {trafficDistribution: 'PreferClose'}), donated, [])
    expect(c.state).toEqual({hintsPopulated: true, inferredFrom: 'live-hints'})
    expect(c.event?.message).toBe('Topology Aware Hints has been disabled, addressType: IPv4')
  })

  it('events of another Service or another component are not read', () => {
    const other = {...ENABLED, involvedObject: {kind: 'Service', name: 'other', namespace: 'default'}}
    const kubelet = {...ENABLED, source: {component: 'kubelet'}}
    const c = run(service('web', AUTO), [named('web-1', 1, [a(), a(), b(), b()])], [other, kubelet])
    expect(c.state.inferredFrom).toBe('assumed')
  })
})
