// Differential test: explain's prediction against the real EndpointSlice controller on many
// seeded random clusters (test/e2e/scenarios.ts). For each scenario: build it on the control
// plane (Nodes, Pods, then the Service), wait until the controller has reconciled, read the
// state through the product's own reader, run the engine in 'fresh' mode (the controller
// rebuilt the slice when its endpoints changed, so its hints are a fresh computation), and
// compare with what the controller wrote.
//
// Compared, and why exactly these (upstream randomness, spec §15.2):
//  - hints set or not; the controller's latest Event on the Service (reason and message), or
//    none on the other paths;
//  - node hints of every endpoint (deterministic);
//  - per-zone counts of zone hints and the number of cross-zone hints: exact, unless two zones
//    tied for the largest surplus/deficit (Go's map order breaks the tie), which the engine
//    reports as randomChoices.tieBreaks > 0: then only the total is compared;
//  - each endpoint's zone hint: exact when no endpoint could have gone to another receiving
//    zone (randomChoices.receiverChoices = 0); otherwise which endpoints were donated (the
//    walk order is deterministic) but not where to.
// Every mismatch is dumped (snapshot + live slices + events) to test-results/differential/.
//
// The prediction uses the server's version (read from /version by the product's reader, as
// `explain` against a live cluster does), so the same test checks every Kubernetes minor the
// harness pins (scripts/matrix.mjs). Each scenario is also predicted a second way: the state
// serialized as a snapshot without its serverVersion, run through the built CLI with
// `--kube-version MAJOR.MINOR` (the same comparison must agree).
//
// A Service whose spec.trafficDistribution the API server rejects (PreferSameZone /
// PreferSameNode before the PreferSameTrafficDistribution gate is on) is created without it:
// the scenario then tests what that version does with such a Service. (In 1.30, where
// ServiceTrafficDistribution is off, the API server drops the field instead: noted too.)
//
// DIFF_SCENARIOS (default 100) and DIFF_SEED (default 1) choose the scenarios (DIFF_FOCUS=traffic:
// the trafficDistribution variant of each, see scenarios.ts); see
// scripts/differential.mjs for `--scenarios 1000`. DIFF_OUT (default test-results/differential)
// is where mismatches are dumped; DIFF_RESULTS, when set, is a JSON file the per-seed results
// are written to (scripts/matrix.mjs reads it).
import {spawnSync} from 'node:child_process'
import {mkdirSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'
import {loadKubeConfig} from '../../src/cluster/kubeconfig.js'
import {readClusterState} from '../../src/cluster/live.js'
import {serializeSnapshot} from '../../src/cluster/snapshot.js'
import {explain, type ServiceExplanation} from '../../src/engine/explain.js'
import type {ClusterState, EndpointSlice, EventObject} from '../../src/engine/types.js'
import {ROOT} from '../cli/run-cli.js'
import {cluster, EVENT_SOURCE, sortEvents, statusOf} from './fixtures.js'
import {autoAnnotation, generateScenario, type Scenario} from './scenarios.js'

const COUNT = Number(process.env.DIFF_SCENARIOS ?? 100)
const FIRST_SEED = Number(process.env.DIFF_SEED ?? 1)
const FOCUS = process.env.DIFF_FOCUS === 'traffic' ? 'traffic' : undefined
if (process.env.DIFF_FOCUS && !FOCUS) throw new Error(`DIFF_FOCUS must be 'traffic', got ${JSON.stringify(process.env.DIFF_FOCUS)}`)
const SERVICE = 'svc'
const OUT = path.resolve(ROOT, process.env.DIFF_OUT ?? 'test-results/differential')
const c = cluster()
interface Result {
  seed: number
  agree: boolean
  snapshotAgree: boolean
  notes: string[]
  diffs: string[]
  snapshotDiffs: string[]
}
const results: Result[] = []
let serverVersion: string | undefined

async function build(s: Scenario, notes: string[]): Promise<string> {
  await c.deleteAllNodes()
  await pool(s.nodes, 16, (n) => c.createNode(n))
  const ns = await c.createNamespace(`diff-${s.seed}`)
  await pool(s.pods, 16, (p) =>
    c.createPod({namespace: ns, name: p.name, labels: {app: SERVICE}, nodeName: p.nodeName, ip: p.ip, ready: p.ready, terminating: p.terminating}),
  )
  const service = {
    namespace: ns,
    name: SERVICE,
    selector: {app: SERVICE},
    annotations: s.annotations,
    trafficDistribution: s.trafficDistribution,
    publishNotReadyAddresses: s.publishNotReadyAddresses,
  }
  try {
    await c.createService(service)
  } catch (e) {
    const body = String((e as {body?: unknown}).body ?? (e as Error).message)
    if (s.trafficDistribution === undefined || statusOf(e) !== 422 || !body.includes('trafficDistribution')) throw e
    notes.push(`API server rejected trafficDistribution ${s.trafficDistribution}: created without it`)
    await c.createService({...service, trafficDistribution: undefined})
  }
  await c.waitForReconciled({
    namespace: ns,
    service: SERVICE,
    expectedEndpoints: s.pods.map((p) => ({ip: p.ip, ready: s.publishNotReadyAddresses || (p.ready && !p.terminating)})),
    expectEvent: autoAnnotation(s.annotations) ? true : undefined,
    timeoutMs: 90_000,
  })
  return ns
}

async function pool<T>(items: readonly T[], width: number, f: (x: T) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({length: Math.min(width, items.length)}, async () => {
      while (next < items.length) await f(items[next++]!)
    }),
  )
}

/**
 * The second prediction: the state as a snapshot file without serverVersion, through the built
 * CLI (`explain --from-file ... --kube-version MAJOR.MINOR --prediction fresh -o json`).
 */
function predictFromSnapshot(state: ClusterState, ns: string, seed: number): {kubeVersion: string; predicted?: ServiceExplanation; error?: string} {
  const m = /^v?(\d+)\.(\d+)/.exec(state.serverVersion ?? '')
  const kubeVersion = m ? `${m[1]}.${m[2]}` : '(none)'
  if (!m) return {kubeVersion, error: `server version ${state.serverVersion} has no MAJOR.MINOR`}
  const snap = serializeSnapshot(state)
  delete snap.serverVersion
  const dir = path.join(OUT, 'tmp')
  mkdirSync(dir, {recursive: true})
  const file = path.join(dir, `seed-${seed}.yaml`)
  writeFileSync(file, stringify(snap))
  const r = spawnSync(
    process.execPath,
    [path.join(ROOT, 'bin/kubectl-topology.js'), 'explain', `svc/${SERVICE}`, '-n', ns, '--from-file', file, '--kube-version', kubeVersion, '--prediction', 'fresh', '-o', 'json'],
    {encoding: 'utf8', timeout: 60_000, env: {...process.env, KUBECONFIG: '/dev/null', NO_COLOR: '1'}},
  )
  if (r.status !== 0) return {kubeVersion, error: `exit ${r.status ?? r.signal}: ${(r.stderr || r.stdout).trim().slice(0, 500)}`}
  const services = (JSON.parse(r.stdout) as {services: ServiceExplanation[]}).services
  if (services.length !== 1) return {kubeVersion, error: `${services.length} services in the output`}
  return {kubeVersion, predicted: services[0]!}
}

interface Live {
  slices: EndpointSlice[]
  events: EventObject[]
}

function compare(s: Scenario, predicted: ServiceExplanation, live: Live): string[] {
  const diffs: string[] = []
  const liveEps = live.slices.flatMap((sl) => sl.endpoints ?? [])
  const zonesOf = (h: {forZones?: {name: string}[] | null} | null | undefined) => (h?.forZones ?? []).map((z) => z.name).sort()
  const nodesOf = (h: {forNodes?: {name: string}[] | null} | null | undefined) => (h?.forNodes ?? []).map((z) => z.name).sort()
  const liveSet = liveEps.some((e) => zonesOf(e.hints).length > 0 || nodesOf(e.hints).length > 0)
  if (liveSet !== predicted.controller.hintsSet) diffs.push(`hints set: live ${liveSet}, predicted ${predicted.controller.hintsSet}`)

  // Events: the latest one from the controller on the Service.
  const latest = live.events.at(-1)
  const ev = predicted.controller.event
  if (predicted.mode.path === 'topology-mode-auto') {
    if (!latest || latest.reason !== ev?.reason || latest.message !== ev?.message)
      diffs.push(`event: live ${latest?.reason}: ${latest?.message}; predicted ${ev?.reason}: ${ev?.message}`)
  } else if (latest) diffs.push(`event: live ${latest.reason} on the ${predicted.mode.path} path, predicted none`)

  const byIp = new Map(liveEps.map((e) => [e.addresses[0]!, e]))
  const rc = predicted.controller.randomChoices
  const count = (get: (ip: string) => string[]) => {
    const m: Record<string, number> = {}
    for (const e of predicted.endpoints) for (const z of get(e.addresses[0]!)) m[z] = (m[z] ?? 0) + 1
    return Object.fromEntries(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1)))
  }
  const liveCounts = count((ip) => zonesOf(byIp.get(ip)?.hints))
  const predCounts = count((ip) => [...(predicted.endpoints.find((e) => e.addresses[0] === ip)?.predictedHints?.forZones ?? [])].sort())
  const cross = (zonesFor: (ip: string) => string[]) =>
    predicted.endpoints.filter((e) => zonesFor(e.addresses[0]!).some((z) => z !== e.zone)).length
  const liveCross = cross((ip) => zonesOf(byIp.get(ip)?.hints))
  const predCross = cross((ip) => predicted.endpoints.find((e) => e.addresses[0] === ip)?.predictedHints?.forZones ?? [])
  if (rc.tieBreaks === 0) {
    if (JSON.stringify(liveCounts) !== JSON.stringify(predCounts)) diffs.push(`zone hint counts: live ${JSON.stringify(liveCounts)}, predicted ${JSON.stringify(predCounts)}`)
  }
  if (liveCross !== predCross) diffs.push(`cross-zone hints: live ${liveCross}, predicted ${predCross}`)

  for (const e of predicted.endpoints) {
    const ip = e.addresses[0]!
    const l = byIp.get(ip)
    if (!l) {
      diffs.push(`endpoint ${ip} missing live`)
      continue
    }
    const ln = nodesOf(l.hints)
    const pn = [...(e.predictedHints?.forNodes ?? [])].sort()
    if (ln.join() !== pn.join()) diffs.push(`${ip} node hints: live [${ln}], predicted [${pn}]`)
    if (rc.tieBreaks > 0) continue
    const lz = zonesOf(l.hints)
    const pz = [...(e.predictedHints?.forZones ?? [])].sort()
    if (rc.receiverChoices === 0) {
      if (lz.join() !== pz.join()) diffs.push(`${ip} zone hints: live [${lz}], predicted [${pz}]`)
    } else {
      const donatedLive = lz.length > 0 && lz.some((z) => z !== e.zone)
      const donatedPred = pz.length > 0 && pz.some((z) => z !== e.zone)
      if (donatedLive !== donatedPred) diffs.push(`${ip} donated: live ${donatedLive}, predicted ${donatedPred}`)
    }
  }
  return diffs
}

describe(`differential: explain vs the real EndpointSlice controller (${COUNT} ${FOCUS ? `${FOCUS}-focused ` : ''}scenarios from seed ${FIRST_SEED})`, () => {
  const seeds = Array.from({length: COUNT}, (_, i) => FIRST_SEED + i)

  it.each(seeds)('seed %i', async (seed) => {
    const s = generateScenario(seed, FOCUS)
    const adapted: string[] = []
    const ns = await build(s, adapted)
    const ctx = await loadKubeConfig({requestTimeoutMs: 30_000})
    const read = async () => {
      const state = await readClusterState(ctx, {namespace: ns, serviceNames: [SERVICE], withEvents: true})
      expect(state.serverVersion, 'the reader reports the server version').toBeTruthy()
      serverVersion = state.serverVersion
      const report = explain(state, state.services, {kubeVersion: state.serverVersion, prediction: 'fresh'})
      expect(report.services).toHaveLength(1)
      const predicted = report.services[0]!
      // Only the EndpointSlice controller's events: the API server records others on a new
      // Service now and then (e.g. ClusterIPNotAllocated from its IP repair loop).
      const events = sortEvents((state.events ?? []).filter((e) => e.involvedObject?.name === SERVICE && e.source?.component === EVENT_SOURCE))
      const live = {slices: state.endpointSlices, events}
      return {state, predicted, events, live, diffs: compare(s, predicted, live)}
    }
    // The controller may have synced the Service more than once (its Pod or Node cache behind
    // its Service cache on a loaded machine), and it records each sync's Event only after
    // writing the slices, asynchronously: the endpoints can be final while the latest Event is
    // still an earlier sync's. Read again (bounded) until the live state agrees; a lasting
    // difference is still reported, from the last read.
    let r = await read()
    for (const deadline = Date.now() + 20_000; r.diffs.length > 0 && Date.now() < deadline; ) {
      await new Promise((res) => setTimeout(res, 500))
      r = await read()
    }
    const {state, predicted, events, live, diffs} = r
    if (s.trafficDistribution !== undefined && adapted.length === 0 && state.services[0]?.spec?.trafficDistribution == null)
      adapted.push(`API server dropped trafficDistribution ${s.trafficDistribution}: its gate is off`)
    const snap = predictFromSnapshot(state, ns, seed)
    const snapshotDiffs = snap.error ? [`snapshot + --kube-version: ${snap.error}`] : compare(s, snap.predicted!, live)
    const rc = predicted.controller.randomChoices
    const notes = [
      `${s.zones.length} zones, ${s.nodes.length} nodes, ${s.pods.length} pods, ${predicted.mode.path}, ${predicted.controller.reason}`,
      ...adapted,
      ...(rc.tieBreaks ? ['tie-break: compared totals only'] : []),
      ...(rc.receiverChoices ? ['several receivers: compared which endpoints moved, not where'] : []),
    ]
    results.push({seed, agree: diffs.length === 0, snapshotAgree: snapshotDiffs.length === 0, notes, diffs, snapshotDiffs})
    const dir = path.join(OUT, `seed-${seed}`)
    if (diffs.length > 0 || snapshotDiffs.length > 0) {
      mkdirSync(dir, {recursive: true})
      writeFileSync(`${dir}/snapshot.yaml`, stringify(serializeSnapshot(state)))
      writeFileSync(`${dir}/live.yaml`, stringify({slices: live.slices, events}))
      writeFileSync(
        `${dir}/diffs.txt`,
        `server ${state.serverVersion}\n${notes.join('\n')}\n` +
          `live explain:\n${diffs.join('\n')}\nsnapshot + --kube-version ${snap.kubeVersion}:\n${snapshotDiffs.join('\n')}\n` +
          `reproduce: ${FOCUS ? `DIFF_FOCUS=${FOCUS} ` : ''}npm run test:differential -- --seed ${seed} --scenarios 1\n`,
      )
    }
    await c.core.deleteNamespacedService({name: SERVICE, namespace: ns}).catch(() => undefined)
    expect(diffs, `seed ${seed} (${notes[0]}): dumped to ${path.relative(ROOT, dir)}`).toEqual([])
    expect(snapshotDiffs, `seed ${seed}, snapshot + --kube-version ${snap.kubeVersion}: dumped to ${path.relative(ROOT, dir)}`).toEqual([])
  })

  afterAll(() => {
    if (process.env.DIFF_RESULTS) {
      mkdirSync(path.dirname(process.env.DIFF_RESULTS), {recursive: true})
      writeFileSync(process.env.DIFF_RESULTS, JSON.stringify({serverVersion, firstSeed: FIRST_SEED, count: COUNT, focus: FOCUS ?? null, results}, null, 2) + '\n')
    }
    const agree = results.filter((r) => r.agree).length
    const paths = new Map<string, number>()
    for (const r of results) {
      const k = r.notes[0]!.split(', ').slice(-2).join(', ')
      paths.set(k, (paths.get(k) ?? 0) + 1)
    }
    const snapAgree = results.filter((r) => r.snapshotAgree).length
    process.stdout.write(`\ndifferential (server ${serverVersion}): ${agree}/${results.length} scenarios agree; snapshot + --kube-version: ${snapAgree}/${results.length}\n`)
    const ties = results.filter((r) => r.notes.some((n) => n.startsWith('tie-break'))).length
    const receivers = results.filter((r) => r.notes.some((n) => n.startsWith('several receivers'))).length
    process.stdout.write(`  (upstream random: ${ties} with a tie-break, compared totals; ${receivers} with several receivers, compared which endpoints moved)\n`)
    for (const [k, n] of [...paths.entries()].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${String(n).padStart(4)}  ${k}\n`)
  })
})
