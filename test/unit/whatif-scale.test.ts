// Issue 14 class 8: simulate --replicas N costs about N placements, not N scans of every
// endpoint. A functional bound on a large N (before: quadratic, minutes), and the placement it
// makes is the one the rules in src/simulate/whatif.ts describe.
import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {scaleReplicas} from '../../src/simulate/whatif.js'

const state = parseSnapshot(fs.readFileSync(new URL('../../examples/three-zones.yaml', import.meta.url), 'utf8'), 'three-zones.yaml')
const svc = state.services.find((s) => s.metadata.name === 'checkout' && s.metadata.namespace === 'shop')!
const endpointsOf = (st: typeof state) =>
  st.endpointSlices.filter((s) => s.metadata.namespace === 'shop' && s.metadata.labels?.['kubernetes.io/service-name'] === 'checkout').flatMap((s) => s.endpoints ?? [])

describe('scaleReplicas at scale', () => {
  it('50,000 endpoints in a few seconds, spread as today, unique addresses', () => {
    const t0 = performance.now()
    const next = scaleReplicas(state, svc, 50_000)
    const seconds = (performance.now() - t0) / 1000
    const eps = endpointsOf(next)
    expect(eps).toHaveLength(50_000)
    expect(eps.every((e) => e.conditions?.ready === true)).toBe(true)
    expect(new Set(eps.map((e) => e.addresses[0])).size).toBe(50_000)
    const byZone = new Map<string, number>()
    for (const e of eps) byZone.set(e.zone ?? '', (byZone.get(e.zone ?? '') ?? 0) + 1)
    // today 4/3/2 ready endpoints in eu-west-1a/b/c: largest remainder of 50000 * 4/9, 3/9, 2/9
    expect(Object.fromEntries(byZone)).toEqual({'eu-west-1a': 22_222, 'eu-west-1b': 16_667, 'eu-west-1c': 11_111})
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
