// readClusterState against a small fake API server on 127.0.0.1: pagination, constant
// number of list calls, RBAC on Nodes, not-found messages, wire-format output equal to
// what a snapshot file gives. (test/e2e/live-read.test.ts does the same against a real
// kube-apiserver.)
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {loadKubeConfig, type KubeContext} from '../../src/cluster/kubeconfig.js'
import {NODES_FORBIDDEN_WARNING, normalizeServerVersion, readClusterState} from '../../src/cluster/live.js'
import {parseSnapshot, serializeSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {CliError, ExitCode} from '../../src/errors.js'
import {writeFakeKubeconfig} from './fake-kubeconfig.js'

type Obj = Record<string, any>

const node = (name: string, zone: string): Obj => ({
  metadata: {name, labels: {'topology.kubernetes.io/zone': zone}, creationTimestamp: '2026-11-01T10:00:00Z'},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True', lastTransitionTime: '2026-11-01T10:00:05Z'}]},
})
const service = (ns: string, name: string, labels: Record<string, string> = {}): Obj => ({
  metadata: {name, namespace: ns, labels, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}, creationTimestamp: '2026-11-01T10:00:00Z'},
  spec: {type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{port: 80, protocol: 'TCP', targetPort: 8080}], selector: {app: name}},
})
const slice = (ns: string, svc: string, i: number): Obj => ({
  metadata: {name: `${svc}-${i}`, namespace: ns, labels: {'kubernetes.io/service-name': svc}},
  addressType: 'IPv4',
  endpoints: [{addresses: [`10.244.0.${i}`], conditions: {ready: true}, zone: 'a', nodeName: 'n1', hints: {forZones: [{name: 'a'}]}}],
  ports: [{port: 8080, protocol: 'TCP', name: ''}],
})

interface Fake {
  nodes: Obj[]
  services: Obj[]
  slices: Obj[]
  events: Obj[]
  namespaces: string[]
  forbidNodes: boolean
  requests: string[]
}
const fake: Fake = {nodes: [], services: [], slices: [], events: [], namespaces: [], forbidNodes: false, requests: []}

/** Enough of label-selector syntax for our calls: `k`, `k=v`, `k in (a,b)`, comma = AND. */
function matches(labels: Record<string, string> = {}, selector: string | null): boolean {
  if (!selector) return true
  const parts = selector.match(/[^,()]+(?:\([^)]*\))?/g) ?? []
  return parts.every((raw) => {
    const p = raw.trim()
    let m: RegExpExecArray | null
    if ((m = /^(\S+)\s+in\s+\(([^)]*)\)$/.exec(p)))
      return m[2]!
        .split(',')
        .map((s) => s.trim())
        .includes(labels[m[1]!] ?? '\u0000')
    if ((m = /^([^=!]+)==?(.*)$/.exec(p))) return labels[m[1]!.trim()] === m[2]!.trim()
    return p in labels
  })
}

function list(res: http.ServerResponse, items: Obj[], q: URLSearchParams, kind: string): void {
  const limit = Number(q.get('limit') ?? 0) || items.length
  const start = Number(q.get('continue') ?? 0)
  const page = items.slice(start, start + limit)
  const next = start + limit < items.length ? String(start + limit) : undefined
  res.writeHead(200, {'content-type': 'application/json'})
  res.end(JSON.stringify({kind, apiVersion: 'v1', metadata: {resourceVersion: '1', ...(next ? {continue: next} : {})}, items: page}))
}

function status(res: http.ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, {'content-type': 'application/json'})
  res.end(JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message}))
}

const handler: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  fake.requests.push(`${url.pathname}${url.search}`)
  const q = url.searchParams
  const p = url.pathname
  let m: RegExpExecArray | null
  const sel = q.get('labelSelector')
  if (p === '/version') {
    res.writeHead(200, {'content-type': 'application/json'})
    return res.end(JSON.stringify({major: '1', minor: '36', gitVersion: 'v1.36.3'}))
  }
  if (p === '/api/v1/nodes') {
    if (fake.forbidNodes) return status(res, 403, 'Forbidden', 'nodes is forbidden: User "readonly" cannot list resource "nodes" in API group "" at the cluster scope')
    return list(res, fake.nodes, q, 'NodeList')
  }
  if (p === '/api/v1/services')
    return list(
      res,
      fake.services.filter((s) => matches(s.metadata.labels, sel)),
      q,
      'ServiceList',
    )
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/services$/.exec(p))) {
    return list(
      res,
      fake.services.filter((s) => s.metadata.namespace === m![1] && matches(s.metadata.labels, sel)),
      q,
      'ServiceList',
    )
  }
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/services\/([^/]+)$/.exec(p))) {
    const s = fake.services.find((x) => x.metadata.namespace === m![1] && x.metadata.name === m![2])
    if (!s) return status(res, 404, 'NotFound', `services "${m[2]}" not found`)
    res.writeHead(200, {'content-type': 'application/json'})
    return res.end(JSON.stringify({kind: 'Service', apiVersion: 'v1', ...s}))
  }
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(p))) {
    if (!fake.namespaces.includes(m[1]!)) return status(res, 404, 'NotFound', `namespaces "${m[1]}" not found`)
    res.writeHead(200, {'content-type': 'application/json'})
    return res.end(JSON.stringify({kind: 'Namespace', apiVersion: 'v1', metadata: {name: m[1]}}))
  }
  if (p === '/apis/discovery.k8s.io/v1/endpointslices') {
    return list(
      res,
      fake.slices.filter((s) => matches(s.metadata.labels, sel)),
      q,
      'EndpointSliceList',
    )
  }
  if ((m = /^\/apis\/discovery\.k8s\.io\/v1\/namespaces\/([^/]+)\/endpointslices$/.exec(p))) {
    return list(
      res,
      fake.slices.filter((s) => s.metadata.namespace === m![1] && matches(s.metadata.labels, sel)),
      q,
      'EndpointSliceList',
    )
  }
  if (p === '/api/v1/events') return list(res, fake.events, q, 'EventList')
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/events$/.exec(p))) {
    return list(
      res,
      fake.events.filter((e) => e.metadata.namespace === m![1]),
      q,
      'EventList',
    )
  }
  status(res, 404, 'NotFound', 'the server could not find the requested resource')
}

let server: http.Server
let ctx: KubeContext
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-live-'))

beforeAll(async () => {
  server = http.createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const kc = path.join(tmp, 'config')
  writeFakeKubeconfig(kc, server, 'shop')
  ctx = await loadKubeConfig({kubeconfig: kc, requestTimeoutMs: 10_000})
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  fs.rmSync(tmp, {recursive: true, force: true})
})

function populate(servicesPerNs: number): void {
  fake.nodes = [node('n1', 'a'), node('n2', 'b'), node('n3', 'c')]
  fake.services = []
  fake.slices = []
  fake.namespaces = ['shop', 'other', 'empty']
  for (const ns of ['shop', 'other']) {
    for (let i = 0; i < servicesPerNs; i++) {
      const name = i === 0 ? 'web' : `svc-${i}`
      fake.services.push(service(ns, name, {tier: i % 2 ? 'backend' : 'frontend'}))
      fake.slices.push(slice(ns, name, 1), slice(ns, name, 2))
    }
  }
  // A slice that belongs to no Service we read, and one without the service-name label.
  fake.slices.push(slice('shop', 'ghost', 1), {...slice('shop', 'x', 9), metadata: {name: 'custom', namespace: 'shop', labels: {}}})
  fake.events = [
    {
      metadata: {name: 'web.1', namespace: 'shop'},
      involvedObject: {kind: 'Service', name: 'web', namespace: 'shop'},
      reason: 'TopologyAwareHintsEnabled',
      message: 'Topology Aware Hints has been enabled, addressType: IPv4',
      type: 'Normal',
      count: 1,
      lastTimestamp: '2026-11-01T10:01:00Z',
    },
    {metadata: {name: 'svc-9.1', namespace: 'shop'}, involvedObject: {kind: 'Service', name: 'svc-9', namespace: 'shop'}, reason: 'X'},
  ]
  fake.forbidNodes = false
}

beforeEach(() => {
  populate(3)
  fake.requests = []
})

describe('readClusterState (fake API server)', () => {
  it('named Service: wire-format JSON equal to what a snapshot file gives', async () => {
    const state = await readClusterState(ctx, {serviceNames: ['web'], withEvents: true})
    expect(state.namespace).toBe('shop')
    expect(state.serverVersion).toBe('1.36.3')
    expect(state.nodesReadable).toBe(true)
    expect(state.warnings).toEqual([])
    expect(state.services.map((s) => s.metadata.name)).toEqual(['web'])
    expect(state.endpointSlices.map((s) => s.metadata.name)).toEqual(['web-1', 'web-2'])
    expect(state.events?.map((e) => e.metadata.name)).toEqual(['web.1'])
    // Timestamps stay strings, as the server sent them; no undefined holes.
    expect(state.nodes[0]!.metadata.creationTimestamp).toBe('2026-11-01T10:00:00Z')
    expect(JSON.stringify(state)).not.toContain('.000Z')
    expect(state.services[0]).toEqual({apiVersion: 'v1', kind: 'Service', ...fake.services[0]})
    expect(state.endpointSlices[0]).toEqual({apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', ...fake.slices[0]})
    const {warnings: _w, namespace: _n, requests: _r, ...clusterState} = state
    // A snapshot leaves out the Node fields and Pod uids kubectl-topology never reads (snapshot.test.ts).
    const snap = serializeSnapshot(clusterState)
    expect(parseSnapshot(JSON.stringify(snap), 'x.json')).toEqual({...clusterState, nodes: snap.nodes, endpointSlices: snap.endpointSlices})
    // nodes, version, GET web, one slice list with an `in` selector, events.
    expect(state.requests).toBe(5)
    const sliceCalls = fake.requests.filter((r) => r.includes('endpointslices')).map((r) => new URL(r, 'http://x'))
    expect(sliceCalls.map((u) => [u.pathname, u.searchParams.get('labelSelector'), u.searchParams.get('limit')])).toEqual([
      ['/apis/discovery.k8s.io/v1/namespaces/shop/endpointslices', 'kubernetes.io/service-name in (web)', '500'],
    ])
  })

  it("lists keep the objects as the server sent them: fields client-node models lack, no managedFields but on Services, in the server's key order", async () => {
    const mf = [{manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: {'f:spec': {}}}]
    fake.nodes[0]!.metadata.managedFields = mf
    fake.services.find((s) => s.metadata.name === 'web')!.metadata.managedFields = mf
    fake.slices[0]!.metadata.managedFields = mf
    // A field of a newer API than the client library's models: a model round trip dropped it.
    fake.slices[0]!.endpoints[0].futureField = {x: 1}
    const state = await readClusterState(ctx, {allNamespaces: true})
    const web = state.services.find((s) => s.metadata.name === 'web')!
    expect((web.metadata as Obj).managedFields).toEqual(mf)
    expect(state.nodes[0]!.metadata).not.toHaveProperty('managedFields')
    const s0 = state.endpointSlices.find((s) => s.metadata.name === fake.slices[0]!.metadata.name)!
    expect(s0.metadata).not.toHaveProperty('managedFields')
    expect((s0.endpoints![0] as Obj).futureField).toEqual({x: 1})
    expect(Object.keys(s0)).toEqual(['apiVersion', 'kind', 'metadata', 'addressType', 'endpoints', 'ports'])
    // The input objects are not changed.
    expect(fake.slices[0]!.metadata.managedFields).toEqual(mf)
  })

  it('pagination with pageSize 2 gives the same result as one page', async () => {
    populate(7)
    const one = await readClusterState(ctx, {allNamespaces: true, withEvents: true})
    const paged = await readClusterState(ctx, {allNamespaces: true, withEvents: true, pageSize: 2})
    const strip = ({requests: _r, ...rest}: typeof one) => rest
    expect(strip(paged)).toEqual(strip(one))
    expect(one.services).toHaveLength(14)
    expect(one.endpointSlices).toHaveLength(28)
    expect(paged.requests).toBeGreaterThan(one.requests)
    expect(one.requests).toBe(5) // nodes, version, services, slices, events
  })

  it('-A: a constant number of requests for 1 or 5 Services per namespace', async () => {
    populate(1)
    const small = await readClusterState(ctx, {allNamespaces: true})
    populate(5)
    const big = await readClusterState(ctx, {allNamespaces: true})
    expect(small.services).toHaveLength(2)
    expect(big.services).toHaveLength(10)
    expect(big.requests).toBe(small.requests)
    expect(big.requests).toBe(4)
  })

  it('several named Services: one GET each, but one slice list', async () => {
    const state = await readClusterState(ctx, {serviceNames: ['web', 'svc-1', 'svc-2', 'web']})
    expect(state.services.map((s) => s.metadata.name)).toEqual(['web', 'svc-1', 'svc-2'])
    expect(state.endpointSlices).toHaveLength(6)
    expect(fake.requests.filter((r) => r.includes('endpointslices'))).toHaveLength(1)
  })

  it('-l selects Services; slices are listed once for the selected ones', async () => {
    populate(5)
    fake.requests = []
    const state = await readClusterState(ctx, {labelSelector: 'tier=backend'})
    expect(state.services.map((s) => s.metadata.name)).toEqual(['svc-1', 'svc-3'])
    expect(state.endpointSlices.map((s) => s.metadata.name)).toEqual(['svc-1-1', 'svc-1-2', 'svc-3-1', 'svc-3-2'])
    expect(fake.requests.filter((r) => r.includes('endpointslices'))).toHaveLength(1)
  })

  it('a whole namespace: slices without a Service are left out', async () => {
    const state = await readClusterState(ctx, {})
    expect(state.services).toHaveLength(3)
    expect(state.endpointSlices.map((s) => s.metadata.labels?.['kubernetes.io/service-name'])).not.toContain('ghost')
    expect(state.endpointSlices).toHaveLength(6)
  })

  it('Nodes forbidden: a warning, not a failure', async () => {
    fake.forbidNodes = true
    const state = await readClusterState(ctx, {serviceNames: ['web']})
    expect(state.nodesReadable).toBe(false)
    expect(state.nodes).toEqual([])
    expect(state.warnings).toEqual([NODES_FORBIDDEN_WARNING])
    expect(state.services).toHaveLength(1)
  })

  it('an unknown Service: NOT_FOUND with close names', async () => {
    const err = await readClusterState(ctx, {serviceNames: ['wbe']}).catch((e) => e)
    expect(err).toBeInstanceOf(CliError)
    expect(err.exitCode).toBe(ExitCode.NOT_FOUND)
    expect(err.message).toBe('services "wbe" not found in namespace "shop" (did you mean "web"?)')
    const none = await readClusterState(ctx, {serviceNames: ['database']}).catch((e) => e)
    expect(none.message).toBe('services "database" not found in namespace "shop"')
  })

  it('an unknown namespace', async () => {
    const err = await readClusterState(ctx, {namespace: 'nope'}).catch((e) => e)
    expect([err.exitCode, err.message]).toEqual([ExitCode.NOT_FOUND, 'namespace "nope" not found'])
    const named = await readClusterState(ctx, {namespace: 'nope', serviceNames: ['web']}).catch((e) => e)
    expect([named.exitCode, named.message]).toEqual([ExitCode.NOT_FOUND, 'namespace "nope" not found'])
    // An existing namespace without Services is not an error.
    const empty = await readClusterState(ctx, {namespace: 'empty'})
    expect(empty.services).toEqual([])
  })

  it('names cannot be combined with -A', async () => {
    const err = await readClusterState(ctx, {allNamespaces: true, serviceNames: ['web']}).catch((e) => e)
    expect(err.exitCode).toBe(ExitCode.USAGE)
  })
})

describe('normalizeServerVersion', () => {
  it.each([
    [{gitVersion: 'v1.36.3'}, '1.36.3'],
    [{gitVersion: 'v1.29.1+k3s1'}, '1.29.1'],
    [{gitVersion: 'v1.30.2-eks-1234abc'}, '1.30.2'],
    [{gitVersion: 'weird', major: '1', minor: '28+'}, '1.28'],
    [{}, undefined],
  ])('%j -> %s', (info, v) => {
    expect(normalizeServerVersion(info)).toBe(v)
  })
})
