// The advisor's per-mode figures (src/advise/evaluate.ts figuresWithMode) come from explain()
// with `figuresOnly`, which skips what predictedFigures never reads (the lint and advice lists;
// the whole live side: kube-proxy's lists, zone views and traffic estimate of the live slices;
// the slices to update and the events under a guessed mark; the predicted hints in the endpoint
// rows, which are the live slices' alone) and with a FiguresShare reuses what no mode changes
// (those rows, fresh mode's hint-cleared slices). On random clusters
// (test/unit/explain-arbitrary.ts), for every Service, address type and mode, and both
// predictions, predictedFigures of that report must be those of a full one: with no share, with
// one share per Service (as the advisor passes it) and with one share for the whole cluster
// (whose entries another Service's slices must not reuse); with the controller's Events read or
// not (figuresOnly does not read its "hints populated" mark, which decides only its events).
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {figuresWithMode, modeKeepsService, nextSyncIsFresh, predictedFigures, serviceWithMode} from '../../src/advise/evaluate.js'
import {ownView} from '../../src/advise/view.js'
import type {TopologyMode} from '../../src/advise/types.js'
import {explain} from '../../src/explain/report.js'
import {FiguresShare} from '../../src/explain/figures-share.js'
import {clusterArb} from './explain-arbitrary.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {EventObject} from '../../src/upstream/api/types.js'

const RUNS = 150
const MODES: TopologyMode[] = ['none', 'Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode']

const options = fc.record({
  kubeVersion: fc.constantFrom(undefined, '1.28', '1.30', '1.31', '1.33', '1.34', '1.35', '1.36.3', '1.37'),
  traffic: fc.option(fc.constantFrom<Record<string, number>>({'zone-a': 3, 'zone-b': 1}, {'zone-a': 1, 'zone-b': 1, 'zone-c': 1}, {'zone-x': 1}), {nil: undefined}),
  prediction: fc.constantFrom<'fresh' | 'next-sync'>('fresh', 'next-sync'),
  // The controller's latest Event on each Service (its "hints populated" mark), or none read.
  events: fc.constantFrom<'TopologyAwareHintsEnabled' | 'TopologyAwareHintsDisabled' | 'none' | undefined>(
    'TopologyAwareHintsEnabled',
    'TopologyAwareHintsDisabled',
    'none',
    undefined,
  ),
})

/** One Event of the controller's on every Service (`none`: Events read, none recorded; undefined: not read). */
function withEvents(state: ClusterState, reason: 'TopologyAwareHintsEnabled' | 'TopologyAwareHintsDisabled' | 'none' | undefined): ClusterState {
  if (reason === undefined) return state
  const events: EventObject[] =
    reason === 'none'
      ? []
      : state.services.map((s, i) => ({
          metadata: {name: `e${i}`, namespace: s.metadata.namespace ?? 'default'},
          involvedObject: {kind: 'Service', name: s.metadata.name, namespace: s.metadata.namespace ?? 'default'},
          reason,
          source: {component: 'endpoint-slice-controller'},
          lastTimestamp: '2026-01-01T00:00:00Z',
        }))
  return {...state, events}
}

describe('explain figuresOnly: the advisor reads the same figures as from a full report', () => {
  it(`predictedFigures equal for every Service, address type and mode (${RUNS} clusters)`, () => {
    let compared = 0
    fc.assert(
      fc.property(clusterArb, options, ({state: generated}, o) => {
        const state = withEvents(generated, o.events)
        const base = {kubeVersion: o.kubeVersion, prediction: o.prediction, ...(o.traffic ? {traffic: o.traffic} : {})}
        const clusterShare = new FiguresShare()
        for (const svc of state.services) {
          const share = new FiguresShare()
          for (const mode of MODES) {
            const s = serviceWithMode(svc, mode)
            const withMode = {...state, services: state.services.map((x) => (x === svc ? s : x))}
            const full = explain(withMode, [s], base).services
            const only = explain(withMode, [s], {...base, figuresOnly: true}).services
            const shared = explain(withMode, [s], {...base, figuresOnly: true, figuresShare: share}).services
            const acrossServices = explain(withMode, [s], {...base, figuresOnly: true, figuresShare: clusterShare}).services
            expect(only.length).toBe(full.length)
            expect(shared.length).toBe(full.length)
            expect(acrossServices.length).toBe(full.length)
            for (let i = 0; i < full.length; i++) {
              const want = predictedFigures(full[i]!)
              expect(predictedFigures(only[i]!)).toEqual(want)
              expect(predictedFigures(shared[i]!)).toEqual(want)
              expect(predictedFigures(acrossServices[i]!)).toEqual(want)
              compared++
            }
            if (o.prediction === 'fresh') {
              const first = full[0]
              const want = first === undefined ? null : predictedFigures(first)
              expect(figuresWithMode(state, svc, mode, base)).toEqual(want)
              expect(figuresWithMode(state, svc, mode, base, share)).toEqual(want)
            }
          }
        }
      }),
      {numRuns: RUNS},
    )
    // The property compared something: every generated cluster has a Service, most have slices.
    expect(compared).toBeGreaterThan(RUNS)
  })
})

// The advisor reads a current mode's figures from explain's report of the Service as it is when
// apply would leave the Service unchanged and the mode is not Auto (modeKeepsService), and no
// endpoint that is not ready has hints (nextSyncIsFresh): the report's prediction (either one)
// must then give the fresh evaluation's figures. (Without the second condition it does not: a
// trafficDistribution Service whose one endpoint is not ready and hinted keeps that hint at the
// next sync, and loses it in a fresh one.)
describe('advisor: a mode that keeps the Service has the figures of its report', () => {
  it(`predictedFigures of the Service's report equal figuresWithMode (${RUNS} clusters)`, () => {
    let compared = 0
    fc.assert(
      fc.property(clusterArb, options, ({state: generated}, o) => {
        const state = withEvents(generated, o.events)
        const base = {kubeVersion: o.kubeVersion, prediction: o.prediction, ...(o.traffic ? {traffic: o.traffic} : {})}
        for (const svc of state.services) {
          const first = explain(state, [svc], base).services[0]
          for (const mode of MODES) {
            if (!modeKeepsService(svc, mode) || !nextSyncIsFresh(ownView(state, svc).endpointSlices)) continue
            const want = figuresWithMode(ownView(state, svc), svc, mode, base, new FiguresShare())
            expect(first === undefined ? null : predictedFigures(first)).toEqual(want)
            compared++
          }
        }
      }),
      {numRuns: RUNS},
    )
    expect(compared).toBeGreaterThan(RUNS / 10)
  })
})
