// Issue 14 class 8: simulate --replicas N costs about N placements, not N scans of every
// endpoint. A functional bound on a large N (before: quadratic, minutes), and the placement it
// makes is the one the rules in src/simulate/whatif.ts describe. Scaling down and rollouts: the
// same results as the one-pod-at-a-time implementation, on a few hundred endpoints (below); their
// cost is measured by bench/simulate-scale.mjs, not here.
import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {serviceView, slicesOf} from '../../src/simulate/strategies/cluster.js'
import {type RolloutStep, rollout} from '../../src/simulate/rollout.js'
import {addEndpoint, removeEndpoint, scaleReplicas} from '../../src/simulate/whatif.js'
import {resolveFenceposts} from '../../src/simulate/workload.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {Endpoint, Service} from '../../src/upstream/api/types.js'

const state = parseSnapshot(fs.readFileSync(new URL('../../examples/three-zones.yaml', import.meta.url), 'utf8'), 'three-zones.yaml')
const svc = state.services.find((s) => s.metadata.name === 'checkout' && s.metadata.namespace === 'shop')!
const endpointsOf = (st: typeof state) =>
  st.endpointSlices.filter((s) => s.metadata.namespace === 'shop' && s.metadata.labels?.['kubernetes.io/service-name'] === 'checkout').flatMap((s) => s.endpoints ?? [])

describe('scaleReplicas at scale', () => {
  it('50,000 endpoints in a few seconds, zone-balanced, unique addresses', () => {
    const t0 = performance.now()
    const next = scaleReplicas(state, svc, 50_000)
    const seconds = (performance.now() - t0) / 1000
    const eps = endpointsOf(next)
    expect(eps).toHaveLength(50_000)
    expect(eps.every((e) => e.conditions?.ready === true)).toBe(true)
    expect(new Set(eps.map((e) => e.addresses[0])).size).toBe(50_000)
    const byZone = new Map<string, number>()
    for (const e of eps) byZone.set(e.zone ?? '', (byZone.get(e.zone ?? '') ?? 0) + 1)
    // today 4/3/2 ready endpoints in eu-west-1a/b/c: each new pod goes to the zone with the
    // fewest, ties by name (plan's model), so 50000 = 16667 + 16667 + 16666
    expect(Object.fromEntries(byZone)).toEqual({'eu-west-1a': 16_667, 'eu-west-1b': 16_667, 'eu-west-1c': 16_666})
    // nodes of a zone are filled evenly (fewest endpoints first)
    const byNode = new Map<string, number>()
    for (const e of eps) byNode.set(`${e.zone} ${e.nodeName}`, (byNode.get(`${e.zone} ${e.nodeName}`) ?? 0) + 1)
    for (const zone of byZone.keys()) {
      const counts = [...byNode].filter(([k]) => k.startsWith(`${zone} `)).map(([, v]) => v)
      expect(Math.max(...counts) - Math.min(...counts), zone).toBeLessThanOrEqual(1)
    }
    expect(seconds).toBeLessThan(10)
  }, 120_000)
})

// ---- the same results as the straightforward implementation ------------------------------------
// scaleReplicas and rollout (Deployment RollingUpdate and Recreate) remove endpoints through
// heaps and add them through one placer per step. Here are the one-endpoint-at-a-time versions
// they replaced, built on the exported addEndpoint and removeEndpoint (one full scan per pod), and
// both are run on the same states of a few hundred endpoints: evenly spread, and skewed (crowded
// nodes, endpoints without a node or a zone, several slices, not-ready ones). Simulated addresses
// and pod names come from a process-wide counter, so they are compared by order of appearance.

const serviceSlicesOf = (st: ClusterState, s: Service) => {
  const type = serviceView(st, s).addressType
  return slicesOf(st, s).filter((sl) => sl.addressType === type)
}

function referenceScale(state: ClusterState, s: Service, replicas: number): ClusterState {
  const next = structuredClone(state)
  for (const sl of serviceSlicesOf(next, s)) sl.endpoints = (sl.endpoints ?? []).filter((e) => e.conditions?.ready === true)
  let have = serviceSlicesOf(next, s).reduce((n, sl) => n + (sl.endpoints ?? []).length, 0)
  for (; have > replicas; have--) removeEndpoint(next, s)
  for (; have < replicas; have++) if (!addEndpoint(next, s, {ready: true})) throw new Error('no node')
  return next
}

const isNewPod = (e: Endpoint) => e.targetRef?.name?.startsWith('~new-') === true
const readyAgain = (st: ClusterState, s: Service) => {
  for (const sl of serviceSlicesOf(st, s)) for (const e of sl.endpoints ?? []) if (isNewPod(e)) e.conditions = {ready: true, serving: true, terminating: false}
}

function referenceRollout(state: ClusterState, s: Service, p: {type: 'RollingUpdate' | 'Recreate'; maxSurge: number | string; maxUnavailable: number | string}): RolloutStep[] {
  let cur = structuredClone(state)
  for (const sl of serviceSlicesOf(cur, s)) sl.endpoints = (sl.endpoints ?? []).filter((e) => e.conditions?.ready === true)
  const isOld = (e: Endpoint) => !isNewPod(e)
  const R = serviceSlicesOf(cur, s)
    .flatMap((sl) => sl.endpoints ?? [])
    .filter(isOld).length
  let made = 0
  const add = (st: ClusterState) => {
    if (!addEndpoint(st, s, {ready: false, name: `~new-${++made}`})) throw new Error('no node')
  }
  if (p.type === 'Recreate') {
    const steps: RolloutStep[] = [{step: 0, action: 'start', oldPods: R, newReady: 0, newNotReady: 0, state: cur}]
    cur = structuredClone(cur)
    for (const sl of serviceSlicesOf(cur, s)) sl.endpoints = (sl.endpoints ?? []).filter((e) => !isOld(e))
    steps.push({step: 1, action: `delete ${R} old pod(s) (Recreate)`, oldPods: 0, newReady: 0, newNotReady: 0, state: cur})
    cur = structuredClone(cur)
    for (let i = 0; i < R; i++) add(cur)
    steps.push({step: 2, action: `create ${R} new pod(s) (not ready)`, oldPods: 0, newReady: 0, newNotReady: R, state: cur})
    cur = structuredClone(cur)
    readyAgain(cur, s)
    steps.push({step: 3, action: `${R} new pod(s) become ready`, oldPods: 0, newReady: R, newNotReady: 0, state: cur})
    return steps
  }
  const {surge, unavailable} = resolveFenceposts(p.maxSurge, p.maxUnavailable, R)
  let old = R
  let newReady = 0
  let newNotReady = 0
  const steps: RolloutStep[] = [{step: 0, action: 'start', oldPods: old, newReady, newNotReady, state: cur}]
  const push = (action: string) => steps.push({step: steps.length, action, oldPods: old, newReady, newNotReady, state: cur})
  for (let guard = 0; guard < 4 * R + 10 && (old > 0 || newReady < R); guard++) {
    const canCreate = Math.min(R + surge - (old + newReady + newNotReady), R - (newReady + newNotReady))
    if (canCreate > 0) {
      cur = structuredClone(cur)
      for (let i = 0; i < canCreate; i++) add(cur)
      newNotReady += canCreate
      push(`create ${canCreate} new pod(s) (not ready)`)
    }
    if (newNotReady > 0) {
      cur = structuredClone(cur)
      readyAgain(cur, s)
      const became = newNotReady
      newReady += newNotReady
      newNotReady = 0
      push(`${became} new pod(s) become ready`)
    }
    const canDelete = Math.min(old, old + newReady - (R - unavailable))
    if (canDelete > 0) {
      cur = structuredClone(cur)
      for (let i = 0; i < canDelete; i++) removeEndpoint(cur, s, isOld)
      old -= canDelete
      push(`delete ${canDelete} old pod(s)`)
    } else if (canCreate <= 0 && newNotReady === 0) break
  }
  return steps
}

/** JSON with simulated addresses and pod names replaced by their order of appearance. */
function canonical(x: unknown): string {
  const seen = new Map<string, string>()
  return JSON.stringify(x).replace(/198\.1[89]\.\d+\.\d+|simulated-\d+/g, (m) => {
    if (!seen.has(m)) seen.set(m, `#${seen.size}`)
    return seen.get(m)!
  })
}

/** The example's checkout Service with `n` more endpoints, placed unevenly, some odd, in several slices (seeded). */
function skewed(n: number, seed: number): ClusterState {
  const st = structuredClone(state)
  let x = seed
  const rand = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0
    return x / 2 ** 32
  }
  const zones = ['eu-west-1a', 'eu-west-1a', 'eu-west-1a', 'eu-west-1b', 'eu-west-1c']
  for (let i = 0; i < n; i++) addEndpoint(st, svc, {ready: true, zone: zones[Math.floor(rand() * zones.length)]})
  const [first, ...others] = st.endpointSlices.filter((s) => s.metadata.namespace === 'shop' && s.metadata.labels?.['kubernetes.io/service-name'] === 'checkout')
  expect(others).toEqual([])
  const eps = first!.endpoints!
  for (const e of eps) {
    const r = rand()
    if (r < 0.05) e.nodeName = undefined
    else if (r < 0.08) e.zone = undefined
    else if (r < 0.12) e.conditions = {ready: false, serving: false, terminating: false}
    else if (r < 0.2) e.nodeName = eps[Math.floor(rand() * eps.length)]!.nodeName // crowd some nodes
  }
  // Split into slices of uneven sizes, in the state's order.
  const sizes = [7, 150, 1, 60]
  first!.endpoints = eps.splice(0, sizes[0]!)
  for (const [k, size] of sizes.slice(1).entries()) {
    st.endpointSlices.push({...structuredClone({...first!, endpoints: []}), metadata: {...first!.metadata, name: `checkout-extra-${k}`}, endpoints: eps.splice(0, size)})
  }
  if (eps.length > 0) st.endpointSlices.push({...first!, metadata: {...first!.metadata, name: 'checkout-rest'}, endpoints: eps})
  return st
}

describe('scaleReplicas and rollout equal the one-pod-at-a-time implementation', () => {
  const even = scaleReplicas(state, svc, 300)
  const inputs: [string, ClusterState][] = [
    ['even, 300 endpoints', even],
    ['skewed, 309 endpoints', skewed(300, 7)],
    ['skewed, 259 endpoints', skewed(250, 42)],
  ]
  for (const [name, input] of inputs) {
    it(`${name}: scale down and up`, () => {
      for (const n of [0, 1, 37, 150, 299, 301, 420]) expect(canonical(scaleReplicas(input, svc, n)), `--replicas ${n}`).toBe(canonical(referenceScale(input, svc, n)))
    })
    it(`${name}: rolling updates and Recreate`, () => {
      for (const p of [
        {type: 'RollingUpdate', maxSurge: '25%', maxUnavailable: '25%'},
        {type: 'RollingUpdate', maxSurge: '25%', maxUnavailable: 0},
        {type: 'RollingUpdate', maxSurge: 0, maxUnavailable: '10%'},
        {type: 'RollingUpdate', maxSurge: 7, maxUnavailable: 3},
        {type: 'RollingUpdate', maxSurge: '100%', maxUnavailable: '100%'},
        {type: 'Recreate', maxSurge: 0, maxUnavailable: 0},
      ] as const) {
        const spec =
          p.type === 'Recreate'
            ? {kind: 'Deployment' as const, type: 'Recreate' as const}
            : {kind: 'Deployment' as const, type: 'RollingUpdate' as const, maxSurge: p.maxSurge, maxUnavailable: p.maxUnavailable}
        expect(canonical(rollout(input, svc, spec as never)), JSON.stringify(p)).toBe(canonical(referenceRollout(input, svc, p)))
      }
    })
  }
})
