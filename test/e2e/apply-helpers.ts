// Shared setup for the apply/reset end-to-end tests: Nodes in three zones, a Service with
// Pods (the controller's slices), a selector-less Service with hand-made EndpointSlices, whole
// object reads for before/after comparisons, and a per-test journal directory.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {PatchStrategy, setHeaderOptions} from '@kubernetes/client-node'
import {LABEL_MANAGED_BY, LABEL_SERVICE_NAME, type EndpointSlice, type Service} from '../../src/upstream/api/types.js'
import {cluster, createNode, createPod, createService, deleteAllNodes, plain, waitForReconciled, type ExpectedEndpoint} from './fixtures.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const NODES = ZONES.flatMap((zone) => [1, 2].map((i) => ({name: `${zone}-node-${i}`, zone})))
export const IMPORTER = 'importer.e2e.example'
export const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch)

export async function setupNodes(): Promise<void> {
  await deleteAllNodes()
  for (const n of NODES) await createNode({name: n.name, zone: n.zone, cpu: 4})
}

/** A Service with a selector and one ready Pod per Node; waits for the controller's slice. */
export async function serviceWithPods(
  namespace: string,
  name: string,
  net: number,
  extra: {annotations?: Record<string, string>; trafficDistribution?: string} = {},
): Promise<ExpectedEndpoint[]> {
  const expected: ExpectedEndpoint[] = []
  for (const [i, node] of NODES.entries()) {
    const ip = `10.${100 + net}.0.${i + 10}`
    await createPod({namespace, name: `${name}-${i}`, labels: {app: name}, nodeName: node.name, ip, ready: true})
    expected.push({ip, ready: true})
  }
  await createService({namespace, name, selector: {app: name}, ...extra})
  await waitForReconciled({namespace, service: name, expectedEndpoints: expected})
  return expected
}

/**
 * A selector-less Service with three hand-made EndpointSlices (one per zone, two endpoints
 * each: on the zone's two nodes), managed by someone else than the controller.
 */
export async function serviceWithOwnSlices(namespace: string, name: string, opts: {zoneOverride?: string} = {}): Promise<string[]> {
  await createService({namespace, name})
  const names: string[] = []
  for (const [z, zone] of ZONES.entries()) {
    const sliceName = `${name}-${zone}`
    names.push(sliceName)
    const eps = [1, 2].map((i) => ({
      addresses: [`10.200.${z}.${i}`],
      conditions: {ready: true, serving: true, terminating: false},
      nodeName: `${zone}-node-${i}`,
      zone: opts.zoneOverride && z === 1 ? opts.zoneOverride : zone,
    }))
    await cluster().discovery.createNamespacedEndpointSlice({
      namespace,
      body: {
        metadata: {name: sliceName, labels: {[LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: IMPORTER, team: 'e2e'}, annotations: {'example.com/note': 'hand-made'}},
        addressType: 'IPv4',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: eps,
      },
    })
  }
  return names
}

/** A whole object as the API server returns it, without the fields every write changes. */
export function comparable<T>(obj: T): T {
  const o = structuredClone(obj) as {metadata?: Record<string, unknown>}
  if (o.metadata) {
    delete o.metadata.resourceVersion
    delete o.metadata.generation
    delete o.metadata.managedFields
  }
  return o as T
}

export async function getService(namespace: string, name: string): Promise<Service & {metadata: {managedFields?: unknown[]}}> {
  return plain(await cluster().core.readNamespacedService({name, namespace}))
}

export async function getSlice(namespace: string, name: string): Promise<EndpointSlice> {
  return plain(await cluster().discovery.readNamespacedEndpointSlice({name, namespace}))
}

export async function getSlices(namespace: string, names: string[]): Promise<EndpointSlice[]> {
  return Promise.all(names.map((n) => getSlice(namespace, n)))
}

/** Removes every endpoint's hints (what the slices looked like before apply). */
export function withoutHints(s: EndpointSlice): EndpointSlice {
  const c = structuredClone(s)
  for (const e of c.endpoints ?? []) delete e.hints
  return c
}

/** A fresh, empty $XDG_STATE_HOME for the journal. */
export function stateHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kt-state-'))
}

export function journalFiles(home: string): string[] {
  const root = path.join(home, 'kubectl-topology', 'journal')
  if (!fs.existsSync(root)) return []
  return (fs.readdirSync(root, {recursive: true}) as string[]).filter((f) => f.endsWith('.json')).map((f) => path.join(root, f))
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
