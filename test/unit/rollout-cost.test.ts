// Issue 23: a rollout one pod at a time (a Deployment with maxSurge 1, maxUnavailable 0; a
// StatefulSet) and plan's placement over a range of counts cost N log N, not N^2. Counted, not
// timed: every endpoint of the input is a Proxy that counts the reads of its fields, and
// structuredClone is replaced by a copy that counts the objects it copies. A step that copies
// the whole state, or scans every endpoint, costs N per step: N^2 over a rollout, about 4x the
// operations when N doubles; a step that costs what it changes stays near 2x.
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {statesOverRange} from '../../src/advise/placement.js'
import {rollout} from '../../src/simulate/rollout.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {Endpoint, EndpointSlice, Node, Service} from '../../src/upstream/api/types.js'

let ops = 0
const realClone = globalThis.structuredClone
beforeEach(() => {
  ops = 0
  globalThis.structuredClone = (<T>(v: T): T => {
    const walk = (x: unknown): unknown => {
      if (typeof x !== 'object' || x === null) return x
      ops++
      if (Array.isArray(x)) return x.map(walk)
      const o: Record<string, unknown> = {}
      for (const k of Object.keys(x)) o[k] = walk((x as Record<string, unknown>)[k])
      return o
    }
    return walk(v) as T
  }) as typeof structuredClone
})
afterEach(() => {
  globalThis.structuredClone = realClone
})

const counting = <T extends object>(o: T): T =>
  new Proxy(o, {
    get(target, key, receiver) {
      ops++
      return Reflect.get(target, key, receiver)
    },
  })

/** 6 nodes in 3 zones, n ready endpoints of svc/web (pods web-0 .. web-(n-1)) in slices of 100, each endpoint counting its reads (unless plain). */
function cluster(n: number, plain = false): {state: ClusterState; svc: Service} {
  const zones = ['z-a', 'z-b', 'z-c']
  const nodes: Node[] = Array.from({length: 6}, (_, i) => ({
    metadata: {name: `n${i}`, labels: {'topology.kubernetes.io/zone': zones[i % 3]!}},
    status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
  }))
  const eps: Endpoint[] = Array.from({length: n}, (_, i) =>
    (plain ? (e: Endpoint) => e : counting)({
      addresses: [`10.0.${i >> 8}.${i & 255}`],
      conditions: {ready: true},
      nodeName: `n${i % 6}`,
      zone: zones[i % 3]!,
      targetRef: {kind: 'Pod', name: `web-${i}`},
    }),
  )
  const slices: EndpointSlice[] = []
  for (let i = 0; i < n; i += 100)
    slices.push({metadata: {name: `web-${i}`, namespace: 'shop', labels: {'kubernetes.io/service-name': 'web'}}, addressType: 'IPv4', endpoints: eps.slice(i, i + 100)})
  const svc: Service = {metadata: {name: 'web', namespace: 'shop'}, spec: {ports: [{port: 80}], selector: {app: 'web'}}}
  return {state: {nodes, services: [svc], endpointSlices: slices}, svc}
}

/** The operations of f on a cluster of n endpoints (building the cluster not counted). */
function cost(n: number, f: (state: ClusterState, svc: Service) => unknown): number {
  const {state, svc} = cluster(n)
  ops = 0
  f(state, svc)
  return ops
}

describe('one pod at a time costs N log N (operations counted, not time)', () => {
  const cases: [string, (state: ClusterState, svc: Service) => unknown][] = [
    ['Deployment rollout, maxSurge 1, maxUnavailable 0', (state, svc) => rollout(state, svc, {kind: 'Deployment', type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0})],
    ['StatefulSet rollout, one pod at a time', (state, svc) => rollout(state, svc, {kind: 'StatefulSet', type: 'RollingUpdate', name: 'web', partition: 0, maxUnavailable: 1})],
    ["plan's placement: every count from 1 to 2N", (state, svc) => statesOverRange(state, svc, 1, 2 * state.endpointSlices.reduce((k, s) => k + (s.endpoints?.length ?? 0), 0))],
  ]
  for (const [name, f] of cases) {
    it(name, () => {
      const small = cost(150, f)
      const large = cost(300, f)
      // N^2: 4x (and thousands of operations per endpoint); N log N: about 2x, a few per endpoint.
      expect(large / small).toBeLessThan(2.5)
      expect(large / 300).toBeLessThan(100)
    })
  }

  it('the steps are still whole states: each step of a rollout holds every endpoint it should', () => {
    globalThis.structuredClone = realClone
    const {state, svc} = cluster(30, true)
    const steps = rollout(state, svc, {kind: 'Deployment', type: 'RollingUpdate', maxSurge: 1, maxUnavailable: 0})
    for (const s of steps) {
      const all = s.state.endpointSlices.flatMap((sl) => sl.endpoints ?? [])
      expect(all.length).toBe(s.oldPods + s.newReady + s.newNotReady)
      expect(all.filter((e) => e.conditions?.ready === true).length).toBe(s.oldPods + s.newReady)
    }
    // The input is never changed.
    expect(state.endpointSlices.flatMap((sl) => sl.endpoints ?? [])).toHaveLength(30)
  })
})
