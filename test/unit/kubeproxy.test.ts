import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {
  categorizeEndpoints,
  categorizeZones,
  topologyDecisionFromHints,
  topologyModeFromHints,
  type Categorized,
  type FallbackReason,
  type ProxyTopologyMode,
} from '../../src/upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../../src/upstream/kube-proxy/endpoint.js'
import {proxyEndpointsFromSlices} from '../../src/upstream/kube-proxy/endpointslicecache.js'
import {legacyHintsAnnotation, serviceTrafficFlags, type ServiceTrafficFlags} from '../../src/upstream/kube-proxy/serviceport.js'
import {ANNOTATION_TOPOLOGY_MODE, type Endpoint, type EndpointSlice, type Service} from '../../src/upstream/api/types.js'

// ---- helpers ----------------------------------------------------------------------------------

const ZONE = 'topology.kubernetes.io/zone'
/** Stand-in for upstream's (empty) kube-proxy node name when a case has local endpoints. */
const DEFAULT_NODE = 'this-node'

/** Mirrors upstream's BaseServicePortInfo fields used by TestCategorizeEndpoints. */
interface SvcInfo {
  internalPolicyLocal?: boolean
  externalPolicyLocal?: boolean
  nodePort?: number
}
/** serviceport.go: ExternallyAccessible / UsesClusterEndpoints / UsesLocalEndpoints over BaseServicePortInfo. */
function flagsOf(s: SvcInfo): ServiceTrafficFlags {
  const externallyAccessible = (s.nodePort ?? 0) !== 0
  const iPL = s.internalPolicyLocal ?? false
  const ePL = s.externalPolicyLocal ?? false
  return {
    externallyAccessible,
    usesClusterEndpoints: !iPL || externallyAccessible,
    usesLocalEndpoints: iPL || (ePL && externallyAccessible),
    internalTrafficPolicyLocal: iPL,
    externalTrafficPolicyLocal: ePL,
  }
}

/** Mirrors upstream's BaseEndpointInfo literal: unset booleans are false (Go zero values), unset hints nil. */
interface EpInfo {
  zoneHints?: string[]
  nodeHints?: string[]
  ready?: boolean
  serving?: boolean
  terminating?: boolean
  isLocal?: boolean
}
type EpRow = [endpoint: string, info: EpInfo]

function toProxyEndpoint([endpoint, info]: EpRow, nodeName: string): ProxyEndpoint {
  return {
    ip: endpoint.replace(/:80$/, ''),
    ready: info.ready ?? false,
    serving: info.serving ?? false,
    terminating: info.terminating ?? false,
    nodeName: info.isLocal ? nodeName : null,
    zone: null,
    zoneHints: info.zoneHints ? new Set(info.zoneHints) : null,
    nodeHints: info.nodeHints ? new Set(info.nodeHints) : null,
    sliceName: 'slice',
  }
}

const keys = (eps: readonly ProxyEndpoint[]) => eps.map((e) => `${e.ip}:80`)
const sorted = (xs: readonly string[]) => [...xs].sort()

// ---- TestCategorizeEndpoints, ported ---------------------------------------------------------

// Ported case by case from kubernetes/kubernetes pkg/proxy/topology_test.go TestCategorizeEndpoints
// at commit fa7ba8e2f963aad48acbd0aee416f9743af443f5 (32 cases; names verbatim). Expected sets are
// upstream's; `undefined` stands for Go's nil set. Upstream's isLocal is precomputed per endpoint; here
// an "isLocal" endpoint gets nodeName = the kube-proxy node's name (DEFAULT_NODE when the case leaves
// nodeName empty), and other endpoints get no nodeName.
interface UpstreamCase {
  name: string
  preferSameEnabled?: boolean
  nodeName?: string
  nodeLabels?: Record<string, string>
  serviceInfo: SvcInfo
  endpoints: EpRow[] | null
  clusterEndpoints?: string[]
  localEndpoints?: string[]
  allEndpoints?: string[]
  onlyRemoteEndpoints?: boolean
}

const upstreamCases: UpstreamCase[] = [
  {
    name: "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone",
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'externalTrafficPolicy: Local, topology ignored for Local endpoints',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true, isLocal: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], ready: true, isLocal: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: ['10.1.2.3:80', '10.1.2.4:80'],
    allEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, topology ignored for Local endpoints',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {internalPolicyLocal: true, externalPolicyLocal: false, nodePort: 8080},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true, isLocal: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], ready: true, isLocal: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: ['10.1.2.3:80', '10.1.2.4:80'],
    allEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
  },
  {
    name: 'empty node labels',
    nodeLabels: {},
    serviceInfo: {},
    endpoints: [['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true}]],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'empty zone label',
    nodeLabels: {[ZONE]: ''},
    serviceInfo: {},
    endpoints: [['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true}]],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'node in different zone, no endpoint filtering',
    nodeLabels: {[ZONE]: 'zone-b'},
    serviceInfo: {},
    endpoints: [['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true}]],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'unready endpoint',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], ready: false}], // unready
    ],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'only unready endpoints in same zone (should not filter)',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], ready: false}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], ready: false}],
    ],
    clusterEndpoints: ['10.1.2.4:80', '10.1.2.5:80'],
    localEndpoints: undefined,
  },
  {
    name: 'missing hints, no filtering applied',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], ready: true}],
      ['10.1.2.5:80', {ready: true}], // Endpoint is missing hint.
      ['10.1.2.6:80', {zoneHints: ['zone-a'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'multiple hints per endpoint, filtering includes any endpoint with zone included',
    nodeLabels: {[ZONE]: 'zone-c'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a', 'zone-b', 'zone-c'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b', 'zone-c'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-b', 'zone-d'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-c'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'PreferSameNode falls back to same-zone when feature gate disabled',
    preferSameEnabled: false,
    nodeName: 'node-1',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], nodeHints: ['node-1'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], nodeHints: ['node-2'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], nodeHints: ['node-3'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], nodeHints: ['node-4'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'PreferSameNode available',
    preferSameEnabled: true,
    nodeName: 'node-1',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], nodeHints: ['node-1'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], nodeHints: ['node-2'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], nodeHints: ['node-3'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], nodeHints: ['node-4'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80'],
    localEndpoints: undefined,
  },
  {
    name: 'PreferSameNode ignored if some endpoints unhinted',
    preferSameEnabled: true,
    nodeName: 'node-1',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], nodeHints: ['node-1'], ready: true}],
      ['10.1.2.4:80', {ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], nodeHints: ['node-3'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], nodeHints: ['node-4'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'PreferSameNode falls back to PreferSameZone if no endpoint for node',
    preferSameEnabled: true,
    nodeName: 'node-0',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [
      ['10.1.2.3:80', {zoneHints: ['zone-a'], nodeHints: ['node-1'], ready: true}],
      ['10.1.2.4:80', {zoneHints: ['zone-b'], nodeHints: ['node-2'], ready: true}],
      ['10.1.2.5:80', {zoneHints: ['zone-c'], nodeHints: ['node-3'], ready: true}],
      ['10.1.2.6:80', {zoneHints: ['zone-a'], nodeHints: ['node-4'], ready: true}],
    ],
    clusterEndpoints: ['10.1.2.3:80', '10.1.2.6:80'],
    localEndpoints: undefined,
  },
  {
    name: 'conflicting topology and localness require merging allEndpoints',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {internalPolicyLocal: false, externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {zoneHints: ['zone-a'], ready: true, isLocal: true}],
      ['10.0.0.1:80', {zoneHints: ['zone-b'], ready: true, isLocal: true}],
      ['10.0.0.2:80', {zoneHints: ['zone-a'], ready: true, isLocal: false}],
      ['10.0.0.3:80', {zoneHints: ['zone-b'], ready: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.2:80'],
    localEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, with empty endpoints',
    serviceInfo: {internalPolicyLocal: true},
    endpoints: [],
    clusterEndpoints: undefined,
    localEndpoints: [],
  },
  {
    name: 'internalTrafficPolicy: Local, but all endpoints are remote',
    serviceInfo: {internalPolicyLocal: true},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: false}],
      ['10.0.0.1:80', {ready: true, isLocal: false}],
    ],
    clusterEndpoints: undefined,
    localEndpoints: [],
    onlyRemoteEndpoints: true,
  },
  {
    name: 'internalTrafficPolicy: Local, all endpoints are local',
    serviceInfo: {internalPolicyLocal: true},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: true}],
      ['10.0.0.1:80', {ready: true, isLocal: true}],
    ],
    clusterEndpoints: undefined,
    localEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'internalTrafficPolicy: Local, some endpoints are local',
    serviceInfo: {internalPolicyLocal: true},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: true}],
      ['10.0.0.1:80', {ready: true, isLocal: false}],
    ],
    clusterEndpoints: undefined,
    localEndpoints: ['10.0.0.0:80'],
  },
  {
    name: 'Cluster traffic policy, endpoints not Ready',
    serviceInfo: {},
    endpoints: [
      ['10.0.0.0:80', {ready: false}],
      ['10.0.0.1:80', {ready: false}],
    ],
    clusterEndpoints: [],
    localEndpoints: undefined,
  },
  {
    name: 'Cluster traffic policy, some endpoints are Ready',
    serviceInfo: {},
    endpoints: [
      ['10.0.0.0:80', {ready: false}],
      ['10.0.0.1:80', {ready: true}],
    ],
    clusterEndpoints: ['10.0.0.1:80'],
    localEndpoints: undefined,
  },
  {
    name: 'Cluster traffic policy, all endpoints are terminating',
    serviceInfo: {},
    endpoints: [
      ['10.0.0.0:80', {ready: false, serving: true, terminating: true, isLocal: true}],
      ['10.0.0.1:80', {ready: false, serving: true, terminating: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: undefined,
  },
  {
    name: 'iTP: Local, eTP: Cluster, some endpoints local',
    serviceInfo: {internalPolicyLocal: true, externalPolicyLocal: false, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: true}],
      ['10.0.0.1:80', {ready: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: ['10.0.0.0:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Cluster, eTP: Local, some endpoints local',
    serviceInfo: {internalPolicyLocal: false, externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: true}],
      ['10.0.0.1:80', {ready: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: ['10.0.0.0:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, some endpoints local',
    serviceInfo: {internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: true}],
      ['10.0.0.1:80', {ready: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: ['10.0.0.0:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote',
    serviceInfo: {internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: false}],
      ['10.0.0.1:80', {ready: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: [],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'iTP: Local, eTP: Local, all endpoints remote and terminating',
    serviceInfo: {internalPolicyLocal: true, externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {ready: false, serving: true, terminating: true, isLocal: false}],
      ['10.0.0.1:80', {ready: false, serving: true, terminating: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: [],
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    onlyRemoteEndpoints: true,
  },
  {
    name: 'iTP: Cluster, eTP: Local, with terminating endpoints',
    serviceInfo: {internalPolicyLocal: false, externalPolicyLocal: true, nodePort: 8080},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: false}],
      ['10.0.0.1:80', {ready: false, serving: false, isLocal: true}],
      ['10.0.0.2:80', {ready: false, serving: true, terminating: true, isLocal: true}],
      ['10.0.0.3:80', {ready: false, serving: true, terminating: true, isLocal: false}],
    ],
    clusterEndpoints: ['10.0.0.0:80'],
    localEndpoints: ['10.0.0.2:80'],
    allEndpoints: ['10.0.0.0:80', '10.0.0.2:80'],
  },
  {
    name: 'externalTrafficPolicy ignored if not externally accessible',
    serviceInfo: {externalPolicyLocal: true},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: false}],
      ['10.0.0.1:80', {ready: true, isLocal: true}],
    ],
    clusterEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
    localEndpoints: undefined,
    allEndpoints: ['10.0.0.0:80', '10.0.0.1:80'],
  },
  {
    name: 'no cluster endpoints for iTP:Local internal-only service',
    serviceInfo: {internalPolicyLocal: true},
    endpoints: [
      ['10.0.0.0:80', {ready: true, isLocal: false}],
      ['10.0.0.1:80', {ready: true, isLocal: true}],
    ],
    clusterEndpoints: undefined,
    localEndpoints: ['10.0.0.1:80'],
    allEndpoints: ['10.0.0.1:80'],
  },
  {
    name: 'empty endpoints when no service endpoints exist',
    serviceInfo: {},
    endpoints: null,
    clusterEndpoints: undefined,
    localEndpoints: undefined,
    allEndpoints: undefined,
  },
  {
    name: 'single endpoint not ready, not serving, not terminating',
    nodeLabels: {[ZONE]: 'zone-a'},
    serviceInfo: {},
    endpoints: [['10.0.0.0:80', {ready: false, serving: false, terminating: false}]],
    clusterEndpoints: [],
    localEndpoints: undefined,
  },
]

// Not upstream's assertions: the mode and fallback reason we expect for each ported case.
const expectedModeAndReason: Record<string, [ProxyTopologyMode, FallbackReason | null, localUsesTerminating?: boolean]> = {
  "should use topology since all endpoints have hints, node has a zone label and and there are endpoints for the node's zone": ['PreferSameZone', null],
  'externalTrafficPolicy: Local, topology ignored for Local endpoints': ['PreferSameZone', null],
  'internalTrafficPolicy: Local, topology ignored for Local endpoints': ['PreferSameZone', null],
  'empty node labels': ['', 'node-has-no-zone'],
  'empty zone label': ['', 'node-has-no-zone'],
  'node in different zone, no endpoint filtering': ['', 'no-hint-for-zone'],
  'unready endpoint': ['PreferSameZone', null],
  'only unready endpoints in same zone (should not filter)': ['', 'no-hint-for-zone'],
  'missing hints, no filtering applied': ['', 'unhinted-ready-endpoint'],
  'multiple hints per endpoint, filtering includes any endpoint with zone included': ['PreferSameZone', null],
  'PreferSameNode falls back to same-zone when feature gate disabled': ['PreferSameZone', null],
  'PreferSameNode available': ['PreferSameNode', null],
  'PreferSameNode ignored if some endpoints unhinted': ['', 'unhinted-ready-endpoint'],
  'PreferSameNode falls back to PreferSameZone if no endpoint for node': ['PreferSameZone', null],
  'conflicting topology and localness require merging allEndpoints': ['PreferSameZone', null],
  'internalTrafficPolicy: Local, with empty endpoints': ['', 'no-endpoints'],
  'internalTrafficPolicy: Local, but all endpoints are remote': ['', null],
  'internalTrafficPolicy: Local, all endpoints are local': ['', null],
  'internalTrafficPolicy: Local, some endpoints are local': ['', null],
  'Cluster traffic policy, endpoints not Ready': ['', null],
  'Cluster traffic policy, some endpoints are Ready': ['', null],
  'Cluster traffic policy, all endpoints are terminating': ['', null],
  'iTP: Local, eTP: Cluster, some endpoints local': ['', null],
  'iTP: Cluster, eTP: Local, some endpoints local': ['', null],
  'iTP: Local, eTP: Local, some endpoints local': ['', null],
  'iTP: Local, eTP: Local, all endpoints remote': ['', null],
  'iTP: Local, eTP: Local, all endpoints remote and terminating': ['', null],
  'iTP: Cluster, eTP: Local, with terminating endpoints': ['', null, true],
  'externalTrafficPolicy ignored if not externally accessible': ['', null],
  'no cluster endpoints for iTP:Local internal-only service': ['', null],
  'empty endpoints when no service endpoints exist': ['', 'no-endpoints'],
  'single endpoint not ready, not serving, not terminating': ['', null],
}

function runUpstreamCase(tc: UpstreamCase): Categorized {
  const nodeName = tc.nodeName || DEFAULT_NODE
  const eps = (tc.endpoints ?? []).map((row) => toProxyEndpoint(row, nodeName))
  return categorizeEndpoints(
    eps,
    flagsOf(tc.serviceInfo),
    {name: nodeName, labels: tc.nodeLabels ?? {}},
    {
      preferSameGate: tc.preferSameEnabled ?? false,
    },
  )
}

describe('TestCategorizeEndpoints (pkg/proxy/topology_test.go @ fa7ba8e2)', () => {
  it('ports all 32 upstream cases', () => {
    expect(upstreamCases).toHaveLength(32)
    expect(new Set(upstreamCases.map((c) => c.name)).size).toBe(32)
    expect(Object.keys(expectedModeAndReason).sort()).toEqual(upstreamCases.map((c) => c.name).sort())
  })

  it.each(upstreamCases.map((c) => [c.name, c] as const))('%s', (_name, tc) => {
    const r = runUpstreamCase(tc)
    // checkExpectedEndpoints: the same elements, each once (a nil expectation means "none").
    expect(sorted(keys(r.clusterEndpoints))).toEqual(sorted(tc.clusterEndpoints ?? []))
    expect(sorted(keys(r.localEndpoints))).toEqual(sorted(tc.localEndpoints ?? []))

    const cl = tc.clusterEndpoints ?? []
    const lo = tc.localEndpoints ?? []
    let expectedAll: string[]
    if (cl.length !== 0 && lo.length === 0) expectedAll = cl
    else if (lo.length !== 0 && cl.length === 0) expectedAll = lo
    else expectedAll = tc.allEndpoints ?? []
    expect(sorted(keys(r.allReachableEndpoints))).toEqual(sorted(expectedAll))

    expect(r.hasAnyEndpoints).toBe(expectedAll.length > 0 || (tc.onlyRemoteEndpoints ?? false))

    const [mode, reason, localTerm] = expectedModeAndReason[tc.name]!
    expect(r.topologyMode).toBe(mode)
    expect(r.fallbackReason).toBe(reason)
    expect(r.localUsesTerminating).toBe(localTerm ?? false)
  })
})

// ---- ordering and purity ---------------------------------------------------------------------

describe('categorizeEndpoints: ordering and purity', () => {
  it('orders the merged "all" set by first appearance in the input', () => {
    const tc = upstreamCases.find((c) => c.name === 'conflicting topology and localness require merging allEndpoints')!
    const r = runUpstreamCase(tc)
    expect(keys(r.clusterEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.2:80'])
    expect(keys(r.localEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80'])
    expect(keys(r.allReachableEndpoints)).toEqual(['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80'])
  })

  it('puts a local terminating endpoint at its input position in the union', () => {
    const tc = upstreamCases.find((c) => c.name === 'iTP: Cluster, eTP: Local, with terminating endpoints')!
    const eps = [...tc.endpoints!].reverse().map((row) => toProxyEndpoint(row, DEFAULT_NODE))
    const r = categorizeEndpoints(eps, flagsOf(tc.serviceInfo), {name: DEFAULT_NODE, labels: {}}, {preferSameGate: true})
    expect(keys(r.allReachableEndpoints)).toEqual(['10.0.0.2:80', '10.0.0.0:80'])
  })

  it('does not mutate its inputs', () => {
    const tc = upstreamCases[1]!
    const eps = Object.freeze(tc.endpoints!.map((row) => Object.freeze(toProxyEndpoint(row, DEFAULT_NODE))))
    const labels = Object.freeze({[ZONE]: 'zone-a'})
    const flags = Object.freeze(flagsOf(tc.serviceInfo))
    const r = categorizeEndpoints(eps, flags, Object.freeze({name: DEFAULT_NODE, labels}), {preferSameGate: true})
    expect(r.allReachableEndpoints).toHaveLength(3)
    r.allReachableEndpoints.push(eps[2]!)
    expect(r.clusterEndpoints).toHaveLength(2) // result arrays are independent
  })

  it('an endpoint with an empty nodeName is never local, even on a node with an empty name', () => {
    const ep: ProxyEndpoint = {...toProxyEndpoint(['10.0.0.9:80', {ready: true}], ''), nodeName: ''}
    const r = categorizeEndpoints([ep], flagsOf({internalPolicyLocal: true}), {name: '', labels: {}}, {preferSameGate: true})
    expect(r.localEndpoints).toEqual([])
    expect(r.hasAnyEndpoints).toBe(true)
  })
})

// ---- proxyEndpointsFromSlices -----------------------------------------------------------------

function slice(name: string, endpoints: Endpoint[], extra: Partial<EndpointSlice> = {}): EndpointSlice {
  return {
    metadata: {name, namespace: 'default', labels: {'kubernetes.io/service-name': 'svc'}},
    addressType: 'IPv4',
    ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
    endpoints,
    ...extra,
  }
}

describe('proxyEndpointsFromSlices (endpointslicecache.go addEndpoints)', () => {
  it('counts unset Ready and Serving as true, unset Terminating as false', () => {
    const eps = proxyEndpointsFromSlices(
      [
        slice('s1', [
          {addresses: ['10.0.0.1']},
          {addresses: ['10.0.0.2'], conditions: {}},
          {addresses: ['10.0.0.3'], conditions: {ready: null, serving: null, terminating: null}},
          {addresses: ['10.0.0.4'], conditions: {ready: false, serving: true, terminating: true}},
        ]),
      ],
      {preferSameGate: true},
    )
    expect(eps.map((e) => [e.ip, e.ready, e.serving, e.terminating])).toEqual([
      ['10.0.0.1', true, true, false],
      ['10.0.0.2', true, true, false],
      ['10.0.0.3', true, true, false],
      ['10.0.0.4', false, true, true],
    ])
  })

  it('skips endpoints without addresses and uses only addresses[0]', () => {
    const eps = proxyEndpointsFromSlices([slice('s1', [{addresses: []}, {addresses: ['10.0.0.1', '10.0.0.99'], nodeName: 'n1', zone: 'z1'}])], {preferSameGate: true})
    expect(eps).toEqual([
      {
        ip: '10.0.0.1',
        ready: true,
        serving: true,
        terminating: false,
        nodeName: 'n1',
        zone: 'z1',
        zoneHints: null,
        nodeHints: null,
        sliceName: 's1',
      },
    ])
  })

  it('keeps slice order, then endpoint order', () => {
    const eps = proxyEndpointsFromSlices([slice('b', [{addresses: ['10.0.0.9']}, {addresses: ['10.0.0.1']}]), slice('a', [{addresses: ['10.0.0.5']}])], {preferSameGate: true})
    expect(eps.map((e) => `${e.sliceName}/${e.ip}`)).toEqual(['b/10.0.0.9', 'b/10.0.0.1', 'a/10.0.0.5'])
  })

  it('merges the same IP across slices: a non-terminating copy wins, at the first position', () => {
    const eps = proxyEndpointsFromSlices(
      [
        slice('old', [{addresses: ['10.0.0.1'], conditions: {ready: false, serving: true, terminating: true}, nodeName: 'n-old'}, {addresses: ['10.0.0.2']}]),
        slice('new', [{addresses: ['10.0.0.1'], conditions: {ready: true}, nodeName: 'n-new'}]),
      ],
      {preferSameGate: true},
    )
    expect(eps.map((e) => [e.ip, e.sliceName, e.terminating, e.nodeName])).toEqual([
      ['10.0.0.1', 'new', false, 'n-new'],
      ['10.0.0.2', 'old', false, null],
    ])
  })

  it('a terminating copy never replaces an earlier copy', () => {
    const eps = proxyEndpointsFromSlices(
      [slice('s1', [{addresses: ['10.0.0.1'], conditions: {ready: true}}]), slice('s2', [{addresses: ['10.0.0.1'], conditions: {ready: false, serving: true, terminating: true}}])],
      {preferSameGate: true},
    )
    expect(eps).toHaveLength(1)
    expect(eps[0]!.sliceName).toBe('s1')
    expect(eps[0]!.ready).toBe(true)
  })

  it('with two terminating copies the first stays; with two non-terminating copies the last wins', () => {
    const term = {ready: false, serving: true, terminating: true}
    const twoTerm = proxyEndpointsFromSlices([slice('s1', [{addresses: ['10.0.0.1'], conditions: term}]), slice('s2', [{addresses: ['10.0.0.1'], conditions: term}])], {
      preferSameGate: true,
    })
    expect(twoTerm.map((e) => e.sliceName)).toEqual(['s1'])
    const twoLive = proxyEndpointsFromSlices([slice('s1', [{addresses: ['10.0.0.1']}]), slice('s2', [{addresses: ['10.0.0.1']}])], {preferSameGate: true})
    expect(twoLive.map((e) => e.sliceName)).toEqual(['s2'])
  })

  it("merges like upstream's rule applied copy by copy, however many IPs repeat", () => {
    // upstream: `if !exists || !terminating { overwrite }`; a merged IP keeps its first position.
    // Each copy is told apart by its nodeName.
    const reference = (slices: EndpointSlice[]) => {
      const at = new Map<string, number>()
      const out: [string, string | undefined][] = []
      for (const s of slices) {
        for (const e of s.endpoints ?? []) {
          const ip = e.addresses[0]
          if (ip === undefined) continue
          const k = at.get(ip)
          if (k === undefined) {
            at.set(ip, out.length)
            out.push([ip, e.nodeName ?? undefined])
          } else if (e.conditions?.terminating !== true) out[k] = [ip, e.nodeName ?? undefined]
        }
      }
      return out
    }
    const ips = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']
    const endpointArb = fc.record({
      addresses: fc.oneof({arbitrary: fc.constant<string[]>([]), weight: 1}, {arbitrary: fc.constantFrom(...ips).map((ip) => [ip]), weight: 8}),
      conditions: fc.record({terminating: fc.boolean()}),
    })
    const slicesArb = fc.array(fc.array(endpointArb, {maxLength: 6}), {maxLength: 4}).map((xs) =>
      xs.map((eps, i) =>
        slice(
          `s${i}`,
          eps.map((e, j) => ({...e, nodeName: `copy-${i}-${j}`})),
        ),
      ),
    )
    fc.assert(
      fc.property(slicesArb, (slices) => {
        const got = proxyEndpointsFromSlices(slices, {preferSameGate: true})
        expect(got.map((e) => [e.ip, e.nodeName])).toEqual(reference(slices))
      }),
      {numRuns: 2000},
    )
  })

  it('reads zone hints always and node hints only when the PreferSame gate is on', () => {
    const s = slice('s1', [
      {addresses: ['10.0.0.1'], hints: {forZones: [{name: 'a'}, {name: 'b'}], forNodes: [{name: 'n1'}]}},
      {addresses: ['10.0.0.2'], hints: {forZones: [], forNodes: []}},
      {addresses: ['10.0.0.3'], hints: null},
    ])
    const on = proxyEndpointsFromSlices([s], {preferSameGate: true})
    expect(on.map((e) => [e.zoneHints && [...e.zoneHints], e.nodeHints && [...e.nodeHints]])).toEqual([
      [['a', 'b'], ['n1']],
      [null, null],
      [null, null],
    ])
    const off = proxyEndpointsFromSlices([s], {preferSameGate: false})
    expect(off.map((e) => [e.zoneHints && [...e.zoneHints], e.nodeHints])).toEqual([
      [['a', 'b'], null],
      [null, null],
      [null, null],
    ])
  })

  it('skips FQDN slices, and filters by address type and port name when asked', () => {
    const slices = [
      slice('v4', [{addresses: ['10.0.0.1']}]),
      slice('v6', [{addresses: ['fd00::1']}], {addressType: 'IPv6'}),
      slice('fqdn', [{addresses: ['example.com']}], {addressType: 'FQDN'}),
      slice('other-port', [{addresses: ['10.0.0.2']}], {ports: [{name: 'metrics', port: 9090}]}),
      slice('zero-port', [{addresses: ['10.0.0.3']}], {ports: [{name: 'http', port: 0}]}),
      slice('unnamed', [{addresses: ['10.0.0.4']}], {ports: [{port: 80}]}),
    ]
    const ips = (o: Parameters<typeof proxyEndpointsFromSlices>[1]) => proxyEndpointsFromSlices(slices, o).map((e) => e.ip)
    expect(ips({preferSameGate: true})).toEqual(['10.0.0.1', 'fd00::1', '10.0.0.2', '10.0.0.3', '10.0.0.4'])
    expect(ips({preferSameGate: true, addressType: 'IPv6'})).toEqual(['fd00::1'])
    expect(ips({preferSameGate: true, addressType: 'IPv4', portName: 'http'})).toEqual(['10.0.0.1'])
    expect(ips({preferSameGate: true, portName: ''})).toEqual(['10.0.0.4'])
  })

  it('does not mutate the slices', () => {
    const slices = [slice('s1', [{addresses: ['10.0.0.1'], hints: {forZones: [{name: 'a'}]}}]), slice('s2', [{addresses: ['10.0.0.1'], conditions: {terminating: true}}])]
    const before = structuredClone(slices)
    proxyEndpointsFromSlices(slices, {preferSameGate: true})
    expect(slices).toEqual(before)
  })
})

// ---- serviceTrafficFlags ----------------------------------------------------------------------

function svc(spec: NonNullable<Service['spec']>, status?: Service['status']): Service {
  return {metadata: {name: 'svc', namespace: 'default'}, spec, ...(status ? {status} : {})}
}

describe('serviceTrafficFlags (serviceport.go)', () => {
  it('ClusterIP: internal only, cluster endpoints', () => {
    expect(serviceTrafficFlags(svc({type: 'ClusterIP', ports: [{port: 80}]}))).toEqual({
      externallyAccessible: false,
      usesClusterEndpoints: true,
      usesLocalEndpoints: false,
      internalTrafficPolicyLocal: false,
      externalTrafficPolicyLocal: false,
    })
    // type defaults to ClusterIP
    expect(serviceTrafficFlags(svc({ports: [{port: 80}]})).externallyAccessible).toBe(false)
  })

  it('NodePort is externally accessible; eTP=Local then uses local endpoints too', () => {
    const np = svc({type: 'NodePort', ports: [{port: 80, nodePort: 30080}]})
    expect(serviceTrafficFlags(np)).toMatchObject({externallyAccessible: true, usesClusterEndpoints: true, usesLocalEndpoints: false})
    const npLocal = svc({type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{port: 80, nodePort: 30080}]})
    expect(serviceTrafficFlags(npLocal)).toEqual({
      externallyAccessible: true,
      usesClusterEndpoints: true,
      usesLocalEndpoints: true,
      internalTrafficPolicyLocal: false,
      externalTrafficPolicyLocal: true,
    })
  })

  it('LoadBalancer with an ingress IP is externally accessible even without node ports', () => {
    const lb = svc({type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{port: 80}]}, {loadBalancer: {ingress: [{ip: '203.0.113.7'}]}})
    expect(serviceTrafficFlags(lb)).toMatchObject({externallyAccessible: true, usesLocalEndpoints: true, externalTrafficPolicyLocal: true})
    // hostname-only ingress, or ipMode Proxy, is not a VIP
    const host = svc({type: 'LoadBalancer', ports: [{port: 80}]}, {loadBalancer: {ingress: [{hostname: 'lb.example.com'}]}})
    expect(serviceTrafficFlags(host).externallyAccessible).toBe(false)
    const proxyMode = svc(
      {type: 'LoadBalancer', ports: [{port: 80}]},
      {
        loadBalancer: {ingress: [{ip: '203.0.113.7', ipMode: 'Proxy'} as {ip: string}]},
      },
    )
    expect(serviceTrafficFlags(proxyMode).externallyAccessible).toBe(false)
    const vipMode = svc(
      {type: 'LoadBalancer', ports: [{port: 80}]},
      {
        loadBalancer: {ingress: [{ip: '203.0.113.7', ipMode: 'VIP'} as {ip: string}]},
      },
    )
    expect(serviceTrafficFlags(vipMode).externallyAccessible).toBe(true)
  })

  it('externalIPs make a ClusterIP service externally accessible (and eTP=Local counts)', () => {
    const s = svc({type: 'ClusterIP', externalIPs: ['198.51.100.1'], externalTrafficPolicy: 'Local', ports: [{port: 80}]})
    expect(serviceTrafficFlags(s)).toEqual({
      externallyAccessible: true,
      usesClusterEndpoints: true,
      usesLocalEndpoints: true,
      internalTrafficPolicyLocal: false,
      externalTrafficPolicyLocal: true,
    })
    expect(serviceTrafficFlags(s, {ipFamily: 'IPv6'}).externallyAccessible).toBe(false)
  })

  it('eTP=Local on a plain ClusterIP service is ignored', () => {
    const s = svc({type: 'ClusterIP', externalTrafficPolicy: 'Local', ports: [{port: 80}]})
    expect(serviceTrafficFlags(s)).toMatchObject({externalTrafficPolicyLocal: false, usesLocalEndpoints: false})
  })

  it('iTP=Local: local endpoints only, unless externally accessible', () => {
    const internal = svc({type: 'ClusterIP', internalTrafficPolicy: 'Local', ports: [{port: 80}]})
    expect(serviceTrafficFlags(internal)).toEqual({
      externallyAccessible: false,
      usesClusterEndpoints: false,
      usesLocalEndpoints: true,
      internalTrafficPolicyLocal: true,
      externalTrafficPolicyLocal: false,
    })
    const np = svc({type: 'NodePort', internalTrafficPolicy: 'Local', ports: [{port: 80, nodePort: 30080}]})
    expect(serviceTrafficFlags(np)).toMatchObject({usesClusterEndpoints: true, usesLocalEndpoints: true})
  })

  it('portName selects that port’s nodePort', () => {
    const s = svc({
      type: 'LoadBalancer',
      ports: [
        {name: 'a', port: 80},
        {name: 'b', port: 81, nodePort: 30081},
      ],
    })
    expect(serviceTrafficFlags(s).externallyAccessible).toBe(true)
    expect(serviceTrafficFlags(s, {portName: 'a'}).externallyAccessible).toBe(false)
    expect(serviceTrafficFlags(s, {portName: 'b'}).externallyAccessible).toBe(true)
  })

  it('does not mutate the service', () => {
    const s = svc({type: 'NodePort', ports: [{port: 80, nodePort: 30080}]}, {loadBalancer: {ingress: [{ip: '1.2.3.4'}]}})
    const before = structuredClone(s)
    serviceTrafficFlags(s)
    expect(s).toEqual(before)
  })
})

// ---- topologyModeFromHints ---------------------------------------------------------------------

function pe(ip: string, o: Partial<ProxyEndpoint> & {zones?: string[]; nodes?: string[]} = {}): ProxyEndpoint {
  const {zones, nodes, ...rest} = o
  return {
    ip,
    ready: true,
    serving: true,
    terminating: false,
    nodeName: null,
    zone: null,
    zoneHints: zones ? new Set(zones) : null,
    nodeHints: nodes ? new Set(nodes) : null,
    sliceName: 's',
    ...rest,
  }
}

describe('topologyModeFromHints', () => {
  it('ignores node hints when the gate is off', () => {
    const eps = [pe('1', {zones: ['a'], nodes: ['n1']}), pe('2', {zones: ['b'], nodes: ['n2']})]
    expect(topologyModeFromHints(eps, 'n1', 'a', false)).toBe('PreferSameZone')
    expect(topologyModeFromHints(eps, 'n1', 'a', true)).toBe('PreferSameNode')
  })

  it('looks only at ready endpoints', () => {
    const eps = [pe('1', {zones: ['a']}), pe('2', {ready: false})]
    expect(topologyModeFromHints(eps, 'n1', 'a', true)).toBe('PreferSameZone')
    expect(topologyModeFromHints([pe('1', {zones: ['a'], ready: false})], 'n1', 'a', true)).toBe('')
  })
})

// ---- fallbackReason ------------------------------------------------------------------------------

const CLUSTER = flagsOf({})
const nodeIn = (zone?: string, name = 'n1'): {name: string; labels: Record<string, string>} => ({
  name,
  labels: zone === undefined ? {} : {[ZONE]: zone},
})

describe('fallbackReason', () => {
  const cases: [string, ProxyEndpoint[], ServiceTrafficFlags, ReturnType<typeof nodeIn>, Parameters<typeof categorizeEndpoints>[3], ProxyTopologyMode, FallbackReason | null][] = [
    ['topology used (zone)', [pe('1', {zones: ['a']}), pe('2', {zones: ['b']})], CLUSTER, nodeIn('a'), {preferSameGate: true}, 'PreferSameZone', null],
    [
      'topology used (node)',
      [pe('1', {zones: ['a'], nodes: ['n1']}), pe('2', {zones: ['a'], nodes: ['n2']})],
      CLUSTER,
      nodeIn('a'),
      {preferSameGate: true},
      'PreferSameNode',
      null,
    ],
    ['no hints anywhere: not in use, null', [pe('1'), pe('2')], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', null],
    ['no hints and no ready endpoints: still null', [pe('1', {ready: false})], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', null],
    ['no-endpoints', [], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', 'no-endpoints'],
    ['no-ready-endpoints', [pe('1', {zones: ['a'], ready: false, serving: true, terminating: true})], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', 'no-ready-endpoints'],
    ['unhinted-ready-endpoint', [pe('1', {zones: ['a']}), pe('2')], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', 'unhinted-ready-endpoint'],
    [
      'unhinted-ready-endpoint (only unready endpoints hinted)',
      [pe('1'), pe('2', {zones: ['a'], ready: false})],
      CLUSTER,
      nodeIn('a'),
      {preferSameGate: true},
      '',
      'unhinted-ready-endpoint',
    ],
    ['no-hint-for-zone', [pe('1', {zones: ['a']}), pe('2', {zones: ['b']})], CLUSTER, nodeIn('c'), {preferSameGate: true}, '', 'no-hint-for-zone'],
    ['no-hint-for-node (only node hints in use)', [pe('1', {nodes: ['n2']}), pe('2', {nodes: ['n3']})], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', 'no-hint-for-node'],
    ['unhinted-ready-endpoint (only node hints in use)', [pe('1', {nodes: ['n1']}), pe('2')], CLUSTER, nodeIn('a'), {preferSameGate: true}, '', 'unhinted-ready-endpoint'],
    ['node hints with the gate off are not hints', [pe('1', {nodes: ['n1']}), pe('2', {nodes: ['n2']})], CLUSTER, nodeIn('a'), {preferSameGate: false}, '', null],
    ['node-has-no-zone (label missing)', [pe('1', {zones: ['a']})], CLUSTER, nodeIn(undefined), {preferSameGate: true}, '', 'node-has-no-zone'],
    ['node-has-no-zone (label empty)', [pe('1', {zones: ['a']})], CLUSTER, nodeIn(''), {preferSameGate: true}, '', 'node-has-no-zone'],
    [
      'annotation-required (1.28-1.30)',
      [pe('1', {zones: ['a']})],
      CLUSTER,
      nodeIn('a'),
      {preferSameGate: false, requireAnnotation: {annotations: undefined}},
      '',
      'annotation-required',
    ],
    [
      'local-traffic-policy-only',
      [pe('1', {zones: ['a'], nodeName: 'n1'})],
      flagsOf({internalPolicyLocal: true}),
      nodeIn('a'),
      {preferSameGate: true},
      '',
      'local-traffic-policy-only',
    ],
    ['iTP=Local without hints: null', [pe('1', {nodeName: 'n1'})], flagsOf({internalPolicyLocal: true}), nodeIn('a'), {preferSameGate: true}, '', null],
  ]
  it.each(cases)('%s', (_n, eps, flags, node, opts, mode, reason) => {
    const r = categorizeEndpoints(eps, flags, node, opts)
    expect(r.topologyMode).toBe(mode)
    expect(r.fallbackReason).toBe(reason)
  })

  it('covers every FallbackReason', () => {
    const all: FallbackReason[] = [
      'no-endpoints',
      'no-ready-endpoints',
      'unhinted-ready-endpoint',
      'no-hint-for-zone',
      'no-hint-for-node',
      'node-has-no-zone',
      'annotation-required',
      'local-traffic-policy-only',
    ]
    expect(new Set(cases.map((c) => c[6]).filter((r) => r !== null))).toEqual(new Set(all))
  })

  it('no-ready-endpoints falls back to serving-terminating endpoints cluster-wide, unfiltered', () => {
    const term = {ready: false, serving: true, terminating: true}
    const eps = [pe('1', {zones: ['a'], ...term}), pe('2', {zones: ['b'], ...term}), pe('3', {zones: ['b'], ready: false, serving: false})]
    const r = categorizeEndpoints(eps, CLUSTER, nodeIn('a'), {preferSameGate: true})
    expect(r.fallbackReason).toBe('no-ready-endpoints')
    expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(['1', '2'])
    expect(r.hasAnyEndpoints).toBe(true)
  })

  it('topologyDecisionFromHints reports the same decision', () => {
    expect(topologyDecisionFromHints([pe('1', {zones: ['a']}), pe('2')], 'n1', 'a', true)).toEqual({
      mode: '',
      fallbackReason: 'unhinted-ready-endpoint',
    })
  })
})

// ---- kube-proxy 1.28-1.30 (annotation required) --------------------------------------------------

describe('requireAnnotation (kube-proxy 1.28-1.30)', () => {
  const eps = [pe('1', {zones: ['a']}), pe('2', {zones: ['b']})]
  const run = (annotations: Record<string, string> | undefined, zone = 'a', e = eps) =>
    categorizeEndpoints(e, CLUSTER, nodeIn(zone), {preferSameGate: false, requireAnnotation: {annotations}})

  it.each([
    [{'service.kubernetes.io/topology-mode': 'Auto'}, 'PreferSameZone'],
    [{'service.kubernetes.io/topology-aware-hints': 'auto'}, 'PreferSameZone'],
    [{'service.kubernetes.io/topology-mode': 'aUto'}, 'PreferSameZone'], // any value but ""/disabled/Disabled
    [{'service.kubernetes.io/topology-mode': 'disabled'}, ''],
    [{'service.kubernetes.io/topology-mode': 'Disabled'}, ''],
    [{'service.kubernetes.io/topology-mode': ''}, ''],
    [{}, ''],
    // the deprecated key wins whenever it is present, even when it disables or is empty
    [{'service.kubernetes.io/topology-aware-hints': 'disabled', 'service.kubernetes.io/topology-mode': 'Auto'}, ''],
    [{'service.kubernetes.io/topology-aware-hints': '', 'service.kubernetes.io/topology-mode': 'Auto'}, ''],
    [{'service.kubernetes.io/topology-aware-hints': 'Auto', 'service.kubernetes.io/topology-mode': 'disabled'}, 'PreferSameZone'],
  ] as [Record<string, string>, ProxyTopologyMode][])('%o -> %s', (annotations, mode) => {
    const r = run(annotations)
    expect(r.topologyMode).toBe(mode)
    expect(r.fallbackReason).toBe(mode === '' ? 'annotation-required' : null)
    expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(mode === '' ? ['1', '2'] : ['1'])
  })

  it('legacyHintsAnnotation picks the deprecated key when present', () => {
    expect(legacyHintsAnnotation(undefined)).toBe('')
    expect(legacyHintsAnnotation({'service.kubernetes.io/topology-mode': 'Auto'})).toBe('Auto')
    expect(legacyHintsAnnotation({'service.kubernetes.io/topology-aware-hints': '', 'service.kubernetes.io/topology-mode': 'Auto'})).toBe('')
  })

  it('a node without a zone label never uses topology, even with "" hints (unlike 1.31+)', () => {
    const blank = [pe('1', {zones: ['']}), pe('2', {zones: ['b']})]
    const r = categorizeEndpoints(blank, CLUSTER, nodeIn(undefined), {
      preferSameGate: false,
      requireAnnotation: {annotations: {'service.kubernetes.io/topology-mode': 'Auto'}},
    })
    expect(r.topologyMode).toBe('')
    expect(r.fallbackReason).toBe('node-has-no-zone')
    const modern = categorizeEndpoints(blank, CLUSTER, nodeIn(undefined), {preferSameGate: true})
    expect(modern.topologyMode).toBe('PreferSameZone')
  })

  it('ignores node hints and reports the zone checks', () => {
    const withNodes = [pe('1', {zones: ['a'], nodes: ['n1']}), pe('2', {nodes: ['n2']})]
    const r = run({'service.kubernetes.io/topology-mode': 'Auto'}, 'a', withNodes)
    expect(r.topologyMode).toBe('')
    expect(r.fallbackReason).toBe('unhinted-ready-endpoint')
    expect(run({'service.kubernetes.io/topology-mode': 'Auto'}, 'c').fallbackReason).toBe('no-hint-for-zone')
  })
})

// ---- sharp edges of pkg/proxy/topology.go topologyModeFromHints and CategorizeEndpoints -----------

describe('sharp edges', () => {
  const hinted = (ip: string, zone: string, nodeName: string): Endpoint => ({
    addresses: [ip],
    conditions: {ready: true, serving: true, terminating: false},
    nodeName,
    zone,
    hints: {forZones: [{name: zone}]},
  })
  const nodes = [nodeIn('a', 'node-a'), nodeIn('b', 'node-b'), nodeIn('c', 'node-c')]

  it('one unhinted ready endpoint in a second slice turns topology off on every node', () => {
    const s1 = slice('svc-1', [hinted('10.0.0.1', 'a', 'node-a'), hinted('10.0.0.2', 'b', 'node-b'), hinted('10.0.0.3', 'c', 'node-c')])
    const s2 = slice('svc-2', [{addresses: ['10.0.1.1'], conditions: {ready: true}, nodeName: 'node-a', zone: 'a'}])
    const eps = proxyEndpointsFromSlices([s1, s2], {preferSameGate: true})
    for (const n of nodes) {
      const r = categorizeEndpoints(eps, CLUSTER, n, {preferSameGate: true})
      expect(r.topologyMode).toBe('')
      expect(r.fallbackReason).toBe('unhinted-ready-endpoint')
      expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.1.1'])
    }
    // Without the second slice, each node keeps to its own zone.
    const only1 = proxyEndpointsFromSlices([s1], {preferSameGate: true})
    expect(nodes.map((n) => categorizeEndpoints(only1, CLUSTER, n, {preferSameGate: true}).clusterEndpoints.map((e) => e.ip))).toEqual([['10.0.0.1'], ['10.0.0.2'], ['10.0.0.3']])
  })

  it('an unhinted endpoint that is not ready does not turn topology off', () => {
    const s1 = slice('svc-1', [hinted('10.0.0.1', 'a', 'node-a'), hinted('10.0.0.2', 'b', 'node-b')])
    const s2 = slice('svc-2', [{addresses: ['10.0.1.1'], conditions: {ready: false}}])
    const eps = proxyEndpointsFromSlices([s1, s2], {preferSameGate: true})
    const r = categorizeEndpoints(eps, CLUSTER, nodes[0]!, {preferSameGate: true})
    expect(r.topologyMode).toBe('PreferSameZone')
    expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.0.1'])
  })

  it('an endpoint with unset Ready and no hints counts as ready, so it turns topology off', () => {
    const s1 = slice('svc-1', [hinted('10.0.0.1', 'a', 'node-a'), {addresses: ['10.0.0.9']}])
    const r = categorizeEndpoints(proxyEndpointsFromSlices([s1], {preferSameGate: true}), CLUSTER, nodes[0]!, {preferSameGate: true})
    expect(r.fallbackReason).toBe('unhinted-ready-endpoint')
  })

  it('a node without a zone label matches endpoints hinted with zone ""', () => {
    const s = slice('svc-1', [
      {addresses: ['10.0.0.1'], hints: {forZones: [{name: ''}]}},
      {addresses: ['10.0.0.2'], hints: {forZones: [{name: 'a'}]}},
    ])
    const eps = proxyEndpointsFromSlices([s], {preferSameGate: true})
    const unlabeled = categorizeEndpoints(eps, CLUSTER, nodeIn(undefined, 'bare'), {preferSameGate: true})
    expect(unlabeled.topologyMode).toBe('PreferSameZone')
    expect(unlabeled.fallbackReason).toBeNull()
    expect(unlabeled.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.0.1'])
    const labeledEmpty = categorizeEndpoints(eps, CLUSTER, nodeIn('', 'bare'), {preferSameGate: true})
    expect(labeledEmpty.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.0.1'])
    const zoneA = categorizeEndpoints(eps, CLUSTER, nodeIn('a', 'na'), {preferSameGate: true})
    expect(zoneA.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.0.2'])
  })

  it('topology never filters the local set (eTP=Local), but filters the cluster set', () => {
    const s = slice('svc-1', [hinted('10.0.0.1', 'b', 'node-a'), hinted('10.0.0.2', 'a', 'node-x')])
    const eps = proxyEndpointsFromSlices([s], {preferSameGate: true})
    const flags = flagsOf({externalPolicyLocal: true, nodePort: 30080})
    const r = categorizeEndpoints(eps, flags, nodes[0]!, {preferSameGate: true})
    expect(r.topologyMode).toBe('PreferSameZone')
    expect(r.clusterEndpoints.map((e) => e.ip)).toEqual(['10.0.0.2'])
    expect(r.localEndpoints.map((e) => e.ip)).toEqual(['10.0.0.1'])
    expect(r.allReachableEndpoints.map((e) => e.ip)).toEqual(['10.0.0.1', '10.0.0.2'])
  })
})

// ---- categorizeZones: the zone-wide view of many zones in one pass ---------------------------

describe('categorizeZones', () => {
  // Small name pools, "" included, so that hints match, miss and collide; a pool of shared hint
  // Sets (as proxyEndpointsFromSlices builds them) next to Sets of their own.
  const names = ['', 'a', 'b', 'c']
  const setArb = fc.oneof(
    {arbitrary: fc.constant(null), weight: 1},
    {arbitrary: fc.constantFrom(...names.map((n) => new Set([n]))), weight: 6},
    {arbitrary: fc.uniqueArray(fc.constantFrom(...names), {maxLength: 3}).map((xs) => new Set(xs)), weight: 2},
  )
  const endpointArb = fc.record({
    ready: fc.boolean(),
    serving: fc.boolean(),
    terminating: fc.boolean(),
    nodeName: fc.constantFrom(null, '', 'n1'),
    zone: fc.constantFrom(null, ...names),
    zoneHints: setArb,
    nodeHints: setArb,
  })
  const caseArb = fc.record({
    endpoints: fc.array(endpointArb, {maxLength: 8}).map((eps) => eps.map((e, i): ProxyEndpoint => ({...e, ip: `10.0.0.${i}`, sliceName: 's'}))),
    flags: fc.record({internalPolicyLocal: fc.boolean(), externalPolicyLocal: fc.boolean(), nodePort: fc.constantFrom(0, 30080)}).map(flagsOf),
    zones: fc.uniqueArray(fc.constantFrom(...names, 'd'), {maxLength: 5}),
    preferSameGate: fc.boolean(),
    // kube-proxy 1.28-1.30 (with the Service's annotations) or newer.
    requireAnnotation: fc.option(
      fc.constantFrom(undefined, {[ANNOTATION_TOPOLOGY_MODE]: 'Auto'}, {[ANNOTATION_TOPOLOGY_MODE]: 'disabled'}).map((annotations) => ({annotations})),
      {nil: undefined},
    ),
  })

  it('gives each zone what categorizeEndpoints gives a node named "" in that zone', () => {
    const seen = {fallback: 0, PreferSameZone: 0, PreferSameNode: 0}
    fc.assert(
      fc.property(caseArb, (c) => {
        const opts = {preferSameGate: c.preferSameGate, requireAnnotation: c.requireAnnotation}
        const got = categorizeZones(c.endpoints, c.flags, c.zones, opts)
        expect([...got.keys()]).toEqual(c.zones)
        for (const zone of c.zones) {
          const want = categorizeEndpoints(c.endpoints, c.flags, {name: '', labels: {[ZONE]: zone}}, opts)
          const view = got.get(zone)!
          expect({mode: view.topologyMode, reason: view.fallbackReason, cluster: Array.from(view.cluster)}).toEqual({
            mode: want.topologyMode,
            reason: want.fallbackReason,
            cluster: want.clusterEndpoints.map((e) => c.endpoints.indexOf(e)),
          })
          if (want.fallbackReason !== null) seen.fallback++
          if (want.topologyMode !== '') seen[want.topologyMode]++
        }
      }),
      {numRuns: 3000},
    )
    // The generator reaches each outcome often.
    expect(seen.fallback).toBeGreaterThan(1000)
    expect(seen.PreferSameZone).toBeGreaterThan(300)
    expect(seen.PreferSameNode).toBeGreaterThan(30)
  })

  it('the same with more distinct hint Sets than it compares one by one (each endpoint a Set of its own)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...names), fc.boolean()), {minLength: 9, maxLength: 30}), (specs) => {
        const endpoints = specs.map(
          ([zone, ready], i): ProxyEndpoint => ({
            ip: `10.0.0.${i}`,
            ready,
            serving: ready,
            terminating: false,
            nodeName: null,
            zone,
            zoneHints: new Set([zone]),
            nodeHints: null,
            sliceName: 's',
          }),
        )
        const flags = flagsOf({internalPolicyLocal: false, externalPolicyLocal: false, nodePort: 0})
        const opts = {preferSameGate: true}
        const got = categorizeZones(endpoints, flags, [...names, 'd'], opts)
        for (const zone of [...names, 'd']) {
          const want = categorizeEndpoints(endpoints, flags, {name: '', labels: {[ZONE]: zone}}, opts)
          expect(Array.from(got.get(zone)!.cluster)).toEqual(want.clusterEndpoints.map((e) => endpoints.indexOf(e)))
          expect(got.get(zone)!.topologyMode).toBe(want.topologyMode)
        }
      }),
      {numRuns: 300},
    )
  })
})
