// Issue 19 finding 7: "N replicas" is placed by one model in simulate and plan. `simulate
// --replicas N` (run.ts applyWhatIfs -> whatif.ts scaleReplicas) and plan's row N (plan.ts
// statesOverRange) give the same ready endpoints per zone: on the bundled examples and on random
// clusters (uneven nodes, crowded nodes, not-ready endpoints). Before, simulate kept today's
// proportions (checkout at 11: 5/4/2) while plan balanced the zones (4/4/3).
import fs from 'node:fs'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {planService} from '../../src/plan/plan.js'
import {rowToClusterState} from '../../src/simulate/dataset-run.js'
import {applyWhatIfs} from '../../src/simulate/run.js'
import {simulateService} from '../../src/simulate/simulate.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {Service} from '../../src/upstream/api/types.js'

const example = (file: string) => parseSnapshot(fs.readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8'), file)

/** simulate --replicas n: ready endpoints per zone (zones without any left out, as plan does). */
function simulated(state: ClusterState, svc: Service, n: number): Record<string, number> {
  const s = applyWhatIfs(state, svc, {withoutZones: [], drain: [], addNodes: [], replicas: n})
  const by = simulateService(s, svc, {strategies: ['none'], trafficModel: 'nodes'}).input.endpointsByZone
  return Object.fromEntries(Object.entries(by).filter(([, k]) => k > 0))
}

/** plan's row for every count it evaluates: ready endpoints per zone. */
function planned(state: ClusterState, svc: Service, maxCounts?: number): Map<number, Record<string, number>> {
  const p = planService(state, svc, maxCounts === undefined ? {} : {maxCounts})
  return new Map(p.range.rows.map((r) => [r.replicas, r.zones]))
}

describe('simulate --replicas N and plan row N place the pods alike', () => {
  it('checkout at 11 replicas (three-zones.yaml): 4/4/3 in both, not 5/4/2', () => {
    const state = example('three-zones.yaml')
    const svc = state.services.find((s) => s.metadata.name === 'checkout')!
    expect(simulated(state, svc, 11)).toEqual({'eu-west-1a': 4, 'eu-west-1b': 4, 'eu-west-1c': 3})
    expect(planned(state, svc).get(11)).toEqual({'eu-west-1a': 4, 'eu-west-1b': 4, 'eu-west-1c': 3})
  })

  for (const file of ['three-zones.yaml', 'autoscaling.yaml', 'rollouts.yaml', 'unlabeled-node.yaml']) {
    it(`${file}: every Service, every count plan evaluates`, () => {
      const state = example(file)
      for (const svc of state.services) {
        const rows = planned(state, svc)
        for (const [n, zones] of rows) expect(simulated(state, svc, n), `${svc.metadata.namespace}/${svc.metadata.name} at ${n}`).toEqual(zones)
      }
    })
  }

  it('random clusters: 2 to 5 zones, uneven nodes, crowded nodes, not-ready endpoints', () => {
    const zone = fc.record({nodes: fc.integer({min: 1, max: 3}), endpoints: fc.integer({min: 0, max: 6})})
    const cluster = fc.record({
      zones: fc.array(zone, {minLength: 2, maxLength: 5}),
      // per endpoint: 0 stays, 1 moves to its zone's first node, 2 is not ready
      fate: fc.array(fc.integer({min: 0, max: 2}), {minLength: 30, maxLength: 30}),
      pick: fc.nat(),
    })
    fc.assert(
      fc.property(cluster, ({zones, fate, pick}) => {
        const state = rowToClusterState({name: 'r', zones: zones.map((z, i) => ({name: `zone-${'abcde'[i]}`, ...z}))})
        const eps = state.endpointSlices.flatMap((s) => s.endpoints ?? [])
        eps.forEach((e, i) => {
          if (fate[i % fate.length] === 1 && e.nodeName) e.nodeName = `${e.zone}-node-1`
          if (fate[i % fate.length] === 2) e.conditions = {ready: false, serving: false, terminating: false}
        })
        const svc = state.services[0]!
        const rows = planned(state, svc, 12)
        const counts = [...rows.keys()]
        if (counts.length === 0) return
        const n = counts[pick % counts.length]!
        expect(simulated(state, svc, n), `row ${n}`).toEqual(rows.get(n))
      }),
      {numRuns: 200, seed: 19},
    )
  })
})
