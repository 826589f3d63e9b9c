// serve with two kubeconfig contexts (--context repeated), scraped by a real Prometheus: every
// sample carries cluster="<context>", and the fleet query of docs/serve.md ("which Services in
// which clusters have no hints now") answers per cluster. Both contexts point at the one test
// control plane (a second context, "mirror", is added to a copy of the kubeconfig), so the
// answer is the same Service once per cluster label; two control planes are not tested yet.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, waitForReconciled} from './fixtures.js'
import {startPrometheus, type Prometheus} from './prometheus.js'

let ns: string
let serve: ChildProcessWithoutNullStreams | undefined
let prom: Prometheus | undefined
let stderr = ''
const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-serve-contexts-'))

beforeAll(async () => {
  kubeConfig('admin')
  await deleteAllNodes()
  for (const z of ['zone-a', 'zone-b', 'zone-c']) await createNode({name: `${z}-node`, zone: z, cpu: 4})
  ns = await createNamespace('serve-contexts')
  // Two ready endpoints over three zones: topology-mode Auto refuses, no hints.
  const expectedEndpoints = []
  for (const [i, z] of ['zone-a', 'zone-b'].entries()) {
    const ip = `10.249.${i}.10`
    await createPod({namespace: ns, name: `web-${z}`, labels: {app: 'web'}, nodeName: `${z}-node`, ip, ready: true})
    expectedEndpoints.push({ip, ready: true})
  }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints})
})

afterAll(async () => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL')
  await prom?.stop()
  rmSync(tmp, {recursive: true, force: true})
})

describe('serve --context A --context B', () => {
  it('labels every sample with its cluster, and the fleet query answers per cluster', async () => {
    const config = JSON.parse(readFileSync(process.env.KUBECONFIG!, 'utf8'))
    const admin = config.contexts.find((c: {name: string}) => c.name === 'admin')
    config.contexts.push({name: 'mirror', context: {...admin.context}})
    const kubeconfig = path.join(tmp, 'kubeconfig')
    writeFileSync(kubeconfig, JSON.stringify(config))
    serve = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', '--context', 'admin', '--context', 'mirror'], {
      cwd: ROOT,
      env: {...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1'},
    })
    serve.stdout.on('data', () => {})
    serve.stderr.on('data', (d) => (stderr += d))
    const deadline = Date.now() + 60_000
    let address: string | undefined
    for (;;) {
      if (serve.exitCode !== null) throw new Error(`serve exited ${serve.exitCode}:\n${stderr}`)
      if (Date.now() > deadline) throw new Error(`serve not ready in 60 s:\n${stderr}`)
      address ??= /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1]
      if (address && (await fetch(`http://${address}/readyz`)).status === 200) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const body = await (await fetch(`http://${address}/metrics`)).text()
    for (const cluster of ['admin', 'mirror']) {
      expect(body).toContain(`kubectl_topology_service_hints_live{cluster="${cluster}",namespace="${ns}",service="web",address_type="IPv4"} 0`)
      expect(body).toMatch(new RegExp(`^kubectl_topology_source_up\\{cluster="${cluster}"\\} 1$`, 'm'))
    }
    // Every sample line has a cluster label.
    expect(body.split('\n').filter((l) => l.startsWith('kubectl_topology_') && !l.includes('{cluster="'))).toEqual([])

    prom = await startPrometheus({targets: [address!]})
    const query = `kubectl_topology_service_hints_requested{namespace="${ns}"} == 1 and kubectl_topology_service_hints_live == 0`
    const deadline2 = Date.now() + 60_000
    let result: {metric: Record<string, string>}[] = []
    while (result.length < 2 && Date.now() < deadline2) {
      result = await prom.query(query).catch(() => [])
      if (result.length < 2) await new Promise((r) => setTimeout(r, 200))
    }
    expect(result.map((r) => [r.metric.cluster, r.metric.namespace, r.metric.service]).sort()).toEqual([
      ['admin', ns, 'web'],
      ['mirror', ns, 'web'],
    ])
  })
})
