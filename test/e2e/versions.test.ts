// Issue 13: live explain (and apply) against the control plane of whatever Kubernetes minor the
// harness runs shows that version's own behaviour, for the two things that changed most between
// 1.30 and 1.35:
//  1. a Service that asks for trafficDistribution PreferSameZone: the API server drops the field
//     (1.30, ServiceTrafficDistribution off), refuses it (1.31-1.33: only PreferClose, until
//     PreferSameTrafficDistribution is on by default in 1.34), or takes it (1.34+), and the
//     controller hints every endpoint to its own zone;
//  2. an endpoint on a Node without a zone label under trafficDistribution: the controller hints
//     it for zone "" (trafficdist.go up to 1.32) or gives it no hint (1.33+), which decides whether
//     kube-proxy uses the hints at all.
// Each case checks the real API server and controller first, then that explain's live report
// (server version detected from /version) says the same and shows that version's texts.
// Run per version by scripts/matrix.mjs (`npm run test:matrix`); in the default e2e run (1.36)
// it checks the newest behaviour.
import {VersionApi} from '@kubernetes/client-node'
import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {ServiceExplanation} from '../../src/explain/report.js'
import type {EndpointSlice} from '../../src/upstream/api/types.js'
import {runCliAsync} from './apiproxy.js'
import {cluster, plain, statusOf} from './fixtures.js'

const c = cluster()
const home = mkdtempSync(path.join(os.tmpdir(), 'kt-versions-'))
const run = (args: string[]) => runCliAsync(args, {env: {XDG_STATE_HOME: home, NO_COLOR: '1'}, timeoutMs: 120_000})
const NODES = [
  {name: 'ver-a', zone: 'zone-a'},
  {name: 'ver-b', zone: 'zone-b'},
  {name: 'ver-nozone', zone: undefined},
]
let minor = 0
let version = ''
let ns = ''

type Explained = {kubernetesVersion: string; versionSource: string; services: ServiceExplanation[]}
async function explainJson(service: string): Promise<ServiceExplanation & {kubernetesVersion: string; versionSource: string}> {
  const r = await run(['explain', `svc/${service}`, '-n', ns, '-o', 'json'])
  expect(r.code, r.stderr).toBe(0)
  const report = JSON.parse(r.stdout) as Explained
  expect(report.services).toHaveLength(1)
  return {...report.services[0]!, kubernetesVersion: report.kubernetesVersion, versionSource: report.versionSource}
}

async function slicesOf(service: string): Promise<EndpointSlice[]> {
  const l = await c.discovery.listNamespacedEndpointSlice({namespace: ns, labelSelector: `kubernetes.io/service-name=${service}`})
  return l.items.map((s) => plain<EndpointSlice>(s))
}

/** ip -> the zone hints the controller wrote (null: none). */
async function liveHints(service: string): Promise<Map<string, string[] | null>> {
  const m = new Map<string, string[] | null>()
  for (const s of await slicesOf(service)) for (const e of s.endpoints ?? []) m.set(e.addresses[0]!, e.hints?.forZones ? e.hints.forZones.map((z) => z.name) : null)
  return m
}

async function pods(service: string, placement: string[], net: number): Promise<{ip: string; ready: boolean}[]> {
  const out = []
  for (const [i, node] of placement.entries()) {
    const ip = `10.77.${net}.${i + 10}`
    await c.createPod({namespace: ns, name: `${service}-${i}`, labels: {app: service}, nodeName: node, ip, ready: true})
    out.push({ip, ready: true})
  }
  return out
}

/** Every endpoint's predicted zone hints equal the live ones, and explain reports no drift. */
function expectAgrees(s: ServiceExplanation, live: Map<string, string[] | null>): void {
  for (const e of s.endpoints) {
    const l = live.get(e.addresses[0]!) ?? []
    expect([...(e.predictedHints?.forZones ?? [])].sort(), `${e.addresses[0]} predicted vs live`).toEqual([...l].sort())
  }
  expect(s.drift.endpoints).toBe(0)
}

describe('each version behaves as itself, and explain says so (live)', () => {
  beforeAll(async () => {
    const v = await c.kc.makeApiClient(VersionApi).getCode()
    version = v.gitVersion
    minor = Number(/^v1\.(\d+)/.exec(version)?.[1])
    expect(minor).toBeGreaterThan(0)
    await c.deleteAllNodes()
    for (const n of NODES) await c.createNode(n)
    ns = await c.createNamespace('versions')
  })
  afterAll(async () => {
    // A Node without a zone disables Auto hints for every Service: leave none behind.
    await c.deleteAllNodes().catch(() => undefined)
  })

  it('a Service asking for PreferSameZone', async () => {
    const expected = await pods('psz', ['ver-a', 'ver-a', 'ver-b', 'ver-b'], 1)
    let created: {spec?: {trafficDistribution?: string}} | undefined
    let refusal = ''
    try {
      created = await c.core.createNamespacedService({
        namespace: ns,
        body: {metadata: {name: 'psz'}, spec: {selector: {app: 'psz'}, ports: [{name: 'http', port: 80, targetPort: 8080}], trafficDistribution: 'PreferSameZone'}},
      })
    } catch (e) {
      expect(statusOf(e)).toBe(422)
      const body = (e as {body?: unknown}).body
      refusal = String((typeof body === 'string' ? (JSON.parse(body) as {message?: string}) : (body as {message?: string} | undefined))?.message)
      await c.createService({namespace: ns, name: 'psz', selector: {app: 'psz'}})
    }
    if (minor >= 34) {
      // The API server takes it (PreferSameTrafficDistribution beta 1.34, GA 1.35) and the
      // controller hints each endpoint to its own zone.
      expect(created?.spec?.trafficDistribution).toBe('PreferSameZone')
      await c.waitForReconciled({namespace: ns, service: 'psz', expectedEndpoints: expected, until: (r) => r.endpoints.every((e) => (e.hints?.forZones?.length ?? 0) > 0)})
      const s = await explainJson('psz')
      expect(s.kubernetesVersion).toBe(`1.${minor}`)
      expect(s.versionSource).toBe('server')
      expect(s.mode.path).toBe('traffic-distribution')
      expect(s.controller.hintsSet).toBe(true)
      expectAgrees(s, await liveHints('psz'))
      const table = await run(['explain', 'svc/psz', '-n', ns])
      expect(table.stdout).toContain('Mode:        trafficDistribution PreferSameZone')
      expect(table.stdout).toContain(`Kubernetes 1.${minor} (server)`)
      return
    }
    if (minor >= 31) {
      // validateServiceTrafficDistribution: only PreferClose until 1.34.
      expect(created).toBeUndefined()
      expect(refusal).toMatch(/spec\.trafficDistribution: Unsupported value: "PreferSameZone": supported values: "PreferClose"/)
    } else {
      // 1.30: ServiceTrafficDistribution is off, the API server drops the field without a word.
      expect(refusal).toBe('')
      expect(created?.spec?.trafficDistribution).toBeUndefined()
    }
    await c.waitForReconciled({namespace: ns, service: 'psz', expectedEndpoints: expected})
    // apply refuses before writing, naming the version and what it takes instead.
    const before = (await c.core.readNamespacedService({name: 'psz', namespace: ns})).metadata?.resourceVersion
    const apply = await run(['apply', 'svc/psz', '-n', ns, '--mode', 'PreferSameZone', '--yes'])
    expect(apply.code).toBe(2)
    expect(apply.stderr.trim().split('\n')).toHaveLength(1)
    expect(apply.stderr).toMatch(
      minor >= 31
        ? new RegExp(`^error: at Kubernetes 1\\.${minor} the API server accepts only "PreferClose".*use --mode PreferClose`)
        : /^error: at Kubernetes 1\.30 the API server drops spec\.trafficDistribution.*use --mode Auto/,
    )
    expect((await c.core.readNamespacedService({name: 'psz', namespace: ns})).metadata?.resourceVersion).toBe(before)
    // explain advises what this version takes; following the advice gives zone hints.
    const s = await explainJson('psz')
    expect(s.kubernetesVersion).toBe(`1.${minor}`)
    // The advisor offers only what this version keeps (docs/advice.md): 1.30 no trafficDistribution
    // value at all, 1.31-1.33 PreferClose and never PreferSameZone; no step names a refused value
    // (test/e2e/advice.test.ts runs the steps themselves).
    const rec = s.recommendation!
    const offered = rec.options.map((o) => o.mode)
    expect(offered).not.toContain('PreferSameZone')
    if (minor >= 31) expect(offered).toContain('PreferClose')
    else expect(offered.filter((m) => m.startsWith('Prefer'))).toEqual([])
    for (const st of rec.steps) expect(st.command).not.toMatch(/PreferSameZone/)
    if (minor >= 31) {
      const follow = await run(['apply', 'svc/psz', '-n', ns, '--mode', 'PreferClose', '--yes', '--wait', '--timeout', '60s'])
      expect(follow.code, follow.stderr).toBe(0)
      const after = await explainJson('psz')
      expect(after.controller.hintsSet).toBe(true)
      expectAgrees(after, await liveHints('psz'))
    }
  })

  it('an endpoint on a Node without a zone, under trafficDistribution', async () => {
    const td = minor >= 34 ? 'PreferSameZone' : 'PreferClose'
    const expected = await pods('nozone', ['ver-a', 'ver-b', 'ver-nozone'], 2)
    const created = await c.createService({namespace: ns, name: 'nozone', selector: {app: 'nozone'}, trafficDistribution: td})
    if (minor < 31) {
      // Dropped: no topology at all, and explain says why at this version.
      expect(created.spec?.trafficDistribution ?? null).toBeNull()
      await c.waitForReconciled({namespace: ns, service: 'nozone', expectedEndpoints: expected})
      const s = await explainJson('nozone')
      expect(s.controller.hintsSet).toBe(false)
      expectAgrees(s, await liveHints('nozone'))
      return
    }
    await c.waitForReconciled({
      namespace: ns,
      service: 'nozone',
      expectedEndpoints: expected,
      until: (r) => r.endpoints.filter((e) => e.zone).every((e) => (e.hints?.forZones?.length ?? 0) > 0),
    })
    const live = await liveHints('nozone')
    const zoneless = expected[2]!.ip
    // The real controller: zone "" up to 1.32 (trafficdist.go before v0.33), no hint from 1.33.
    expect(live.get(zoneless)).toEqual(minor <= 32 ? [''] : null)
    const s = await explainJson('nozone')
    expect(s.kubernetesVersion).toBe(`1.${minor}`)
    expectAgrees(s, live)
    expect(s.withoutZone?.readyEndpoints).toBe(1)
    // kube-proxy on a zoned Node: up to 1.32 every endpoint has a hint, so it filters by zone;
    // from 1.33 an unhinted ready endpoint makes it ignore the hints (topology.go).
    const zoneA = s.zones.find((z) => z.name === 'zone-a')!
    if (minor <= 32) expect(zoneA.kubeProxy.fallback).toBe(false)
    else {
      expect(zoneA.kubeProxy.fallback).toBe(true)
      expect(zoneA.kubeProxy.reason).toBe('unhinted-ready-endpoint')
    }
  })
})
