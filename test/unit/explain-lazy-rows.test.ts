// explain()'s endpoint rows are built when the report's `endpoints` is first read (issue 23: an
// object of 11 fields per endpoint was a fifth of explain()'s time on 50,000 endpoints, and
// explain's table never reads them). Until then `endpoints` is an accessor at its place among
// the keys; reading it (JSON.stringify, a spread, the -o wide table) builds them once, and they
// add up to the counts the pass over the slices made.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {explainAdvised, explainAdvisedEach} from '../../src/advise/report.js'
import {explain, withKeys, type ServiceExplanation} from '../../src/explain/report.js'
import {renderExplain} from '../../src/render/explain.js'
import type {EndpointSlice} from '../../src/upstream/api/types.js'
import {nodesIn, service, slice, spread, state} from './builders.js'
import {clusterArb, optionsArb} from './explain-arbitrary.js'

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
const ZONES = ['zone-a', 'zone-b', 'zone-c']

/** Whether the rows of `s` are still unbuilt (an accessor, not a value). */
const unbuilt = (s: ServiceExplanation) => typeof Object.getOwnPropertyDescriptor(s, 'endpoints')?.get === 'function'

function web() {
  // Live hints the controller never writes on one slice (two zones per endpoint): drift.
  const drifting = slice('web', spread({'zone-c': 2}), {name: 'web-2'})
  drifting.endpoints = drifting.endpoints!.map((e, i) => ({...e, addresses: [`10.0.1.${i + 1}`], hints: {forZones: [{name: 'zone-a'}, {name: 'zone-b'}]}}))
  const st = state(nodesIn(ZONES, 2), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 1}, true)), drifting])
  return st
}

describe('endpoint rows built on first read', () => {
  it('explain() leaves them unbuilt; the first read builds them once, then a plain property in the same place', () => {
    const st = web()
    const s = explain(st, st.services).services[0]!
    expect(unbuilt(s)).toBe(true)
    const keys = Object.keys(s)
    const rows = s.endpoints
    expect(unbuilt(s)).toBe(false)
    expect(s.endpoints).toBe(rows)
    expect(Object.keys(s)).toEqual(keys)
    expect(keys.indexOf('endpoints')).toBe(keys.indexOf('totals') + 1)
    expect(rows).toHaveLength(9)
    expect(rows.filter((r) => r.drift)).toHaveLength(s.drift.endpoints)
    expect(s.drift.endpoints).toBe(2)
    expect(rows[7]).toEqual({
      addresses: ['10.0.1.1'],
      nodeName: rows[7]!.nodeName,
      zone: 'zone-c',
      slice: 'web-2',
      conditions: {ready: true, serving: true, terminating: false},
      controllerReady: true,
      liveHints: {forZones: ['zone-a', 'zone-b'], forNodes: []},
      predictedHints: rows[7]!.predictedHints,
      alternatives: ['zone-a', 'zone-b', 'zone-c'],
      donatedTo: rows[7]!.donatedTo,
      drift: true,
    })
  })

  it('the same JSON whether the rows were read before or not, and a set replaces them', () => {
    const st = web()
    const a = explain(st, st.services)
    const b = explain(st, st.services)
    void b.services[0]!.endpoints
    expect(JSON.stringify(a)).toBe(JSON.stringify(b))
    const c = explain(st, st.services).services[0]!
    c.endpoints = []
    expect(c.endpoints).toEqual([])
    expect(unbuilt(c)).toBe(false)
  })

  it('the table and the advisor leave them unbuilt; withKeys copies without building them', () => {
    const st = web()
    const report = explainAdvised(st, st.services)
    const s = report.services[0]!
    expect(s.recommendation).toBeDefined()
    expect(unbuilt(s)).toBe(true)
    renderExplain(report, {format: 'table'})
    expect(unbuilt(s)).toBe(true)
    const each = [...explainAdvisedEach(st, st.services).services]
    expect(unbuilt(each[0]!)).toBe(true)
    const copy = withKeys(s, {extra: 1})
    expect(unbuilt(copy)).toBe(true)
    expect(Object.keys(copy)).toEqual([...Object.keys(s), 'extra'])
    expect(copy.endpoints).toEqual(s.endpoints)
    expect(renderExplain(report, {format: 'wide'})).toContain('10.0.1.1')
  })

  it('a frozen report still reads them (the accessor stays)', () => {
    const st = web()
    const s = Object.freeze(explain(st, st.services).services[0]!)
    expect(s.endpoints).toHaveLength(9)
    expect(s.endpoints).toBe(s.endpoints)
  })

  it('on random clusters the rows add up to the counts of the pass over the slices', () => {
    fc.assert(
      fc.property(clusterArb, optionsArb, ({state: st}, opts) => {
        const report = explain(st, st.services, opts)
        for (const s of report.services) {
          expect(unbuilt(s)).toBe(true)
          const text = JSON.stringify(s)
          const rows = s.endpoints
          expect(JSON.stringify(s)).toBe(text)
          expect(rows).toHaveLength(s.totals.endpoints)
          const slices: EndpointSlice[] = st.endpointSlices.filter(
            (x) => x.metadata.namespace === s.namespace && x.metadata.labels?.['kubernetes.io/service-name'] === s.name && x.addressType === s.addressType,
          )
          expect(rows.map((r) => r.addresses)).toEqual(slices.flatMap((x) => (x.endpoints ?? []).map((e) => e.addresses)))
          expect(rows.filter((r) => r.controllerReady)).toHaveLength(s.totals.readyEndpoints)
          expect(rows.filter((r) => r.donatedTo !== null)).toHaveLength(s.totals.donated)
          if (s.mode.managedByController) expect(rows.filter((r) => r.drift)).toHaveLength(s.drift.endpoints)
          if (s.controller.path === 'topology-mode-auto' && s.controller.randomChoices.uncertainEndpoints > 0) {
            expect(rows.filter((r) => r.alternatives !== null)).toHaveLength(s.controller.randomChoices.uncertainEndpoints)
          }
        }
      }),
      {numRuns: 150, seed: 23},
    )
  })
})
