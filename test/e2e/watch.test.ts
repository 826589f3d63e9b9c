// `kubectl topology watch` end to end: the built CLI as a child process without a terminal
// (one line per change), against the real API server and EndpointSlice controller, through
// a streaming proxy that also injects faults: a 410 Gone on a watch request, a 503 (back-off),
// a watch cut by the server followed by an ERROR 410 event. Changes are driven with real
// objects: a Pod deleted, an unlabeled Node added. Every wait is bounded.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {cluster, createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, waitForReconciled} from './fixtures.js'
import {status, StreamProxy} from './streamproxy.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
let ns: string
let proxy: StreamProxy
let child: ChildProcessWithoutNullStreams | undefined
let stdout = ''
let stderr = ''

async function waitFor(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`)
    if (child?.exitCode !== null && child?.exitCode !== undefined)
      throw new Error(`watch exited (${child.exitCode}) while waiting for ${what}\n--- stdout:\n${stdout}\n--- stderr:\n${stderr}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
const line = (re: RegExp) => () => stdout.split('\n').some((l) => re.test(l))

beforeAll(async () => {
  kubeConfig('admin') // refuses anything but a loopback server
  await deleteAllNodes()
  for (const z of ZONES) await createNode({name: `${z}-node`, zone: z, cpu: 4})
  ns = await createNamespace('watch')
  const expectedEndpoints = []
  for (const [zi, z] of ZONES.entries()) {
    for (let i = 0; i < 3; i++) {
      const ip = `10.245.${zi}.${i + 10}`
      await createPod({namespace: ns, name: `web-${z}-${i}`, labels: {app: 'web'}, nodeName: `${z}-node`, ip, ready: true})
      expectedEndpoints.push({ip, ready: true})
    }
  }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints, until: (r) => r.endpoints.every((e) => e.hints?.forZones?.length)})
  proxy = await StreamProxy.start()
})

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL')
  await proxy?.close()
})

describe('watch svc/NAME without a terminal', () => {
  it('prints the state, then one line per change, survives 410 Gone and a 503, and exits 130 on SIGTERM', async () => {
    let sliceWatches = 0
    let nodeWatches = 0
    let serviceWatches = 0
    proxy.hook = (r) => {
      if (!r.watch) return undefined
      if (r.url.includes('/endpointslices') && ++sliceWatches === 1) return {status: 410, body: status(410, 'Expired', 'too old resource version')}
      if (r.url.includes('/api/v1/nodes') && ++nodeWatches === 1) return {status: 503, body: status(503, 'ServiceUnavailable', 'try again')}
      if (r.url.includes('/services') && ++serviceWatches === 2) {
        return {status: 200, body: `${JSON.stringify({type: 'ERROR', object: JSON.parse(status(410, 'Expired', 'too old resource version: 1 (2)'))})}\n`}
      }
      return undefined
    }
    child = spawn(process.execPath, [BIN, 'watch', 'svc/web', '-n', ns, '--context', 'admin'], {
      cwd: ROOT,
      env: {...process.env, KUBECONFIG: proxy.kubeconfig, NO_COLOR: '1'},
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))

    // The initial state: hints set with 9 endpoints, and the cliff at 8.
    await waitFor('the initial summary', line(new RegExp(`Service ${ns}/web \\(IPv4\\): topology-mode Auto: hints set: 9 ready endpoints, 3 zones with counted nodes$`)))
    // (It may arrive in the next chunk of the pipe.)
    await waitFor('the cliff at 8', () =>
      stdout.includes(
        'cliff: 8 ready endpoints (one fewer) and the controller drops the hints: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (8 endpoints, 3 zones)',
      ),
    )
    // No terminal: no ink, no cursor movement.
    expect(stdout).not.toMatch(/\x1b\[/)

    // The injected 410 made the EndpointSlice reflector list again; the 503 made the node watch back off.
    const sliceLists = () => proxy.count((r) => !r.watch && r.url.includes('/endpointslices'))
    await waitFor('a second EndpointSlice list after 410 Gone', () => sliceLists() >= 2)
    await waitFor('the node watch to retry after the 503', () => nodeWatches >= 2)
    // The note is written before the retry, but it comes through a pipe, the retry through a
    // socket: wait for it rather than expect it at this instant.
    // The delay is client-go's reflector back-off (0.8 s doubling, jittered: docs/design.md).
    await waitFor('the reconnect note on stderr', () => /nodes: reconnecting in \d+(\.\d+)?m?s \(HTTP 503/.test(stderr))

    // One endpoint fewer: the controller refuses, and says so in an Event.
    await cluster().core.deleteNamespacedPod({name: 'web-zone-c-2', namespace: ns, gracePeriodSeconds: 0})
    await waitFor('zone-c losing an endpoint', line(/\dZ  zone-c: ready endpoints 3 -> 2$/))
    await waitFor(
      'hints dropped',
      line(
        /\dZ  hints dropped: TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold \(8 endpoints, 3 zones\), addressType: IPv4$/,
      ),
    )
    await waitFor(
      'the controller event',
      line(
        /\dZ  event Warning TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold \(8 endpoints, 3 zones\), addressType: IPv4/,
      ),
    )
    await waitFor('the controller removing the live hints', line(/\dZ  zone-c: live hints \d -> 0$/))

    // An unlabeled node: disables hints for every Service.
    await createNode({name: 'unlabeled-node', cpu: 4})
    // The fixture creates the Node with its status in one request; should the server drop the
    // status on create, it writes it in a second one, and the watch sees the Node added as not
    // Ready first, then changed: both are accepted.
    await waitFor(
      'the unlabeled node',
      line(/\dZ  node unlabeled-node( added \(no zone label: disables hints for every Service\)|: ignored: not Ready -> no zone label: disables hints for every Service)$/),
    )
    await waitFor('the new reason', line(/\dZ  hints still refused: Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4$/))

    // The server closes the Service watch; the next watch answers with an ERROR 410 event: re-list.
    const serviceLists = () => proxy.count((r) => !r.watch && r.url.includes('/services'))
    const before = serviceLists()
    await waitFor('an open Service watch', () => proxy.cutWatches(/\/services\?/) > 0)
    await waitFor('a Service re-list after the ERROR 410 event', () => serviceLists() > before)
    await waitFor('the re-list note on stderr', () => /services: re-listing \(410 Gone/.test(stderr))

    // Still watching after all that: the label fixes the node.
    await cluster().core.patchNode({name: 'unlabeled-node', body: [{op: 'add', path: '/metadata/labels/topology.kubernetes.io~1zone', value: 'zone-c'}]})
    await waitFor('the node getting its zone', line(/node unlabeled-node: no zone label: disables hints for every Service -> zone zone-c, counted, 4000m CPU$/))

    child.kill('SIGTERM')
    await waitFor('exit', () => child!.exitCode !== null || child!.signalCode !== null).catch(() => {})
    await new Promise((r) => (child!.exitCode !== null ? r(null) : child!.once('exit', r)))
    expect(child.exitCode).toBe(130)
    expect(stderr).not.toMatch(/error:|at .*\.js:\d+/)
  })

  it('a Service that does not exist: exit 4 with a suggestion', async () => {
    const r = await new Promise<{code: number | null; stderr: string}>((resolve, reject) => {
      const c = spawn(process.execPath, [BIN, 'watch', 'svc/wbe', '-n', ns, '--context', 'admin'], {cwd: ROOT, env: {...process.env, KUBECONFIG: proxy.kubeconfig}})
      let err = ''
      c.stderr.on('data', (d: Buffer) => (err += d.toString()))
      const t = setTimeout(() => (c.kill('SIGKILL'), reject(new Error(`timed out: ${err}`))), 60_000)
      c.on('exit', (code) => (clearTimeout(t), resolve({code, stderr: err})))
    })
    expect(r.code).toBe(4)
    expect(r.stderr.trim()).toBe(`error: services "wbe" not found in namespace "${ns}" (did you mean "web"?)`)
  })
})
