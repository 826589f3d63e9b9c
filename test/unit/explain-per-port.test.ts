// kube-proxy's view per IP family and per Service port, on the three cases the kube-proxy
// differential (test/e2e/kube-proxy-differential.test.ts) found explain getting wrong:
//  - an IPv6 slice of an IPv4-only Service: kube-proxy has no IPv6 ClusterIP for it and
//    programs nothing (pkg/proxy/servicechangetracker.go serviceToServiceMap);
//  - a slice whose only port has another name: port http does not route to its endpoints
//    (pkg/proxy/endpointslicecache.go endpointInfoByServicePort keys by port name/protocol);
//  - a two-port Service whose second port only the hinted slice carries: topology is decided
//    per port (pkg/proxy/topology.go topologyModeFromHints over that port's endpoints).
import {describe, expect, it} from 'vitest'
import {explain} from '../../src/explain/report.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {EndpointSlice, Node, Service} from '../../src/upstream/api/types.js'

const nodes: Node[] = [
  {metadata: {name: 'kp-a-1', labels: {'topology.kubernetes.io/zone': 'zone-a'}}, status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]}},
  {metadata: {name: 'kp-b-1', labels: {'topology.kubernetes.io/zone': 'zone-b'}}, status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]}},
  {metadata: {name: 'kp-c-1', labels: {'topology.kubernetes.io/zone': 'zone-c'}}, status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]}},
]

const labels = {'kubernetes.io/service-name': 'known'}

function run(service: Service, endpointSlices: EndpointSlice[]) {
  const st: ClusterState = {nodes, services: [service], endpointSlices}
  return explain(st, st.services, {perNode: true}).services
}

const row = (svc: ReturnType<typeof run>[number], name: string) => svc.nodes!.find((n) => n.name === name)!

describe('explain --per-node: kube-proxy per IP family and per Service port', () => {
  it('an IPv6 slice of an IPv4-only Service is not proxied (no IPv6 ClusterIP)', () => {
    const service: Service = {
      metadata: {name: 'known', namespace: 'ns'},
      spec: {ports: [{name: 'http', port: 8080, protocol: 'TCP'}], clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv4']},
    }
    const slices: EndpointSlice[] = [
      {
        metadata: {name: 'known-v4', namespace: 'ns', labels},
        addressType: 'IPv4',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: [{addresses: ['10.250.0.1'], conditions: {ready: true}, nodeName: 'kp-a-1', zone: 'zone-a'}],
      },
      {
        metadata: {name: 'known-v6', namespace: 'ns', labels},
        addressType: 'IPv6',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: [{addresses: ['fd00:250::1'], conditions: {ready: true}, nodeName: 'kp-a-1', zone: 'zone-a'}],
      },
    ]
    const [v4, v6] = run(service, slices)
    expect(v4!.addressType).toBe('IPv4')
    expect(v4!.applicability.proxied).toBe(true)
    expect(row(v4!, 'kp-b-1').endpoints).toEqual(['10.250.0.1'])
    expect(v6!.addressType).toBe('IPv6')
    expect(v6!.applicability.proxied).toBe(false)
    expect(v6!.applicability.statement).toMatch(/no IPv6 ClusterIP \(spec\.ipFamilies IPv4\): kube-proxy programs nothing/)
    for (const n of v6!.nodes!) {
      expect(n).toMatchObject({mode: '', fallback: false, reason: 'not-proxied', endpoints: []})
      expect(n.ports).toEqual([{name: 'http', protocol: 'TCP', mode: '', fallback: false, reason: 'not-proxied', endpoints: []}])
    }
    for (const z of v6!.zones) expect(z.kubeProxy.reason).toBe('not-proxied')
    expect(v6!.traffic.inZoneShareLive).toBeNull()
  })

  it('a Service stating no ClusterIP at all (a hand-written snapshot) stays proxied in both families', () => {
    const service: Service = {metadata: {name: 'known', namespace: 'ns'}, spec: {ports: [{name: 'http', port: 8080}]}}
    const slices: EndpointSlice[] = [
      {
        metadata: {name: 'known-v6', namespace: 'ns', labels},
        addressType: 'IPv6',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: [{addresses: ['fd00:250::1'], conditions: {ready: true}, nodeName: 'kp-a-1', zone: 'zone-a'}],
      },
    ]
    const [v6] = run(service, slices)
    expect(v6!.applicability.proxied).toBe(true)
    expect(row(v6!, 'kp-a-1').endpoints).toEqual(['fd00:250::1'])
  })

  it('port http does not route to a slice that carries only another port', () => {
    const service: Service = {
      metadata: {name: 'known', namespace: 'ns'},
      spec: {ports: [{name: 'http', port: 8080, protocol: 'TCP'}], clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'], ipFamilies: ['IPv4']},
    }
    const slices: EndpointSlice[] = [
      {
        metadata: {name: 'known-a', namespace: 'ns', labels},
        addressType: 'IPv4',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: [{addresses: ['10.251.0.1'], conditions: {ready: true}, nodeName: 'kp-a-1', zone: 'zone-a'}],
      },
      {
        metadata: {name: 'known-b', namespace: 'ns', labels},
        addressType: 'IPv4',
        ports: [{name: 'other', port: 7070, protocol: 'TCP'}],
        endpoints: [{addresses: ['10.251.0.2'], conditions: {ready: true}, nodeName: 'kp-b-1', zone: 'zone-b'}],
      },
    ]
    const [s] = run(service, slices)
    for (const n of s!.nodes!) {
      expect(n.endpoints).toEqual(['10.251.0.1'])
      expect(n.ports).toEqual([{name: 'http', protocol: 'TCP', mode: '', fallback: false, reason: null, endpoints: ['10.251.0.1']}])
    }
    for (const z of s!.zones) expect(z.kubeProxy.routedEndpoints).toBe(1)
  })

  it('a port only the hinted slice carries uses the hints; the other port falls back', () => {
    const service: Service = {
      metadata: {name: 'known', namespace: 'ns'},
      spec: {
        ports: [
          {name: 'http', port: 8080, protocol: 'TCP'},
          {name: 'metrics', port: 9090, protocol: 'TCP'},
        ],
        clusterIP: '10.96.0.12',
        clusterIPs: ['10.96.0.12'],
        ipFamilies: ['IPv4'],
      },
    }
    const slices: EndpointSlice[] = [
      {
        metadata: {name: 'known-a', namespace: 'ns', labels},
        addressType: 'IPv4',
        ports: [
          {name: 'http', port: 8080, protocol: 'TCP'},
          {name: 'metrics', port: 9090, protocol: 'TCP'},
        ],
        endpoints: [
          {addresses: ['10.252.0.1'], conditions: {ready: true}, nodeName: 'kp-a-1', zone: 'zone-a', hints: {forZones: [{name: 'zone-a'}]}},
          {addresses: ['10.252.0.2'], conditions: {ready: true}, nodeName: 'kp-b-1', zone: 'zone-b', hints: {forZones: [{name: 'zone-b'}]}},
        ],
      },
      {
        metadata: {name: 'known-b', namespace: 'ns', labels},
        addressType: 'IPv4',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: [{addresses: ['10.252.0.3'], conditions: {ready: true}, nodeName: 'kp-c-1', zone: 'zone-c'}],
      },
    ]
    const [s] = run(service, slices)
    const all = ['10.252.0.1', '10.252.0.2', '10.252.0.3']
    const a = row(s!, 'kp-a-1')
    expect(a.ports).toEqual([
      {name: 'http', protocol: 'TCP', mode: '', fallback: true, reason: 'unhinted-ready-endpoint', endpoints: all},
      {name: 'metrics', protocol: 'TCP', mode: 'PreferSameZone', fallback: false, reason: null, endpoints: ['10.252.0.1']},
    ])
    expect(row(s!, 'kp-b-1').ports[1]).toMatchObject({mode: 'PreferSameZone', endpoints: ['10.252.0.2']})
    // zone-c has no hint of its own: port metrics falls back to both of its endpoints
    expect(row(s!, 'kp-c-1').ports[1]).toMatchObject({mode: '', fallback: true, reason: 'no-hint-for-zone', endpoints: ['10.252.0.1', '10.252.0.2']})
    // The node-level fields (and the zone verdicts) are the first port's.
    expect(a).toMatchObject({mode: '', fallback: true, reason: 'unhinted-ready-endpoint', endpoints: all})
    expect(s!.zones.find((z) => z.name === 'zone-a')!.kubeProxy).toMatchObject({reason: 'unhinted-ready-endpoint', routedEndpoints: 3})
  })

  it('every slice carrying every port: each port repeats the node-level view', () => {
    const service: Service = {
      metadata: {name: 'known', namespace: 'ns'},
      spec: {
        ports: [
          {name: 'http', port: 8080, protocol: 'TCP'},
          {name: 'metrics', port: 9090, protocol: 'TCP'},
        ],
      },
    }
    const slices: EndpointSlice[] = [
      {
        metadata: {name: 'known-a', namespace: 'ns', labels},
        addressType: 'IPv4',
        ports: [
          {name: 'metrics', port: 9090, protocol: 'TCP'},
          {name: 'http', port: 8080, protocol: 'TCP'},
        ],
        endpoints: [
          {addresses: ['10.253.0.1'], conditions: {ready: true}, nodeName: 'kp-a-1', zone: 'zone-a', hints: {forZones: [{name: 'zone-a'}]}},
          {addresses: ['10.253.0.2'], conditions: {ready: true}, nodeName: 'kp-b-1', zone: 'zone-b', hints: {forZones: [{name: 'zone-b'}]}},
        ],
      },
    ]
    const [s] = run(service, slices)
    for (const n of s!.nodes!) {
      expect(n.ports.map((p) => p.name)).toEqual(['http', 'metrics'])
      for (const p of n.ports)
        expect({mode: p.mode, fallback: p.fallback, reason: p.reason, endpoints: p.endpoints}).toEqual({
          mode: n.mode,
          fallback: n.fallback,
          reason: n.reason,
          endpoints: n.endpoints,
        })
    }
    expect(row(s!, 'kp-a-1').endpoints).toEqual(['10.253.0.1'])
  })
})
