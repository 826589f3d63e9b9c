// apply --wait's polling loop on a virtual clock: each list() returns the next scripted state.
import {describe, expect, it} from 'vitest'
import {waitForController, type WaitOptions} from '../../src/commands/apply-wait.js'
import {waitVerdict, type PredictedEndpoint} from '../../src/apply/wait.js'
import type {EndpointSlice} from '../../src/upstream/api/types.js'

const slice = (rv: string, zone: string | null): EndpointSlice => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {name: 'web-abcde', namespace: 'default', resourceVersion: rv, labels: {'kubernetes.io/service-name': 'web'}},
  addressType: 'IPv4',
  endpoints: [{addresses: ['10.0.0.1'], conditions: {ready: true}, zone: 'zone-a', ...(zone ? {hints: {forZones: [{name: zone}]}} : {})}],
})

const noHints: PredictedEndpoint[] = [{address: '10.0.0.1', ready: true, hints: null}]
const zoneA: PredictedEndpoint[] = [{address: '10.0.0.1', ready: true, hints: {forZones: ['zone-a'], forNodes: []}}]

/** Runs the loop; the i-th list() (from 0) returns states(i). Returns the result and the virtual time spent. */
async function run(states: (i: number) => EndpointSlice[], o: Partial<WaitOptions> & Pick<WaitOptions, 'predicted' | 'before'>) {
  let t = 0
  let calls = 0
  const result = await waitForController({
    list: async () => states(calls++),
    perZone: false,
    timeoutMs: 60_000,
    interrupted: () => false,
    settleMs: 5000,
    pollMs: 250,
    now: () => t,
    sleep: async (ms) => {
      t += ms
    },
    ...o,
  })
  return {result, elapsed: t, calls}
}

describe('apply --wait (waitForController)', () => {
  it('a match on slices the controller rewrote after the write counts at once', async () => {
    const before = [slice('100', null)]
    const {result, elapsed} = await run(() => [slice('101', 'zone-a')], {predicted: zoneA, before})
    expect(result).toEqual({matched: true, perZone: false, differences: []})
    expect(elapsed).toBe(0)
  })

  it('a match on slices still as they were before the write waits for the controller: it may write something else', async () => {
    // Predicted: no hints. The slices have none yet because the controller has not synced the
    // change; 1 s later it writes zone hints: a difference, not a match.
    const before = [slice('100', null)]
    const {result} = await run((i) => (i < 4 ? [slice('100', null)] : [slice('101', 'zone-a')]), {predicted: noHints, before})
    expect(result.matched).toBe(false)
    expect(result.differences).toEqual([{subject: '10.0.0.1', expected: '<none>', actual: 'zones=zone-a'}])
  })

  it('a match on unchanged slices counts once it has held for the settle period (the controller had nothing to write)', async () => {
    const before = [slice('100', 'zone-a')]
    const {result, elapsed} = await run(() => [slice('100', 'zone-a')], {predicted: zoneA, before})
    expect(result.matched).toBe(true)
    expect(elapsed).toBe(5000)
  })

  it('without a write (no changes), a match counts at once', async () => {
    const {result, elapsed} = await run(() => [slice('100', 'zone-a')], {predicted: zoneA, before: undefined})
    expect(result.matched).toBe(true)
    expect(elapsed).toBe(0)
  })

  it('a difference that stops changing is reported after the settle period', async () => {
    const before = [slice('100', null)]
    const {result, elapsed} = await run(() => [slice('101', 'zone-b')], {predicted: zoneA, before})
    expect(result.matched).toBe(false)
    expect(result.differences).toEqual([{subject: '10.0.0.1', expected: 'zones=zone-a', actual: 'zones=zone-b'}])
    expect(elapsed).toBe(5000)
  })

  it('a difference on slices still as they were before the write: waits for the controller past the settle period', async () => {
    // The controller writes the predicted hints only after 20 s (a loaded machine).
    const before = [slice('100', null)]
    const {result, elapsed} = await run((i) => (i * 250 < 20_000 ? [slice('100', null)] : [slice('101', 'zone-a')]), {predicted: zoneA, before})
    expect(result.matched).toBe(true)
    expect(elapsed).toBe(20_000)
    // ... and one that never answers is bounded by the timeout.
    const never = await run(() => [slice('100', null)], {predicted: zoneA, before, timeoutMs: 30_000})
    expect(never.result.matched).toBe(false)
    expect(never.elapsed).toBe(30_000)
  })

  it('slices that keep changing without matching: bounded by the timeout', async () => {
    const before = [slice('100', null)]
    const {result, elapsed} = await run((i) => [slice(String(101 + i), 'zone-b')], {predicted: zoneA, before, timeoutMs: 3000, settleMs: 5000})
    expect(result.matched).toBe(false)
    expect(elapsed).toBe(3000)
  })
})

describe('waitVerdict (apply/plan.ts): the rule of one poll', () => {
  it.each([
    // match, changedSinceWrite, settled, over -> verdict
    [true, true, false, false, 'matched'],
    [true, false, false, false, 'wait'], // the controller may not have synced the change yet
    [true, false, true, false, 'matched'], // held for the settle period: nothing to write
    [true, false, false, true, 'matched'],
    [false, true, false, false, 'wait'], // the controller is still writing
    [false, true, true, false, 'differs'],
    [false, false, true, false, 'wait'], // unchanged slices: only the timeout ends the wait
    [false, false, false, true, 'differs'],
  ] as const)('match=%s changedSinceWrite=%s settled=%s over=%s -> %s', (match, changedSinceWrite, settled, over, verdict) => {
    expect(waitVerdict({match, changedSinceWrite, settled, over})).toBe(verdict)
  })
})
