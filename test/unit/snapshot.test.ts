import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {parseSnapshot, readSnapshotFile, serializeSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {CliError, ExitCode} from '../../src/errors.js'
import type {ClusterState} from '../../src/state/cluster-state.js'

// ---- fixtures: what `kubectl get nodes,services,endpointslices -A -o json` prints ----------

const node = (name: string, zone: string, cpu = '4') => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name,
    uid: `uid-${name}`,
    labels: {
      'topology.kubernetes.io/zone': zone,
      'kubernetes.io/hostname': name,
      'team.example.com/owner': 'payments-secret-team',
    },
    annotations: {'node.alpha.kubernetes.io/ttl': '0', 'example.com/rack': 'rack-42'},
  },
  spec: {providerID: `aws:///${zone}/i-0abc${name}`, podCIDR: '10.244.1.0/24'},
  status: {
    allocatable: {cpu, memory: '16Gi'},
    capacity: {cpu, memory: '16Gi'},
    addresses: [{type: 'InternalIP', address: '172.18.0.7'}],
    conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady', message: `kubelet on ${name} is posting ready status`}],
    nodeInfo: {kubeletVersion: 'v1.36.3'},
  },
})

const service = (name: string, ns: string, annotations: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: {
    name,
    namespace: ns,
    annotations: {...annotations, 'kubectl.kubernetes.io/last-applied-configuration': '{"secret":"x"}'},
    managedFields: [{manager: 'kubectl'}],
  },
  spec: {
    type: 'ClusterIP',
    clusterIP: '10.96.12.34',
    clusterIPs: ['10.96.12.34'],
    selector: {app: name},
    ports: [{port: 80, protocol: 'TCP', targetPort: 8080}],
  },
})

const slice = (svc: string, ns: string, eps: {ip: string; node: string; zone: string; pod: string}[]) => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: {
    name: `${svc}-abc12`,
    namespace: ns,
    labels: {'kubernetes.io/service-name': svc, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
    annotations: {'endpoints.kubernetes.io/last-change-trigger-time': '2026-11-01T10:00:00Z'},
  },
  addressType: 'IPv4',
  endpoints: eps.map((e) => ({
    addresses: [e.ip],
    conditions: {ready: true, serving: true, terminating: false},
    nodeName: e.node,
    zone: e.zone,
    hints: {forZones: [{name: e.zone}]},
    targetRef: {kind: 'Pod', name: e.pod, namespace: ns, uid: `uid-${e.pod}`},
  })),
  ports: [{name: '', port: 8080, protocol: 'TCP'}],
})

const pod = {apiVersion: 'v1', kind: 'Pod', metadata: {name: 'web-1', namespace: 'shop'}, spec: {containers: []}}

const NODES = [node('ip-10-0-1-5.ec2.internal', 'zone-a'), node('ip-10-0-2-9.ec2.internal', 'zone-b')]
const SERVICES = [service('web', 'shop', {'service.kubernetes.io/topology-mode': 'Auto'})]
const SLICES = [
  slice('web', 'shop', [
    {ip: '10.244.1.17', node: 'ip-10-0-1-5.ec2.internal', zone: 'zone-a', pod: 'web-7f9c8d-abcde'},
    {ip: '10.244.2.23', node: 'ip-10-0-2-9.ec2.internal', zone: 'zone-b', pod: 'web-7f9c8d-fghij'},
  ]),
]
const LIST = {apiVersion: 'v1', kind: 'List', metadata: {resourceVersion: ''}, items: [...NODES, ...SERVICES, ...SLICES, pod]}

const listJson = JSON.stringify(LIST, null, 2)

function expectInputError(fn: () => unknown, message: string | RegExp): CliError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(CliError)
    const err = e as CliError
    expect(err.exitCode).toBe(ExitCode.INPUT)
    if (typeof message === 'string') expect(err.message).toBe(message)
    else expect(err.message).toMatch(message)
    expect(err.message).not.toContain('\n')
    return err
  }
  throw new Error('expected a CliError')
}

describe('parseSnapshot: input forms', () => {
  const reference = parseSnapshot(listJson, 'cluster.json')

  it('reads a kubectl v1 List (-o json), ignoring other kinds', () => {
    expect(reference.nodes.map((n) => n.metadata.name)).toEqual(NODES.map((n) => n.metadata.name))
    expect(reference.services.map((s) => s.metadata.name)).toEqual(['web'])
    expect(reference.endpointSlices).toHaveLength(1)
    expect(reference.endpointSlices[0]!.endpoints).toHaveLength(2)
    expect(reference.nodesReadable).toBe(true)
    expect(reference.serverVersion).toBeUndefined()
    expect(reference.events).toBeUndefined()
    expect(reference.services[0]!.metadata.annotations?.['service.kubernetes.io/topology-mode']).toBe('Auto')
  })

  it('reads the same List as YAML (-o yaml)', () => {
    expect(parseSnapshot(toYaml(LIST), 'cluster.yaml')).toEqual(reference)
  })

  it('reads multi-document YAML, each document an object or a List', () => {
    const text = [
      toYaml(NODES[0]),
      toYaml({apiVersion: 'v1', kind: 'List', items: [NODES[1], ...SERVICES]}),
      toYaml(pod),
      toYaml(SLICES[0]),
      '', // a trailing "---" gives an empty document
    ].join('---\n')
    expect(parseSnapshot(text, 'multi.yaml')).toEqual(reference)
  })

  it('reads a JSON array', () => {
    expect(parseSnapshot(JSON.stringify([...NODES, pod, ...SERVICES, ...SLICES]), 'a.json')).toEqual(reference)
  })

  it('reads typed lists whose items carry no kind (NodeList, …)', () => {
    const strip = (o: object) => {
      const {kind: _k, apiVersion: _a, ...rest} = o as {kind: string; apiVersion: string}
      return rest
    }
    const text = [
      toYaml({apiVersion: 'v1', kind: 'NodeList', items: NODES.map(strip)}),
      toYaml({apiVersion: 'v1', kind: 'ServiceList', items: SERVICES.map(strip)}),
      toYaml({apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSliceList', items: SLICES.map(strip)}),
    ].join('---\n')
    expect(parseSnapshot(text, 'typed.yaml')).toEqual(reference)
  })

  it('reads our Snapshot kind, with server version and events', () => {
    const snap = {
      apiVersion: 'kubectl-topology/v1',
      kind: 'Snapshot',
      serverVersion: '1.36.3',
      nodes: NODES,
      services: SERVICES,
      endpointSlices: SLICES,
      events: [
        {
          metadata: {name: 'web.1', namespace: 'shop'},
          involvedObject: {kind: 'Service', name: 'web', namespace: 'shop'},
          reason: 'TopologyAwareHintsDisabled',
          message: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4',
          type: 'Warning',
          count: 3,
        },
      ],
    }
    const state = parseSnapshot(toYaml(snap), 'snap.yaml')
    expect(state.serverVersion).toBe('1.36.3')
    expect(state.events).toHaveLength(1)
    expect(state.events![0]!.reason).toBe('TopologyAwareHintsDisabled')
    const {events: _e, serverVersion: _v, ...rest} = state
    expect(rest).toEqual(reference)
  })

  it('converts events.k8s.io/v1 Events to the core shape', () => {
    const ev = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: {name: 'web.2', namespace: 'shop'},
      regarding: {kind: 'Service', name: 'web', namespace: 'shop'},
      reason: 'TopologyAwareHintsEnabled',
      note: 'Topology Aware Hints has been enabled, addressType: IPv4',
      type: 'Normal',
      deprecatedCount: 2,
    }
    const state = parseSnapshot(JSON.stringify([...SERVICES, ev]), 'ev.json', 'objects')
    expect(state.events).toEqual([
      {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {name: 'web.2', namespace: 'shop'},
        involvedObject: {kind: 'Service', name: 'web', namespace: 'shop'},
        reason: 'TopologyAwareHintsEnabled',
        message: 'Topology Aware Hints has been enabled, addressType: IPv4',
        type: 'Normal',
        count: 2,
      },
    ])
  })

  it('a file without Nodes is exit 3 naming them, not a permission (issue 19 finding 9)', () => {
    const svc = {apiVersion: 'v1', kind: 'Service', metadata: {name: 'api'}, spec: {ports: [{port: 80}]}}
    let err: unknown
    try {
      parseSnapshot(toYaml([svc]), 's.yaml')
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CliError)
    expect((err as CliError).exitCode).toBe(ExitCode.INPUT)
    expect((err as CliError).message).toBe(
      's.yaml: no Nodes found (the zones and CPU shares come from the Nodes): take the file with `kubectl topology snapshot`, or add nodes to `kubectl get nodes,services,endpointslices -A -o yaml`',
    )
    expect((err as CliError).message).not.toMatch(/permission/)
    // A Snapshot that recorded the refusal (kubectl topology snapshot without list nodes), or
    // listed no Nodes, reads as one without them: its reader lacked the permission, or there were none.
    const refused = parseSnapshot(toYaml({apiVersion: 'kubectl-topology/v1', kind: 'Snapshot', nodesReadable: false, services: [svc]}), 'r.yaml')
    expect(refused.nodesReadable).toBe(false)
    expect(parseSnapshot(toYaml({apiVersion: 'kubectl-topology/v1', kind: 'Snapshot', nodes: [], services: [svc]}), 'n.yaml').services).toHaveLength(1)
  })

  it('a later duplicate wins; namespace defaults to "default"', () => {
    const svc = {apiVersion: 'v1', kind: 'Service', metadata: {name: 'api'}, spec: {ports: [{port: 80}]}}
    const svc2 = {...svc, spec: {ports: [{port: 81}]}}
    const state = parseSnapshot(toYaml([svc, svc2]), 's.yaml', 'objects')
    expect(state.nodesReadable).toBe(false)
    expect(state.services).toHaveLength(1)
    expect(state.services[0]!.metadata.namespace).toBe('default')
    expect(state.services[0]!.spec?.ports?.[0]?.port).toBe(81)
    // Given twice with different contents: said, naming both places (issue 23: taken silently before).
    expect(state.inputNotes).toEqual([
      's.yaml:8:3: Service "default/api" is given twice with different contents (first at s.yaml:1:3): the later one is used; if the file mixes two clusters, keep one',
    ])
  })

  it('two Nodes with one name and different contents: a statement naming both; the same object twice: none', () => {
    const n = (cpu: string) => ({apiVersion: 'v1', kind: 'Node', metadata: {name: 'n1', labels: {'topology.kubernetes.io/zone': 'a'}}, status: {allocatable: {cpu}}})
    const two = parseSnapshot(toYaml({apiVersion: 'v1', kind: 'List', items: [n('4'), n('8')]}), 'n.yaml', 'nodes')
    expect(two.nodes).toHaveLength(1)
    expect(two.inputNotes).toHaveLength(1)
    expect(two.inputNotes![0]).toMatch(/^n\.yaml(:\d+:\d+)?: Node "n1" is given twice with different contents \(first at n\.yaml(:\d+:\d+)?\): the later one is used/)
    expect(parseSnapshot(toYaml({apiVersion: 'v1', kind: 'List', items: [n('4'), n('4')]}), 'n.yaml', 'nodes').inputNotes).toBeUndefined()
  })

  it('a List item without "kind" is refused, not dropped (issue 23)', () => {
    const svc = {apiVersion: 'v1', kind: 'Service', metadata: {name: 'api'}, spec: {ports: [{port: 80}]}}
    const noKind = {apiVersion: 'v1', metadata: {name: 'web'}, spec: {ports: [{port: 80}]}}
    expect(() => parseSnapshot(toYaml({apiVersion: 'v1', kind: 'List', items: [svc, noKind]}), 'k.yaml', 'objects')).toThrow(
      /^k\.yaml(:\d+:\d+)?: an object without "kind": say what it is/,
    )
  })

  it('coerces non-string label values from hand-written YAML', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    tier: 1\n    canary: true\n'
    expect(parseSnapshot(text, 'h.yaml', 'objects').services[0]!.metadata.labels).toEqual({tier: '1', canary: 'true'})
  })

  it('accepts a byte-order mark', () => {
    expect(parseSnapshot(`\ufeff${listJson}`, 'bom.json').services).toHaveLength(1)
    expect(parseSnapshot(`\ufeff${toYaml(LIST)}`, 'bom.yaml').services).toHaveLength(1)
  })

  it('reads a stream of JSON objects (kubectl get -o json | jq .items[])', () => {
    const text = LIST.items.map((o) => JSON.stringify(o, null, 2)).join('\n')
    expect(parseSnapshot(text, 'stream.json')).toEqual(reference)
  })
})

describe('parseSnapshot: errors name the file, line and problem', () => {
  it('malformed YAML', () => {
    const text = 'apiVersion: v1\nkind: List\nitems:\n  - kind: Service\n    metadata: {name: web\n  - kind: Node\n'
    expectInputError(() => parseSnapshot(text, 'snapshot.yaml'), /^snapshot\.yaml:\d+:\d+: \S.*/)
    const text2 = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n   namespace: shop\n'
    expectInputError(() => parseSnapshot(text2, 'snapshot.yaml'), 'snapshot.yaml:4:9: Nested mappings are not allowed in compact mappings')
  })

  it('duplicate keys in YAML', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  name: api\n'
    expectInputError(() => parseSnapshot(text, 'dup.yaml'), 'dup.yaml:5:3: Map keys must be unique')
  })

  it('malformed JSON: line and column from the error offset', () => {
    const text = '{\n  "apiVersion": "v1",\n  "kind": "List",\n  "items": [\n    {"kind": "Service",}\n  ]\n}\n'
    expectInputError(() => parseSnapshot(text, 'cluster.json'), 'cluster.json:5:24: expected a double-quoted property name, found "}"')
  })

  it('truncated JSON', () => {
    expectInputError(() => parseSnapshot('{\n  "kind": "List",\n  "items": [', 'cut.json'), 'cut.json:3:13: unexpected end of JSON input')
  })

  it('JSON errors whose V8 message has no position', () => {
    expectInputError(() => parseSnapshot('{"kind": }', 'v.json'), `v.json:1:10: unexpected "}"`)
    expectInputError(() => parseSnapshot('{\n "a": "b\\x"}', 'esc.json'), 'esc.json:2:9: invalid escape "\\\\x" in string')
    expectInputError(() => parseSnapshot('[{"a": 1} {"b": 2}]', 'arr.json'), `arr.json:1:11: expected ',' or ']' after array element, found "{"`)
  })

  it('a missing field in the second object of a JSON stream is located in that object', () => {
    const bad = {...SLICES[0], addressType: undefined}
    const text = `${JSON.stringify(SERVICES[0])}\n${JSON.stringify(bad, null, 2)}`
    expectInputError(() => parseSnapshot(text, 'st.json'), 'st.json:2:1: EndpointSlice "shop/web-abc12": missing required field "addressType"')
  })

  it('an EndpointSlice without addressType (YAML): the line of the object', () => {
    const text = toYaml(LIST).replace(/^ {4}addressType: IPv4\n/m, '')
    const line = text.split('\n').findIndex((l) => l.includes('kind: EndpointSlice')) + 1
    const err = expectInputError(() => parseSnapshot(text, 'snapshot.yaml'), /EndpointSlice "shop\/web-abc12": missing required field "addressType"$/)
    // The object starts on the line of its first key (apiVersion), just above "kind".
    expect(err.message).toMatch(new RegExp(`^snapshot\\.yaml:${line - 1}:5: `))
  })

  it('an EndpointSlice without addressType (JSON): located by re-reading the text', () => {
    const text = listJson.replace('"addressType": "IPv4",', '')
    const lines = text.split('\n')
    const kindLine = lines.findIndex((l) => l.includes('"kind": "EndpointSlice"')) + 1
    const err = expectInputError(() => parseSnapshot(text, 'cluster.json'), /missing required field "addressType"$/)
    const m = /^cluster\.json:(\d+):(\d+): /.exec(err.message)!
    // "{" of the object is the line before "apiVersion", which precedes "kind".
    expect(Number(m[1])).toBe(kindLine - 2)
  })

  it('an invalid addressType', () => {
    const text = toYaml(SLICES[0]).replace('addressType: IPv4', 'addressType: IPv5')
    expectInputError(() => parseSnapshot(text, 's.yaml'), /^s\.yaml:\d+:\d+: EndpointSlice "shop\/web-abc12": invalid addressType "IPv5" \(expected IPv4, IPv6 or FQDN\)$/)
  })

  it('an endpoint without addresses points at the endpoint', () => {
    const bad = structuredClone(SLICES[0]) as {endpoints: Record<string, unknown>[]}
    delete bad.endpoints[1]!.addresses
    const text = toYaml(bad)
    const err = expectInputError(() => parseSnapshot(text, 's.yaml'), /endpoints\[1\]: missing required field "addresses"$/)
    const line = Number(/^s\.yaml:(\d+):/.exec(err.message)![1])
    expect(text.split('\n')[line - 1]).toMatch(/^ {2}- conditions:/)
  })

  it('a Node without metadata.name', () => {
    const bad = structuredClone(NODES[0]) as {metadata: {name?: string}}
    delete bad.metadata.name
    const text = toYaml({apiVersion: 'v1', kind: 'List', items: [...SERVICES, bad]})
    const err = expectInputError(() => parseSnapshot(text, 'n.yaml'), /^n\.yaml:\d+:\d+: Node: missing required field "metadata\.name"$/)
    const line = Number(/^n\.yaml:(\d+):/.exec(err.message)![1])
    expect(text.split('\n')[line - 1]).toMatch(/uid: uid-ip-10-0-1-5/) // the metadata mapping starts here
  })

  it('wrong field types', () => {
    expectInputError(() => parseSnapshot(toYaml({...SLICES[0], endpoints: {a: 1}}), 'e.yaml'), /^e\.yaml:\d+:\d+: EndpointSlice "shop\/web-abc12": endpoints must be a list$/)
    expectInputError(() => parseSnapshot(toYaml({...SERVICES[0], spec: {ports: 'http'}}), 'p.yaml'), /Service "shop\/web": spec\.ports must be a list$/)
    expectInputError(() => parseSnapshot(toYaml({apiVersion: 'kubectl-topology/v1', kind: 'Snapshot', services: {}}), 'x.yaml'), 'x.yaml:3:11: Snapshot: "services" must be a list')
  })

  it('no Services or EndpointSlices at all', () => {
    expectInputError(
      () => parseSnapshot(toYaml({apiVersion: 'v1', kind: 'List', items: [pod]}), 'pods.yaml'),
      /^pods\.yaml: no Services or EndpointSlices found \(expected the output of `kubectl get nodes,services,endpointslices -A -o yaml`/,
    )
    // Only Nodes: the message says what the file holds and which command reads it.
    expectInputError(
      () => parseSnapshot(toYaml({apiVersion: 'v1', kind: 'List', items: [pod, ...NODES]}), 'nodes.yaml'),
      /^nodes\.yaml: no Services or EndpointSlices found; it holds only 2 Nodes, which `kubectl topology nodes` reads \(expected/,
    )
  })

  it('need "nodes": `kubectl get nodes -o yaml` alone is enough; a file without Nodes says so', () => {
    const state = parseSnapshot(toYaml({apiVersion: 'v1', kind: 'NodeList', items: NODES}), 'nodes.yaml', 'nodes')
    expect(state.nodes.map((n) => n.metadata.name)).toEqual(NODES.map((n) => n.metadata.name))
    expect(state.services).toEqual([])
    expect(state.nodesReadable).toBe(true)
    expect(parseSnapshot(listJson, 'cluster.json', 'nodes').nodes).toHaveLength(NODES.length)
    expectInputError(
      () => parseSnapshot(toYaml({apiVersion: 'v1', kind: 'List', items: [pod, ...SERVICES]}), 'svc.yaml', 'nodes'),
      /^svc\.yaml: no Nodes found \(expected the output of `kubectl get nodes -o yaml`/,
    )
  })

  it('empty input and non-object documents', () => {
    expectInputError(() => parseSnapshot('  \n', 'empty.yaml'), /^empty\.yaml: the snapshot is empty/)
    expectInputError(() => parseSnapshot('just some text\n', 'notes.txt'), /^notes\.txt:1:1: expected a Kubernetes object or List, found a string/)
    expectInputError(() => parseSnapshot('[1, 2]', 'nums.json'), /^nums\.json:1:2: expected an object, found a number$/)
  })

  it('an unsupported snapshot version', () => {
    expectInputError(
      () => parseSnapshot('apiVersion: kubectl-topology/v9\nkind: Snapshot\n', 'future.yaml'),
      'future.yaml:1:1: unsupported snapshot version "kubectl-topology/v9" (this kubectl-topology reads kubectl-topology/v1)',
    )
  })

  it('stdin is named <stdin>', () => {
    expectInputError(() => parseSnapshot('{', '-'), /^<stdin>:1:2: /)
  })
})

describe('readSnapshotFile', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-snap-'))
  afterAll(() => fs.rmSync(dir, {recursive: true, force: true}))

  it('reads a file', async () => {
    const p = path.join(dir, 'cluster.yaml')
    fs.writeFileSync(p, toYaml(LIST))
    expect((await readSnapshotFile(p)).services).toHaveLength(1)
  })

  it('a missing file', async () => {
    const p = path.join(dir, 'nope.yaml')
    await expect(readSnapshotFile(p)).rejects.toMatchObject({
      exitCode: ExitCode.INPUT,
      message: `cannot read snapshot file "${p}": no such file`,
    })
  })

  it('a directory', async () => {
    await expect(readSnapshotFile(dir)).rejects.toMatchObject({
      exitCode: ExitCode.INPUT,
      message: `cannot read snapshot file "${dir}": is a directory`,
    })
  })

  it('parse errors carry the file name', async () => {
    const p = path.join(dir, 'bad.json')
    fs.writeFileSync(p, '{"kind": }')
    await expect(readSnapshotFile(p)).rejects.toMatchObject({
      exitCode: ExitCode.INPUT,
      message: expect.stringMatching(new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1:10: `)),
    })
  })
})

describe('serializeSnapshot', () => {
  const state = parseSnapshot(listJson, 'cluster.json')
  const withExtras: ClusterState = {
    ...state,
    serverVersion: '1.36.3',
    events: [
      {
        metadata: {name: 'web.1', namespace: 'shop', uid: 'ev-uid'},
        involvedObject: {kind: 'Service', name: 'web', namespace: 'shop', uid: 'svc-uid'},
        reason: 'TopologyAwareHintsDisabled',
        message: 'endpoint 10.244.1.17 on ip-10-0-1-5.ec2.internal is not ready, addressType: IPv4',
        type: 'Warning',
        count: 1,
      },
    ],
  }

  it('round-trips through parseSnapshot (YAML and JSON)', () => {
    const snap = serializeSnapshot(withExtras)
    expect(snap.apiVersion).toBe('kubectl-topology/v1')
    expect(snap.kind).toBe('Snapshot')
    const back = parseSnapshot(toYaml(snap), 'snap.yaml')
    const {apiVersion: _a, kind: _k, ...fields} = snap
    expect(back).toEqual({...fields, events: fields.events!.map((e) => ({apiVersion: 'v1', kind: 'Event', ...e})), nodesReadable: true})
    expect(parseSnapshot(JSON.stringify(snap), 'snap.json')).toEqual(back)
    expect(JSON.stringify(snap)).not.toContain('managedFields')
  })

  it('keeps what kubectl-topology reads, drops what it never reads', () => {
    const snap = serializeSnapshot({
      ...withExtras,
      nodes: [
        {
          ...withExtras.nodes[0]!,
          spec: {unschedulable: true, taints: [{key: 'k', effect: 'NoSchedule'}], providerID: 'aws:///x', podCIDR: '10.244.1.0/24'} as never,
        },
        ...withExtras.nodes.slice(1),
      ],
    })
    const [n0, n1] = snap.nodes
    expect(n0).toEqual({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: withExtras.nodes[0]!.metadata,
      spec: {unschedulable: true, taints: [{key: 'k', effect: 'NoSchedule'}]},
      status: {
        allocatable: {cpu: '4', memory: '16Gi'},
        capacity: {cpu: '4', memory: '16Gi'},
        conditions: [{type: 'Ready', status: 'True', reason: 'KubeletReady'}],
      },
    })
    expect(n1!.spec).toBeUndefined() // only providerID and podCIDR
    const text = JSON.stringify(snap)
    for (const gone of ['nodeInfo', 'addresses":[{', 'providerID', 'posting ready status', 'uid-web-']) expect(text).not.toContain(gone)
    const ep = snap.endpointSlices[0]!.endpoints![0]!
    expect(ep.targetRef).toEqual({kind: 'Pod', name: expect.any(String), namespace: expect.any(String)})
    expect(ep.hints).toBeDefined()
    expect(snap.services).toEqual(withExtras.services.map((svc) => JSON.parse(JSON.stringify(svc, (k, v) => (k === 'managedFields' ? undefined : v)))))
    expect(snap.events).toEqual(withExtras.events)
  })

  it('records unreadable Nodes', () => {
    const snap = serializeSnapshot({...state, nodes: [], nodesReadable: false})
    expect(snap.nodesReadable).toBe(false)
    expect(parseSnapshot(toYaml(snap), 's.yaml').nodesReadable).toBe(false)
    expect(serializeSnapshot(state).nodesReadable).toBeUndefined()
  })

  describe('redact', () => {
    const redacted = serializeSnapshot(withExtras, {redact: true})
    const text = JSON.stringify(redacted)

    it('leaks no address, node name, pod name, uid, provider id or foreign annotation/label', () => {
      for (const secret of [
        '10.244.1.17',
        '10.244.2.23',
        '10.96.12.34',
        '172.18.0.7',
        '10.244.1.0/24',
        'ip-10-0-1-5',
        'ip-10-0-2-9',
        'ec2.internal',
        'web-7f9c8d',
        'uid-',
        'svc-uid',
        'ev-uid',
        'i-0abc',
        'payments-secret-team',
        'rack-42',
        'last-applied-configuration',
        'last-change-trigger-time',
        'kubelet on',
        '"secret"',
      ]) {
        expect(text, secret).not.toContain(secret)
      }
    })

    it('keeps zones, counts, CPU, conditions, hints, ports and topology annotations', () => {
      expect(redacted.nodes.map((n) => n.metadata.labels?.['topology.kubernetes.io/zone'])).toEqual(['zone-a', 'zone-b'])
      expect(redacted.nodes.map((n) => n.status?.allocatable?.cpu)).toEqual(['4', '4'])
      expect(redacted.nodes[0]!.status?.conditions).toEqual([{type: 'Ready', status: 'True', reason: 'KubeletReady'}])
      expect(redacted.services[0]!.metadata.annotations).toEqual({'service.kubernetes.io/topology-mode': 'Auto'})
      expect(redacted.services[0]!.metadata.name).toBe('web')
      const eps = redacted.endpointSlices[0]!.endpoints!
      expect(eps).toHaveLength(2)
      expect(eps.map((e) => e.zone)).toEqual(['zone-a', 'zone-b'])
      expect(eps.map((e) => e.hints?.forZones)).toEqual([[{name: 'zone-a'}], [{name: 'zone-b'}]])
      expect(eps.map((e) => e.conditions?.ready)).toEqual([true, true])
      expect(redacted.endpointSlices[0]!.ports).toEqual(SLICES[0]!.ports)
      expect(redacted.endpointSlices[0]!.metadata.labels?.['kubernetes.io/service-name']).toBe('web')
      expect(redacted.serverVersion).toBe('1.36.3')
      expect(redacted.events![0]!.reason).toBe('TopologyAwareHintsDisabled')
      expect(redacted.events![0]!.message).toMatch(/, addressType: IPv4$/)
    })

    it('uses the same pseudonym for the same value everywhere', () => {
      const [n1, n2] = redacted.nodes.map((n) => n.metadata.name)
      expect(n1).toMatch(/^node-\d+$/)
      expect(n1).not.toBe(n2)
      expect(redacted.nodes[0]!.metadata.labels?.['kubernetes.io/hostname']).toBe(n1)
      const eps = redacted.endpointSlices[0]!.endpoints!
      expect(eps.map((e) => e.nodeName)).toEqual([n1, n2])
      expect(eps[0]!.targetRef).toEqual({kind: 'Pod', name: expect.stringMatching(/^pod-\d+$/), namespace: 'shop'})
      expect(eps[0]!.addresses[0]).toMatch(/^\d+\.\d+\.\d+\.\d+$/)
      // The event message names the same endpoint and node as the slice does.
      expect(redacted.events![0]!.message).toContain(eps[0]!.addresses[0]!)
      expect(redacted.events![0]!.message).toContain(n1!)
      expect(redacted.services[0]!.spec?.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/)
      expect((redacted.services[0]!.spec as {clusterIPs?: string[]}).clusterIPs).toEqual([redacted.services[0]!.spec?.clusterIP])
    })

    it('is stable: same input, same output, whatever the object order', () => {
      expect(serializeSnapshot(withExtras, {redact: true})).toEqual(redacted)
      const reordered = {...withExtras, nodes: [...withExtras.nodes].reverse()}
      const again = serializeSnapshot(reordered, {redact: true})
      expect([...again.nodes].reverse()).toEqual(redacted.nodes)
      expect(again.endpointSlices).toEqual(redacted.endpointSlices)
    })

    it('never outputs a pseudonym that is one of the original addresses', () => {
      const s = parseSnapshot(
        JSON.stringify([
          slice('a', 'x', [
            {ip: '198.18.0.1', node: 'n1', zone: 'z', pod: 'p1'},
            {ip: '198.18.0.2', node: 'n2', zone: 'z', pod: 'p2'},
          ]),
        ]),
        'x.json',
        'objects',
      )
      const addrs = serializeSnapshot(s, {redact: true}).endpointSlices[0]!.endpoints!.flatMap((e) => e.addresses)
      expect(addrs).toHaveLength(2)
      expect(addrs).not.toContain('198.18.0.1')
      expect(addrs).not.toContain('198.18.0.2')
    })

    it('parses back', () => {
      const back = parseSnapshot(toYaml(redacted), 'r.yaml')
      expect(back.nodes).toHaveLength(2)
      expect(back.endpointSlices[0]!.endpoints).toHaveLength(2)
    })
  })
})
