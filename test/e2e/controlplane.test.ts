// Smoke test of the control plane itself (scripts/cluster.mjs): the real EndpointSlice
// controller writes hints here, records its Events, and RBAC separates the two contexts.
import {PatchStrategy, setHeaderOptions} from '@kubernetes/client-node'
import {beforeAll, describe, expect, it} from 'vitest'
import {
  cluster,
  createNamespace,
  createNode,
  createPod,
  createService,
  deleteAllNodes,
  EVENT_SOURCE,
  listEvents,
  statusOf,
  waitForReconciled,
  type ExpectedEndpoint,
} from './fixtures.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const NODES = ZONES.flatMap((zone) => [1, 2].map((i) => ({name: `${zone}-node-${i}`, zone})))

/** One ready Pod per Node (2 per zone), IPs 10.244.<n>.<i>. */
async function spreadPods(namespace: string, app: string, net: number): Promise<ExpectedEndpoint[]> {
  const expected: ExpectedEndpoint[] = []
  for (const [i, node] of NODES.entries()) {
    const ip = `10.244.${net}.${i + 10}`
    await createPod({namespace, name: `${app}-${i}`, labels: {app}, nodeName: node.name, ip, ready: true})
    expected.push({ip, ready: true})
  }
  return expected
}

const zoneOfNode = new Map(NODES.map((n) => [n.name, n.zone]))

describe('control plane', () => {
  beforeAll(async () => {
    await deleteAllNodes()
    for (const n of NODES) await createNode({name: n.name, zone: n.zone, cpu: 4})
  })

  it('topology-mode Auto: every endpoint gets its own zone as hint, and TopologyAwareHintsEnabled is recorded', async () => {
    const namespace = await createNamespace('auto')
    const expectedEndpoints = await spreadPods(namespace, 'web', 1)
    await createService({
      namespace,
      name: 'web',
      selector: {app: 'web'},
      annotations: {'service.kubernetes.io/topology-mode': 'Auto'},
    })
    const r = await waitForReconciled({
      namespace,
      service: 'web',
      expectedEndpoints,
      expectEvent: 'TopologyAwareHintsEnabled',
      until: (seen) => seen.endpoints.every((e) => (e.hints?.forZones?.length ?? 0) > 0),
    })
    expect(r.endpoints).toHaveLength(6)
    for (const e of r.endpoints) {
      expect(e.nodeName).toBeTruthy()
      expect(e.zone).toBe(zoneOfNode.get(e.nodeName!))
      expect(e.hints?.forZones).toEqual([{name: e.zone}])
      expect(e.hints?.forNodes ?? undefined).toBeUndefined()
    }
    const events = await listEvents(namespace, 'web', {source: EVENT_SOURCE})
    const enabled = events.filter((e) => e.reason === 'TopologyAwareHintsEnabled')
    expect(enabled.length).toBeGreaterThan(0)
    expect(enabled[0]).toMatchObject({type: 'Normal', message: expect.stringContaining('addressType: IPv4')})
    expect(events.at(-1)?.reason).toBe('TopologyAwareHintsEnabled')
  })

  it('trafficDistribution PreferSameNode: forZones and forNodes hints', async () => {
    const namespace = await createNamespace('samenode')
    const expectedEndpoints = await spreadPods(namespace, 'api', 2)
    await createService({namespace, name: 'api', selector: {app: 'api'}, trafficDistribution: 'PreferSameNode'})
    const r = await waitForReconciled({
      namespace,
      service: 'api',
      expectedEndpoints,
      until: (seen) => seen.endpoints.every((e) => (e.hints?.forNodes?.length ?? 0) > 0),
    })
    for (const e of r.endpoints) {
      expect(e.hints).toEqual({forZones: [{name: e.zone}], forNodes: [{name: e.nodeName}]})
    }
  })

  it('terminating and not-ready Pods show up with their conditions', async () => {
    const namespace = await createNamespace('conditions')
    const node = NODES[0]!.name
    await createPod({namespace, name: 'ready', labels: {app: 'db'}, nodeName: node, ip: '10.244.3.1', ready: true})
    await createPod({namespace, name: 'unready', labels: {app: 'db'}, nodeName: node, ip: '10.244.3.2', ready: false})
    await createPod({namespace, name: 'leaving', labels: {app: 'db'}, nodeName: node, ip: '10.244.3.3', ready: true, terminating: true})
    await createService({namespace, name: 'db', selector: {app: 'db'}})
    await waitForReconciled({
      namespace,
      service: 'db',
      expectedEndpoints: [
        {ip: '10.244.3.1', ready: true, serving: true, terminating: false},
        {ip: '10.244.3.2', ready: false, serving: false, terminating: false},
        {ip: '10.244.3.3', ready: false, serving: true, terminating: true},
      ],
    })
  })

  it('the readonly context can list EndpointSlices but not patch Services', async () => {
    const namespace = await createNamespace('rbac')
    await createPod({namespace, name: 'p', labels: {app: 'x'}, nodeName: NODES[0]!.name, ip: '10.244.4.1', ready: true})
    await createService({namespace, name: 'x', selector: {app: 'x'}})
    await waitForReconciled({namespace, service: 'x', expectedEndpoints: [{ip: '10.244.4.1', ready: true}]})

    const readonly = cluster('readonly')
    const slices = await readonly.discovery.listNamespacedEndpointSlice({namespace})
    expect(slices.items.length).toBeGreaterThan(0)

    const patch = readonly.core.patchNamespacedService(
      {name: 'x', namespace, body: {metadata: {labels: {touched: 'yes'}}}},
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )
    const err = await patch.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(statusOf(err)).toBe(403)
  })
})
