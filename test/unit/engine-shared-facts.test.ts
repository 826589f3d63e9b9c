// What explain() computes once per cluster (or per input object) instead of once per Service and
// mode (docs/design.md, "The advisor's cost"): the node-local nodes per zone by name lookup, the
// features of a version string, the data plane's report. Each shared answer is the one the
// per-call computation gives, and is never changed by the reports made from it. Literals only.
import {describe, expect, it} from 'vitest'
import {dataPlaneReport} from '../../src/dataplane/describe.js'
import {dataPlaneFromFlag} from '../../src/dataplane/detect.js'
import {planeNodeChoice} from '../../src/explain/dataplane-views.js'
import {LABEL_ZONE} from '../../src/upstream/api/types.js'
import type {DataPlane} from '../../src/dataplane/types.js'
import {nodeFacts, slicesByService} from '../../src/explain/node-facts.js'
import {proxySkewMemo} from '../../src/explain/proxy-skew.js'
import {explain} from '../../src/explain/report.js'
import {features, featuresCached} from '../../src/upstream/features.js'
import {proxyEndpointsFromSlices} from '../../src/upstream/kube-proxy/endpointslicecache.js'
import {node, service, slice, state} from './builders.js'

/** A detected kube-proxy 1.36 data plane with these per-node versions (the skew's input). */
function kubeProxyPlane(proxyNodes: NonNullable<DataPlane['proxyNodes']>): DataPlane {
  return {
    name: 'kube-proxy',
    source: 'detected',
    proxyVersion: '1.36',
    proxyNodes,
    settings: {},
    honoursZoneHints: true,
    honoursNodeHints: true,
    paths: [],
    alsoFound: [],
    evidence: [],
    warnings: [],
  }
}
describe('NodeIndex.namedPerZone', () => {
  // Two Nodes named a-0 (zones a and b), one without a zone label named c-9.
  const nodes = [node('a-0', 'zone-a'), node('a-1', 'zone-a'), node('b-0', 'zone-b'), node('a-0', 'zone-b'), node('c-0', 'zone-c'), node('c-9', null)]
  const {nodeIndex} = nodeFacts(nodes)
  const byFilter = (names: ReadonlySet<string>) => {
    const out = new Map<string, number>()
    for (const [zone, list] of nodeIndex.byZone) {
      const n = list.filter((x) => names.has(x.metadata.name)).length
      if (n > 0) out.set(zone, n)
    }
    return out
  }

  it("counts each zone's nodes named in the set, a name once per Node that bears it", () => {
    const names = new Set(['a-0', 'b-0', 'ghost', 'c-9'])
    expect(nodeIndex.namedPerZone(names)).toEqual(
      new Map([
        ['zone-a', 1],
        ['zone-b', 2],
      ]),
    )
    expect(nodeIndex.namedPerZone(names)).toEqual(byFilter(names))
    expect(nodeIndex.namedPerZone(new Set(['c-0', 'a-1']))).toEqual(
      new Map([
        ['zone-c', 1],
        ['zone-a', 1],
      ]),
    )
    expect(nodeIndex.namedPerZone(new Set())).toEqual(new Map())
  })

  it("explain's predicted verdicts under PreferSameNode count the same nodes", () => {
    const svc = service('web', {trafficDistribution: 'PreferSameNode'})
    const s = slice('web', [
      {zone: 'zone-a', node: 'a-0'},
      {zone: 'zone-b', node: 'b-0'},
      {zone: 'zone-c', node: 'ghost'},
    ])
    const r = explain(state(nodes, [svc], [s]), [svc], {kubeVersion: '1.36'}).services[0]!
    const counts = Object.fromEntries(r.zones.map((z) => [z.name, z.kubeProxyPredicted.nodesPreferSameNode]))
    expect(counts).toEqual({'zone-a': 1, 'zone-b': 2, 'zone-c': 0})
  })
})

describe('featuresCached', () => {
  it('is features() of the string, one frozen object per string', () => {
    for (const v of [undefined, '1.30', '1.36', '1.20', '9.99']) {
      const f = featuresCached(v)
      expect(f).toEqual(features(v))
      expect(featuresCached(v)).toBe(f)
      expect(Object.isFrozen(f) && Object.isFrozen(f.version) && Object.isFrozen(f.requested)).toBe(true)
    }
    expect(featuresCached('1.30')).not.toBe(featuresCached('1.31'))
    expect(() => featuresCached('not a version')).toThrow()
  })
})

describe("explain's head: the data plane's report once per DataPlane object", () => {
  const plane: DataPlane = {
    name: 'kube-proxy',
    source: 'flag',
    settings: {},
    honoursZoneHints: true,
    honoursNodeHints: true,
    paths: [],
    alsoFound: [],
    evidence: ['--data-plane kube-proxy'],
    warnings: [],
  }
  it('the same report for the same plane, frozen, equal to dataPlaneReport', () => {
    const svc = service('web', {trafficDistribution: 'PreferSameZone'})
    const st = state([node('a-0', 'zone-a')], [svc], [slice('web', [{zone: 'zone-a'}])])
    const one = explain(st, [svc], {dataPlane: plane}).dataPlane
    const two = explain(st, [svc], {dataPlane: plane}).dataPlane
    expect(one).toBe(two)
    expect(one).toEqual(dataPlaneReport(plane))
    expect(Object.isFrozen(one)).toBe(true)
    // Another object (another run, another detection) gets its own report.
    const other = explain(st, [svc], {dataPlane: {...plane, evidence: ['other']}}).dataPlane
    expect(other?.evidence).toEqual(['other'])
  })
})

describe('the zones the traffic model weights, per model object', () => {
  it('a model naming a zone no node is in changes the estimate; the next model does not inherit it', () => {
    const svc = service('web', {trafficDistribution: 'PreferSameZone'})
    const nodes = [node('a-0', 'zone-a'), node('b-0', 'zone-b')]
    const st = state(
      nodes,
      [svc],
      [
        slice('web', [
          {zone: 'zone-a', hint: ['zone-a']},
          {zone: 'zone-b', hint: ['zone-b']},
        ]),
      ],
    )
    const inZone = (traffic: Record<string, number>) => explain(st, [svc], {kubeVersion: '1.36', traffic}).services[0]!.traffic.inZoneShareLive
    // Half the traffic from zone-x (no node, no endpoint): it is spread over both endpoints, never in its zone.
    expect(inZone({'zone-a': 1, 'zone-x': 1})).toBe(0.5)
    expect(inZone({'zone-a': 1, 'zone-b': 1})).toBe(1)
    expect(inZone({'zone-a': 1, 'zone-x': 1})).toBe(0.5)
  })
})

describe('slicesByService', () => {
  it("each Service's slices in input order, by the service-name label and namespace, once per array", () => {
    const a1 = slice('a', [{zone: 'zone-a'}], {name: 'a-1'})
    const b1 = slice('b', [{zone: 'zone-a'}], {name: 'b-1'})
    const a2 = slice('a', [{zone: 'zone-b'}], {name: 'a-2'})
    const other = slice('a', [{zone: 'zone-b'}], {name: 'a-3', namespace: 'other'})
    const unlabelled = {...slice('a', [], {name: 'x'}), metadata: {name: 'x', namespace: 'default'}}
    const slices = [a1, b1, a2, other, unlabelled]
    const m = slicesByService(slices)
    expect([...m.keys()]).toEqual(['default', 'other'])
    expect([...m.get('default')!.keys()]).toEqual(['a', 'b'])
    expect(m.get('default')!.get('a')).toEqual([a1, a2])
    expect(m.get('other')!.get('a')).toEqual([other])
    expect(slicesByService(slices)).toBe(m)
    // Another array (another state) is grouped anew.
    expect(slicesByService([b1]).get('default')!.get('a')).toBeUndefined()
  })
})

describe('proxyEndpointsFromSlices: one zone-hint Set per zone name, across calls', () => {
  it('the same read-only Set for the same one-name hint in two calls; several names get their own', () => {
    const s = slice('web', [
      {zone: 'zone-a', hint: ['zone-a']},
      {zone: 'zone-b', hint: ['zone-b']},
      {zone: 'zone-b', hint: ['zone-a', 'zone-b']},
    ])
    const one = proxyEndpointsFromSlices([s], {preferSameGate: true})
    const two = proxyEndpointsFromSlices([s], {preferSameGate: true})
    expect(one[0]!.zoneHints).toBe(two[0]!.zoneHints)
    expect([...one[0]!.zoneHints!]).toEqual(['zone-a'])
    expect([...one[1]!.zoneHints!]).toEqual(['zone-b'])
    expect([...one[2]!.zoneHints!]).toEqual(['zone-a', 'zone-b'])
    expect(one[2]!.zoneHints).not.toBe(two[2]!.zoneHints)
  })
})

describe('proxySkewMemo: once per data plane, Nodes array and rule set, across calls', () => {
  const nodes = [node('a-0', 'zone-a'), node('b-0', 'zone-b')]
  const plane = kubeProxyPlane([
    {node: 'a-0', version: '1.36.3', image: 'registry.k8s.io/kube-proxy:v1.36.3', from: 'pod', object: 'Pod kube-system/kube-proxy-a'},
    {node: 'b-0', version: '1.33.5', image: 'registry.k8s.io/kube-proxy:v1.33.5', from: 'pod', object: 'Pod kube-system/kube-proxy-b'},
  ])
  it('the same skew for equal rules in two calls; another rule set, Nodes array or plane gets its own', () => {
    const one = proxySkewMemo(plane, nodes)({minor: null, preferSameGate: true, requireAnnotation: false})
    const two = proxySkewMemo(plane, nodes)({minor: null, preferSameGate: true, requireAnnotation: false})
    expect(one).not.toBeNull()
    expect(two).toBe(one)
    expect(one!.skewed).toBe(true)
    expect(proxySkewMemo(plane, nodes)({minor: null, preferSameGate: false, requireAnnotation: false})).not.toBe(one)
    expect(proxySkewMemo(plane, [...nodes])({minor: null, preferSameGate: true, requireAnnotation: false})).not.toBe(one)
    expect(proxySkewMemo({...plane}, nodes)({minor: null, preferSameGate: true, requireAnnotation: false})).not.toBe(one)
    // No per-node versions: no skew.
    expect(proxySkewMemo({...plane, proxyNodes: undefined}, nodes)({minor: null, preferSameGate: true, requireAnnotation: false})).toBeNull()
  })
})

describe('kube-proxy skew notices: made once per skew, Nodes and facts; each Service its own objects', () => {
  it('two Services with the same facts get equal notices, distinct objects, one frozen node list', () => {
    const nodes = [node('a-0', 'zone-a'), node('b-0', 'zone-b'), node('b-1', 'zone-b')]
    const plane = kubeProxyPlane([
      {node: 'a-0', version: '1.36.3', image: null, from: 'pod', object: 'Pod kube-system/kube-proxy-a'},
      {node: 'b-1', version: '1.33.5', image: null, from: 'pod', object: 'Pod kube-system/kube-proxy-b1'},
      {node: 'b-0', version: '1.33.5', image: null, from: 'pod', object: 'Pod kube-system/kube-proxy-b0'},
    ])
    const web = service('web', {trafficDistribution: 'PreferSameNode'})
    const api = service('api', {trafficDistribution: 'PreferSameNode'})
    const st = state(nodes, [web, api], [slice('web', [{zone: 'zone-a', node: 'a-0'}]), slice('api', [{zone: 'zone-b', node: 'b-0'}])])
    const [a, b] = explain(st, [web, api], {kubeVersion: '1.36', dataPlane: plane}).services
    const na = a!.kubeProxySkew!
    const nb = b!.kubeProxySkew!
    expect(na.map((g) => [g.proxyVersion, g.zone, g.nodes, g.effect])).toEqual([['1.33', 'zone-b', ['b-0', 'b-1'], 'ignores-node-hints']])
    expect(nb).toEqual(na)
    expect(nb[0]).not.toBe(na[0])
    expect(nb[0]!.nodes).toBe(na[0]!.nodes)
    expect(Object.isFrozen(na[0]!.nodes)).toBe(true)
  })
})

describe("another data plane's node-local count: one node asked for the nodes no endpoint names", () => {
  // Zone a: a-0 and a-1 hold endpoints, a-2..a-5 none; zone b: b-0 holds one; b-1..b-3 none.
  const nodes = [...['a-0', 'a-1', 'a-2', 'a-3', 'a-4', 'a-5'].map((n) => node(n, 'zone-a')), ...['b-0', 'b-1', 'b-2', 'b-3'].map((n) => node(n, 'zone-b'))]
  const cases: [string, ReturnType<typeof service>][] = [
    ['PreferSameNode', service('web', {trafficDistribution: 'PreferSameNode'})],
    ['PreferSameNode, traffic policy Local', service('web', {trafficDistribution: 'PreferSameNode', internalTrafficPolicy: 'Local'})],
    ['PreferSameZone', service('web', {trafficDistribution: 'PreferSameZone'})],
  ]
  const s = slice('web', [
    {zone: 'zone-a', node: 'a-0'},
    {zone: 'zone-a', node: 'a-1'},
    {zone: 'zone-b', node: 'b-0'},
    {zone: 'zone-b', node: 'b-0', ready: false},
  ])
  for (const name of ['cilium', 'calico', 'antrea', 'kube-ovn', 'kube-router'] as const) {
    for (const [what, svc] of cases) {
      it(`${name}, ${what}: the count of each zone's nodes whose own choice is node-local`, () => {
        const plane = dataPlaneFromFlag(name)
        const r = explain(state(nodes, [svc], [s]), [svc], {kubeVersion: '1.36', dataPlane: plane}).services[0]!
        // Each node asked on its own, on the predicted endpoints (what the predicted verdict reads).
        const eps = proxyEndpointsFromSlices(r.endpoints.length > 0 ? [predictedSlice(r, s)] : [], {preferSameGate: true})
        for (const z of r.zones) {
          const own = nodes.filter(
            (n) => n.metadata.labels![LABEL_ZONE] === z.name && planeNodeChoice(plane, eps, svc, {name: n.metadata.name, labels: n.metadata.labels!}).mode === 'PreferSameNode',
          ).length
          expect(z.kubeProxyPredicted.nodesPreferSameNode, z.name).toBe(own)
        }
      })
    }
  }
})

/** The slice as the controller writes it, from the report's predicted hints (one zone or node each). */
function predictedSlice(r: ReturnType<typeof explain>['services'][number], s: ReturnType<typeof slice>): ReturnType<typeof slice> {
  return {
    ...s,
    endpoints: s.endpoints!.map((e, i) => {
      const h = r.endpoints[i]!.predictedHints
      const {hints: _, ...rest} = e
      return h === null ? rest : {...rest, hints: {forZones: h.forZones.map((name) => ({name})), ...(h.forNodes.length > 0 ? {forNodes: h.forNodes.map((name) => ({name}))} : {})}}
    }),
  }
}
