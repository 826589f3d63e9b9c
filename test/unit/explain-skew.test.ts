// kube-proxy version skew per node (issue 22): each node's version from its kube-proxy Pod
// (src/dataplane/proxy-nodes.ts), each node's own minor's rules in explain's --per-node rows,
// zone verdicts and in-zone estimate (src/explain/proxy-skew.ts), the notice naming the nodes,
// the JSON and table, and the snapshot round trip. Literals only.
import Ajv2020 from 'ajv/dist/2020.js'
import {readFileSync} from 'node:fs'
import {stringify as toYaml} from 'yaml'
import {describe, expect, it} from 'vitest'
import {withProxyNodes} from '../../src/cluster/dataplane.js'
import {parseSnapshot, serializeSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {detectDataPlane} from '../../src/dataplane/detect.js'
import {describeDataPlane} from '../../src/dataplane/describe.js'
import {proxyNodeVersions, proxyRulesFor, type KubeProxyPod} from '../../src/dataplane/proxy-nodes.js'
import type {DaemonSet, DataPlane} from '../../src/dataplane/types.js'
import {explain} from '../../src/explain/report.js'
import {renderExplain} from '../../src/render/explain.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {EndpointSlice, Node, Service} from '../../src/upstream/api/types.js'

const ds = (image: string): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {name: 'kube-proxy', namespace: 'kube-system'},
  spec: {template: {spec: {containers: [{name: 'kube-proxy', image, command: ['/usr/local/bin/kube-proxy', '--proxy-mode=iptables']}]}}},
})
const pod = (name: string, node: string, image: string, extra: Partial<KubeProxyPod['metadata']> = {}, namespace = 'kube-system'): KubeProxyPod => ({
  metadata: {name, namespace, labels: {'k8s-app': 'kube-proxy'}, ...extra},
  spec: {nodeName: node, containers: [{name: 'kube-proxy', image}]},
  status: {phase: 'Running'},
})
const mirror = (node: string, image: string): KubeProxyPod => ({
  metadata: {name: `kube-proxy-${node}`, namespace: 'kube-system', labels: {component: 'kube-proxy', tier: 'node'}, annotations: {'kubernetes.io/config.mirror': 'abc'}},
  spec: {nodeName: node, containers: [{name: 'kube-proxy', image}]},
})

describe('proxyNodeVersions: each node from its kube-proxy Pod', () => {
  it('DaemonSet Pods, static mirror Pods, a rollout, other namespaces, the DaemonSet for nodes without a Pod', () => {
    const pods = [
      pod('kube-proxy-aaaaa', 'a-0', 'registry.k8s.io/kube-proxy:v1.37.2'),
      // A rollout: the old Pod is being deleted, the new one counts.
      pod('kube-proxy-old', 'a-1', 'registry.k8s.io/kube-proxy:v1.36.3', {deletionTimestamp: '2026-11-28T08:00:00Z', creationTimestamp: '2026-11-01T00:00:00Z'}),
      pod('kube-proxy-new', 'a-1', 'registry.k8s.io/kube-proxy:v1.37.2', {creationTimestamp: '2026-11-28T07:59:00Z'}),
      mirror('b-0', 'gke.gcr.io/kube-proxy-amd64:v1.30.5-gke.1014001'),
      pod('kube-proxy-x', 'c-0', 'registry.k8s.io/kube-proxy:v1.20.0', {}, 'default'),
      {...pod('kube-proxy-done', 'c-0', 'registry.k8s.io/kube-proxy:v1.20.0'), status: {phase: 'Failed'}},
      pod('kube-proxy-latest', 'd-0', 'registry.k8s.io/kube-proxy:latest'),
    ]
    expect(proxyNodeVersions(pods, [ds('registry.k8s.io/kube-proxy:v1.37.2')], ['c-0'])).toEqual([
      {node: 'a-0', version: '1.37.2', image: 'registry.k8s.io/kube-proxy:v1.37.2', from: 'pod', object: 'Pod kube-system/kube-proxy-aaaaa'},
      {node: 'a-1', version: '1.37.2', image: 'registry.k8s.io/kube-proxy:v1.37.2', from: 'pod', object: 'Pod kube-system/kube-proxy-new'},
      {node: 'b-0', version: '1.30.5', image: 'gke.gcr.io/kube-proxy-amd64:v1.30.5-gke.1014001', from: 'static-pod', object: 'Pod kube-system/kube-proxy-b-0'},
      {node: 'c-0', version: '1.37.2', image: 'registry.k8s.io/kube-proxy:v1.37.2', from: 'daemonset', object: 'DaemonSet kube-system/kube-proxy'},
      {node: 'd-0', version: null, image: 'registry.k8s.io/kube-proxy:latest', from: 'pod', object: 'Pod kube-system/kube-proxy-latest'},
    ])
  })
})

describe('proxyRulesFor: the boundaries of pkg/proxy/topology.go per release', () => {
  it.each([
    ['1.29.9', {}, {minor: '1.29', preferSameGate: false, requireAnnotation: true}],
    ['1.30.14', {}, {minor: '1.30', preferSameGate: false, requireAnnotation: true}],
    ['1.30.14', {'featureGates.ServiceTrafficDistribution': 'true'}, {minor: '1.30', preferSameGate: false, requireAnnotation: false}],
    ['1.31.0', {}, {minor: '1.31', preferSameGate: false, requireAnnotation: false}],
    ['1.33.13', {}, {minor: '1.33', preferSameGate: false, requireAnnotation: false}],
    ['1.33.13', {'featureGates.PreferSameTrafficDistribution': 'true'}, {minor: '1.33', preferSameGate: true, requireAnnotation: false}],
    ['1.34.1', {}, {minor: '1.34', preferSameGate: true, requireAnnotation: false}],
    ['1.34.1', {'featureGates.PreferSameTrafficDistribution': 'false'}, {minor: '1.34', preferSameGate: false, requireAnnotation: false}],
    ['1.35.0', {'featureGates.PreferSameTrafficDistribution': 'false'}, {minor: '1.35', preferSameGate: true, requireAnnotation: false}],
  ] as const)('%s %j', (v, settings, want) => {
    expect(proxyRulesFor(v, settings)).toEqual(want)
  })
  it('no version: null (the cluster-wide rules apply)', () => {
    expect(proxyRulesFor(null, {})).toBeNull()
  })
})

// Two zones, two nodes each; one endpoint per node, hinted for its zone and node (PreferSameNode).
const nodeOf = (name: string, zone: string): Node => ({
  metadata: {name, labels: {'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})
const NODES = [nodeOf('a-0', 'zone-a'), nodeOf('a-1', 'zone-a'), nodeOf('b-0', 'zone-b'), nodeOf('b-1', 'zone-b')]
const SVC: Service = {
  metadata: {name: 'web', namespace: 'shop'},
  spec: {selector: {app: 'web'}, ports: [{name: 'http', port: 80}], trafficDistribution: 'PreferSameNode', clusterIP: '10.96.0.10'},
}
const SLICE: EndpointSlice = {
  metadata: {name: 'web-abc', namespace: 'shop', labels: {'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'}},
  addressType: 'IPv4',
  ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
  endpoints: NODES.map((n, i) => ({
    addresses: [`10.0.0.${i + 1}`],
    conditions: {ready: true, serving: true, terminating: false},
    nodeName: n.metadata.name,
    zone: n.metadata.labels!['topology.kubernetes.io/zone']!,
    hints: {forZones: [{name: n.metadata.labels!['topology.kubernetes.io/zone']!}], forNodes: [{name: n.metadata.name}]},
  })),
}
const STATE: ClusterState = {nodes: NODES, services: [SVC], endpointSlices: [SLICE]}
const DS = ds('registry.k8s.io/kube-proxy:v1.37.2')
const plain = detectDataPlane({daemonSets: [DS], configMaps: []})
// a-0: a 1.37 Pod; a-1: 1.33 (node hints off); b-0: a 1.30 static Pod (annotation required); b-1: no Pod (the DaemonSet's 1.37).
const PODS = [
  pod('kube-proxy-1', 'a-0', 'registry.k8s.io/kube-proxy:v1.37.2'),
  pod('kube-proxy-2', 'a-1', 'registry.k8s.io/kube-proxy:v1.33.13'),
  mirror('b-0', 'registry.k8s.io/kube-proxy:v1.30.14'),
]
const skewed: DataPlane = withProxyNodes(plain, {kubeProxyPods: PODS, daemonSets: [DS]})

describe('explain with kube-proxy versions per node', () => {
  it('each node follows its own minor: 1.37 node-local, 1.33 zone (no node hints), 1.30 everything (no annotation)', () => {
    const s = explain(STATE, [SVC], {kubeVersion: '1.37', dataPlane: skewed, perNode: true}).services[0]!
    expect(s.nodes!.map((n) => [n.name, n.kubeProxyVersion, n.mode, n.reason, n.endpoints])).toEqual([
      ['a-0', '1.37.2', 'PreferSameNode', null, ['10.0.0.1']],
      ['a-1', '1.33.13', 'PreferSameZone', null, ['10.0.0.1', '10.0.0.2']],
      ['b-0', '1.30.14', '', 'annotation-required', ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4']],
      ['b-1', '1.37.2', 'PreferSameNode', null, ['10.0.0.4']],
    ])
    // Zone rows: node-local only on the nodes whose own kube-proxy reads node hints.
    expect(s.zones.map((z) => [z.name, z.kubeProxy.mode, z.kubeProxy.nodesPreferSameNode])).toEqual([
      ['zone-a', 'PreferSameZone', 1],
      ['zone-b', 'PreferSameZone', 1],
    ])
    // zone-b's traffic: half from b-0, spread over all four endpoints (two in zone-b).
    expect(s.traffic.inZoneShareLive).toBeCloseTo((1 + (0.5 + 0.5 * 0.5)) / 2, 10)
    expect(s.kubeProxySkew).toEqual([
      {
        proxyVersion: '1.33',
        zone: 'zone-a',
        nodes: ['a-1'],
        effect: 'ignores-node-hints',
        message: '1 node in zone-a (a-1) runs kube-proxy 1.33, which ignores node hints: PreferSameNode acts as PreferSameZone there',
      },
      {
        proxyVersion: '1.30',
        zone: 'zone-b',
        nodes: ['b-0'],
        effect: 'ignores-hints-without-annotation',
        message: '1 node in zone-b (b-0) runs kube-proxy 1.30, which reads hints only for Services annotated service.kubernetes.io/topology-mode: it routes to every endpoint',
      },
    ])
  })

  it('without the Pods (or all on one version) the report is what it was: no skew, no version fields', () => {
    const base = explain(STATE, [SVC], {kubeVersion: '1.37', dataPlane: plain, perNode: true}).services[0]!
    expect(base.nodes!.every((n) => n.mode === 'PreferSameNode' && !('kubeProxyVersion' in n))).toBe(true)
    expect('kubeProxySkew' in base).toBe(false)
    expect(base.traffic.inZoneShareLive).toBe(1)
    const same = withProxyNodes(plain, {kubeProxyPods: [pod('kube-proxy-1', 'a-0', 'registry.k8s.io/kube-proxy:v1.37.0')], daemonSets: [DS]})
    const s = explain(STATE, [SVC], {kubeVersion: '1.37', dataPlane: same, perNode: true}).services[0]!
    expect(s.kubeProxySkew).toEqual([])
    expect(s.nodes!.map((n) => n.kubeProxyVersion)).toEqual(['1.37.0', '1.37.2', '1.37.2', '1.37.2'])
    expect({...s, nodes: s.nodes!.map(({kubeProxyVersion: _v, ...n}) => n), kubeProxySkew: undefined}).toEqual({...base, kubeProxySkew: undefined})
  })

  it('every node on one older minor than the DaemonSet template says (a rollout not started): their rules apply, no notice', () => {
    const old = withProxyNodes(plain, {kubeProxyPods: NODES.map((n, i) => pod(`kube-proxy-${i}`, n.metadata.name, 'registry.k8s.io/kube-proxy:v1.33.13')), daemonSets: [DS]})
    const s = explain(STATE, [SVC], {kubeVersion: '1.37', dataPlane: old, perNode: true}).services[0]!
    expect(s.nodes!.map((n) => [n.kubeProxyVersion, n.mode, n.endpoints.length])).toEqual(Array(4).fill(['1.33.13', 'PreferSameZone', 2]))
    expect(s.zones.map((z) => z.kubeProxy.nodesPreferSameNode)).toEqual([0, 0])
    expect(s.kubeProxySkew).toEqual([])
    expect(describeDataPlane(old)).toBe('kube-proxy v1.37.2 (iptables); kube-proxy Pods: 1.33 on 4 nodes')
  })

  it('a node without a zone label on 1.30: named only when an endpoint is hinted for zone "" (which 1.31+ would use)', () => {
    const annotated: Service = {
      ...SVC,
      spec: {...SVC.spec, trafficDistribution: 'PreferSameZone'},
      metadata: {...SVC.metadata, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}},
    }
    const zoneless: Node = {metadata: {name: 'c-0', labels: {}}, status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'False'}]}}
    const plane = withProxyNodes(plain, {kubeProxyPods: [mirror('c-0', 'registry.k8s.io/kube-proxy:v1.30.14')], daemonSets: [DS]})
    const zoneHintsOnly: EndpointSlice = {...SLICE, endpoints: SLICE.endpoints!.map((e) => ({...e, hints: {forZones: e.hints!.forZones!}}))}
    const run = (slice: EndpointSlice) =>
      explain({nodes: [...NODES, zoneless], services: [annotated], endpointSlices: [slice]}, [annotated], {kubeVersion: '1.37', dataPlane: plane, perNode: true}).services[0]!
    expect(run(zoneHintsOnly).kubeProxySkew).toEqual([])
    const emptyZone: EndpointSlice = {...zoneHintsOnly, endpoints: zoneHintsOnly.endpoints!.map((e) => ({...e, hints: {forZones: [...e.hints!.forZones!, {name: ''}]}}))}
    const s = run(emptyZone)
    expect(s.kubeProxySkew!.map((k) => [k.zone, k.nodes, k.effect])).toEqual([[null, ['c-0'], 'ignores-hints-without-zone']])
    expect(s.nodes!.find((n) => n.name === 'c-0')).toMatchObject({kubeProxyVersion: '1.30.14', mode: '', reason: 'node-has-no-zone'})
  })

  it('one address in two slices: before 1.36 the copy on the node itself wins (a ghost Pod terminating there hides the running one)', () => {
    const svc: Service = {...SVC, spec: {...SVC.spec, trafficDistribution: undefined as never}}
    delete svc.spec!.trafficDistribution
    const ep = (ip: string, node: string, ready: boolean) => ({addresses: [ip], conditions: {ready, serving: ready, terminating: !ready}, nodeName: node, zone: 'zone-a'})
    const a: EndpointSlice = {...SLICE, metadata: {...SLICE.metadata, name: 'web-a'}, endpoints: [ep('10.0.0.1', 'a-0', true), ep('10.0.0.2', 'b-1', true)]}
    const b: EndpointSlice = {...SLICE, metadata: {...SLICE.metadata, name: 'web-b'}, endpoints: [ep('10.0.0.1', 'a-1', false)]}
    const s = explain({...STATE, services: [svc], endpointSlices: [a, b]}, [svc], {kubeVersion: '1.37', dataPlane: skewed, perNode: true}).services[0]!
    expect(s.nodes!.map((n) => [n.name, n.endpoints])).toEqual([
      ['a-0', ['10.0.0.1', '10.0.0.2']],
      // 1.33 on a-1: the terminating copy is local, it replaces the running one (v1.33.13 `!exists || isLocal`).
      ['a-1', ['10.0.0.2']],
      ['b-0', ['10.0.0.1', '10.0.0.2']],
      ['b-1', ['10.0.0.1', '10.0.0.2']],
    ])
  })

  it('an annotated Service: the 1.30 node uses zone hints, and like the 1.33 one ignores node hints', () => {
    const annotated: Service = {...SVC, metadata: {...SVC.metadata, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}}
    const s = explain({...STATE, services: [annotated]}, [annotated], {kubeVersion: '1.37', dataPlane: skewed, perNode: true}).services[0]!
    expect(s.kubeProxySkew!.map((k) => [k.nodes, k.effect])).toEqual([
      [['a-1'], 'ignores-node-hints'],
      [['b-0'], 'ignores-node-hints'],
    ])
    expect(s.nodes!.find((n) => n.name === 'b-0')!.endpoints).toEqual(['10.0.0.3', '10.0.0.4'])
  })

  it('the header names the versions, the table has a VERSION column and the notice, all escaped', () => {
    expect(describeDataPlane(skewed)).toBe('kube-proxy v1.37.2 (iptables); kube-proxy Pods: 1.37 on 1 node, 1.33 on 1 node, 1.30 on 1 node')
    const hostile: Node = nodeOf('a-1', 'zone-\u001b[31ma')
    const state: ClusterState = {...STATE, nodes: [NODES[0]!, hostile, NODES[2]!, NODES[3]!]}
    const text = renderExplain(explain(state, [SVC], {kubeVersion: '1.37', dataPlane: skewed, perNode: true}), {format: 'table', perNode: true})
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/)
    expect(text).toContain('kube-proxy:  1 node in zone-^[[31ma (a-1) runs kube-proxy 1.33, which ignores node hints')
    expect(text).toMatch(/NODE +ZONE +VERSION +MODE +KUBE-PROXY +ENDPOINTS/)
    expect(text).toMatch(/b-0 +zone-b +1\.30\.14 +- +falls back \(annotation-required\)/)
  })

  it('the JSON validates against schema/explain.v1.json, with and without the versions', () => {
    const schema = JSON.parse(readFileSync(new URL('../../schema/explain.v1.json', import.meta.url), 'utf8'))
    const validate = new Ajv2020.default({allErrors: true, strict: true}).compile(schema)
    for (const dataPlane of [skewed, plain]) {
      const ok = validate(JSON.parse(renderExplain(explain(STATE, [SVC], {kubeVersion: '1.37', dataPlane, perNode: true}), {format: 'json'})))
      expect(validate.errors ?? []).toEqual([])
      expect(ok).toBe(true)
    }
  })

  it('a snapshot records each node kube-proxy Pod and gives the same report', () => {
    const snap = serializeSnapshot({...STATE, dataPlane: skewed})
    const back = parseSnapshot(toYaml(snap), 'snap.yaml')
    expect(back.dataPlane!.proxyNodes).toEqual(skewed.proxyNodes)
    expect(back.dataPlane!.proxyNodes!.find((p) => p.node === 'b-0')).toEqual({
      node: 'b-0',
      version: '1.30.14',
      image: 'registry.k8s.io/kube-proxy:v1.30.14',
      from: 'static-pod',
      object: 'Pod kube-system/kube-proxy-b-0',
    })
    const live = explain(STATE, [SVC], {kubeVersion: '1.37', dataPlane: skewed, perNode: true})
    const fromFile = explain(back, back.services, {kubeVersion: '1.37', dataPlane: back.dataPlane!, perNode: true})
    expect(fromFile.services).toEqual(live.services)
    // Entries of the wrong shape in a hand-edited file are dropped.
    const edited = {...snap, dataPlane: {...snap.dataPlane, proxyNodes: [{node: 'a-0', version: 7}, 'x', {version: '1.30'}]}}
    expect(parseSnapshot(JSON.stringify(edited), 'e.json').dataPlane!.proxyNodes).toEqual([{node: 'a-0', version: null, image: null, from: 'pod', object: ''}])
  })
})
