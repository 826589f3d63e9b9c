// The terminal view of `simulate` (src/render/simulate-view.tsx): rendered by ink from reports
// the engine makes of literal clusters, assertions on the frame; and the choice between it and
// plain text (chooseSimulateView).
import {renderToString} from 'ink'
import {stripVTControlCharacters} from 'node:util'
import {describe, expect, it} from 'vitest'
import {simulateService, type SimulateOptions} from '../../src/simulate/simulate.js'
import {disruption, evaluateSteps} from '../../src/simulate/whatif-steps.js'
import {rollout} from '../../src/simulate/rollout.js'
import {removeEndpoint} from '../../src/simulate/whatif.js'
import {planOf} from '../../src/simulate/workload.js'
import {chooseSimulateView, type SimulateReport, type ServiceReport} from '../../src/render/simulate.js'
import {loadBar, renderSimulateView, shareBar, SimulateView} from '../../src/render/simulate-view.js'
import {makeStyle, PLAIN} from '../../src/render/style.js'
import {displayWidth} from '../../src/render/table.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const svc = service('web', {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
// 4/3/2 endpoints in three zones of equal CPU: Auto holds hints (one zone-a endpoint donated to zone-c),
// PreferSameZone keeps everything local but zone-c's two endpoints carry a third of the traffic.
const st = state(nodesIn(ZONES), [svc], [slice('web', spread({'zone-a': 4, 'zone-b': 3, 'zone-c': 2}))])

function report(opts: SimulateOptions = {}, extra: (r: ServiceReport) => void = () => {}): SimulateReport {
  const r: ServiceReport = simulateService(st, svc, {kubeVersion: '1.36', ...opts})
  extra(r)
  return {apiVersion: 'kubectl-topology.io/v1', kind: 'TopologySimulation', source: 'snapshot', trafficModel: 'cpu', whatIf: [], services: [r]}
}

const lines = (out: string) => out.split('\n')
const row = (out: string, re: RegExp) => lines(out).find((l) => re.test(l))

describe('bars', () => {
  it('a share: █ for the share, · for the rest', () => {
    expect(shareBar(0.5, 10, PLAIN)).toBe('█████·····')
    expect(shareBar(1, 4, PLAIN)).toBe('████')
    expect(shareBar(0, 4, PLAIN)).toBe('····')
  })
  it('a load against an equal share (the middle of the bar): █ up to it, ▓ beyond, │ marks it when the bar stops short', () => {
    expect(loadBar(0.5, 10, PLAIN)).toBe('███··│····')
    expect(loadBar(1, 10, PLAIN)).toBe('█████·····')
    expect(loadBar(1.5, 10, PLAIN)).toBe('█████▓▓▓··')
    expect(loadBar(3, 10, PLAIN)).toBe('█████▓▓▓▓▓')
    expect(loadBar(0, 10, PLAIN)).toBe('·····│····')
  })
})

describe('SimulateView (ink, rendered once)', () => {
  it('the ranked table, then per zone the in-zone and busiest-endpoint bars of the top 3 strategies', () => {
    const out = renderToString(<SimulateView report={report()} style={PLAIN} columns={80} />, {columns: 80})
    expect(lines(out)[0]).toBe('Service default/web · 9 ready endpoints · traffic model cpu')
    expect(lines(out)[1]).toBe('zone-a 4 ep / 33% traffic  zone-b 3 ep / 33% traffic  zone-c 2 ep / 33% traffic')
    expect(out).toContain(
      '#  STRATEGY        SCORE  IN-ZONE  OVERLOAD MAX / MEAN  SLICES  FALLBACK-ZONES\n1  Auto            95.00    88.9%          0.0% / 0.0%       1  -\n2  PreferSameZone  85.56   100.0%        50.0% / 22.2%       1  -\n3  PreferSameNode  85.56   100.0%        50.0% / 22.2%       1  -\n4  none            70.00    33.3%          0.0% / 0.0%       1  -\n',
    )
    // PreferSameZone: zone-c serves a third of the traffic with 2 of 9 endpoints: 1/6 each, 1.5 x an
    // equal share (1/9); zone-a's four get 1/12 each, 0.75 x.
    const sameZone = out.slice(out.indexOf('PreferSameZone  rank 2'))
    expect(row(sameZone, /^  zone-c /)).toBe('  zone-c      33%  2 local    ████████████████ 100%  ████████▓▓▓▓····  +50%')
    expect(row(sameZone, /^  zone-a /)).toBe('  zone-a      33%  4 local    ████████████████ 100%  ██████··│·······  -25%')
    // Auto donates a zone-a endpoint to zone-c: zone-c's clients reach 2 local + 1, every endpoint an equal share.
    const auto = out.slice(out.indexOf('Auto  rank 1'))
    expect(row(auto, /^  zone-c /)).toBe('  zone-c      33%  2 local + 1  ███████████·····  67%  ████████········    0%')
    // the default set is what a Service can be set to (issue 19): no research strategy
    expect(out).toContain('1 more strategy: choose them with --strategies to see their zones.')
    expect(out).not.toContain('none  rank')
    expect(out).not.toContain('research')
  })
  it('every strategy when they were chosen; fallbacks under the strategy and the zone', () => {
    const r = report({strategies: ['Auto', 'none', 'local'], previousMode: 'disabled', padding: 1})
    const out = renderSimulateView({report: r, style: PLAIN, columns: 80, allStrategies: true})
    // local, previously not subsetting: 9 endpoints < threshold 9 + padding 1, every zone falls back; said once, under the strategy.
    expect(out).toContain('none  rank 2')
    expect(out).toContain('(research): no cluster setting produces this (KEP-2004 subsetting,')
    expect(out).toContain('local (research)  rank 3, score 70.00\n  inside the padding band (hysteresis): no subsetting\n')
    expect(out).not.toContain('falls back: inside')
    // Three zone names do not fit in what 80 columns leave: their number.
    expect(out).toContain('3  local (research)  70.00    33.3%          0.0% / 0.0%       1  3 zones\n')
    const wide = renderSimulateView({report: r, style: PLAIN, columns: 100, allStrategies: true})
    expect(wide).toContain('3  local (research)  70.00    33.3%          0.0% / 0.0%       1  zone-a,zone-b,zone-c\n')
    expect(out).not.toContain('more strategies')
  })
  it('fits 80 columns, rollout and disruption included; S1, S2... with a legend when strategy names do not fit, as many as fit', () => {
    const opts: SimulateOptions = {kubeVersion: '1.36', strategies: ['Auto', 'PreferSameZone', 'local-weighted']}
    const r = report(opts, (s) => {
      const spec = {kind: 'Deployment' as const, type: 'RollingUpdate' as const, replicas: 8, maxSurge: 2, maxUnavailable: 1}
      s.rolloutParameters = planOf(spec, 8, {workload: {kind: 'Deployment', name: 'web'}, overridden: []})
      s.rollout = evaluateSteps(rollout(st, svc, spec), svc, opts)
      s.disruption = disruption(st, svc, opts, 'Auto', (x, zone) => {
        const next = structuredClone(x)
        removeEndpoint(next, svc, (e) => e.zone === zone)
        return next
      })
    })
    const out = renderSimulateView({report: r, style: PLAIN, columns: 80, allStrategies: true})
    for (const l of lines(out)) expect(displayWidth(l), l).toBeLessThanOrEqual(80)
    // (wrapped at 80 columns)
    expect(out.replace(/\n/g, ' ')).toContain('Rollout of deployment/web: RollingUpdate, replicas 8, maxSurge 2 (2 pods), maxUnavailable 1 (1 pod)')
    expect(out).toContain('IN-ZONE of S1 Auto, S2 PreferSameZone\n')
    expect(out).toContain('In-zone shares of local-weighted at each step: --plain or -o json.')
    // 9 ready endpoints (4/3/2), replicas 8, maxSurge 2 -> 1 new pod first (at most 10 pods), then 3 old go (at least 7 ready).
    expect(out).toContain(
      [
        'STEP  ACTION                           OLD  NEW  READY  HINTS       S1      S2',
        '   0  start                              9    0  4/3/2  yes      88.9%  100.0%',
        '   1  create 1 new pod(s) (not ready)    9  0+1  4/3/2  yes      88.9%  100.0%',
        '   2  1 new pod(s) become ready          9    1  4/3/3  yes     100.0%  100.0%',
        '   3  delete 3 old pod(s)                6    1  2/2/3  yes     100.0%  100.0%',
      ].join('\n'),
    )
    expect(out).toContain(
      '  11  1 new pod(s) become ready          0    8  3/3/2  no (1)   33.3%  100.0%\n(1) refused: Unable to allocate minimum required endpoints to each zone without\nexceeding overload threshold (8 endpoints, 3 zones)',
    )
    expect(out).toContain('ZONE    READY  HINTS-DROP  NO-LOCAL-ENDPOINT  FALLBACK Auto\nzone-a      4           0                  3              0\n')
    // Wide enough, the columns are headed by the strategies' names.
    const wide = renderSimulateView({report: r, style: PLAIN, columns: 140, allStrategies: true})
    expect(wide).toMatch(/^STEP  ACTION\s+OLD\s+NEW\s+READY\s+HINTS\s+IN-ZONE Auto\s+IN-ZONE PreferSameZone\s+IN-ZONE local-weighted$/m)
    expect(wide).not.toContain('In-zone shares of')
    expect(wide).not.toContain('IN-ZONE of S1')
  })
  it('no colour codes with the plain style (NO_COLOR, --color never); the same text with colour stripped', () => {
    const plain = renderSimulateView({report: report(), style: PLAIN})
    expect(plain).not.toMatch(/\x1b\[/)
    const coloured = renderSimulateView({report: report(), style: makeStyle(1)})
    expect(coloured).toMatch(/\x1b\[33m▓▓▓/)
    expect(coloured).toMatch(/\x1b\[32m█{16}/)
    const ends = (t: string) => t.replace(/ +$/gm, '')
    expect(ends(stripVTControlCharacters(coloured))).toBe(ends(plain))
  })
  it('a narrower terminal gets narrower bars, never longer lines', () => {
    const out = renderSimulateView({report: report(), style: PLAIN, columns: 60})
    for (const l of lines(out)) expect(displayWidth(l), l).toBeLessThanOrEqual(60)
    expect(out).toContain('  zone-c      33%  2 local    ██████ 100%  ███▓▓·  +50%')
  })
})

describe('chooseSimulateView', () => {
  const base = {format: 'table' as const, isTTY: true, noHeaders: false, plain: false, env: {TERM: 'xterm-256color'}}
  it('the ink view only on a terminal with the default table', () => {
    expect(chooseSimulateView(base)).toBe('ink')
    expect(chooseSimulateView({...base, isTTY: false})).toBe('text')
    for (const format of ['wide', 'json', 'yaml', 'csv'] as const) expect(chooseSimulateView({...base, format})).toBe('text')
    expect(chooseSimulateView({...base, noHeaders: true})).toBe('text')
    expect(chooseSimulateView({...base, plain: true})).toBe('text')
    expect(chooseSimulateView({...base, env: {TERM: 'dumb'}})).toBe('text')
    // Colour is the style's business, not the view's: NO_COLOR keeps the view, without colour.
    expect(chooseSimulateView({...base, env: {NO_COLOR: '1'}})).toBe('ink')
  })
})
