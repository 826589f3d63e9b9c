// kubectl topology plan against the real control plane: a Deployment with an HPA, a zone
// spread constraint and a PDB (their specs only: no controller runs them; the Pods are made by
// the fixtures, one per Node), read live and from a snapshot with the same result; the
// recommended mode applied with the project's own apply command makes the real EndpointSlice
// controller write what plan predicted for today's count (compared with explain once synced).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import type {PlanReport} from '../../src/plan/plan.js'
import type {ExplainReport} from '../../src/explain/report.js'
import {ApiProxy, runCliAsync} from './apiproxy.js'
import {serviceWithPods, setupNodes, stateHome} from './apply-helpers.js'
import {createDeployment, createHpa, createNamespace, createPdb} from './fixtures.js'

let proxy: ApiProxy
let home: string
const run = (args: string[]) => runCliAsync([...args, '--context', 'admin'], {env: {KUBECONFIG: proxy.kubeconfig, XDG_STATE_HOME: home}, timeoutMs: 90_000})

beforeAll(async () => {
  await setupNodes()
  proxy = await ApiProxy.start()
})
afterAll(async () => {
  await proxy?.close()
})
beforeEach(() => {
  proxy.reset()
  home = stateHome()
})

/** A Deployment web (6 replicas, zone spread DoNotSchedule), its HPA 3..12, a PDB maxUnavailable 1, a Pod per Node and the Service. */
async function webWithHpa(ns: string): Promise<void> {
  const labels = {app: 'web'}
  await createDeployment({namespace: ns, name: 'web', replicas: 6, labels, zoneSpread: 'DoNotSchedule', maxSurge: 1, maxUnavailable: 0})
  await createHpa({namespace: ns, name: 'web', deployment: 'web', min: 3, max: 12})
  await createPdb({namespace: ns, name: 'web', labels, maxUnavailable: 1})
  await serviceWithPods(ns, 'web', 61)
}

const listsOf = (resource: string) => proxy.requests.filter((r) => r.method === 'GET' && new RegExp(`/${resource}(\\?|$)`).test(r.url))

describe('plan', () => {
  it('reads the Deployment, its HPA and PDB live (one list each), and a snapshot gives the same plan', async () => {
    const ns = await createNamespace('plan-live')
    await webWithHpa(ns)
    const live = await run(['plan', 'svc/web', '-n', ns, '-o', 'json'])
    expect(live.stderr).toBe('')
    expect(live.code).toBe(0)
    const report = JSON.parse(live.stdout) as PlanReport
    const p = report.services[0]!
    expect(p.workload).toEqual({
      kind: 'Deployment',
      name: 'web',
      replicas: 6,
      zoneSpread: {maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule'},
      hpa: {name: 'web', minReplicas: 3, maxReplicas: 12},
      pdb: {name: 'web', allowedDisruptions: 1},
    })
    expect(p.range).toMatchObject({from: 3, to: 12, source: 'hpa'})
    expect(p.range.rows.map((r) => r.replicas)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
    expect(p.range.rows.find((r) => r.replicas === 6)!.zones).toEqual({'zone-a': 2, 'zone-b': 2, 'zone-c': 2})
    expect(p.rollouts.map((r) => r.at)).toEqual(['today', 'hpa-min', 'hpa-max'])
    expect(p.disruption).toMatchObject({evicted: 1})
    for (const resource of ['horizontalpodautoscalers', 'poddisruptionbudgets', 'deployments', 'statefulsets']) expect(listsOf(resource), resource).toHaveLength(1)

    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'plan-snap-')), 'web.yaml')
    const snap = await run(['snapshot', 'svc/web', '-n', ns])
    expect(snap.code).toBe(0)
    fs.writeFileSync(file, snap.stdout)
    expect(snap.stdout).toContain('horizontalPodAutoscalers:')
    expect(snap.stdout).toContain('podDisruptionBudgets:')
    expect(snap.stdout).toContain('topologySpreadConstraints:')
    const fromFile = await runCliAsync(['plan', 'svc/web', '-n', ns, '-o', 'json', '--from-file', file], {env: {XDG_STATE_HOME: home}})
    expect(fromFile.stderr).toBe('')
    expect(fromFile.code).toBe(0)
    // Only the source-naming fields may differ (none does today: the snapshot keeps the server version).
    const comparable = (r: PlanReport) => ({...r, versionSource: undefined})
    expect(comparable(JSON.parse(fromFile.stdout) as PlanReport)).toEqual(comparable(report))
    // The table names them too.
    const table = await runCliAsync(['plan', 'svc/web', '-n', ns, '--from-file', file], {env: {XDG_STATE_HOME: home}})
    expect(table.stdout).toContain('HPA web 3..12')
  })

  it('without permission to list HPAs: a named warning, and the default range', async () => {
    const ns = await createNamespace('plan-rbac')
    await webWithHpa(ns)
    proxy.hook = (r) =>
      /horizontalpodautoscalers/.test(r.url)
        ? {
            respond: {
              status: 403,
              body: JSON.stringify({
                kind: 'Status',
                apiVersion: 'v1',
                status: 'Failure',
                reason: 'Forbidden',
                code: 403,
                message: 'horizontalpodautoscalers.autoscaling is forbidden',
              }),
            },
          }
        : undefined
    const r = await run(['plan', 'svc/web', '-n', ns, '-o', 'json'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('Warning: cannot list horizontalpodautoscalers in namespace')
    expect(r.stderr).toContain('list horizontalpodautoscalers.autoscaling')
    const p = (JSON.parse(r.stdout) as PlanReport).services[0]!
    expect(p.workload?.hpa).toBeNull()
    expect(p.workload?.pdb?.name).toBe('web')
    expect(p.range.source).toBe('default')
  })

  it("the recommended mode, applied, makes the controller write what plan predicted for today's count", async () => {
    const ns = await createNamespace('plan-apply')
    await webWithHpa(ns)
    const r = await run(['plan', 'svc/web', '-n', ns, '-o', 'json'])
    expect(r.code).toBe(0)
    const p = (JSON.parse(r.stdout) as PlanReport).services[0]!
    const mode = p.extended.mode
    expect(mode).not.toBe('none')
    expect(p.extended.commands[0]).toBe(`kubectl topology apply svc/web -n ${ns} --mode ${mode} --yes`)
    const predicted = p.range.rows.find((x) => x.replicas === p.readyEndpoints)!.modes[mode]!

    const applied = await run(['apply', 'svc/web', '-n', ns, '--mode', mode, '--yes', '--wait', '--timeout', '60s'])
    expect(applied.code, applied.stderr).toBe(0)
    const e = await run(['explain', 'svc/web', '-n', ns, '-o', 'json'])
    expect(e.code).toBe(0)
    const s = (JSON.parse(e.stdout) as ExplainReport).services[0]!
    // What the controller wrote, as explain reads it live.
    expect(s.drift.endpoints).toBe(0)
    expect(s.totals.liveHints > 0).toBe(predicted.hints)
    expect(s.traffic.inZoneShareLive).toBeCloseTo(predicted.inZone!, 9)
    expect(s.traffic.maxEndpointOverloadLive).toBeCloseTo(predicted.maxOverload!, 9)
    expect(s.zones.filter((z) => z.kubeProxy.fallback).map((z) => z.name)).toEqual(predicted.fallbackZones)

    // And plan, run again, now sees that mode as today's.
    const again = JSON.parse((await run(['plan', 'svc/web', '-n', ns, '-o', 'json'])).stdout) as PlanReport
    expect(again.services[0]!.currentMode).toBe(mode)
  })
})
