import {describe, expect, it} from 'vitest'
import {hintsEnabled} from '../../src/upstream/endpointslice/utils.js'
import {trafficDistributionUsable} from '../../src/upstream/endpointslice/reconciler.js'
import {serviceMode} from '../../src/explain/mode.js'
import {ANNOTATION_TOPOLOGY_AWARE_HINTS as HINTS, ANNOTATION_TOPOLOGY_MODE as MODE, type Service} from '../../src/upstream/api/types.js'
import {features, type Features} from '../../src/upstream/features.js'

// Ported from k8s.io/endpointslice utils_test.go, Test_hintsEnabled (19 cases, in upstream
// order; upstream lists the five "mode annotation" cases twice, and so do we).
const hintsEnabledCases: {name: string; annotations?: Record<string, string>; expectEnabled: boolean}[] = [
  {name: 'empty annotations', expectEnabled: false},
  {name: 'different annotations', annotations: {'topology-hints': 'enabled'}, expectEnabled: false},
  {name: 'hints annotation == enabled', annotations: {[HINTS]: 'enabled'}, expectEnabled: false},
  {name: 'hints annotation == aUto', annotations: {[HINTS]: 'aUto'}, expectEnabled: false},
  {name: 'hints annotation == auto', annotations: {[HINTS]: 'auto'}, expectEnabled: true},
  {name: 'hints annotation == Auto', annotations: {[HINTS]: 'Auto'}, expectEnabled: true},
  {name: 'hints annotation == disabled', annotations: {[HINTS]: 'disabled'}, expectEnabled: false},
  {name: 'mode annotation == enabled', annotations: {[MODE]: 'enabled'}, expectEnabled: false},
  {name: 'mode annotation == aUto', annotations: {[MODE]: 'aUto'}, expectEnabled: false},
  {name: 'mode annotation == auto', annotations: {[MODE]: 'auto'}, expectEnabled: true},
  {name: 'mode annotation == Auto', annotations: {[MODE]: 'Auto'}, expectEnabled: true},
  {name: 'mode annotation == disabled', annotations: {[MODE]: 'disabled'}, expectEnabled: false},
  {name: 'mode annotation == enabled (2)', annotations: {[MODE]: 'enabled'}, expectEnabled: false},
  {name: 'mode annotation == aUto (2)', annotations: {[MODE]: 'aUto'}, expectEnabled: false},
  {name: 'mode annotation == auto (2)', annotations: {[MODE]: 'auto'}, expectEnabled: true},
  {name: 'mode annotation == Auto (2)', annotations: {[MODE]: 'Auto'}, expectEnabled: true},
  {name: 'mode annotation == disabled (2)', annotations: {[MODE]: 'disabled'}, expectEnabled: false},
  {
    name: 'mode annotation == disabled, hints annotation == auto',
    annotations: {[MODE]: 'disabled', [HINTS]: 'auto'},
    expectEnabled: true,
  },
  {
    name: 'mode annotation == auto, hints annotation == disabled',
    annotations: {[MODE]: 'auto', [HINTS]: 'disabled'},
    expectEnabled: false,
  },
]

describe('hintsEnabled (upstream utils_test.go Test_hintsEnabled)', () => {
  it('has all 19 upstream cases', () => expect(hintsEnabledCases).toHaveLength(19))
  it.each(hintsEnabledCases)('$name', ({annotations, expectEnabled}) => {
    expect(hintsEnabled(annotations)).toBe(expectEnabled)
  })

  // Beyond upstream's cases: near misses (wrong case, empty, off, a domain-prefixed value) and both keys.
  it.each([
    [{[MODE]: 'AUTO'}, false],
    [{[MODE]: ''}, false],
    [{[MODE]: 'Disabled'}, false],
    [{[MODE]: 'example.com/custom'}, false],
    [{[HINTS]: '', [MODE]: 'Auto'}, false], // deprecated key present (even empty) wins
    [{[HINTS]: 'Auto', [MODE]: 'Auto'}, true],
  ] as const)('%j -> %s', (annotations, want) => {
    expect(hintsEnabled(annotations)).toBe(want)
  })
})

// Upstream reconciler.go validTrafficDistribution, plus version gating (features.ts, pkg/features/kube_features.go).
describe('trafficDistributionUsable', () => {
  // [version, value, usable]
  const cases: [string, string | undefined, boolean][] = [
    ['1.36', undefined, false],
    ['1.36', '', false],
    ['1.36', 'PreferClose', true],
    ['1.36', 'PreferSameZone', true],
    ['1.36', 'PreferSameNode', true],
    ['1.36', 'preferclose', false],
    ['1.36', 'Unknown', false],
    ['1.36', 'ImplementationSpecific', false],
    ['1.35', 'PreferSameNode', true],
    ['1.34', 'PreferSameZone', true],
    ['1.34', 'PreferSameNode', true],
    ['1.33', 'PreferClose', true],
    ['1.33', 'PreferSameZone', false], // PreferSameTrafficDistribution alpha, default off
    ['1.33', 'PreferSameNode', false],
    ['1.32', 'PreferClose', true],
    ['1.31', 'PreferClose', true],
    ['1.30', 'PreferClose', false], // ServiceTrafficDistribution alpha, default off
    ['1.29', 'PreferClose', false], // field does not exist
    ['1.28', 'PreferClose', false],
  ]
  it.each(cases)('%s %j -> %s', (v, value, want) => {
    expect(trafficDistributionUsable(value, features(v))).toBe(want)
  })

  // Upstream reconciler option matrix (WithPreferSameTrafficDistributionEnabled on/off).
  it('follows the preferSame option exactly', () => {
    const on: Features = {...features('1.36'), preferSameTrafficDistribution: true}
    const off: Features = {...features('1.36'), preferSameTrafficDistribution: false}
    for (const v of ['PreferSameZone', 'PreferSameNode']) {
      expect(trafficDistributionUsable(v, on)).toBe(true)
      expect(trafficDistributionUsable(v, off)).toBe(false)
    }
    expect(trafficDistributionUsable('PreferClose', off)).toBe(true)
  })
})

function svc(annotations?: Record<string, string>, trafficDistribution?: string): Service {
  const s: Service = {metadata: {name: 'foo', namespace: 'ns'}, spec: {selector: {app: 'foo'}}}
  if (annotations) s.metadata.annotations = annotations
  if (trafficDistribution !== undefined) s.spec!.trafficDistribution = trafficDistribution
  return s
}

describe('serviceMode precedence (upstream reconciler.go reconcileByAddressType)', () => {
  const f = features('1.36.3')

  it('no annotation, no trafficDistribution -> none', () => {
    const m = serviceMode(svc(), f)
    expect(m.path).toBe('none')
    expect(m.warnings).toEqual([])
    expect(m.why.join(' ')).toMatch(/removes any hints/)
  })

  it("no selector (default/kubernetes): one true thing, the slices are not the controller's (issue 19 finding 11)", () => {
    const m = serviceMode({metadata: {name: 'kubernetes', namespace: 'default'}, spec: {}}, f)
    expect(m.path).toBe('none')
    expect(m.why).toEqual(["the Service has no selector: its EndpointSlices are not the controller's, so no topology setting changes their hints"])
  })

  it('topology-mode Auto -> topology-mode-auto', () => {
    const m = serviceMode(svc({[MODE]: 'Auto'}), f)
    expect(m.path).toBe('topology-mode-auto')
    expect(m.annotationKey).toBe(MODE)
    expect(m.annotationValue).toBe('Auto')
    expect(m.warnings).toEqual([])
  })

  it('trafficDistribution PreferSameZone -> traffic-distribution', () => {
    const m = serviceMode(svc(undefined, 'PreferSameZone'), f)
    expect(m.path).toBe('traffic-distribution')
    expect(m.trafficDistribution).toBe('PreferSameZone')
    expect(m.warnings).toEqual([])
  })

  // Upstream TestReconcile_TrafficDistribution "trafficDistribution=PreferClose, topologyAnnotation=Auto".
  it('annotation beats trafficDistribution', () => {
    const m = serviceMode(svc({[HINTS]: 'Auto'}, 'PreferClose'), f)
    expect(m.path).toBe('topology-mode-auto')
    expect(
      m.warnings.some(
        (w) => w.rule === 'annotation-overrides-traffic-distribution' && w.severity === 'error' && /overrides spec\.trafficDistribution="PreferClose"/.test(w.message),
      ),
    ).toBe(true)
  })

  it('annotation Auto + PreferSameNode: annotation wins, no node hints', () => {
    const m = serviceMode(svc({[MODE]: 'Auto'}, 'PreferSameNode'), f)
    expect(m.path).toBe('topology-mode-auto')
    expect(m.warnings.map((w) => w.message).join('\n')).toMatch(/and no node hints/)
  })

  // Upstream TestReconcile_TrafficDistribution "trafficDistribution=PreferClose, topologyAnnotation=Disabled".
  it('annotation Disabled does not block trafficDistribution', () => {
    const m = serviceMode(svc({[HINTS]: 'Disabled'}, 'PreferClose'), f)
    expect(m.path).toBe('traffic-distribution')
  })

  it('deprecated key wins even when "disabled" and the new key says Auto', () => {
    const m = serviceMode(svc({[HINTS]: 'disabled', [MODE]: 'Auto'}), f)
    expect(m.path).toBe('none')
    expect(m.annotationKey).toBe(HINTS)
    expect(m.annotationValue).toBe('disabled')
    expect(m.why).toContain('the deprecated annotation service.kubernetes.io/topology-aware-hints is present and wins over service.kubernetes.io/topology-mode')
    expect(m.warnings.some((w) => w.rule === 'both-annotations' && w.severity === 'error' && /both .* are set; the controller uses only the deprecated/.test(w.message))).toBe(true)
  })

  it('both annotations set with the same value: still a lint finding', () => {
    const m = serviceMode(svc({[HINTS]: 'Auto', [MODE]: 'Auto'}), f)
    expect(m.path).toBe('topology-mode-auto')
    expect(m.warnings.some((w) => w.rule === 'both-annotations' && w.severity === 'warning' && /both .* are set \(both "Auto"\)/.test(w.message))).toBe(true)
  })

  it('deprecated key alone: deprecation finding', () => {
    const m = serviceMode(svc({[HINTS]: 'auto'}), f)
    expect(m.path).toBe('topology-mode-auto')
    expect(
      m.warnings.some((w) => w.rule === 'deprecated-annotation' && w.severity === 'warning' && /is deprecated; use service\.kubernetes\.io\/topology-mode/.test(w.message)),
    ).toBe(true)
  })

  it.each([
    ['AUTO', /did you mean "Auto"/],
    ['aUto', /did you mean "Auto"/],
    ['enabled', /not a recognised value/],
    ['true', /not a recognised value/],
    ['example.com/zonal', /implementation-specific/],
  ])('ignored annotation value %j is flagged', (value, re) => {
    const m = serviceMode(svc({[MODE]: value}), f)
    expect(m.path).toBe('none')
    expect(m.warnings.some((w) => w.rule === 'ignored-value' && w.severity === 'error' && re.test(w.message))).toBe(true)
  })

  it.each(['Disabled', 'disabled', ''])('explicit off value %j is not flagged', (value) => {
    const m = serviceMode(svc({[MODE]: value}), f)
    expect(m.path).toBe('none')
    expect(m.warnings).toEqual([])
  })

  it('unknown trafficDistribution removes hints and is flagged, with a case hint', () => {
    const m = serviceMode(svc(undefined, 'prefersamenode'), f)
    expect(m.path).toBe('none')
    expect(m.warnings.map((w) => [w.rule, w.severity])).toEqual([['ignored-value', 'error']])
    expect(m.warnings[0]!.message).toMatch(/not a value the controller recognises.*did you mean "PreferSameNode"/)
  })

  it('PreferClose is flagged as the deprecated name of PreferSameZone when PreferSame is on', () => {
    expect(serviceMode(svc(undefined, 'PreferClose'), features('1.34')).warnings).toEqual([
      expect.objectContaining({rule: 'deprecated-value', severity: 'warning', message: expect.stringMatching(/deprecated name/)}),
    ])
    expect(serviceMode(svc(undefined, 'PreferClose'), features('1.33')).warnings).toEqual([])
  })

  it('topology cache disabled: Auto annotation has no effect and still blocks trafficDistribution', () => {
    // Upstream TestReconcileTopology "no change, topologyCache disabled, annotation == auto" and
    // reconciler.go: canUseTrafficDistribution = valid(td) && !hintsEnabled(annotations).
    const off: Features = {...f, topologyAwareHints: false}
    expect(serviceMode(svc({[HINTS]: 'auto'}), off).path).toBe('none')
    expect(serviceMode(svc({[HINTS]: 'auto'}, 'PreferClose'), off).path).toBe('none')
  })
})

describe('serviceMode version gating', () => {
  it.each([
    ['1.30', 'PreferClose', 'none', /not honoured at Kubernetes 1\.30/],
    ['1.31', 'PreferClose', 'traffic-distribution', undefined],
    ['1.33', 'PreferSameNode', 'none', /needs the PreferSameTrafficDistribution gate/],
    ['1.33', 'PreferSameZone', 'none', /needs the PreferSameTrafficDistribution gate/],
    ['1.34', 'PreferSameNode', 'traffic-distribution', undefined],
    ['1.35', 'PreferSameNode', 'traffic-distribution', undefined],
  ] as const)('%s %s -> %s', (v, td, path, warn) => {
    const m = serviceMode(svc(undefined, td), features(v))
    expect(m.path).toBe(path)
    if (warn) expect(m.warnings.some((w) => w.rule === 'unsupported-at-version' && w.severity === 'error' && warn.test(w.message))).toBe(true)
    else expect(m.warnings.filter((w) => w.rule !== 'deprecated-value')).toEqual([])
  })

  it('the annotation works at every supported version', () => {
    for (const v of ['1.28', '1.30', '1.33', '1.36', '1.37']) {
      expect(serviceMode(svc({[MODE]: 'Auto'}), features(v)).path).toBe('topology-mode-auto')
    }
  })

  it('does not mutate the Service', () => {
    const s = svc({[HINTS]: 'x', [MODE]: 'Auto'}, 'PreferSameNode')
    const copy = structuredClone(s)
    serviceMode(s, features())
    expect(s).toEqual(copy)
  })
})
