// The fleet pattern of docs/serve.md on two real control planes: the test's own ("east") and a
// second instance started here with scripts/cluster.mjs ("west", CLUSTER_INSTANCE=<this
// instance>2, stopped in afterAll unless it was already up). One serve per cluster, scraped by
// one real Prometheus with a `cluster` target label each (job kubectl-topology), and one serve
// with both contexts (`--context east --context west`, cluster label from serve; job
// kubectl-topology-multi). In each cluster one Service is made to lose its hints (a Pod of
// three goes: topology-mode Auto refuses 2 endpoints over 3 zones) and another keeps them; the
// query "which Services in which clusters have no hints now", evaluated by Prometheus's HTTP API,
// answers exactly those two, from both jobs.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {Cluster, kubeConfig} from './fixtures.js'
import {startPrometheus, type Prometheus} from './prometheus.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const SECOND = `${process.env.CLUSTER_INSTANCE || 'run'}2`
const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-serve-fleet-'))
const serves: {name: string; child: ChildProcessWithoutNullStreams; stderr: string; address?: string}[] = []
let prom: Prometheus | undefined
let startedSecond = false
let westKubeconfig = ''
const clusters: Record<'east' | 'west', {c: Cluster; ns: string; loses: string; keeps: string}> = {} as never

/** node scripts/cluster.mjs ARGS for the second instance; resolves with stdout and stderr. */
function harness(args: string[]): Promise<{stdout: string; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'scripts/cluster.mjs'), ...args], {
      cwd: ROOT,
      env: {...process.env, CLUSTER_INSTANCE: SECOND},
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    const t = setTimeout(() => child.kill('SIGKILL'), 240_000)
    child.on('exit', (code) => {
      clearTimeout(t)
      if (code === 0) resolve({stdout, stderr})
      else reject(new Error(`CLUSTER_INSTANCE=${SECOND} cluster.mjs ${args.join(' ')} exited ${code}:\n${stderr}`))
    })
  })
}

/** A fixtures Cluster for another kubeconfig (fixtures read $KUBECONFIG when constructed). */
function clusterOf(kubeconfig: string): Cluster {
  const saved = process.env.KUBECONFIG
  process.env.KUBECONFIG = kubeconfig
  try {
    return new Cluster('admin')
  } finally {
    process.env.KUBECONFIG = saved
  }
}

/** Nodes in three zones; `keeps` and `loses` (topology-mode Auto), one ready Pod per zone each. */
async function populate(c: Cluster, loses: string, keeps: string): Promise<string> {
  await c.deleteAllNodes()
  for (const z of ZONES) await c.createNode({name: `${z}-node`, zone: z, cpu: 4})
  const ns = await c.createNamespace('fleet')
  for (const [si, svc] of [keeps, loses].entries()) {
    const expectedEndpoints = []
    for (const [zi, z] of ZONES.entries()) {
      const ip = `10.244.${si}.${zi + 10}`
      await c.createPod({namespace: ns, name: `${svc}-${z}`, labels: {app: svc}, nodeName: `${z}-node`, ip, ready: true})
      expectedEndpoints.push({ip, ready: true})
    }
    await c.createService({namespace: ns, name: svc, selector: {app: svc}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
    await c.waitForReconciled({namespace: ns, service: svc, expectedEndpoints, until: (r) => r.endpoints.every((e) => e.hints?.forZones?.length)})
  }
  return ns
}

function startServe(name: string, kubeconfig: string, contexts: string[]) {
  const child = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0', ...contexts.flatMap((c) => ['--context', c])], {
    cwd: ROOT,
    env: {...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1'},
  })
  const s: (typeof serves)[number] = {name, child, stderr: ''}
  child.stdout.on('data', () => {})
  child.stderr.on('data', (d) => (s.stderr += d))
  serves.push(s)
  return s
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    for (const s of serves) if (s.child.exitCode !== null) throw new Error(`serve ${s.name} exited (${s.child.exitCode}) while waiting for ${what}\n${s.stderr}`)
    const v = await probe().catch(() => null)
    if (v !== null && v !== undefined && v !== false) return v
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n${serves.map((s) => `--- serve ${s.name}:\n${s.stderr}`).join('\n')}\n--- prometheus:\n${prom?.log() ?? ''}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

beforeAll(async () => {
  kubeConfig('admin') // the test's own control plane, loopback only
  const up = await harness(['up'])
  startedSecond = !/already up/.test(up.stderr)
  westKubeconfig = /^export KUBECONFIG=(.+)$/m.exec((await harness(['env'])).stdout)![1]!
  const east = clusterOf(process.env.KUBECONFIG!)
  const west = clusterOf(westKubeconfig)
  clusters.east = {c: east, ns: await populate(east, 'checkout', 'cart'), loses: 'checkout', keeps: 'cart'}
  clusters.west = {c: west, ns: await populate(west, 'cart', 'checkout'), loses: 'cart', keeps: 'checkout'}
}, 300_000)

afterAll(async () => {
  for (const s of serves) if (s.child.exitCode === null) s.child.kill('SIGKILL')
  await prom?.stop()
  if (startedSecond) await harness(['down']).catch(() => {})
  rmSync(tmp, {recursive: true, force: true})
})

describe('the fleet: two control planes, a serve each and one with both contexts, one Prometheus', () => {
  it('answers "which Services in which clusters have no hints now" through Prometheus', async () => {
    // One kubeconfig with both clusters: contexts east and west (the two files name their
    // cluster and user alike, so they are renamed).
    const doc = (file: string) => JSON.parse(readFileSync(file, 'utf8'))
    const [e, w] = [doc(process.env.KUBECONFIG!), doc(westKubeconfig)]
    const pick = (cfg: {clusters: {cluster: unknown}[]; users: {name: string; user: unknown}[]}, name: string) => ({
      cluster: {name, cluster: cfg.clusters[0]!.cluster},
      user: {name, user: cfg.users.find((u) => u.name === 'admin')!.user},
      context: {name, context: {cluster: name, user: name}},
    })
    const both = [pick(e, 'east'), pick(w, 'west')]
    const fleetKubeconfig = path.join(tmp, 'fleet-kubeconfig')
    writeFileSync(
      fleetKubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'east',
        clusters: both.map((b) => b.cluster),
        users: both.map((b) => b.user),
        contexts: both.map((b) => b.context),
      }),
    )
    const eastServe = startServe('east', process.env.KUBECONFIG!, [])
    const westServe = startServe('west', westKubeconfig, [])
    const multi = startServe('multi', fleetKubeconfig, ['east', 'west'])
    for (const s of [eastServe, westServe, multi]) {
      s.address = await waitFor(`${s.name}: the serving line`, async () => /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(s.stderr)?.[1])
      await waitFor(`${s.name}: /readyz 200`, async () => (await fetch(`http://${s.address}/readyz`)).status === 200)
    }
    prom = await startPrometheus({
      targets: [],
      jobs: [
        {
          name: 'kubectl-topology',
          groups: [
            {targets: [eastServe.address!], labels: {cluster: 'east'}},
            {targets: [westServe.address!], labels: {cluster: 'west'}},
          ],
        },
        {name: 'kubectl-topology-multi', groups: [{targets: [multi.address!]}]},
      ],
    })
    const namespaces = `namespace=~"${clusters.east.ns}|${clusters.west.ns}"`
    // docs/serve.md's query, per job, restricted to this test's namespaces.
    const noHints = `kubectl_topology_service_hints_requested{${namespaces}} == 1 and kubectl_topology_service_hints_live == 0`
    const answer = async (q: string) => (await prom!.query(q)).map((r) => [r.metric.job, r.metric.cluster, r.metric.namespace, r.metric.service].join(' ')).sort()
    // Everything has hints: the query answers nothing, though all four Services are scraped by both jobs.
    await waitFor('both jobs scraping the four Services', async () => (await prom!.query(`kubectl_topology_service_hints_live{${namespaces}} == 1`)).length === 8)
    expect(await answer(noHints)).toEqual([])
    // The cluster label reached every series of both jobs.
    expect(await prom.query(`count by (job) (kubectl_topology_source_up) unless count by (job) (kubectl_topology_source_up{cluster=~"east|west"})`)).toEqual([])

    // In each cluster one Service loses its hints: one of its three Pods goes.
    for (const k of ['east', 'west'] as const) {
      const {c, ns, loses} = clusters[k]
      await c.core.deleteNamespacedPod({namespace: ns, name: `${loses}-zone-c`, gracePeriodSeconds: 0})
    }
    const expected = (job: string) => [`${job} east ${clusters.east.ns} checkout`, `${job} west ${clusters.west.ns} cart`]
    await waitFor('the query to answer one Service per cluster from both jobs', async () => (await answer(noHints)).length === 4)
    expect(await answer(noHints)).toEqual([...expected('kubectl-topology'), ...expected('kubectl-topology-multi')].sort())
    // The fleet-wide answer, whichever way each cluster is scraped: one series per cluster and Service.
    const fleet = `count by (cluster, namespace, service) (${noHints})`
    expect((await prom.query(fleet)).map((r) => [r.metric.cluster, r.metric.namespace, r.metric.service].join(' ')).sort()).toEqual([
      `east ${clusters.east.ns} checkout`,
      `west ${clusters.west.ns} cart`,
    ])
    // The Services that kept their hints still have them, in both clusters and both jobs.
    expect((await prom.query(`kubectl_topology_service_hints_live{${namespaces}} == 1`)).map((r) => `${r.metric.job} ${r.metric.cluster} ${r.metric.service}`).sort()).toEqual(
      ['kubectl-topology east cart', 'kubectl-topology west checkout', 'kubectl-topology-multi east cart', 'kubectl-topology-multi west checkout'].sort(),
    )

    for (const s of serves) {
      const exited = new Promise<number | null>((r) => s.child.once('exit', (code) => r(code)))
      s.child.kill('SIGTERM')
      expect(await exited, s.name).toBe(130)
    }
  })
})
