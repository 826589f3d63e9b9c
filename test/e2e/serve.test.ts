// `kubectl topology serve` end to end: the built CLI against the real API server and
// EndpointSlice controller, scraped by a real Prometheus (test/e2e/prometheus.ts) that loads
// deploy/prometheus/rules.yaml with every `for:` shortened to 3 s (a test copy: the real
// durations are minutes). A Service with topology-mode Auto loses its hints when scaled to a
// count Auto refuses: the metric changes, the alert fires in Prometheus (ALERTS and
// /api/v1/alerts), and clears when the count is accepted again; a deleted Service leaves
// /metrics. Every query of the Grafana dashboard (deploy/grafana/) is evaluated in that Prometheus,
// healthy and with the hints lost. Every wait is bounded.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {cluster, createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, waitForReconciled} from './fixtures.js'
import {startPrometheus, type Prometheus} from './prometheus.js'
import {panelQueries, readDashboard, substitute} from '../fixtures/dashboard.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
let ns: string
let serve: ChildProcessWithoutNullStreams | undefined
let stderr = ''
let address = ''
let prom: Prometheus | undefined
const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-serve-'))

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    if (serve && serve.exitCode !== null) throw new Error(`serve exited (${serve.exitCode}) while waiting for ${what}\n--- stderr:\n${stderr}`)
    try {
      const v = await probe()
      if (v !== null && v !== undefined && v !== false) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last})` : ''}\n--- serve stderr:\n${stderr}\n--- prometheus:\n${prom?.log() ?? ''}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const metrics = async () => (await fetch(`http://${address}/metrics`, {signal: AbortSignal.timeout(5000)})).text()
const sample = (body: string, name: string, labels: string) => {
  const line = body.split('\n').find((l) => l.startsWith(`${name}{${labels}}`))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
}
/**
 * Every query of deploy/grafana/kubectl-topology.json, with the dashboard's variables set as a
 * user looking at the test namespace would set them, evaluated by the real Prometheus (an
 * instant query: an error throws). Returns the panels' queries (title, refId) that had no data.
 */
async function evaluateDashboard(): Promise<string[]> {
  const values = {cluster: '.*', namespace: ns, service: '.*', job: 'kubectl-topology'}
  const empty: string[] = []
  for (const q of panelQueries()) {
    const result = await prom!.query(substitute(q.expr, values))
    if (result.length === 0) empty.push(`${q.panel} ${q.refId}`)
  }
  return empty
}
const pod = (z: string, i: number) => ({name: `web-${z}-${i}`, ip: `10.246.${ZONES.indexOf(z)}.${i + 10}`})

beforeAll(async () => {
  kubeConfig('admin') // refuses anything but a loopback server
  await deleteAllNodes()
  for (const z of ZONES) await createNode({name: `${z}-node`, zone: z, cpu: 4})
  ns = await createNamespace('serve')
  const expectedEndpoints = []
  for (const z of ZONES) {
    for (let i = 0; i < 3; i++) {
      const p = pod(z, i)
      await createPod({namespace: ns, name: p.name, labels: {app: 'web'}, nodeName: `${z}-node`, ip: p.ip, ready: true})
      expectedEndpoints.push({ip: p.ip, ready: true})
    }
  }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
  await createService({namespace: ns, name: 'gone', selector: {app: 'web'}})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints, until: (r) => r.endpoints.every((e) => e.hints?.forZones?.length)})
})

afterAll(async () => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL')
  await prom?.stop()
  rmSync(tmp, {recursive: true, force: true})
})

describe('serve with a real Prometheus', () => {
  it('exports the hints, fires TopologyHintsDisabled when Auto refuses the count, and clears it when fixed', async () => {
    serve = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0'], {cwd: ROOT, env: {...process.env, NO_COLOR: '1'}})
    serve.stdout.on('data', () => {})
    serve.stderr.on('data', (d) => (stderr += d))
    address = await waitFor('the serving line', async () => /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1])
    await waitFor('/readyz 200', async () => (await fetch(`http://${address}/readyz`)).status === 200)
    expect((await fetch(`http://${address}/healthz`)).status).toBe(200)

    const svc = `namespace="${ns}",service="web",address_type="IPv4"`
    let body = await metrics()
    expect(sample(body, 'kubectl_topology_service_hints_live', svc)).toBe(1)
    expect(sample(body, 'kubectl_topology_service_hints_requested', svc)).toBe(1)
    expect(sample(body, 'kubectl_topology_service_controller_reason_info', `${svc},reason="TopologyAwareHintsEnabled"`)).toBe(1)
    expect(sample(body, 'kubectl_topology_zone_ready_endpoints', `${svc},zone="zone-c"`)).toBe(3)
    expect(sample(body, 'kubectl_topology_counted_nodes', 'zone="zone-b"')).toBe(1)
    expect(sample(body, 'kubectl_topology_source_up', '')).toBeUndefined() // no labels: no braces
    expect(body).toMatch(/^kubectl_topology_source_up 1$/m)

    // The rules with short `for:` (the real ones wait minutes).
    const rules = readFileSync(path.join(ROOT, 'deploy/prometheus/rules.yaml'), 'utf8').replace(/for: \d+m/g, 'for: 3s')
    writeFileSync(path.join(tmp, 'rules.yaml'), rules)
    prom = await startPrometheus({targets: [address], ruleFiles: [path.join(tmp, 'rules.yaml')]})
    await waitFor('Prometheus to scrape the hints', async () => (await prom!.query(`kubectl_topology_service_hints_live{namespace="${ns}",service="web"} == 1`)).length === 1)
    // OpenMetrics was negotiated: the scrape worked and counters keep their _total name in PromQL.
    expect((await prom.query(`kubectl_topology_source_watch_restarts_total{resource="nodes"}`)).length).toBe(1)

    // The dashboard's variables list what this Prometheus holds (one context: no cluster label,
    // so "All", `.*`, is what a user gets), and every panel query evaluates without error.
    const dashboard = readDashboard()
    const variable = (name: string) => (dashboard.templating.list.find((v) => v.name === name)!.query as {query: string}).query
    const labelValues = async (name: string) => {
      const [, selector, label] = /^label_values\((.+), (\w+)\)$/.exec(variable(name))!
      return prom!.labelValues(label!, substitute(selector!, {cluster: '.*', namespace: ns, job: 'kubectl-topology'}))
    }
    expect(await labelValues('job')).toEqual(['kubectl-topology'])
    expect(await labelValues('cluster')).toEqual([])
    expect(await labelValues('namespace')).toContain(ns)
    expect(await labelValues('service')).toEqual(['gone', 'web'])
    // Healthy: no Service has lost its hints; the per-interval increases may lack their second sample yet.
    const emptyHealthy = await evaluateDashboard()
    expect(emptyHealthy).toEqual(expect.arrayContaining(['Hints lost per Service A', "Why: the controller's reason A"]))
    expect(emptyHealthy.filter((e) => !e.startsWith('Hints lost') && !e.startsWith('Why:') && !/^(Watch restarts and re-lists|Source errors) /.test(e))).toEqual([])

    // Scale to 2 ready endpoints over 3 zones: Auto refuses, the controller removes the hints.
    const c = cluster()
    const keep = new Set([pod('zone-a', 0).name, pod('zone-b', 0).name])
    for (const z of ZONES) for (let i = 0; i < 3; i++) if (!keep.has(pod(z, i).name)) await c.core.deleteNamespacedPod({namespace: ns, name: pod(z, i).name, gracePeriodSeconds: 0})
    // (Auto refuses 4 or 5 too: the hints may go before the last Pod does.)
    body = await waitFor('2 ready endpoints and hints_live 0 in /metrics', async () => {
      const b = await metrics()
      return sample(b, 'kubectl_topology_service_hints_live', svc) === 0 && sample(b, 'kubectl_topology_service_ready_endpoints', svc) === 2 ? b : null
    })
    expect(sample(body, 'kubectl_topology_service_hints_predicted', svc)).toBe(0)
    expect(sample(body, 'kubectl_topology_service_controller_reason_info', `${svc},reason="InsufficientNumberOfEndpoints"`)).toBe(1)
    expect(sample(body, 'kubectl_topology_service_accepted_endpoints_distance', svc)).toBe(1)
    // The zone without endpoints stays, at 0.
    expect(sample(body, 'kubectl_topology_zone_ready_endpoints', `${svc},zone="zone-c"`)).toBe(0)

    const firing = `ALERTS{alertname="TopologyHintsDisabled",alertstate="firing",namespace="${ns}",service="web"}`
    await waitFor('TopologyHintsDisabled firing in ALERTS', async () => (await prom!.query(firing)).length === 1)
    const alerts = await prom.alerts()
    expect(alerts.filter((a) => a.labels.alertname === 'TopologyHintsDisabled' && a.labels.namespace === ns).map((a) => [a.labels.service, a.state])).toEqual([['web', 'firing']])

    // The dashboard now: the panel of hints lost names the Service, and every other panel has data.
    // (The zones' expected overload is absent while no hints are predicted: it had data above.)
    expect(await evaluateDashboard()).toEqual(['Expected overload per zone (predicted hints) A'])
    const lost = panelQueries().find((q) => q.panel === 'Hints lost per Service')!
    const lostNow = await prom.query(substitute(lost.expr, {cluster: '.*', namespace: ns, service: '.*'}))
    expect(lostNow.map((r) => [r.metric.namespace, r.metric.service, r.metric.address_type, r.value[1]])).toEqual([[ns, 'web', 'IPv4', '1']])

    // Back to 3 ready endpoints per zone: hints again, the alert clears.
    for (const z of ZONES)
      for (let i = 0; i < 3; i++) {
        const p = pod(z, i)
        if (!keep.has(p.name)) await createPod({namespace: ns, name: p.name, labels: {app: 'web'}, nodeName: `${z}-node`, ip: p.ip, ready: true})
      }
    await waitFor('hints_live 1 in /metrics', async () => sample(await metrics(), 'kubectl_topology_service_hints_live', svc) === 1)
    await waitFor('TopologyHintsDisabled cleared', async () => {
      const left = (await prom!.alerts()).filter((a) => a.labels.alertname === 'TopologyHintsDisabled' && a.labels.namespace === ns)
      return left.length === 0 && (await prom!.query(`ALERTS{alertname="TopologyHintsDisabled",namespace="${ns}"}`)).length === 0
    })

    // A deleted Service leaves /metrics.
    await c.core.deleteNamespacedService({namespace: ns, name: 'gone'})
    await waitFor('the deleted Service gone from /metrics', async () => !(await metrics()).includes(`namespace="${ns}",service="gone"`))

    const exited = new Promise<number | null>((r) => serve!.once('exit', (code) => r(code)))
    serve.kill('SIGTERM')
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 15 s'), 15_000))])
    expect(code).toBe(130)
  })
})
