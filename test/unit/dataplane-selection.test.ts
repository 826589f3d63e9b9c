// Per-data-plane endpoint choice, with test tables ported from each project's own tests:
//   * Calico: felix/bpf/proxy/topology_test.go TestFilterEpsByTopologyAwareRouting and
//     TestFilterEpsByTrafficDistribution (projectcalico/calico v3.32.1), and
//     TestShouldAppendTopologyAwareEndpoint (v3.30.0);
//   * Antrea: pkg/agent/proxy/topology_test.go TestCategorizeEndpoints (antrea-io/antrea main,
//     August 2026), the ClusterIP cases, through our kube-proxy categorizeEndpoints;
//   * Cilium: pkg/loadbalancer/tests/testdata/topology-aware.txtar and prefer-same-node.txtar
//     (script tests, restated as literals).
import {describe, expect, it} from 'vitest'
import {
  calicoFilterByTopologyAwareRouting,
  calicoFilterByTrafficDistribution,
  calicoShouldAppendTopologyAwareEndpoint,
  ciliumSelectBackends,
  endpointsForNode,
} from '../../src/dataplane/selection.js'
import {detectDataPlane, dataPlaneFromFlag} from '../../src/dataplane/detect.js'
import type {Service} from '../../src/upstream/api/types.js'
import type {ProxyEndpoint} from '../../src/upstream/kube-proxy/endpoint.js'

const set = (...xs: string[]): ReadonlySet<string> | null => (xs.length === 0 ? null : new Set(xs))

/** Calico's fakeEndpoint{ip, ready, terminating, zoneHints, nodeHints}. */
function cep(ip: string, ready: boolean, terminating: boolean, zoneHints: string[], nodeHints: string[]): ProxyEndpoint {
  return {ip, ready, serving: ready, terminating, nodeName: null, zone: null, zoneHints: set(...zoneHints), nodeHints: set(...nodeHints), sliceName: 's'}
}

const ips = (eps: readonly ProxyEndpoint[]) => eps.map((e) => e.ip).sort()

describe('Calico TestFilterEpsByTopologyAwareRouting (felix/bpf/proxy/topology_test.go)', () => {
  const cases: {name: string; topologyMode: string; nodeZone: string; endpoints: ProxyEndpoint[]; wantIPs: string[]; wantFiltered: boolean}[] = [
    {
      name: 'topologyMode not auto: returns all endpoints, not applied',
      topologyMode: 'disabled',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-b'], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
      wantFiltered: false,
    },
    {
      name: 'endpoint not ready or terminating is skipped',
      topologyMode: 'auto',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, false, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.2'],
      wantFiltered: true,
    },
    {
      name: 'endpoint with no zone hints disables filtering',
      topologyMode: 'auto',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, [], []), cep('10.0.0.2', true, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
      wantFiltered: true,
    },
    {
      name: 'only endpoints matching nodeZone are returned',
      topologyMode: 'auto',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-b'], [])],
      wantIPs: ['10.0.0.1'],
      wantFiltered: true,
    },
    {
      name: 'no endpoints match nodeZone, fallback to all endpoints',
      topologyMode: 'auto',
      nodeZone: 'zone-c',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-b'], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
      wantFiltered: true,
    },
    {
      name: 'all endpoints not ready or terminating, returns all endpoints',
      topologyMode: 'auto',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, false, ['zone-a'], []), cep('10.0.0.2', false, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
      wantFiltered: true,
    },
    {
      name: 'endpoint terminating is included',
      topologyMode: 'auto',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, true, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
      wantFiltered: true,
    },
  ]
  for (const tc of cases) {
    it(tc.name, () => {
      const [got, filtered] = calicoFilterByTopologyAwareRouting(tc.endpoints, tc.topologyMode, tc.nodeZone)
      expect(ips(got)).toEqual(tc.wantIPs)
      expect(filtered).toBe(tc.wantFiltered)
    })
  }
  it('"Auto" is matched in any case (strings.ToLower)', () => {
    const eps = [cep('10.0.0.1', true, false, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-b'], [])]
    expect(ips(calicoFilterByTopologyAwareRouting(eps, 'Auto', 'zone-a')[0])).toEqual(['10.0.0.1'])
  })
})

describe('Calico TestFilterEpsByTrafficDistribution (felix/bpf/proxy/topology_test.go)', () => {
  const cases: {name: string; nodeName: string; nodeZone: string; endpoints: ProxyEndpoint[]; wantIPs: string[]}[] = [
    {
      name: 'prefer endpoints with node hint, only matching node',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], ['node-1']), cep('10.0.0.2', true, false, ['zone-a'], ['node-2'])],
      wantIPs: ['10.0.0.1'],
    },
    {
      name: 'prefer endpoints with zone hint if no node hint matches',
      nodeName: 'node-3',
      nodeZone: 'zone-b',
      endpoints: [cep('10.0.0.1', true, false, ['zone-b'], ['node-1']), cep('10.0.0.2', true, false, ['zone-a'], ['node-2'])],
      wantIPs: ['10.0.0.1'],
    },
    {
      name: 'one endpoint with zone hint, one with none, only zone-hinted returned',
      nodeName: 'node-x',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], []), cep('10.0.0.2', true, false, [], [])],
      wantIPs: ['10.0.0.1'],
    },
    {
      name: 'prefer endpoints with zone hint if node hint missing',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], []), cep('10.0.0.2', true, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
    },
    {
      name: 'fallback to all endpoints if no node or zone hint matches',
      nodeName: 'node-x',
      nodeZone: 'zone-x',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], ['node-1']), cep('10.0.0.2', true, false, ['zone-b'], ['node-2'])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
    },
    {
      name: 'one endpoint with node hint, one with none, only node-hinted returned',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', true, false, ['zone-a'], ['node-1']), cep('10.0.0.2', true, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.1'],
    },
    {
      name: 'endpoint with no node or zone hints is ignored for node/zone, fallback to all',
      nodeName: 'node-x',
      nodeZone: 'zone-x',
      endpoints: [cep('10.0.0.1', true, false, [], []), cep('10.0.0.2', true, false, [], [])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
    },
    {
      name: 'endpoint not ready or terminating is skipped for node and zone hint',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, false, ['zone-a'], ['node-1']), cep('10.0.0.2', true, false, ['zone-a'], ['node-1'])],
      wantIPs: ['10.0.0.2'],
    },
    {
      name: 'endpoint terminating is included',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, true, ['zone-a'], ['node-1']), cep('10.0.0.2', true, false, ['zone-a'], ['node-1'])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
    },
    {
      name: 'all endpoints not ready or terminating, fallback to all endpoints',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, false, ['zone-a'], ['node-1']), cep('10.0.0.2', false, false, ['zone-a'], ['node-1'])],
      wantIPs: ['10.0.0.1', '10.0.0.2'],
    },
    {
      name: 'one endpoint with node hint but not ready, one with zone hint and ready',
      nodeName: 'node-1',
      nodeZone: 'zone-a',
      endpoints: [cep('10.0.0.1', false, false, ['zone-a'], ['node-1']), cep('10.0.0.2', true, false, ['zone-a'], [])],
      wantIPs: ['10.0.0.2'],
    },
  ]
  for (const tc of cases) {
    it(tc.name, () => {
      expect(ips(calicoFilterByTrafficDistribution(tc.endpoints, tc.nodeName, tc.nodeZone))).toEqual(tc.wantIPs)
    })
  }
})

describe('Calico v3.30 TestShouldAppendTopologyAwareEndpoint (felix/bpf/proxy/topology_test.go)', () => {
  const cases: [nodeZone: string, hintsAnnotation: string, zoneHints: string[], expect: boolean][] = [
    ['', '', [], true],
    ['us-west-2a', '', [], true],
    ['us-west-2a', 'auto', [], true],
    ['us-west-2a', 'disabled', [], true],
    ['us-west-2a', 'auto', ['us-west-2a'], true],
    ['us-west-2a', 'auto', ['us-west-2b'], false],
    ['us-west-2a', 'disabled', ['us-west-2b'], true],
    ['us-west-2a', 'dummy', ['us-west-2b'], true],
  ]
  for (const [zone, annotation, hints, want] of cases) {
    it(`node zone "${zone}", annotation "${annotation}", zone hints [${hints.join(',')}] -> ${want}`, () => {
      expect(calicoShouldAppendTopologyAwareEndpoint(zone, annotation, set(...hints))).toBe(want)
    })
  }
})

// ---- Antrea, through endpointsForNode with the plane's rule --------------------------------

/** Antrea's makeTestEndpointInfo(ip, port, isLocal, ready, serving, terminating, zoneHints, nodeHints). */
function aep(
  ip: string,
  isLocal: boolean,
  ready: boolean,
  serving: boolean,
  terminating: boolean,
  zoneHints: string[] | null,
  nodeHints: string[] | null,
  node: string,
): ProxyEndpoint {
  return {
    ip,
    ready,
    serving,
    terminating,
    nodeName: isLocal ? node : 'elsewhere',
    zone: null,
    zoneHints: set(...(zoneHints ?? [])),
    nodeHints: set(...(nodeHints ?? [])),
    sliceName: 's',
  }
}

const clusterIP: Service = {metadata: {name: 'svc', namespace: 'ns'}, spec: {type: 'ClusterIP', clusterIP: '10.96.0.1', ports: [{port: 80, protocol: 'TCP'}]}}

describe('Antrea TestCategorizeEndpoints (pkg/agent/proxy/topology_test.go), ClusterIP cases', () => {
  const antrea = (preferSame: boolean) => ({...dataPlaneFromFlag('antrea'), version: '2.5.3', preferSameGate: preferSame})
  const cases: {
    name: string
    preferSame?: boolean
    nodeName?: string
    zone?: string | null
    eps: [string, boolean, boolean, boolean, boolean, string[] | null, string[] | null][]
    want: string[]
  }[] = [
    {
      name: "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone",
      zone: 'zone-a',
      eps: [
        ['10.1.2.3', false, true, true, false, ['zone-a'], null],
        ['10.1.2.4', false, true, true, false, ['zone-b'], null],
        ['10.1.2.5', false, true, true, false, ['zone-c'], null],
        ['10.1.2.6', false, true, true, false, ['zone-a'], null],
      ],
      want: ['10.1.2.3', '10.1.2.6'],
    },
    {name: 'empty node labels', zone: null, eps: [['10.1.2.3', false, true, true, false, ['zone-a'], null]], want: ['10.1.2.3']},
    {name: 'empty zone label', zone: '', eps: [['10.1.2.3', false, true, true, false, ['zone-a'], null]], want: ['10.1.2.3']},
    {
      name: 'node in different zone, no endpoint filtering',
      zone: 'zone-b',
      eps: [
        ['10.1.2.3', false, true, true, false, ['zone-a'], null],
        ['10.1.2.5', false, true, true, false, ['zone-c'], null],
      ],
      want: ['10.1.2.3', '10.1.2.5'],
    },
    {
      name: 'unready endpoint',
      zone: 'zone-a',
      eps: [
        ['10.1.2.3', false, true, true, false, ['zone-a'], null],
        ['10.1.2.4', false, true, true, false, ['zone-b'], null],
        ['10.1.2.5', false, true, true, false, ['zone-c'], null],
        ['10.1.2.6', false, false, true, false, ['zone-a'], null],
      ],
      want: ['10.1.2.3'],
    },
    {
      name: 'only unready endpoints in same zone (should not filter)',
      zone: 'zone-a',
      eps: [
        ['10.1.2.3', false, false, true, false, ['zone-a'], null],
        ['10.1.2.4', false, true, true, false, ['zone-b'], null],
        ['10.1.2.5', false, true, true, false, ['zone-c'], null],
        ['10.1.2.6', false, false, true, false, ['zone-a'], null],
      ],
      want: ['10.1.2.4', '10.1.2.5'],
    },
    {
      name: 'missing hints, no filtering applied',
      zone: 'zone-a',
      eps: [
        ['10.1.2.3', false, true, true, false, ['zone-a'], null],
        ['10.1.2.4', false, true, true, false, ['zone-b'], null],
        ['10.1.2.5', false, true, true, false, null, null],
        ['10.1.2.6', false, true, true, false, ['zone-a'], null],
      ],
      want: ['10.1.2.3', '10.1.2.4', '10.1.2.5', '10.1.2.6'],
    },
    {
      name: 'multiple hints per endpoint, filtering includes any endpoint with zone included',
      zone: 'zone-c',
      eps: [
        ['10.1.2.3', false, true, true, false, ['zone-a', 'zone-b', 'zone-c'], null],
        ['10.1.2.4', false, true, true, false, ['zone-b', 'zone-c'], null],
        ['10.1.2.5', false, true, true, false, ['zone-b', 'zone-d'], null],
        ['10.1.2.6', false, true, true, false, ['zone-c'], null],
      ],
      want: ['10.1.2.3', '10.1.2.4', '10.1.2.6'],
    },
    ...(['node-1', 'node-0'] as const).flatMap((nodeName) =>
      [false, true].map((preferSame) => ({
        name:
          nodeName === 'node-0'
            ? 'PreferSameNode falls back to PreferSameZone if no endpoint for node'
            : preferSame
              ? 'PreferSameNode available'
              : 'PreferSameNode falls back to same-zone when feature gate disabled',
        preferSame,
        nodeName,
        zone: 'zone-a' as string | null,
        eps: [
          ['10.1.2.3', false, true, true, false, ['zone-a'], ['node-1']],
          ['10.1.2.4', false, true, true, false, ['zone-b'], ['node-2']],
          ['10.1.2.5', false, true, true, false, ['zone-c'], ['node-3']],
          ['10.1.2.6', false, true, true, false, ['zone-a'], ['node-4']],
        ] as [string, boolean, boolean, boolean, boolean, string[] | null, string[] | null][],
        want: nodeName === 'node-1' && preferSame ? ['10.1.2.3'] : ['10.1.2.3', '10.1.2.6'],
      })),
    ),
    {
      name: 'PreferSameNode ignored if some endpoints unhinted',
      preferSame: true,
      nodeName: 'node-1',
      zone: 'zone-a',
      eps: [
        ['10.1.2.3', false, true, true, false, ['zone-a'], ['node-1']],
        ['10.1.2.4', false, true, true, false, null, null],
        ['10.1.2.5', false, true, true, false, ['zone-c'], ['node-3']],
        ['10.1.2.6', false, true, true, false, ['zone-a'], ['node-4']],
      ],
      want: ['10.1.2.3', '10.1.2.4', '10.1.2.5', '10.1.2.6'],
    },
    {
      name: 'Cluster traffic policy, all endpoints are terminating',
      eps: [
        ['10.0.0.0', false, false, true, true, null, null],
        ['10.0.0.1', false, false, true, true, null, null],
      ],
      want: ['10.0.0.0', '10.0.0.1'],
    },
  ]
  for (const tc of cases) {
    it(`${tc.name}${tc.preferSame !== undefined ? ` (gate ${tc.preferSame ? 'on' : 'off'})` : ''}`, () => {
      const nodeName = tc.nodeName ?? 'node'
      const labels: Record<string, string> = tc.zone === null || tc.zone === undefined ? {} : {'topology.kubernetes.io/zone': tc.zone}
      const eps = tc.eps.map(([ip, l, r, s, t, z, n]) => aep(ip, l, r, s, t, z, n, nodeName))
      const got = endpointsForNode(antrea(tc.preferSame ?? false), eps, clusterIP, {name: nodeName, labels})
      expect(ips(got.endpoints)).toEqual(tc.want)
    })
  }

  it('Antrea before v2.2 uses hints only with the annotation "Auto"/"auto" (canUseTopology)', () => {
    const eps = [aep('10.1.2.3', false, true, true, false, ['zone-a'], null, 'n'), aep('10.1.2.4', false, true, true, false, ['zone-b'], null, 'n')]
    const plane = {...dataPlaneFromFlag('antrea'), version: '2.1.0'}
    const node = {name: 'n', labels: {'topology.kubernetes.io/zone': 'zone-a'}}
    expect(ips(endpointsForNode(plane, eps, clusterIP, node).endpoints)).toEqual(['10.1.2.3', '10.1.2.4'])
    const annotated: Service = {...clusterIP, metadata: {...clusterIP.metadata, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}}
    expect(ips(endpointsForNode(plane, eps, annotated, node).endpoints)).toEqual(['10.1.2.3'])
    const other: Service = {...clusterIP, metadata: {...clusterIP.metadata, annotations: {'service.kubernetes.io/topology-mode': 'PreferZone'}}}
    expect(ips(endpointsForNode(plane, eps, other, node).endpoints)).toEqual(['10.1.2.3', '10.1.2.4'])
  })
})

// ---- Cilium ------------------------------------------------------------------------------------

describe('Cilium (pkg/loadbalancer/tests/testdata topology-aware.txtar, prefer-same-node.txtar)', () => {
  // topology-aware.txtar: node zone foo, Service with topology-mode auto, backends
  // 10.244.1.1 (for zones foo & bar) and 10.244.2.1 (for zone quux) -> only 10.244.1.1.
  const auto: Service = {
    metadata: {name: 'echo', namespace: 'test', annotations: {'service.kubernetes.io/topology-mode': 'auto'}},
    spec: {type: 'ClusterIP', clusterIP: '10.96.50.104'},
  }
  const be = (ip: string, zones: string[], nodeName: string | null = null): ProxyEndpoint => ({
    ip,
    ready: true,
    serving: true,
    terminating: false,
    nodeName,
    zone: null,
    zoneHints: set(...zones),
    nodeHints: null,
    sliceName: 's',
  })
  const node = {name: 'testnode', labels: {'topology.kubernetes.io/zone': 'foo'}}

  it('topology-aware.txtar: backends meant for other zones are ignored', () => {
    const got = ciliumSelectBackends([be('10.244.1.1', ['foo', 'bar']), be('10.244.2.1', ['quux'])], auto, node, true)
    expect(got).toEqual({endpoints: [expect.objectContaining({ip: '10.244.1.1'})], topology: 'zone'})
  })

  it('service topology off: all backends', () => {
    expect(ips(ciliumSelectBackends([be('10.244.1.1', ['foo', 'bar']), be('10.244.2.1', ['quux'])], auto, node, false).endpoints)).toEqual(['10.244.1.1', '10.244.2.1'])
  })

  it('safeguards: a backend without hints, or none for this zone, gives all backends', () => {
    expect(ips(ciliumSelectBackends([be('10.244.1.1', ['foo']), be('10.244.2.1', [])], auto, node, true).endpoints)).toEqual(['10.244.1.1', '10.244.2.1'])
    expect(ips(ciliumSelectBackends([be('10.244.1.1', ['bar']), be('10.244.2.1', ['quux'])], auto, node, true).endpoints)).toEqual(['10.244.1.1', '10.244.2.1'])
  })

  it('which Services are topology-aware: annotation not disabled, or PreferClose; PreferSameZone only from 1.20; never with iTP Local', () => {
    const eps = [be('10.244.1.1', ['foo']), be('10.244.2.1', ['quux'])]
    const svc = (annotations: Record<string, string>, spec: Service['spec'] = {}): Service => ({metadata: {name: 'echo', annotations}, spec: {type: 'ClusterIP', ...spec}})
    const pick = (s: Service, preferSame = false) => ips(ciliumSelectBackends(eps, s, node, true, {preferSame}).endpoints)
    expect(pick(svc({'service.kubernetes.io/topology-aware-hints': 'disabled', 'service.kubernetes.io/topology-mode': 'Auto'}))).toEqual(['10.244.1.1', '10.244.2.1'])
    expect(pick(svc({'service.kubernetes.io/topology-mode': 'Anything'}))).toEqual(['10.244.1.1'])
    expect(pick(svc({}, {trafficDistribution: 'PreferClose'}))).toEqual(['10.244.1.1'])
    expect(pick(svc({}, {trafficDistribution: 'PreferSameZone'}))).toEqual(['10.244.1.1', '10.244.2.1'])
    expect(pick(svc({}, {trafficDistribution: 'PreferSameZone'}), true)).toEqual(['10.244.1.1'])
    const local = ciliumSelectBackends(
      [be('10.244.1.1', ['foo'], 'other'), be('10.244.2.1', ['quux'], 'testnode')],
      svc({'service.kubernetes.io/topology-mode': 'Auto'}, {internalTrafficPolicy: 'Local'}),
      node,
      true,
    )
    expect(ips(local.endpoints)).toEqual(['10.244.2.1'])
  })

  it('prefer-same-node.txtar (1.20+): the local backend, else all', () => {
    const svc: Service = {metadata: {name: 'echo', namespace: 'test'}, spec: {type: 'ClusterIP', trafficDistribution: 'PreferSameNode'}}
    const local = {...be('10.244.1.1', []), nodeName: 'testnode'}
    const remote = {...be('10.244.2.1', []), nodeName: 'other-node'}
    expect(ciliumSelectBackends([local, remote], svc, node, true, {preferSame: true})).toEqual({endpoints: [local], topology: 'node'})
    expect(ciliumSelectBackends([remote], svc, node, true, {preferSame: true})).toEqual({endpoints: [remote], topology: 'none'})
    expect(ips(ciliumSelectBackends([local, remote], svc, node, true, {preferSame: false}).endpoints)).toEqual(['10.244.1.1', '10.244.2.1'])
  })
})

// ---- endpointsForNode over detected planes ---------------------------------------------------

describe('endpointsForNode', () => {
  const node = {name: 'n1', labels: {'topology.kubernetes.io/zone': 'a'}}
  const ep = (ip: string, zones: string[], nodes: string[] = [], nodeName = 'nx'): ProxyEndpoint => ({
    ip,
    ready: true,
    serving: true,
    terminating: false,
    nodeName,
    zone: null,
    zoneHints: set(...zones),
    nodeHints: set(...nodes),
    sliceName: 's',
  })
  const auto: Service = {metadata: {name: 's', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}, spec: {type: 'ClusterIP'}}

  it('kube-proxy: zone hints narrow; all-endpoints (kube-router) does not', () => {
    const eps = [ep('1', ['a']), ep('2', ['b'])]
    expect(endpointsForNode(dataPlaneFromFlag('kube-proxy'), eps, auto, node)).toEqual({endpoints: [eps[0]], topology: 'zone'})
    expect(endpointsForNode(dataPlaneFromFlag('kube-router'), eps, auto, node)).toEqual({endpoints: eps, topology: 'none'})
  })

  it('kube-proxy with node hints and the gate: node; 1.28-1.30 options come from the caller', () => {
    const eps = [ep('1', ['a'], ['n1']), ep('2', ['a'], ['n2'])]
    expect(endpointsForNode(dataPlaneFromFlag('kube-proxy'), eps, auto, node).topology).toBe('node')
    const plain: Service = {metadata: {name: 's'}, spec: {type: 'ClusterIP'}}
    const legacy = endpointsForNode(dataPlaneFromFlag('kube-proxy'), [ep('1', ['a']), ep('2', ['b'])], plain, node, {
      kubeProxy: {preferSameGate: false, requireAnnotation: {annotations: undefined}},
    })
    expect(legacy.topology).toBe('none')
  })

  it('Calico v3.32 (calico-tar-td): unannotated Service with a partial hint set still narrows, unlike kube-proxy', () => {
    const calico = detectDataPlane({
      daemonSets: [
        {
          metadata: {name: 'calico-node', namespace: 'kube-system'},
          spec: {template: {spec: {containers: [{name: 'calico-node', image: 'quay.io/calico/node:v3.32.1', env: [{name: 'FELIX_BPFENABLED', value: 'true'}]}]}}},
        },
      ],
      configMaps: [],
    })
    const plain: Service = {metadata: {name: 's'}, spec: {type: 'ClusterIP', trafficDistribution: 'PreferClose'}}
    const eps = [ep('1', ['a']), ep('2', [])]
    expect(endpointsForNode(calico, eps, plain, node)).toEqual({endpoints: [eps[0]], topology: 'zone'})
    expect(endpointsForNode(dataPlaneFromFlag('kube-proxy'), eps, plain, node).topology).toBe('none')
    const byNode = [ep('1', ['a'], ['n1']), ep('2', ['a'], ['n2'])]
    expect(endpointsForNode(calico, byNode, plain, node)).toEqual({endpoints: [byNode[0]], topology: 'node'})
    // topology-mode Auto: zone routing only (node hints not consulted).
    expect(endpointsForNode(calico, byNode, auto, node)).toEqual({endpoints: byNode, topology: 'none'})
  })

  it('Calico v3.30 (calico-annotation): per endpoint, no safeguard: an unhinted endpoint stays, other zones go', () => {
    const plane = {...dataPlaneFromFlag('calico'), selection: 'calico-annotation' as const, version: '3.30.3'}
    const eps = [ep('1', ['a']), ep('2', ['b']), ep('3', [])]
    expect(endpointsForNode(plane, eps, auto, node)).toEqual({endpoints: [eps[0], eps[2]], topology: 'zone'})
    const hinted: Service = {metadata: {name: 's', annotations: {'service.kubernetes.io/topology-aware-hints': 'auto'}}, spec: {}}
    expect(endpointsForNode(plane, [ep('2', ['b'])], hinted, node).endpoints).toEqual([])
    expect(endpointsForNode(plane, eps, {metadata: {name: 's'}, spec: {trafficDistribution: 'PreferClose'}}, node).topology).toBe('none')
  })

  it('Cilium plane: serviceTopology from honoursZoneHints, PreferSameNode from the version', () => {
    const on = {...dataPlaneFromFlag('cilium'), selection: 'cilium' as const, honoursZoneHints: true as const, version: '1.20.1'}
    const sameNode: Service = {metadata: {name: 's'}, spec: {trafficDistribution: 'PreferSameNode'}}
    const eps = [ep('1', [], [], 'n1'), ep('2', [], [], 'n2')]
    expect(endpointsForNode(on, eps, sameNode, node).endpoints).toEqual([eps[0]])
    expect(endpointsForNode({...on, version: '1.18.4'}, eps, sameNode, node).endpoints).toEqual(eps)
  })
})
