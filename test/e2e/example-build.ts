// Builds the example cluster (test/e2e/example-scenario.ts) on the live control plane and
// waits until the real EndpointSlice controller has reconciled every Service.
import {execFileSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'
import type {EndpointSlice} from '../../src/upstream/api/types.js'
import type {Cluster} from './fixtures.js'
import {DRIFT, NODES, SERVICES, podsFor} from './example-scenario.js'

const CLUSTER_SCRIPT = fileURLToPath(new URL('../../scripts/cluster.mjs', import.meta.url))

/** Pauses or resumes kube-controller-manager of this test's control-plane instance. */
export function controller(action: 'pause' | 'resume'): void {
  execFileSync(process.execPath, [CLUSTER_SCRIPT, `${action}-controller`], {stdio: 'inherit', env: process.env})
}

export async function buildExample(c: Cluster, namespace: string): Promise<void> {
  await c.deleteAllNodes()
  for (const n of NODES) await c.createNode(n)
  const pods = SERVICES.flatMap((s, i) => podsFor(s, i))
  await Promise.all(pods.map((p) => c.createPod({namespace, name: p.name, labels: {app: p.service}, nodeName: p.nodeName, ip: p.ip, ready: true})))
  // Services last: the controller's first sync of each sees every Pod.
  for (const s of SERVICES) {
    await c.createService({namespace, name: s.name, selector: {app: s.name}, annotations: s.annotations, trafficDistribution: s.trafficDistribution})
  }
  for (const s of SERVICES) {
    const expected = pods.filter((p) => p.service === s.name).map((p) => ({ip: p.ip, ready: true}))
    const auto = s.annotations?.['service.kubernetes.io/topology-mode'] === 'Auto' && !s.annotations['service.kubernetes.io/topology-aware-hints']
    await c.waitForReconciled({
      namespace,
      service: s.name,
      expectedEndpoints: expected,
      expectEvent: auto ? true : undefined,
      until: s.expect.hintsSet ? (r) => r.endpoints.every((e) => e.hints !== null) : undefined,
    })
  }
}

/**
 * With the controller paused, removes the hints of DRIFT.zone's endpoints of DRIFT.service
 * (a real write through the API). Returns the slices as written.
 */
export async function makeDrift(c: Cluster, namespace: string): Promise<EndpointSlice[]> {
  const slices = await c.listEndpointSlices(namespace, DRIFT.service)
  const out: EndpointSlice[] = []
  for (const slice of slices) {
    const endpoints = (slice.endpoints ?? []).map((e) => {
      if (e.zone !== DRIFT.zone) return e
      const {hints: _dropped, ...rest} = e
      return rest
    })
    const body = {...slice, endpoints}
    const written = await c.discovery.replaceNamespacedEndpointSlice({name: slice.metadata.name, namespace, body: body as never})
    out.push(written as unknown as EndpointSlice)
  }
  return out
}
