// --traffic-from's pure half (src/explain/measured.ts) and what explain, plan and the advisor do
// with a measured client mix: literals, figures computed by hand in the comments.
import {readFileSync} from 'node:fs'
import {Ajv2020} from 'ajv/dist/2020.js'
import {describe, expect, it} from 'vitest'
import {expandTrafficQuery, isPromDuration, measuredFromSamples, parsePromAnswer, TRAFFIC_PRESETS, templateProblem} from '../../src/explain/measured.js'
import {explain, type MeasuredTrafficInput} from '../../src/explain/report.js'
import {explainAdvised} from '../../src/advise/report.js'
import {adviseService} from '../../src/advise/advisor.js'
import {plan} from '../../src/plan/plan.js'
import {check} from '../../src/check/check.js'
import {renderPlan} from '../../src/render/plan.js'
import {PLAIN} from '../../src/render/style.js'
import {parseTrafficInterval, trafficFromOptions} from '../../src/commands/traffic-from.js'
import {indexState, ServeModel} from '../../src/serve/model.js'
import {trafficSourceRows} from '../../src/serve/source.js'
import {node, service, slice, spread, state} from './builders.js'

const vector = (rows: [string | undefined, string | undefined, string][]) => ({
  status: 'success',
  data: {
    resultType: 'vector',
    result: rows.map(([src, dst, v]) => ({metric: {...(src !== undefined ? {src_zone: src} : {}), ...(dst !== undefined ? {dst_zone: dst} : {})}, value: [1700000000, v]})),
  },
})
const ZONES = new Set(['zone-a', 'zone-b', 'zone-c'])
const samplesOf = (body: unknown) => {
  const a = parsePromAnswer(body)
  if (!('samples' in a)) throw new Error(a.error)
  return a.samples
}

describe('the query', () => {
  it('fills the placeholders, quoting names for PromQL strings and {workloads} as an escaped alternation', () => {
    const q = expandTrafficQuery(TRAFFIC_PRESETS.beyla.query, {namespace: 'shop', service: 'web', workloads: ['web', 'web.canary'], window: '30m'})
    expect(q).toBe(
      'sum by (src_zone, dst_zone) (rate(beyla_network_flow_bytes_total{k8s_dst_namespace="shop", k8s_dst_owner_name=~"web|web\\\\.canary", src_zone!="", dst_zone!=""}[30m]))',
    )
    expect(expandTrafficQuery('x{a="{service}"}', {namespace: 'n', service: 'a"b\\c', workloads: [], window: '1h'})).toBe('x{a="a\\"b\\\\c"}')
  })

  it("the obi preset is the beyla one with OBI's metric name", () => {
    expect(TRAFFIC_PRESETS.obi.query.replace('obi_', 'beyla_')).toBe(TRAFFIC_PRESETS.beyla.query)
  })

  it('refuses an unknown placeholder and an empty query; accepts PromQL label matchers', () => {
    expect(templateProblem('x{a="{srvice}"}')).toMatch(/^unknown placeholder \{srvice\}: the placeholders are \{namespace\}, \{service\}, \{workloads\}, \{window\}$/)
    expect(templateProblem('  ')).toBe('the query is empty')
    expect(templateProblem('sum by (src_zone) (rate(m{job="x"}[{window}]))')).toBeNull()
  })

  it('--traffic-window takes Prometheus durations above zero', () => {
    expect(['5m', '1h', '1h30m', '90s', '500ms', '1d'].every(isPromDuration)).toBe(true)
    expect(['0', '0m', '5', 'm', '-5m', '1.5h', '5 m'].some(isPromDuration)).toBe(false)
  })
})

describe('the answer', () => {
  it("a Prometheus error is the query's fault when bad_data, the server's otherwise", () => {
    expect(parsePromAnswer({status: 'error', errorType: 'bad_data', error: 'parse error'})).toEqual({error: 'parse error', errorType: 'bad_data', fault: 'query'})
    expect(parsePromAnswer({status: 'error', errorType: 'timeout', error: 'query timed out'})).toEqual({error: 'query timed out', errorType: 'timeout', fault: 'server'})
    expect(parsePromAnswer({status: 'success', data: {resultType: 'matrix', result: []}})).toMatchObject({fault: 'query'})
    expect(parsePromAnswer('<html>')).toMatchObject({fault: 'server'})
    expect(parsePromAnswer({status: 'success', data: {resultType: 'vector', result: [{metric: {}, value: [1]}]}})).toMatchObject({fault: 'server'})
  })

  it('the matrix: client mix by src_zone, cross-zone share over every flow', () => {
    // a->a 60, a->b 20, b->b 10, c->a 10: total 100; clients a 80, b 10, c 10; crossed 20 + 10 = 30.
    const m = measuredFromSamples(
      samplesOf(
        vector([
          ['zone-a', 'zone-a', '60'],
          ['zone-a', 'zone-b', '20'],
          ['zone-b', 'zone-b', '10'],
          ['zone-c', 'zone-a', '10'],
        ]),
      ),
      ZONES,
    )
    expect(m).toEqual({
      mix: {'zone-a': 0.8, 'zone-b': 0.1, 'zone-c': 0.1},
      crossZoneShare: 0.3,
      matrix: [
        {from: 'zone-a', to: 'zone-a', share: 0.6},
        {from: 'zone-a', to: 'zone-b', share: 0.2},
        {from: 'zone-b', to: 'zone-b', share: 0.1},
        {from: 'zone-c', to: 'zone-a', share: 0.1},
      ],
      ignored: {series: 0, share: 0},
    })
  })

  it('series without a zone, in a zone the cluster lacks, or not finite are left out and counted', () => {
    // Counted: a->a 30, b->a 10 (total 40). Left out: '' 10 and zone-x 50 (share 60 / 100), NaN (no value).
    const m = measuredFromSamples(
      samplesOf(
        vector([
          ['zone-a', 'zone-a', '30'],
          ['zone-b', 'zone-a', '10'],
          ['', 'zone-a', '10'],
          ['zone-x', 'zone-a', '50'],
          ['zone-a', 'zone-b', 'NaN'],
        ]),
      ),
      ZONES,
    )
    expect(m).toMatchObject({mix: {'zone-a': 0.75, 'zone-b': 0.25}, crossZoneShare: 0.25, ignored: {series: 3, share: 0.6}})
  })

  it('a client mix only (no dst_zone): no cross-zone share, no matrix', () => {
    const m = measuredFromSamples(
      samplesOf(
        vector([
          ['zone-a', undefined, '3'],
          ['zone-b', undefined, '1'],
        ]),
      ),
      ZONES,
    )
    expect(m).toEqual({mix: {'zone-a': 0.75, 'zone-b': 0.25}, crossZoneShare: null, matrix: null, ignored: {series: 0, share: 0}})
  })

  it('nothing measured: no series, or every value 0, says so', () => {
    expect(measuredFromSamples([], ZONES)).toEqual({none: 'the query gives no series'})
    expect(measuredFromSamples(samplesOf(vector([['zone-a', 'zone-a', '0']])), ZONES)).toEqual({none: 'every series is 0'})
    expect(measuredFromSamples(samplesOf(vector([['mars', 'mars', '5']])), ZONES)).toMatchObject({none: expect.stringContaining('no series names a zone of the cluster')})
  })
})

describe('explain, the advisor and plan under a measured mix', () => {
  // Three zones of equal CPU, PreferSameZone, ready endpoints a 2, b 2, c 2, hinted for their zone.
  const st = state(
    [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b'), node('zone-c-0', 'zone-c')],
    [service('web', {trafficDistribution: 'PreferSameZone'})],
    [slice('web', spread({'zone-a': 2, 'zone-b': 2, 'zone-c': 2}, true))],
  )
  // Measured: a->a 60, a->b 20, b->b 10, c->c 10 (clients a 0.8, b 0.1, c 0.1; 20% crossed).
  const m = measuredFromSamples(
    samplesOf(
      vector([
        ['zone-a', 'zone-a', '60'],
        ['zone-a', 'zone-b', '20'],
        ['zone-b', 'zone-b', '10'],
        ['zone-c', 'zone-c', '10'],
      ]),
    ),
    ZONES,
  )
  if ('none' in m) throw new Error(m.none)
  const measured = new Map<string, MeasuredTrafficInput>([['default/web', {...m, source: 'http://127.0.0.1:9090', query: 'q'}]])

  it('the measured mix is the model: overload and in-zone as --traffic with the same shares, plus measured next to predicted', () => {
    const s = explain(st, st.services, {measured}).services[0]!
    // Each zone's clients stay home (hints): the zone-a endpoints take 0.8 / 2 = 0.4 each; 6 ready: 0.4 x 6 - 1 = 1.4.
    expect(s.traffic.model).toBe('measured')
    expect(s.traffic.maxEndpointOverloadLive).toBeCloseTo(1.4, 12)
    expect(s.traffic.worstZoneLive).toBe('zone-a')
    expect(s.traffic.inZoneShareLive).toBe(1)
    expect(s.zones.map((z) => z.trafficShare)).toEqual([0.8, 0.1, 0.1])
    expect(s.traffic.measured).toEqual({
      source: 'http://127.0.0.1:9090',
      query: 'q',
      clientMix: {'zone-a': 0.8, 'zone-b': 0.1, 'zone-c': 0.1},
      crossZoneShare: 0.2,
      crossZoneSharePredicted: 0,
      matrix: m.matrix,
      ignored: {series: 0, share: 0},
    })
    const custom = explain(st, st.services, {traffic: {'zone-a': 0.8, 'zone-b': 0.1, 'zone-c': 0.1}}).services[0]!
    const {measured: _m, model: _x, ...figures} = s.traffic
    const {model: _y, ...same} = custom.traffic
    expect(figures).toEqual(same)
  })

  it('the CPU assumption gives other figures (the test would pass on the old code otherwise)', () => {
    const s = explain(st, st.services, {}).services[0]!
    expect(s.traffic.maxEndpointOverloadLive).toBeCloseTo(0, 12)
    expect(s.traffic.measured).toBeUndefined()
  })

  it("the advisor's recommendation uses the measured mix (explain's and the advisor's own agree)", () => {
    const r = explainAdvised(st, st.services, {measured}).services[0]!.recommendation!
    expect(r).toEqual(adviseService(st, st.services[0]!, {traffic: m.mix}))
    expect(r.now.worstOverload).toBeCloseTo(1.4, 12)
    expect(r).not.toEqual(adviseService(st, st.services[0]!, {}))
  })

  it('check --max-overload judges the measured figure and names its basis (CPU assumption: passes)', () => {
    const measuredCheck = check(explainAdvised(st, st.services, {measured}, 0.2), st.services, {maxOverload: 0.2})
    expect(measuredCheck.passed).toBe(false)
    const policy = measuredCheck.services[0]!.results.find((r) => r.policy === 'max-overload')!
    expect(policy.message).toBe('worst overload after the next sync 140% in zone-a, above the 20% bound (client mix measured by --traffic-from)')
    expect(check(explainAdvised(st, st.services, {}, 0.2), st.services, {maxOverload: 0.2}).passed).toBe(true)
  })

  it('plan: the measured figures, and every mode under the measured mix', () => {
    const p = plan(st, st.services, {measured}).services[0]!
    expect(p.measured?.crossZoneShare).toBe(0.2)
    expect(p.recommendation).toEqual(adviseService(st, st.services[0]!, {traffic: m.mix, maxOverload: 0.2}))
    expect(plan(st, st.services, {}).services[0]!.measured).toBeUndefined()
    const text = renderPlan(plan(st, st.services, {measured}), {format: 'table', style: PLAIN, noHeaders: false})
    expect(text).toContain(
      'Measured (http://127.0.0.1:9090): 20% crossed zones (predicted with the hints live now: 0%); clients zone-a 80%, zone-b 10%, zone-c 10%: every figure above uses this mix',
    )
  })
})

describe('serve under a measured mix', () => {
  const st = state(
    [node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b'), node('zone-c-0', 'zone-c')],
    [service('web', {trafficDistribution: 'PreferSameZone'})],
    [slice('web', spread({'zone-a': 2, 'zone-b': 2, 'zone-c': 2}, true))],
  )
  const measured = new Map<string, MeasuredTrafficInput>([
    ['default/web', {mix: {'zone-a': 0.8, 'zone-b': 0.1, 'zone-c': 0.1}, crossZoneShare: 0.2, matrix: null, ignored: {series: 0, share: 0}, source: 'p', query: 'q'}],
  ])
  const value = (rows: ReturnType<ServeModel['rows']>, family: string, zone?: string) =>
    rows.find(([f, s]) => f === family && (zone === undefined || s.labels.zone === zone))?.[1].value

  it('setMeasured: the measured families appear and every figure takes the measured mix (overload 0.4 x 6 - 1 = 1.4)', () => {
    const model = new ServeModel({})
    model.update(indexState(st), {all: true})
    let rows = model.rows()
    expect(value(rows, 'kubectl_topology_service_measured_cross_zone_traffic_ratio')).toBeUndefined()
    expect(value(rows, 'kubectl_topology_service_live_max_endpoint_overload_ratio')).toBeCloseTo(0, 12)
    model.setMeasured(measured)
    model.update(indexState(st), {all: true})
    rows = model.rows()
    expect(value(rows, 'kubectl_topology_service_measured_cross_zone_traffic_ratio')).toBe(0.2)
    expect(value(rows, 'kubectl_topology_zone_measured_client_traffic_ratio', 'zone-a')).toBe(0.8)
    expect(value(rows, 'kubectl_topology_zone_measured_client_traffic_ratio', 'zone-c')).toBe(0.1)
    expect(value(rows, 'kubectl_topology_service_live_max_endpoint_overload_ratio')).toBeCloseTo(1.4, 12)
    model.setMeasured(undefined)
    model.update(indexState(st), {all: true})
    expect(value(model.rows(), 'kubectl_topology_service_measured_cross_zone_traffic_ratio')).toBeUndefined()
  })

  it("the source's rows: up, errors, measured Services, and the last success once there is one", () => {
    expect(trafficSourceRows({up: false, lastSuccessSeconds: null, errors: 2}, 0)).toEqual([
      ['kubectl_topology_traffic_source_up', {labels: {}, value: 0}],
      ['kubectl_topology_traffic_source_errors_total', {labels: {}, value: 2}],
      ['kubectl_topology_traffic_measured_services', {labels: {}, value: 0}],
    ])
    expect(trafficSourceRows({up: true, lastSuccessSeconds: 1700000000, errors: 0}, 3).at(-1)).toEqual([
      'kubectl_topology_traffic_source_last_success_timestamp_seconds',
      {labels: {}, value: 1700000000},
    ])
  })

  it('--traffic-interval: 10s to 1h', () => {
    expect(parseTrafficInterval('60s')).toBe(60_000)
    expect(parseTrafficInterval('1h')).toBe(3_600_000)
    expect(() => parseTrafficInterval('5s')).toThrow('--traffic-interval: invalid value "5s": from 10s to 1h')
    expect(() => parseTrafficInterval('2h')).toThrow(/from 10s to 1h/)
  })
})

describe('schemas', () => {
  const validator = (file: string) =>
    new Ajv2020({allErrors: true, strict: false}).compile(JSON.parse(readFileSync(new URL(`../../schema/${file}`, import.meta.url), 'utf8')) as object)
  const st = state([node('zone-a-0', 'zone-a'), node('zone-b-0', 'zone-b')], [service('web')], [slice('web', spread({'zone-a': 1, 'zone-b': 1}))])
  const measured = new Map<string, MeasuredTrafficInput>([
    [
      'default/web',
      {mix: {'zone-a': 1}, crossZoneShare: 0.5, matrix: [{from: 'zone-a', to: 'zone-b', share: 0.5}], ignored: {series: 1, share: 0.1}, source: 'http://p', query: 'q'},
    ],
  ])

  it('explain -o json with traffic.measured (and model "measured") validates against schema/explain.v1.json', () => {
    const validate = validator('explain.v1.json')
    const report = JSON.parse(JSON.stringify(explainAdvised(st, st.services, {measured})))
    expect(report.services[0].traffic.model).toBe('measured')
    if (!validate(structuredClone(report))) expect.fail(JSON.stringify(validate.errors?.slice(0, 3)))
    // The schema describes the field: a wrong type is refused.
    report.services[0].traffic.measured.crossZoneShare = 'x'
    expect(validate(report)).toBe(false)
  })

  it('plan -o json with measured validates against schema/plan.v1.json', () => {
    const validate = validator('plan.v1.json')
    const report = JSON.parse(JSON.stringify(plan(st, st.services, {measured})))
    expect(report.services[0].measured.crossZoneShare).toBe(0.5)
    if (!validate(structuredClone(report))) expect.fail(JSON.stringify(validate.errors?.slice(0, 3)))
  })
})

describe('flags', () => {
  it('--traffic-from needs a preset or a query, not both; companions need --traffic-from; not with --traffic', () => {
    expect(() => trafficFromOptions({'traffic-from': 'http://127.0.0.1:9090'})).toThrow(/needs --traffic-preset \(beyla, obi\) or --traffic-query/)
    expect(() => trafficFromOptions({'traffic-from': 'http://x', 'traffic-preset': 'beyla', 'traffic-query': 'q'})).toThrow(
      '--traffic-preset and --traffic-query: give one of them',
    )
    expect(() => trafficFromOptions({'traffic-preset': 'beyla'})).toThrow('--traffic-preset needs --traffic-from URL')
    expect(() => trafficFromOptions({'traffic-from': 'http://x', 'traffic-preset': 'obi', traffic: 'a=1'})).toThrow('--traffic and --traffic-from: give one of them')
    expect(() => trafficFromOptions({'traffic-from': 'http://x', 'traffic-preset': 'obi', 'traffic-window': '0m'})).toThrow(/--traffic-window: invalid value "0m"/)
    expect(trafficFromOptions({'traffic-from': 'http://x', 'traffic-preset': 'obi'})).toMatchObject({template: TRAFFIC_PRESETS.obi.query, window: '1h'})
    expect(trafficFromOptions({})).toBeUndefined()
  })
})
