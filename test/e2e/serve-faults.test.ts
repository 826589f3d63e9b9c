// serve under API faults, through a streaming proxy in front of the real API server
// (test/e2e/streamproxy.ts): the Service resource answered with 401 Unauthorized (as with an
// expired token) and 503 for a while, a watch answered with 410 Gone. serve marks its figures
// stale (source_up 0, errors counted) and keeps serving them, recovers by itself when the
// server answers again, re-lists on 410, and never keeps a Service deleted meanwhile.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {cluster, createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, waitForReconciled} from './fixtures.js'
import {serveProbe, seriesValue} from './serve-probe.js'
import {status, StreamProxy} from './streamproxy.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
let ns: string
let proxy: StreamProxy
let serve: ChildProcessWithoutNullStreams | undefined
let stderr = ''
let address = ''

const {waitFor, metrics} = serveProbe({serve: () => serve, stderr: () => stderr, address: () => address})
const value = seriesValue

beforeAll(async () => {
  kubeConfig('admin')
  await deleteAllNodes()
  for (const z of ZONES) await createNode({name: `${z}-node`, zone: z, cpu: 4})
  ns = await createNamespace('serve-faults')
  const expectedEndpoints = []
  for (const [zi, z] of ZONES.entries()) {
    const ip = `10.248.${zi}.10`
    await createPod({namespace: ns, name: `web-${z}`, labels: {app: 'web'}, nodeName: `${z}-node`, ip, ready: true})
    expectedEndpoints.push({ip, ready: true})
  }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, trafficDistribution: 'PreferSameZone'})
  await createService({namespace: ns, name: 'gone', selector: {app: 'web'}})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints, until: (r) => r.endpoints.every((e) => e.hints?.forZones?.length)})
  proxy = await StreamProxy.start()
})

afterAll(async () => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL')
  await proxy?.close()
})

describe('serve under API faults', () => {
  it('marks its figures stale while the server refuses, recovers, re-lists on 410 and drops what was deleted meanwhile', async () => {
    serve = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', '--context', 'admin'], {
      cwd: ROOT,
      env: {...process.env, KUBECONFIG: proxy.kubeconfig, NO_COLOR: '1'},
    })
    serve.stdout.on('data', () => {})
    serve.stderr.on('data', (d) => (stderr += d))
    address = await waitFor('the serving line', async () => /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1])
    await waitFor('/readyz 200', async () => (await fetch(`http://${address}/readyz`)).status === 200)
    const web = `kubectl_topology_service_hints_live{namespace="${ns}",service="web",address_type="IPv4"}`
    const gone = `namespace="${ns}",service="gone"`
    let body = await metrics()
    expect(value(body, 'kubectl_topology_source_up')).toBe(1)
    expect(value(body, web)).toBe(1)
    expect(body).toContain(gone)

    // The Services resource refuses: 401 (an expired token), then 503; its open watch is cut.
    let refusals = 0
    proxy.hook = (r) => {
      if (!/\/api\/v1\/services/.test(r.url)) return undefined
      refusals++
      return refusals % 2 ? {status: 401, body: status(401, 'Unauthorized', 'Unauthorized')} : {status: 503, body: status(503, 'ServiceUnavailable', 'try again')}
    }
    await waitFor('an open Service watch to cut', async () => proxy.cutWatches(/\/api\/v1\/services/) > 0)
    body = await waitFor('source_up 0', async () => {
      const b = await metrics()
      return value(b, 'kubectl_topology_source_up') === 0 && (value(b, 'kubectl_topology_source_errors_total{resource="services"}') ?? 0) >= 2 ? b : null
    })
    // Stale, and still served.
    expect(value(body, web)).toBe(1)
    expect(stderr).toMatch(/services: reconnecting in .*HTTP 401/)
    // Deleted while serve cannot see it.
    await cluster().core.deleteNamespacedService({namespace: ns, name: 'gone'})

    // The server answers again: serve recovers by itself, and the deleted Service leaves.
    proxy.hook = undefined
    await waitFor('source_up 1 again', async () => value(await metrics(), 'kubectl_topology_source_up') === 1, 60_000)
    await waitFor('the Service deleted meanwhile gone', async () => !(await metrics()).includes(gone))
    expect(value(await metrics(), web)).toBe(1)

    // A 410 Gone on the next EndpointSlice watch: one more list.
    const relists = async () => value(await metrics(), 'kubectl_topology_source_relists_total{resource="endpointslices"}') ?? -1
    const before = await relists()
    let sent = false
    proxy.hook = (r) => {
      if (!r.watch || !r.url.includes('/endpointslices') || sent) return undefined
      sent = true
      return {status: 410, body: status(410, 'Expired', 'too old resource version')}
    }
    await waitFor('an open EndpointSlice watch to cut', async () => proxy.cutWatches(/\/endpointslices/) > 0)
    await waitFor('a re-list after 410 Gone', async () => (await relists()) === before + 1)
    proxy.hook = undefined
    await waitFor('source_up 1 after the re-list', async () => value(await metrics(), 'kubectl_topology_source_up') === 1)
    expect(value(await metrics(), web)).toBe(1)
    expect(stderr).not.toMatch(/error:|at .*\.js:\d+/)

    const exited = new Promise<number | null>((r) => serve!.once('exit', (code) => r(code)))
    serve.kill('SIGTERM')
    expect(await exited).toBe(130)
  })
})
