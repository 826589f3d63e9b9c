// readClusterState against the real kube-apiserver + EndpointSlice controller started by
// scripts/cluster.mjs (KUBECONFIG points at it; contexts 'admin' and 'readonly').
import {isDeepStrictEqual} from 'node:util'
import {beforeAll, describe, expect, it} from 'vitest'
import {loadKubeConfig, type KubeContext} from '../../src/cluster/kubeconfig.js'
import {NODES_FORBIDDEN_WARNING, readClusterState, type LiveClusterState} from '../../src/cluster/live.js'
import {parseSnapshot, serializeSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {CliError, ExitCode} from '../../src/errors.js'
import {clusterWideListCalls, createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, waitForReconciled} from './fixtures.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const NODES = ZONES.map((zone) => ({name: `${zone}-node`, zone}))

let admin: KubeContext
let readonly: KubeContext
let ns: string
let net = 0

/** A Service with one ready Pod per zone, reconciled by the real controller. */
async function serviceWithPods(namespace: string, name: string, labels: Record<string, string> = {}): Promise<void> {
  net++
  const expectedEndpoints = []
  for (const [i, node] of NODES.entries()) {
    const ip = `10.244.${net}.${i + 10}`
    await createPod({namespace, name: `${name}-${i}`, labels: {app: name}, nodeName: node.name, ip, ready: true})
    expectedEndpoints.push({ip, ready: true})
  }
  await createService({
    namespace,
    name,
    selector: {app: name},
    labels,
    annotations: {'service.kubernetes.io/topology-mode': 'Auto'},
  })
  // Wait for the hints and the controller's Event too: it records the Event after writing the
  // slice, asynchronously, and the tests below compare two reads of the namespace's Events.
  await waitForReconciled({
    namespace,
    service: name,
    expectedEndpoints,
    expectEvent: 'TopologyAwareHintsEnabled',
    until: (r) => r.endpoints.every((e) => (e.hints?.forZones?.length ?? 0) > 0),
  })
}

const withoutCount = ({requests: _r, ...rest}: LiveClusterState) => rest

beforeAll(async () => {
  kubeConfig('admin') // refuses anything but a loopback server
  admin = await loadKubeConfig({context: 'admin', requestTimeoutMs: 30_000})
  readonly = await loadKubeConfig({context: 'readonly', requestTimeoutMs: 30_000})
  await deleteAllNodes()
  for (const n of NODES) await createNode({name: n.name, zone: n.zone, cpu: 4})
  ns = await createNamespace('read')
  await serviceWithPods(ns, 'web', {tier: 'frontend'})
  for (const name of ['api', 'cart', 'search']) await serviceWithPods(ns, name, {tier: 'backend'})
})

describe('readClusterState against a real API server', () => {
  it('a named Service: its slices, Nodes, the server version, Events', async () => {
    const state = await readClusterState(admin, {namespace: ns, serviceNames: ['web'], withEvents: true})
    expect(state.serverVersion).toBe('1.36.3')
    expect(state.nodesReadable).toBe(true)
    expect(state.warnings).toEqual([])
    expect(state.nodes.map((n) => n.metadata.name).sort()).toEqual(NODES.map((n) => n.name).sort())
    expect(state.services.map((s) => s.metadata.name)).toEqual(['web'])
    expect(state.endpointSlices.length).toBeGreaterThan(0)
    expect(state.endpointSlices.every((s) => s.metadata.labels?.['kubernetes.io/service-name'] === 'web')).toBe(true)
    expect(state.endpointSlices.flatMap((s) => s.endpoints ?? [])).toHaveLength(3)
    // Wire format: string timestamps as the server prints them; managedFields only on Services
    // (who owns the topology fields decides the advice's --force-conflicts: advise/commands.ts).
    expect(typeof state.services[0]!.metadata.creationTimestamp).toBe('string')
    expect(state.services[0]!.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    expect((state.services[0]!.metadata as {managedFields?: unknown[]}).managedFields?.length).toBeGreaterThan(0)
    const withoutOwners = <T extends {metadata: object}>(o: T): T => {
      const {managedFields: _m, ...metadata} = o.metadata as {managedFields?: unknown}
      return {...o, metadata} as T
    }
    expect(JSON.stringify({...state, services: state.services.map(withoutOwners)})).not.toContain('managedFields')
    expect(state.events?.every((e) => e.involvedObject?.name === 'web')).toBe(true)
    // nodes, version, GET web, one slice list, one event list
    expect(state.requests).toBe(5)
    // What a snapshot file gives back is the same thing, but for the Node fields and Pod uids
    // kubectl-topology never reads, which the snapshot leaves out (test/unit/snapshot.test.ts).
    const {warnings: _w, namespace: _n, requests: _r, ...read} = state
    // A snapshot never records managedFields.
    const clusterState = {...read, services: read.services.map(withoutOwners)}
    const snap = serializeSnapshot(read)
    // (A snapshot without events reads back without the field.)
    const events = clusterState.events?.length ? clusterState.events : undefined
    expect(parseSnapshot(JSON.stringify(snap), 'live.json')).toEqual({...clusterState, events, nodes: snap.nodes, endpointSlices: snap.endpointSlices})
    expect(snap.nodes.map((n) => n.status?.allocatable)).toEqual(clusterState.nodes.map((n) => n.status?.allocatable))
    expect(snap.endpointSlices.flatMap((sl) => sl.endpoints ?? []).map((e) => ({...e, targetRef: undefined}))).toEqual(
      clusterState.endpointSlices.flatMap((sl) => sl.endpoints ?? []).map((e) => ({...e, targetRef: undefined})),
    )
  })

  it('pagination with pageSize 2 gives the same result as one page', async () => {
    // An Event may be recorded between the two reads (the API server's ClusterIP repair loop
    // records some on new Services at its own pace): read the pair again (bounded) until
    // nothing was recorded in between; broken pagination never reads the same.
    let one = await readClusterState(admin, {namespace: ns, withEvents: true})
    let paged = await readClusterState(admin, {namespace: ns, withEvents: true, pageSize: 2})
    for (let i = 0; i < 5 && !isDeepStrictEqual(withoutCount(paged), withoutCount(one)); i++) {
      one = await readClusterState(admin, {namespace: ns, withEvents: true})
      paged = await readClusterState(admin, {namespace: ns, withEvents: true, pageSize: 2})
    }
    expect(one.services).toHaveLength(4)
    expect(withoutCount(paged)).toEqual(withoutCount(one))
    expect(paged.requests).toBeGreaterThan(one.requests)
    const allOne = await readClusterState(admin, {allNamespaces: true})
    const allPaged = await readClusterState(admin, {allNamespaces: true, pageSize: 2})
    // Cluster-wide, the controller may still be rewriting hints of other test files' Services
    // between the two reads (node changes requeue them): compare which objects were read
    // everywhere, and the objects themselves in this file's settled namespace.
    const ids = (st: typeof allOne) => [...st.nodes, ...st.services, ...st.endpointSlices].map((o) => `${o.kind ?? ''}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort()
    expect(ids(allPaged)).toEqual(ids(allOne))
    const mine = (st: typeof allOne) => ({
      services: st.services.filter((o) => o.metadata.namespace === ns),
      endpointSlices: st.endpointSlices.filter((o) => o.metadata.namespace === ns),
    })
    expect(mine(allPaged)).toEqual(mine(allOne))
    expect(mine(allOne).services).toHaveLength(4)
  })

  it('-A: the same number of requests with 1 or 5 Services in a namespace', async () => {
    const other = await createNamespace('grow')
    await serviceWithPods(other, 's0')
    const before = await readClusterState(admin, {allNamespaces: true})
    const beforeCalls = await clusterWideListCalls()
    for (const name of ['s1', 's2', 's3', 's4']) await serviceWithPods(other, name)
    const after = await readClusterState(admin, {allNamespaces: true})
    const afterCalls = await clusterWideListCalls()
    expect(after.services.filter((s) => s.metadata.namespace === other)).toHaveLength(5)
    expect(before.services.filter((s) => s.metadata.namespace === other)).toHaveLength(1)
    // nodes, version, services, endpointslices: one request per page of each (the pages
    // count what the whole control plane holds, other files' leftovers too), never per Service.
    expect(before.requests).toBe(beforeCalls.length)
    expect(after.requests).toBe(afterCalls.length)
    // -l in one namespace: one slice list for the selected Services.
    const backend = await readClusterState(admin, {namespace: ns, labelSelector: 'tier=backend'})
    expect(backend.services.map((s) => s.metadata.name).sort()).toEqual(['api', 'cart', 'search'])
    expect(new Set(backend.endpointSlices.map((s) => s.metadata.labels?.['kubernetes.io/service-name']))).toEqual(new Set(['api', 'cart', 'search']))
    expect(backend.requests).toBe(4)
  })

  it('readonly context (ClusterRole view): Nodes are not readable, the rest is', async () => {
    // `view` is a namespaced-resources role: it grants Services, EndpointSlices and Events
    // but nothing on cluster-scoped Nodes.
    const state = await readClusterState(readonly, {namespace: ns, serviceNames: ['web'], withEvents: true})
    expect(state.nodesReadable).toBe(false)
    expect(state.nodes).toEqual([])
    expect(state.warnings).toEqual([NODES_FORBIDDEN_WARNING])
    expect(state.services).toHaveLength(1)
    expect(state.endpointSlices.flatMap((s) => s.endpoints ?? [])).toHaveLength(3)
    expect(state.serverVersion).toBe('1.36.3')
  })

  it('an unknown Service: NOT_FOUND with suggestions; an unknown namespace', async () => {
    const err = await readClusterState(admin, {namespace: ns, serviceNames: ['serch']}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CliError)
    expect((err as CliError).exitCode).toBe(ExitCode.NOT_FOUND)
    expect((err as CliError).message).toBe(`services "serch" not found in namespace "${ns}" (did you mean "search"?)`)
    const nsErr = await readClusterState(admin, {namespace: 'no-such-namespace-xyz'}).catch((e: unknown) => e)
    expect((nsErr as CliError).exitCode).toBe(ExitCode.NOT_FOUND)
    expect((nsErr as CliError).message).toBe('namespace "no-such-namespace-xyz" not found')
  })

  it('a bad label selector is a usage error from the server', async () => {
    const err = await readClusterState(admin, {namespace: ns, labelSelector: 'tier in (a'}).catch((e: unknown) => e)
    expect((err as CliError).exitCode).toBe(ExitCode.USAGE)
    expect((err as CliError).message).toMatch(/^Error from server \(BadRequest\): /)
  })
})
