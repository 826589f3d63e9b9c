// --traffic-from against a real Prometheus and the real control plane (issue 21, "Measured
// traffic"): a known zone-to-zone matrix of Grafana Beyla's flow metric is backfilled into the
// Prometheus TSDB with `promtool tsdb create-blocks-from openmetrics` before it starts, as a user's
// history would be; explain and plan read it with --traffic-preset beyla and the measured
// cross-zone share and overload equal the figures computed by hand below. Then the faults:
// Prometheus down, an error answer, and a Service with no measured traffic.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {createServer} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ExplainReport} from '../../src/explain/report.js'
import type {PlanReport} from '../../src/plan/plan.js'
import {BIN, ROOT} from '../cli/run-cli.js'
import {ApiProxy, runCliAsync} from './apiproxy.js'
import {serviceWithPods, setupNodes, stateHome} from './apply-helpers.js'
import {createDeployment, createNamespace} from './fixtures.js'
import {type Prometheus, startPrometheus} from './prometheus.js'

let proxy: ApiProxy
let prom: Prometheus
let ns: string
const run = (args: string[]) => runCliAsync([...args, '--context', 'admin'], {env: {KUBECONFIG: proxy.kubeconfig, XDG_STATE_HOME: stateHome()}, timeoutMs: 90_000})

/**
 * The synthetic matrix, bytes per second from clients in src_zone to endpoints of web in dst_zone:
 * zone-a -> zone-a 600, zone-a -> zone-b 200, zone-b -> zone-b 100, zone-c -> zone-c 100.
 * Plus flows the preset must leave out: to another workload (zone-a -> zone-c 5000) and to web in
 * another namespace (zone-b -> zone-a 7000).
 */
const MATRIX: [string, string, string, string, number][] = [
  ['NS', 'web', 'zone-a', 'zone-a', 600],
  ['NS', 'web', 'zone-a', 'zone-b', 200],
  ['NS', 'web', 'zone-b', 'zone-b', 100],
  ['NS', 'web', 'zone-c', 'zone-c', 100],
  ['NS', 'other', 'zone-a', 'zone-c', 5000],
  ['elsewhere', 'web', 'zone-b', 'zone-a', 7000],
]

/** Counters rising at those rates every 30 s over the last 50 minutes (to a minute ago), in OpenMetrics. */
function openMetrics(namespace: string): string {
  const now = Math.floor(Date.now() / 1000)
  const t0 = now - 50 * 60
  const lines = ['# HELP beyla_network_flow_bytes Bytes submitted from a source network endpoint to a destination network endpoint', '# TYPE beyla_network_flow_bytes counter']
  for (const [n, owner, src, dst, rate] of MATRIX) {
    const labels = `k8s_dst_namespace="${n === 'NS' ? namespace : n}",k8s_dst_owner_name="${owner}",k8s_dst_owner_type="Deployment",src_zone="${src}",dst_zone="${dst}"`
    for (let t = t0; t <= now - 60; t += 30) lines.push(`beyla_network_flow_bytes_total{${labels}} ${rate * (t - t0)} ${t}`)
  }
  lines.push('# EOF')
  return `${lines.join('\n')}\n`
}

beforeAll(async () => {
  await setupNodes() // zone-a, zone-b, zone-c: two nodes of 4 CPUs each
  proxy = await ApiProxy.start()
  ns = await createNamespace('traffic')
  // web: the Deployment behind the Service (the preset's k8s_dst_owner_name), one ready Pod per node
  // (two per zone), trafficDistribution PreferSameZone: every endpoint hinted for its own zone.
  await createDeployment({namespace: ns, name: 'web', replicas: 6, labels: {app: 'web'}})
  await serviceWithPods(ns, 'web', 71, {trafficDistribution: 'PreferSameZone'})
  // quiet: a Service with pods and a Deployment but no measured flows.
  await createDeployment({namespace: ns, name: 'quiet', replicas: 6, labels: {app: 'quiet'}})
  await serviceWithPods(ns, 'quiet', 72, {trafficDistribution: 'PreferSameZone'})
  prom = await startPrometheus({targets: [], openMetrics: openMetrics(ns)})
}, 180_000)
let serve: ChildProcessWithoutNullStreams | undefined
afterAll(async () => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL')
  await prom?.stop()
  await proxy?.close()
})

// By hand. Measured total 600 + 200 + 100 + 100 = 1000 B/s (the other flows are not web's in ns).
// Client mix: zone-a (600 + 200) / 1000 = 0.8, zone-b 0.1, zone-c 0.1.
// Measured cross-zone: only zone-a -> zone-b crossed: 200 / 1000 = 0.2.
// Predicted with the live hints (PreferSameZone, two ready endpoints in every zone): every zone's
// clients stay home, so 0 crosses; each zone-a endpoint takes 0.8 / 2 = 0.4 of the load, and with
// 6 ready endpoints an even share is 1/6: overload 0.4 x 6 - 1 = 1.4 (140%), in zone-a.
// Under the CPU assumption (equal CPU: 1/3 each) the same hints give 1/6 per endpoint: overload 0.
const MIX = {'zone-a': 0.8, 'zone-b': 0.1, 'zone-c': 0.1}
const CROSS = 200 / 1000
const OVERLOAD = (0.8 / 2) * 6 - 1

describe('--traffic-from a real Prometheus', () => {
  it('Prometheus holds the matrix as backfilled (the preset query, straight to its API)', async () => {
    const rows = await prom.query(`sum by (src_zone, dst_zone) (rate(beyla_network_flow_bytes_total{k8s_dst_namespace="${ns}", k8s_dst_owner_name=~"web"}[1h]))`)
    expect(rows).toHaveLength(4)
  })

  it("explain: the measured client mix is the model; measured cross-zone share and overload equal the hand's", async () => {
    const r = await run(['explain', 'svc/web', '-n', ns, '-o', 'json', '--traffic-from', prom.url, '--traffic-preset', 'beyla'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const s = (JSON.parse(r.stdout) as ExplainReport).services[0]!
    expect(s.traffic.model).toBe('measured')
    const m = s.traffic.measured!
    for (const [z, share] of Object.entries(MIX)) expect(m.clientMix[z]).toBeCloseTo(share, 9)
    expect(m.crossZoneShare).toBeCloseTo(CROSS, 9)
    expect(m.crossZoneSharePredicted).toBeCloseTo(0, 9)
    expect(m.matrix!.map((c) => [c.from, c.to])).toEqual([
      ['zone-a', 'zone-a'],
      ['zone-a', 'zone-b'],
      ['zone-b', 'zone-b'],
      ['zone-c', 'zone-c'],
    ])
    expect(m.query).toBe(`sum by (src_zone, dst_zone) (rate(beyla_network_flow_bytes_total{k8s_dst_namespace="${ns}", k8s_dst_owner_name=~"web", src_zone!="", dst_zone!=""}[1h]))`)
    expect(s.traffic.inZoneShareLive).toBeCloseTo(1, 9)
    expect(s.traffic.maxEndpointOverloadLive).toBeCloseTo(OVERLOAD, 9)
    expect(s.traffic.worstZoneLive).toBe('zone-a')
    // The advisor judged under the same mix: its "now" is explain's.
    expect(s.recommendation!.now.worstOverload).toBeCloseTo(OVERLOAD, 9)

    // The table says the same, next to each other.
    const t = await run(['explain', 'svc/web', '-n', ns, '--traffic-from', prom.url, '--traffic-preset', 'beyla'])
    expect(t.code).toBe(0)
    expect(t.stdout).toContain(`Measured:    20.0% crossed zones, 0.0% predicted with the live hints; clients zone-a 80%, zone-b 10%, zone-c 10% (${prom.url})`)
    expect(t.stdout).toContain('(client mix measured by --traffic-from)')

    // Without --traffic-from: the CPU assumption, no overload.
    const cpu = await run(['explain', 'svc/web', '-n', ns, '-o', 'json'])
    const c = (JSON.parse(cpu.stdout) as ExplainReport).services[0]!
    expect(c.traffic.model).toBe('zone-cpu')
    expect(c.traffic.maxEndpointOverloadLive).toBeCloseTo(0, 9)
  })

  it('plan: every figure under the measured mix, and the measured figures', async () => {
    const r = await run(['plan', 'svc/web', '-n', ns, '-o', 'json', '--traffic-from', prom.url, '--traffic-preset', 'beyla'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const p = (JSON.parse(r.stdout) as PlanReport).services[0]!
    expect(p.measured!.crossZoneShare).toBeCloseTo(CROSS, 9)
    expect(p.recommendation.now.worstOverload).toBeCloseTo(OVERLOAD, 9)
    // Today's count (6) under PreferSameZone, fresh hints: the same overload.
    const today = p.range.rows.find((row) => row.replicas === 6)!
    expect(today.modes.PreferSameZone!.maxOverload).toBeCloseTo(OVERLOAD, 9)
  })

  it('check: --max-overload fails on the measured overload (passes under the CPU assumption)', async () => {
    const r = await run(['check', 'svc/web', '-n', ns, '--max-overload', '20%', '--traffic-from', prom.url, '--traffic-preset', 'beyla'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(1)
    expect(r.stdout).toContain('worst overload after the next sync 140% in zone-a, above the 20% bound (client mix measured by --traffic-from)')
    expect((await run(['check', 'svc/web', '-n', ns, '--max-overload', '20%'])).code).toBe(0)
  })

  it("watch: reads the Service's measured traffic once at start; its advice line has the measured overload", async () => {
    const w = spawn(process.execPath, [BIN, 'watch', 'svc/web', '-n', ns, '--plain', '--context', 'admin', '--traffic-from', prom.url, '--traffic-preset', 'beyla'], {
      cwd: ROOT,
      env: {...process.env, KUBECONFIG: proxy.kubeconfig, NO_COLOR: '1'},
    })
    let out = ''
    let err = ''
    w.stdout.on('data', (d) => (out += d))
    w.stderr.on('data', (d) => (err += d))
    const deadline = Date.now() + 60_000
    while (!out.includes('worst overload after the next sync') && w.exitCode === null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
    w.kill('SIGTERM')
    await new Promise((r) => (w.exitCode !== null ? r(null) : w.once('exit', r)))
    expect(err).toBe('')
    // PreferSameZone keeps every zone home: 100% in-zone; the zone-a endpoints carry 0.8 / 2 each: 140%.
    expect(out).toContain('in-zone 100% now, 100% after the next sync; worst overload after the next sync 140% in zone-a')
  })

  it('a Service with no measured traffic: a warning naming it, and the CPU assumption', async () => {
    const r = await run(['explain', 'svc/quiet', '-n', ns, '-o', 'json', '--traffic-from', prom.url, '--traffic-preset', 'beyla'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe(`Warning: no measured traffic for ${ns}/quiet in ${prom.url}: the query gives no series; traffic assumed proportional to zone CPU\n`)
    const rep = JSON.parse(r.stdout) as ExplainReport
    expect(rep.services[0]!.traffic.model).toBe('zone-cpu')
    expect(rep.warnings).toContain(`no measured traffic for ${ns}/quiet in ${prom.url}: the query gives no series; traffic assumed proportional to zone CPU`)
  })

  it('an error answer (a query Prometheus refuses): exit 2, one line with its error', async () => {
    const r = await run(['explain', 'svc/web', '-n', ns, '--traffic-from', prom.url, '--traffic-query', 'sum by (src_zone) (rate(x{a="{service}"}[{window}])'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: Prometheus at ${prom.url.replace(/\./g, '\\.')} refused the traffic query for ${ns}/web: bad_data: .+: check --traffic-query \\(docs/traffic\\.md\\)\\n$`,
      ),
    )
  })

  it('Prometheus down: exit 6, one line naming it', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer()
      s.listen(0, '127.0.0.1', () => {
        const a = s.address()
        s.close(() => resolve(typeof a === 'object' && a ? a.port : 0))
      })
    })
    const r = await run(['explain', 'svc/web', '-n', ns, '--traffic-from', `http://127.0.0.1:${port}`, '--traffic-preset', 'beyla'])
    expect(r.code).toBe(6)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe(`error: cannot query Prometheus at http://127.0.0.1:${port} (--traffic-from): connection refused: is Prometheus running there? (check --traffic-from)\n`)
  })

  // Last: it stops the Prometheus.
  it('serve: the measured families and figures, then Prometheus stopped: traffic_source_up 0, the last figures kept', async () => {
    let stderr = ''
    serve = spawn(
      process.execPath,
      [BIN, 'serve', '--context', 'admin', '--listen', '127.0.0.1:0', '--traffic-from', prom.url, '--traffic-preset', 'beyla', '--traffic-interval', '10s'],
      {cwd: ROOT, env: {...process.env, KUBECONFIG: proxy.kubeconfig, NO_COLOR: '1'}},
    )
    serve.stdout.on('data', () => {})
    serve.stderr.on('data', (d) => (stderr += d))
    const waitFor = async <T>(what: string, probe: () => Promise<T | null | undefined>): Promise<T> => {
      const deadline = Date.now() + 60_000
      for (;;) {
        if (serve!.exitCode !== null) throw new Error(`serve exited (${serve!.exitCode}) while waiting for ${what}\n${stderr}`)
        const v = await probe().catch(() => null)
        if (v !== null && v !== undefined) return v
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${stderr}`)
        await new Promise((r) => setTimeout(r, 200))
      }
    }
    const address = await waitFor('the serving line', async () => /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1])
    const metrics = async () => (await fetch(`http://${address}/metrics`, {signal: AbortSignal.timeout(5000)})).text()
    const sample = (body: string, name: string, labels = '') => {
      const line = body.split('\n').find((l) => l.startsWith(labels === '' ? `${name} ` : `${name}{${labels}}`))
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1))
    }
    const web = `namespace="${ns}",service="web",address_type="IPv4"`
    let body = await waitFor('the measured figures', async () => {
      const b = await metrics()
      return sample(b, 'kubectl_topology_service_measured_cross_zone_traffic_ratio', web) !== undefined ? b : null
    })
    expect(sample(body, 'kubectl_topology_service_measured_cross_zone_traffic_ratio', web)).toBeCloseTo(CROSS, 9)
    expect(sample(body, 'kubectl_topology_zone_measured_client_traffic_ratio', `${web},zone="zone-a"`)).toBeCloseTo(MIX['zone-a'], 9)
    expect(sample(body, 'kubectl_topology_service_live_max_endpoint_overload_ratio', web)).toBeCloseTo(OVERLOAD, 9)
    // quiet: nothing measured, the CPU assumption (equal CPU, hints home: no overload), no measured family.
    const quiet = `namespace="${ns}",service="quiet",address_type="IPv4"`
    expect(sample(body, 'kubectl_topology_service_measured_cross_zone_traffic_ratio', quiet)).toBeUndefined()
    expect(sample(body, 'kubectl_topology_service_live_max_endpoint_overload_ratio', quiet)).toBeCloseTo(0, 9)
    expect(sample(body, 'kubectl_topology_traffic_source_up')).toBe(1)
    expect(sample(body, 'kubectl_topology_traffic_source_errors_total')).toBe(0)
    expect(sample(body, 'kubectl_topology_traffic_source_last_success_timestamp_seconds')).toBeGreaterThan(0)

    await prom.stop()
    body = await waitFor('traffic_source_up 0', async () => {
      const b = await metrics()
      return sample(b, 'kubectl_topology_traffic_source_up') === 0 ? b : null
    })
    expect(sample(body, 'kubectl_topology_traffic_source_errors_total')).toBeGreaterThanOrEqual(1)
    // The last measured figures are kept (stale, as the source's up says).
    expect(sample(body, 'kubectl_topology_service_measured_cross_zone_traffic_ratio', web)).toBeCloseTo(CROSS, 9)
    expect(stderr).toContain(`traffic: cannot query Prometheus at ${prom.url} (--traffic-from): connection refused`)
    serve.kill('SIGTERM')
    await new Promise((r) => serve!.once('exit', r))
  }, 120_000)
})
