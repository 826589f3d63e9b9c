// explain against the live control plane, for every outcome the bundled example snapshot
// shows; the read-only identity; the snapshot -> explain --from-file round trip; and drift
// made while the controller is paused, then repaired by the real controller exactly as
// explain predicted.
import {spawnSync} from 'node:child_process'
import {beforeAll, describe, expect, it} from 'vitest'
import type {ExplainReport, ServiceExplanation} from '../../src/explain/report.js'
import {BIN, EXAMPLE, ROOT} from '../cli/run-cli.js'
import {cluster} from './fixtures.js'
import {buildExample, controller, makeDrift} from './example-build.js'
import {DRIFT, SERVICES} from './example-scenario.js'

function cli(args: string[], opts: {input?: string} = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd: ROOT, env: process.env, encoding: 'utf8', maxBuffer: 1 << 30, input: opts.input ?? '', timeout: 60_000})
  return {stdout: r.stdout, stderr: r.stderr, code: r.status}
}

function explainJson(args: string[]): ExplainReport {
  const r = cli(['explain', ...args, '-o', 'json'])
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  return JSON.parse(r.stdout) as ExplainReport
}

/** What must agree between the snapshot and the live cluster (names and addresses differ). */
function outcome(s: ServiceExplanation) {
  return {
    path: s.mode.path,
    hintsSet: s.controller.hintsSet,
    reason: s.controller.reason,
    message: s.controller.message,
    zones: s.zones.map((z) => ({
      name: z.name,
      ready: z.readyEndpoints,
      assigned: z.assigned,
      live: z.liveHints,
      min: z.minimum,
      max: z.maximum,
      proxy: z.kubeProxy.mode,
      fallback: z.kubeProxy.reason,
    })),
    donated: s.totals.donated,
    drift: s.drift.endpoints,
    nodeHints: s.endpoints.some((e) => (e.liveHints?.forNodes.length ?? 0) > 0),
    findings: s.findings,
  }
}

const c = cluster()
let ns = ''
const fromExample = explainJsonFile()

function explainJsonFile(): ExplainReport {
  const r = spawnSync(process.execPath, [BIN, 'explain', '-n', 'shop', '-A', '--from-file', EXAMPLE, '-o', 'json'], {cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30})
  return JSON.parse(r.stdout) as ExplainReport
}

describe('explain on the live control plane', () => {
  beforeAll(async () => {
    ns = await c.createNamespace('example')
    await buildExample(c, ns)
  })

  it.each(SERVICES.filter((s) => !s.expect.drift).map((s) => [s.name, s] as const))('%s: same outcome live as in the example snapshot', (name, svc) => {
    const live = explainJson([`svc/${name}`, '-n', ns]).services[0]!
    const snap = fromExample.services.find((s) => s.namespace === 'shop' && s.name === name)!
    expect(outcome(live)).toEqual(outcome(snap))
    expect(live.controller.hintsSet).toBe(svc.expect.hintsSet)
    expect(live.controller.reason).toBe(svc.expect.reason)
    if (svc.expect.messagePrefix) expect(live.controller.message.startsWith(svc.expect.messagePrefix)).toBe(true)
    if (svc.expect.donated !== undefined) expect(live.totals.donated).toBe(svc.expect.donated)
    expect(live.endpoints.some((e) => (e.liveHints?.forNodes.length ?? 0) > 0)).toBe(Boolean(svc.expect.nodeHints))
    // The real controller's hints are what explain predicts for its next sync.
    expect(live.drift.endpoints).toBe(0)
  })

  it('the read-only identity (view ClusterRole, which cannot list Nodes) can explain', () => {
    const admin = explainJson(['-A'])
    const r = cli(['explain', '-A', '--context', 'readonly', '-o', 'json'])
    expect(r.code).toBe(0)
    // One warning naming the missing permission, then what can be shown.
    expect(r.stderr.trim()).toBe('Warning: cannot list nodes (missing permission: list nodes, cluster-scoped); zone CPU shares and topology-mode Auto predictions are unavailable')
    const ro = JSON.parse(r.stdout) as ExplainReport
    expect(ro.nodesReadable).toBe(false)
    const mine = (x: ExplainReport) => x.services.filter((s) => s.namespace === ns)
    expect(mine(ro)).toHaveLength(SERVICES.length)
    for (const s of mine(ro)) {
      const a = mine(admin).find((x) => x.name === s.name)!
      // Live hints and kube-proxy's verdicts need no Nodes.
      expect(s.endpoints.map((e) => e.liveHints)).toEqual(a.endpoints.map((e) => e.liveHints))
      expect(s.zones.map((z) => [z.name, z.liveHints, z.kubeProxy.mode, z.kubeProxy.reason])).toEqual(
        a.zones.filter((z) => z.readyEndpoints > 0 || z.liveHints > 0).map((z) => [z.name, z.liveHints, z.kubeProxy.mode, z.kubeProxy.reason]),
      )
      if (s.mode.path === 'topology-mode-auto') {
        expect(s.controller.reason).toBe('NodesUnreadable')
        expect(s.findings).not.toContain('hints-refused')
      } else {
        expect(s.controller).toEqual(a.controller)
      }
    }
  })

  it('snapshot then explain --from-file gives the same report as live', () => {
    const snap = cli(['snapshot', '-A'])
    expect(snap.code).toBe(0)
    const live = explainJson(['-A'])
    const replay = cli(['explain', '-A', '--from-file', '-', '-o', 'json'], {input: snap.stdout})
    expect(replay.code).toBe(0)
    const replayed = JSON.parse(replay.stdout) as ExplainReport
    // Services of other test files may still be requeued by the controller between the two
    // reads (node changes): compare this file's namespace, settled since buildExample.
    const mine = (r: ExplainReport) => r.services.filter((x) => x.namespace === ns)
    expect(mine(replayed)).toHaveLength(SERVICES.length)
    // Both read the Services' Events (live explain lists them too), so the controller's
    // populated mark is inferred the same way (controller.state.inferredFrom included).
    expect(mine(replayed)).toEqual(mine(live))
    expect(mine(live).some((x) => x.controller.state.inferredFrom === 'events')).toBe(true)
    expect(replayed.services.map((x) => `${x.namespace}/${x.name}`)).toEqual(live.services.map((x) => `${x.namespace}/${x.name}`))
    expect(replayed.cluster).toEqual(live.cluster)
    expect(replayed.kubernetesVersion).toBe(live.kubernetesVersion)
  })

  it('drift made while the controller is paused: explain predicts exactly what the controller then writes', async () => {
    controller('pause')
    let predicted: ServiceExplanation
    try {
      await makeDrift(c, ns)
      predicted = explainJson([`svc/${DRIFT.service}`, '-n', ns]).services[0]!
      const snap = fromExample.services.find((s) => s.namespace === 'shop' && s.name === DRIFT.service)!
      expect(outcome(predicted)).toEqual(outcome(snap))
      expect(predicted.findings).toEqual(expect.arrayContaining(['drift', 'fallback']))
      expect(predicted.zones.every((z) => z.kubeProxy.reason === 'unhinted-ready-endpoint')).toBe(true)
    } finally {
      controller('resume')
    }
    // The controller sees the foreign write, resyncs, and rewrites the slice.
    const expected = predicted.endpoints.map((e) => ({ip: e.addresses[0]!, ready: true}))
    const seen = await c.waitForReconciled({
      namespace: ns,
      service: DRIFT.service,
      expectedEndpoints: expected,
      until: (r) => r.endpoints.every((e) => e.hints !== null),
    })
    const byIp = new Map(seen.endpoints.map((e) => [e.ip, e.hints]))
    for (const e of predicted.endpoints) {
      expect({ip: e.addresses[0], hints: byIp.get(e.addresses[0]!)?.forZones?.map((z) => z.name)}).toEqual({ip: e.addresses[0], hints: e.predictedHints?.forZones})
    }
    const after = explainJson([`svc/${DRIFT.service}`, '-n', ns]).services[0]!
    expect(after.drift.endpoints).toBe(0)
    expect(after.findings).toEqual([])
  })
})
