import Ajv2020 from 'ajv/dist/2020.js'
import {XMLParser, XMLValidator} from 'fast-xml-parser'
import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {check, DEFAULT_POLICIES, mergePolicies, parsePolicyDocument, PolicyFileError, type CheckPolicies, type PolicyResult, type ServiceCheck} from '../../src/check/check.js'
import {explain} from '../../src/explain/report.js'
import {explainAdvised, explainAdvisedEach} from '../../src/advise/report.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {renderCheck} from '../../src/render/check.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}

function run(st: ClusterState, policies: CheckPolicies, kubeVersion = '1.36') {
  const report = explainAdvised(st, st.services, {kubeVersion}, policies.maxOverload)
  return check(report, st.services, policies)
}
const only = (st: ClusterState, policies: CheckPolicies, kubeVersion?: string): PolicyResult => {
  const r = run(st, policies, kubeVersion)
  expect(r.services).toHaveLength(1)
  expect(r.services[0]!.results).toHaveLength(1)
  return r.services[0]!.results[0]!
}

describe('require-hints', () => {
  it('passes when topology-mode Auto allocates (9 endpoints, 3 equal zones)', () => {
    const st = state(nodesIn(ZONES), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))])
    const r = only(st, {requireHints: true})
    expect(r.status).toBe('pass')
    expect(r.message).toBe('hints set (topology-mode Auto, 9 ready endpoints)')
  })
  it('fails with the controller message when 11 endpoints cannot be allocated over 3 equal zones', () => {
    const st = state(nodesIn(ZONES), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 4, 'zone-b': 4, 'zone-c': 3}))])
    const r = only(st, {requireHints: true})
    expect(r.status).toBe('fail')
    expect(r.message).toContain('Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (11 endpoints, 3 zones)')
    expect(r.details.join('\n')).toContain('accepts')
  })
  it('is skipped when the Service does not ask for topology', () => {
    const st = state(nodesIn(ZONES), [service('web')], [slice('web', spread({'zone-a': 1}))])
    expect(only(st, {requireHints: true}).status).toBe('skip')
  })
  it('fails (not skipped) for an ignored value such as AUTO', () => {
    const st = state(
      nodesIn(ZONES),
      [service('web', {annotations: {'service.kubernetes.io/topology-mode': 'AUTO'}})],
      [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}))],
    )
    const r = only(st, {requireHints: true})
    expect(r.status).toBe('fail')
    expect(r.message).toContain('"AUTO" is ignored')
  })
  it('judges live hints for a selector-less Service', () => {
    const st = state(
      nodesIn(ZONES),
      [service('ext', {selector: null, trafficDistribution: 'PreferSameZone'})],
      [slice('ext', [{zone: 'zone-a', hint: ['zone-a']}, {zone: 'zone-b'}], {managed: false})],
    )
    const r = only(st, {requireHints: true})
    expect(r.status).toBe('fail')
    expect(r.message).toMatch(/^1 of 2 ready endpoints carry no zone hint/)
  })
})

describe('no-fallback', () => {
  it('fails for a zone with nodes but no hinted endpoint (PreferSameZone, no endpoint in zone-c)', () => {
    const st = state(nodesIn(ZONES), [service('web', {trafficDistribution: 'PreferSameZone'})], [slice('web', spread({'zone-a': 2, 'zone-b': 2}, true))])
    const r = only(st, {noFallback: true})
    expect(r.status).toBe('fail')
    expect(r.message).toBe('kube-proxy ignores the hints in zone-c: traffic from there goes to every endpoint')
    expect(r.details).toEqual(['zone-c: falls back now (no-hint-for-zone)'])
  })
  it('reports a fallback that only appears after the next sync', () => {
    // Live hints cover all three zones (by donation); the controller rewrites them to own-zone hints.
    const eps = [
      {zone: 'zone-a', hint: ['zone-a']},
      {zone: 'zone-a', hint: ['zone-c']},
      {zone: 'zone-b', hint: ['zone-b']},
    ]
    const st = state(nodesIn(ZONES), [service('web', {trafficDistribution: 'PreferSameZone'})], [slice('web', eps)])
    const r = only(st, {noFallback: true})
    expect(r.status).toBe('fail')
    expect(r.details).toEqual(["zone-c: falls back after the controller's next sync (no-hint-for-zone)"])
  })
  it('passes when every zone uses the hints', () => {
    const st = state(nodesIn(ZONES), [service('web', {trafficDistribution: 'PreferSameZone'})], [slice('web', spread({'zone-a': 1, 'zone-b': 1, 'zone-c': 1}, true))])
    const r = only(st, {noFallback: true})
    expect(r).toMatchObject({status: 'pass', message: 'kube-proxy uses the hints in all 3 zones with nodes'})
  })
  it('does not call an empty Service a fallback', () => {
    const st = state(nodesIn(ZONES), [service('web', {trafficDistribution: 'PreferSameZone'})], [])
    expect(only(st, {noFallback: true}).status).toBe('pass')
  })
})

describe('max-overload and min-endpoints-per-zone', () => {
  // PreferSameZone, equal CPU: zone-c has 1 of 5 endpoints for 1/3 of the traffic: 5/3 - 1 = +66.7%.
  const st = state(nodesIn(ZONES), [service('web', {trafficDistribution: 'PreferSameZone'})], [slice('web', spread({'zone-a': 2, 'zone-b': 2, 'zone-c': 1}, true))])
  it('fails above the limit and names the zone', () => {
    const r = only(st, {maxOverload: 0.2})
    expect(r.status).toBe('fail')
    expect(r.message).toBe('worst overload after the next sync 66.7% in zone-c, above the 20% bound (traffic proportional to zone CPU)')
    expect(r.details[0]).toMatch(/^zone-c: 66\.7% \(desired 1\.67 endpoints of traffic, 1 assigned\)$/)
  })
  it('passes under a higher limit', () => {
    expect(only(st, {maxOverload: 0.7}).status).toBe('pass')
  })
  it('passes when no hints are predicted (traffic spreads evenly: 0%)', () => {
    const none = state(nodesIn(ZONES), [service('web')], [slice('web', spread({'zone-a': 1}))])
    expect(only(none, {maxOverload: 0.2})).toMatchObject({status: 'pass', message: 'worst overload after the next sync 0% (bound 20%; traffic proportional to zone CPU)'})
  })
  it('is inclusive: exactly at the bound passes, just below it fails (two zones, 5 and 7 endpoints, PreferSameZone: +20% in a)', () => {
    const st = state(nodesIn(['a', 'b']), [service('web', {trafficDistribution: 'PreferSameZone'})], [slice('web', spread({a: 5, b: 7}, true))])
    expect(only(st, {maxOverload: 0.2}).status).toBe('pass')
    expect(only(st, {maxOverload: 0.19}).message).toBe('worst overload after the next sync 20% in a, above the 19% bound (traffic proportional to zone CPU)')
  })
  it("is in the default policies at the advisor's 20% bound, and the Service carries the recommendation", () => {
    expect(DEFAULT_POLICIES.maxOverload).toBe(0.2)
    const r = run(st, DEFAULT_POLICIES)
    expect(r.services[0]!.results.find((x) => x.policy === 'max-overload')!.status).toBe('fail')
    expect(r.services[0]!.recommendation).toEqual(explainAdvised(st, st.services, {kubeVersion: '1.36'}).services[0]!.recommendation)
    expect(r.services[0]!.recommendation!.steps.length).toBeGreaterThan(0)
  })
  it('min-endpoints-per-zone fails for the zones below N', () => {
    const r = only(st, {minEndpointsPerZone: 2})
    expect(r).toMatchObject({status: 'fail', message: 'fewer than 2 ready endpoints in zone-c', details: ['zone-c: 1 ready']})
    expect(only(st, {minEndpointsPerZone: 1}).status).toBe('pass')
  })
})

describe('no-drift', () => {
  it('fails when the live hints differ from the prediction and names the slice', () => {
    const st = state(nodesIn(ZONES), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}))])
    const r = only(st, {noDrift: true})
    expect(r.status).toBe('fail')
    expect(r.message).toBe('the live hints of 9 endpoint(s) differ from what the controller writes at its next sync')
    expect(r.details).toEqual(['slices to rewrite: web-abc'])
  })
  it('passes when they match', () => {
    const st = state(nodesIn(ZONES), [service('web', {annotations: AUTO})], [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))])
    expect(only(st, {noDrift: true}).status).toBe('pass')
  })
})

describe('lint', () => {
  const lint = (svc: ReturnType<typeof service>, kubeVersion?: string, nodes = nodesIn(ZONES)) => {
    const st = state(nodes, [svc], [slice(svc.metadata.name, spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true))])
    return only(st, {lint: true}, kubeVersion)
  }
  it('both annotations with different values is an error; with the same value a warning', () => {
    const diff = lint(service('web', {annotations: {'service.kubernetes.io/topology-aware-hints': 'Disabled', 'service.kubernetes.io/topology-mode': 'Auto'}}))
    expect(diff.status).toBe('fail')
    expect(diff.issues?.map((i) => [i.rule, i.severity])).toContainEqual(['both-annotations', 'error'])
    const same = lint(service('web', {annotations: {'service.kubernetes.io/topology-aware-hints': 'Auto', 'service.kubernetes.io/topology-mode': 'Auto'}}))
    expect(same.status).toBe('pass')
    expect(same.issues?.map((i) => [i.rule, i.severity])).toContainEqual(['both-annotations', 'warning'])
  })
  it('an annotation overriding trafficDistribution is an error', () => {
    const r = lint(service('web', {annotations: AUTO, trafficDistribution: 'PreferSameZone'}))
    expect(r.status).toBe('fail')
    expect(r.issues?.[0]?.rule).toBe('annotation-overrides-traffic-distribution')
  })
  it('a mode the version does not support is an error (PreferSameZone at 1.33)', () => {
    const r = lint(service('web', {trafficDistribution: 'PreferSameZone'}), '1.33')
    expect(r.status).toBe('fail')
    expect(r.issues?.map((i) => i.rule)).toEqual(['unsupported-at-version'])
  })
  it('topology on a single-zone cluster is an error', () => {
    const r = lint(service('web', {trafficDistribution: 'PreferSameZone'}), undefined, nodesIn(['zone-a'], 3))
    expect(r.status).toBe('fail')
    expect(r.issues?.map((i) => i.rule)).toEqual(['single-zone'])
  })
  it('internalTrafficPolicy Local with topology is an error', () => {
    const r = lint(service('web', {trafficDistribution: 'PreferSameZone', internalTrafficPolicy: 'Local'}))
    expect(r.issues?.map((i) => i.rule)).toEqual(['internal-traffic-policy-local'])
    expect(r.status).toBe('fail')
  })
  it('PreferClose (deprecated name) is a warning only', () => {
    const r = lint(service('web', {trafficDistribution: 'PreferClose'}))
    expect(r.status).toBe('pass')
    expect(r.issues?.map((i) => [i.rule, i.severity])).toEqual([['deprecated-value', 'warning']])
  })
  it('no issue on a clean Service', () => {
    expect(lint(service('web', {annotations: AUTO}))).toMatchObject({status: 'pass', message: 'no issues'})
  })
  it.each([
    [{annotations: {'service.kubernetes.io/topology-aware-hints': 'Auto'}}, [['deprecated-annotation', 'warning']]],
    [{annotations: {'service.kubernetes.io/topology-mode': 'x/y'}}, [['ignored-value', 'error']]],
    [{trafficDistribution: 'Nearest'}, [['ignored-value', 'error']]],
    [{annotations: {...AUTO}, trafficDistribution: 'PreferSameZone'}, [['annotation-overrides-traffic-distribution', 'error']]],
  ] as const)('reports the rule and severity mode.ts gives each finding (%j)', (spec, rules) => {
    expect(lint(service('web', spec)).issues?.map((i) => [i.rule, i.severity])).toEqual(rules)
  })
})

describe('report, exit semantics and outputs', () => {
  const st = state(
    nodesIn(ZONES),
    [service('good', {annotations: AUTO}), service('bad <"&\'>', {annotations: AUTO}), service('plain')],
    [slice('good', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true)), slice('bad <"&\'>', spread({'zone-a': 4, 'zone-b': 4, 'zone-c': 3}, true), {name: 'bad-1'})],
  )
  const policies: CheckPolicies = {requireHints: true, noFallback: true, maxOverload: 0.2, minEndpointsPerZone: 2, noDrift: true, lint: true}
  const report = run(st, policies)

  it('summarises services and checks', () => {
    expect(report.summary).toEqual({services: 3, passed: 2, failed: 1, checks: 18, failures: 2, skipped: 3})
    expect(report.passed).toBe(false)
    expect(report.services.map((s) => [s.name, s.passed])).toEqual([
      ['good', true],
      ['bad <"&\'>', false],
      ['plain', true],
    ])
  })

  it('JSON validates against schema/check.v1.json', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schema/check.v1.json', import.meta.url), 'utf8'))
    const ajv = new Ajv2020.default({allErrors: true, strict: true})
    const validate = ajv.compile(schema)
    const ok = validate(JSON.parse(renderCheck(report, {format: 'json'})))
    expect(validate.errors ?? []).toEqual([])
    expect(ok).toBe(true)
    // and the schema rejects what it should
    expect(validate({...report, kind: 'Other'})).toBe(false)
  })

  it('JUnit XML is well-formed, one testcase per Service x policy, failures and skips marked', () => {
    const xml = renderCheck(report, {format: 'junit'})
    expect(XMLValidator.validate(xml)).toBe(true)
    const doc = new XMLParser({ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name)}).parse(xml)
    const suites = doc.testsuites.testsuite as {['@name']: string; testcase: {['@name']: string; failure?: unknown; skipped?: unknown}[]}[]
    expect(doc.testsuites['@tests']).toBe('18')
    expect(doc.testsuites['@failures']).toBe('2')
    expect(suites.map((s) => s['@name'])).toEqual(['default/good', 'default/bad <"&\'>', 'default/plain'])
    const cases = suites.flatMap((s) => s.testcase)
    expect(cases).toHaveLength(18)
    expect(suites[1]!.testcase.filter((c) => c.failure !== undefined).map((c) => c['@name'])).toEqual(['require-hints', 'no-drift'])
    expect(suites[2]!.testcase.filter((c) => c.skipped !== undefined).map((c) => c['@name'])).toEqual(['require-hints', 'max-overload', 'min-endpoints-per-zone'])
  })

  it('the table ends with the verdict line', () => {
    const table = renderCheck(report, {format: 'table'})
    expect(table.trimEnd().split('\n').at(-1)).toBe('FAILED: 3 Service(s) checked, 2 passed, 1 failed (2 of 18 checks failed, 3 skipped).')
  })

  it("takes explainAdvisedEach's Services as its loop reaches them (check -A holds no explanation but the one checked): the same report", () => {
    const {head, services: each} = explainAdvisedEach(st, st.services, {kubeVersion: '1.36'}, policies.maxOverload)
    let made = 0
    let checked = 0
    const counted = function* () {
      for (const s of each) {
        // The Service before this one was checked before this one was made.
        expect(made).toBe(checked)
        made++
        yield s
        checked++
      }
    }
    expect(check({...head, services: counted()}, st.services, policies)).toEqual(report)
    expect(made).toBe(3)
  })

  it('names the address type of a Service checked twice (dual-stack), in the table and in JUnit, and only of that one', () => {
    const [good, bad, plain] = report.services as [ServiceCheck, ServiceCheck, ServiceCheck]
    const v6 = {...good, addressType: 'IPv6' as const}
    // The same name in another namespace is another Service.
    const elsewhere = {...plain, namespace: 'other', name: 'good'}
    const dual = {...report, services: [good, bad, v6, plain, elsewhere]}
    const names = renderCheck(dual, {format: 'table', noHeaders: true})
      .split('\n')
      .map((l) => l.split(/\s{3,}/)[0])
    expect(new Set(names.filter((n) => n?.includes('/')))).toEqual(new Set(['default/good (IPv4)', 'default/bad <"&\'>', 'default/good (IPv6)', 'default/plain', 'other/good']))
    const xml = renderCheck(dual, {format: 'junit'})
    expect([...xml.matchAll(/<testsuite name="([^"]*)"/g)].map((m) => m[1])).toEqual([
      'default/good (IPv4)',
      'default/bad &lt;&quot;&amp;&apos;&gt;',
      'default/good (IPv6)',
      'default/plain',
      'other/good',
    ])
    expect(new Set([...xml.matchAll(/classname="([^"]*)"/g)].map((m) => m[1]))).toEqual(
      new Set(['default.good.IPv4', 'default.bad &lt;&quot;&amp;&apos;&gt;', 'default.good.IPv6', 'default.plain', 'other.good']),
    )
  })
})

describe('policy file', () => {
  it('parses every policy', () => {
    expect(
      parsePolicyDocument({
        apiVersion: 'kubectl-topology.io/v1',
        kind: 'CheckPolicy',
        policies: {requireHints: true, noFallback: false, maxOverload: 0.25, minEndpointsPerZone: 2, noDrift: true, lint: true},
      }),
    ).toEqual({requireHints: true, noFallback: false, maxOverload: 0.25, minEndpointsPerZone: 2, noDrift: true, lint: true})
  })
  it('rejects unknown keys and wrong types with one line naming the field', () => {
    expect(() => parsePolicyDocument({policies: {requireHint: true}})).toThrow(
      new PolicyFileError(
        'unknown policy "policies.requireHint" (known: requireHints, noFallback, maxOverload, minEndpointsPerZone, noDrift, lint, dataPlaneHonoursHints, proxyHonoursTopology, hintsOverRange, hintsThroughRollout)',
      ),
    )
    expect(() => parsePolicyDocument({policies: {maxOverload: 'lots'}})).toThrow(
      new PolicyFileError('policies.maxOverload: invalid value "lots": give a percentage with % (20%) or a fraction from 0 to 1 (0.2)'),
    )
    // 20 meant 20%, not 2000% (issue 19 finding 5): refused with both spellings.
    expect(() => parsePolicyDocument({policies: {maxOverload: 20}})).toThrow(
      new PolicyFileError('policies.maxOverload 20: did you mean 20% (0.2)? Give a percentage with % or a fraction from 0 to 1'),
    )
    expect(() => parsePolicyDocument({policies: {maxOverload: -0.1}})).toThrow(/policies.maxOverload: invalid value -0.1/)
    expect(() => parsePolicyDocument({policies: {minEndpointsPerZone: 1.5}})).toThrow(/must be a non-negative integer/)
    expect(() => parsePolicyDocument({kind: 'Policy', policies: {}})).toThrow(/kind must be "CheckPolicy"/)
    expect(() => parsePolicyDocument([1])).toThrow(PolicyFileError)
  })
  it('maxOverload: "20%" and 0.2 are the same bound, as --max-overload', () => {
    expect(parsePolicyDocument({policies: {maxOverload: '20%'}})).toEqual({maxOverload: 0.2})
    expect(parsePolicyDocument({policies: {maxOverload: 0.2}})).toEqual({maxOverload: 0.2})
    expect(parsePolicyDocument({policies: {maxOverload: '0.2'}})).toEqual({maxOverload: 0.2})
    expect(parsePolicyDocument({policies: {maxOverload: 1}})).toEqual({maxOverload: 1})
    expect(parsePolicyDocument({policies: {maxOverload: '150%'}})).toEqual({maxOverload: 1.5})
  })
  it('flags add to (and override) the file', () => {
    expect(mergePolicies({maxOverload: 0.5, lint: true}, {maxOverload: 0.2, noDrift: true})).toEqual({maxOverload: 0.2, lint: true, noDrift: true})
  })
})
