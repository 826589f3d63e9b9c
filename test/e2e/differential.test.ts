// Differential test: explain's prediction against the real EndpointSlice controller on many
// seeded random clusters (test/e2e/scenarios.ts). For each scenario: build it on the control
// plane (Nodes, Pods, then the Service), wait until the controller has reconciled, read the
// state through the product's own reader, run the engine in 'fresh' mode (the controller
// rebuilt the slice when its endpoints changed, so its hints are a fresh computation), and
// compare with what the controller wrote.
//
// Compared, and why exactly these (upstream walks the slices in a Go map's order and iterates
// maps in topologycache/utils.go getGivingAndReceivingZones and redistributeHints, so some
// choices are random; the engine says which, per endpoint, as `alternatives`):
//  - hints set or not;
//  - the controller's Event: at creation the latest one (predicted from the state before the
//    first sync: no hints, no Events); after each step the Events that step recorded (new, or
//    a count raised), predicted from the state before the step with the step applied in
//    memory (next-sync), so the populated mark is inferred from the cluster as explain does;
//  - node hints of every endpoint (deterministic);
//  - each endpoint's zone hint: exactly the prediction when it is certain, else one zone of
//    its `alternatives`;
//  - per-zone counts of zone hints and the number of cross-zone hints when
//    randomChoices.countsCertain;
//  - explain on the state the controller left (next-sync) reports no drift: the controller's
//    own hints are never drift.
// Steps (scenarios.ts): mode switches with the hints in place (Auto, none, PreferSameZone) and
// forced re-syncs (an annotation touched); each also touches that annotation, so the
// controller syncs even when the mode was already the step's.
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
import {PatchStrategy, setHeaderOptions} from '@kubernetes/client-node'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'
import {loadKubeConfig} from '../../src/cluster/kubeconfig.js'
import {readClusterState} from '../../src/cluster/live.js'
import {serializeSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {explain, type ServiceExplanation} from '../../src/explain/report.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import type {EndpointSlice, EventObject, Service} from '../../src/upstream/api/types.js'
import {ROOT} from '../cli/run-cli.js'
import {cluster, EVENT_SOURCE, sortEvents, statusOf} from './fixtures.js'
import {autoAnnotation, generateScenario, type Scenario, type Step} from './scenarios.js'

const COUNT = Number(process.env.DIFF_SCENARIOS ?? 100)
const FIRST_SEED = Number(process.env.DIFF_SEED ?? 1)
const FOCUS = process.env.DIFF_FOCUS === 'traffic' ? 'traffic' : undefined
if (process.env.DIFF_FOCUS && !FOCUS) throw new Error(`DIFF_FOCUS must be 'traffic', got ${JSON.stringify(process.env.DIFF_FOCUS)}`)
const SERVICE = 'svc'
const OUT = path.resolve(ROOT, process.env.DIFF_OUT ?? 'test-results/differential')
const c = cluster()
const results: {seed: number; agree: boolean; snapshotAgree: boolean; notes: string[]; slices: number; sliceOrder: boolean; steps: Step[]; events: number}[] = []
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch)
const MODE = 'service.kubernetes.io/topology-mode'
const HINTS = 'service.kubernetes.io/topology-aware-hints'
const RESYNC = 'e2e.kubectl-topology.io/resync'
let serverVersion: string | undefined

async function build(s: Scenario, notes: string[]): Promise<string> {
  await c.deleteAllNodes()
  await pool(s.nodes, 16, (n) => c.createNode(n))
  const ns = await c.createNamespace(`diff-${s.seed}`)
  await pool(s.pods, 16, (p) => c.createPod({namespace: ns, name: p.name, labels: {app: SERVICE}, nodeName: p.nodeName, ip: p.ip, ready: p.ready, terminating: p.terminating}))
  const service = {
    namespace: ns,
    name: SERVICE,
    selector: {app: SERVICE},
    annotations: s.annotations,
    trafficDistribution: s.trafficDistribution,
    publishNotReadyAddresses: s.publishNotReadyAddresses,
  }
  try {
    const created = await c.createService(service)
    // 1.30 (ServiceTrafficDistribution off): the API server drops the field without a word.
    if (s.trafficDistribution !== undefined && created.spec?.trafficDistribution == null)
      notes.push(`API server dropped trafficDistribution ${s.trafficDistribution}: its gate is off`)
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

/** What the controller's Event(s) must be: the latest one (creation), or those a step recorded. */
type EventCheck = {kind: 'latest'} | {kind: 'new'; before: Map<string, number>}

const zonesOf = (h: {forZones?: {name: string}[] | null} | null | undefined) => (h?.forZones ?? []).map((z) => z.name).sort()
const nodesOf = (h: {forNodes?: {name: string}[] | null} | null | undefined) => (h?.forNodes ?? []).map((z) => z.name).sort()

function compare(predicted: ServiceExplanation, live: Live, check: EventCheck): string[] {
  const diffs: string[] = []
  const liveEps = live.slices.flatMap((sl) => sl.endpoints ?? [])
  const liveSet = liveEps.some((e) => zonesOf(e.hints).length > 0 || nodesOf(e.hints).length > 0)
  if (liveSet !== predicted.controller.hintsSet) diffs.push(`hints set: live ${liveSet}, predicted ${predicted.controller.hintsSet}`)

  const ev = predicted.controller.event
  const show = (e: {reason?: string; message?: string} | null | undefined) => (e ? `${e.reason}: ${e.message}` : 'none')
  if (check.kind === 'latest') {
    const latest = live.events.filter((e) => e.reason?.startsWith('TopologyAwareHints')).at(-1) ?? null
    if (show(latest) !== show(ev)) diffs.push(`event: live ${show(latest)}; predicted ${show(ev)}`)
  } else {
    // The topology Events only: the controller also records e.g. FailedToUpdateEndpointSlices.
    const recorded = live.events.filter((e) => e.reason?.startsWith('TopologyAwareHints') && (check.before.get(e.metadata.name) ?? 0) < (e.count ?? 1))
    const last = recorded.at(-1) ?? null
    if (show(last) !== show(ev) || (ev === null && recorded.length > 0)) diffs.push(`event of the step: live ${recorded.map(show).join(' / ') || 'none'}; predicted ${show(ev)}`)
  }

  const byIp = new Map(liveEps.map((e) => [e.addresses[0]!, e]))
  const certain = predicted.controller.randomChoices.countsCertain
  const count = (get: (e: ServiceExplanation['endpoints'][number]) => string[]) => {
    const m: Record<string, number> = {}
    for (const e of predicted.endpoints) for (const z of get(e)) m[z] = (m[z] ?? 0) + 1
    return JSON.stringify(Object.entries(m).sort(([a], [b]) => (a < b ? -1 : 1)))
  }
  const liveZones = (e: ServiceExplanation['endpoints'][number]) => zonesOf(byIp.get(e.addresses[0]!)?.hints)
  const predZones = (e: ServiceExplanation['endpoints'][number]) => [...(e.predictedHints?.forZones ?? [])].sort()
  if (certain) {
    if (count(liveZones) !== count(predZones)) diffs.push(`zone hint counts: live ${count(liveZones)}, predicted ${count(predZones)}`)
    const cross = (get: typeof liveZones) => predicted.endpoints.filter((e) => get(e).some((z) => z !== e.zone)).length
    if (cross(liveZones) !== cross(predZones)) diffs.push(`cross-zone hints: live ${cross(liveZones)}, predicted ${cross(predZones)}`)
  }

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
    const lz = zonesOf(l.hints)
    if (e.alternatives !== null) {
      if (lz.length !== 1 || !e.alternatives.includes(lz[0]!)) diffs.push(`${ip} zone hints: live [${lz}], possible one of [${e.alternatives}]`)
    } else if (lz.join() !== predZones(e).join()) diffs.push(`${ip} zone hints: live [${lz}], predicted [${predZones(e)}]`)
  }
  return diffs
}

/** The controller's own hints are never drift: explain (next-sync) on the state it left. */
function selfDrift(state: ClusterState): string[] {
  const s = explain(state, state.services, {kubeVersion: state.serverVersion}).services[0]!
  if (!s.mode.managedByController || (s.drift.endpoints === 0 && !s.drift.zoneCounts)) return []
  return [`explain reports drift on the controller's own hints: ${s.drift.endpoints} endpoint(s), zoneCounts ${s.drift.zoneCounts}`]
}

/** RFC 7386 JSON merge patch, in memory (the Service as the step will leave it). */
function mergeInto(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch
  const out: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? {...(target as Record<string, unknown>)} : {}
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else out[k] = mergeInto(out[k], v)
  }
  return out
}

function stepPatch(step: Step, n: number): Record<string, unknown> {
  const touch = {[RESYNC]: String(n)}
  switch (step) {
    case 'auto':
      return {metadata: {annotations: {...touch, [HINTS]: null, [MODE]: 'Auto'}}}
    case 'none':
      return {metadata: {annotations: {...touch, [HINTS]: null, [MODE]: null}}, spec: {trafficDistribution: null}}
    case 'prefer-same-zone':
      return {metadata: {annotations: {...touch, [HINTS]: null, [MODE]: null}}, spec: {trafficDistribution: 'PreferSameZone'}}
    case 'resync':
      return {metadata: {annotations: touch}}
  }
}

/** The state before the first sync: no hints on the slices, no Events. */
function beforeFirstSync(state: ClusterState): ClusterState {
  const strip = (s: EndpointSlice): EndpointSlice => ({...s, endpoints: (s.endpoints ?? []).map(({hints: _, ...e}) => e)})
  return {...state, events: [], endpointSlices: state.endpointSlices.map(strip)}
}

describe(`differential: explain vs the real EndpointSlice controller (${COUNT} ${FOCUS ? `${FOCUS}-focused ` : ''}scenarios from seed ${FIRST_SEED})`, () => {
  const seeds = Array.from({length: COUNT}, (_, i) => FIRST_SEED + i)

  it.each(seeds)('seed %i', async (seed) => {
    const s = generateScenario(seed, FOCUS)
    const adapted: string[] = []
    const ns = await build(s, adapted)
    const ctx = await loadKubeConfig({requestTimeoutMs: 30_000})
    const readState = async () => {
      const state = await readClusterState(ctx, {namespace: ns, serviceNames: [SERVICE], withEvents: true})
      // Only the EndpointSlice controller's events: the API server records others on a new
      // Service now and then (e.g. ClusterIPNotAllocated from its IP repair loop).
      const events = sortEvents((state.events ?? []).filter((e) => e.involvedObject?.name === SERVICE && e.source?.component === EVENT_SOURCE))
      return {state, live: {slices: state.endpointSlices, events}}
    }
    // The controller may sync the Service more than once (its Pod or Node cache behind its
    // Service cache on a loaded machine), and it records each sync's Event only after writing
    // the slices, asynchronously. Read again (bounded) until the live state agrees; a lasting
    // difference is still reported, from the last read.
    const settle = async (predict: (state: ClusterState) => ServiceExplanation, check: EventCheck) => {
      const once = async () => {
        const r = await readState()
        const predicted = predict(r.state)
        return {...r, predicted, diffs: [...compare(predicted, r.live, check), ...selfDrift(r.state)]}
      }
      let r = await once()
      for (const deadline = Date.now() + 20_000; r.diffs.length > 0 && Date.now() < deadline; ) {
        await new Promise((res) => setTimeout(res, 500))
        r = await once()
      }
      return r
    }
    // The controller may sync once more on its own after its own write: when its slice informer
    // sees the new slice before its tracker does, it queues the Service again after
    // endpointSliceChangeMinSyncDelay (1 s; endpointslice_controller.go), and an Auto Service
    // refused for a reason records its Event again. Seen once on 1.30 (seed 7: the creation's
    // "Insufficient Node information" counted again 1 s later, inside the next step). Before a
    // step, wait (bounded) until the Service's slices and Events have been still for 1.5 s, so
    // the step is predicted from, and compared with, a state no earlier sync is still changing.
    const quiet = async () => {
      const mark = (x: Awaited<ReturnType<typeof readState>>) =>
        JSON.stringify([x.live.slices.map((e) => [e.metadata.name, e.metadata.resourceVersion]), x.live.events.map((e) => [e.metadata.name, e.count ?? 1])])
      let last = await readState()
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        await new Promise((res) => setTimeout(res, 1_500))
        const now = await readState()
        if (mark(now) === mark(last)) return now
        last = now
      }
      return last
    }
    const explainOne = (state: ClusterState, prediction: 'fresh' | 'next-sync') => {
      const report = explain(state, state.services, {kubeVersion: state.serverVersion, prediction})
      expect(report.services).toHaveLength(1)
      return report.services[0]!
    }

    // 1. Creation: predicted from the state before the first sync.
    let r = await settle((state) => explainOne(beforeFirstSync(state), 'fresh'), {kind: 'latest'})
    const allDiffs = r.diffs.map((d) => `create: ${d}`)
    const first = r.predicted
    serverVersion = r.state.serverVersion
    expect(serverVersion, 'the reader reports the server version').toBeTruthy()
    // The same first prediction from a snapshot file without its serverVersion, through the
    // built CLI with --kube-version MAJOR.MINOR: must agree with the controller too.
    const snap = predictFromSnapshot(beforeFirstSync(r.state), ns, seed)
    const snapshotDiffs = snap.error
      ? [`snapshot + --kube-version: ${snap.error}`]
      : compare(snap.predicted!, r.live, {kind: 'latest'}).map((d) => `snapshot + --kube-version ${snap.kubeVersion}: ${d}`)
    let slices = r.state.endpointSlices.length
    let sliceOrder = first.controller.randomChoices.sliceOrder > 0
    let eventsChecked = 1
    // 2. Each step, predicted from the state before it (next-sync) with the step applied in memory.
    for (const [i, step] of s.steps.entries()) {
      if (allDiffs.length > 0) break
      const pre = await quiet()
      const patch = stepPatch(step, i + 1)
      const svc = mergeInto(pre.state.services[0], patch) as Service
      const before = new Map(pre.live.events.map((e) => [e.metadata.name, e.count ?? 1]))
      let stored: {spec?: {trafficDistribution?: string | null}}
      try {
        stored = await c.core.patchNamespacedService({name: SERVICE, namespace: ns, body: patch}, mergePatch)
      } catch (e) {
        // Before 1.34 the API server rejects PreferSameZone (validateServiceTrafficDistribution): not a step this version can take.
        if (statusOf(e) !== 422) throw e
        adapted.push(`API server rejected step ${i + 1} (${step})`)
        continue
      }
      // In 1.30 (ServiceTrafficDistribution off) the API server drops spec.trafficDistribution
      // silently (pkg/registry/core/service/strategy.go dropServiceDisabledFields): the controller sees the Service as stored, so the
      // prediction takes the stored value, and the scenario says so.
      const want = (svc.spec as {trafficDistribution?: string} | undefined)?.trafficDistribution
      if (want != null && stored.spec?.trafficDistribution == null) {
        adapted.push(`API server dropped trafficDistribution ${want} on step ${i + 1}: its gate is off`)
        delete (svc.spec as {trafficDistribution?: string}).trafficDistribution
      }
      const predicted = explainOne({...pre.state, services: [svc]}, 'next-sync')
      // A step may change nothing visible (a re-sync): give the controller time to sync.
      await new Promise((res) => setTimeout(res, 2_000))
      r = await settle(() => predicted, {kind: 'new', before})
      allDiffs.push(...r.diffs.map((d) => `step ${i + 1} (${step}): ${d}`))
      slices = Math.max(slices, r.state.endpointSlices.length)
      if (predicted.controller.randomChoices.sliceOrder > 0) sliceOrder = true
      eventsChecked++
    }
    const {state, live} = r
    const diffs = allDiffs
    const rc = first.controller.randomChoices
    const notes = [
      `${s.zones.length} zones, ${s.nodes.length} nodes, ${s.pods.length} pods, ${first.mode.path}, ${first.controller.reason}`,
      ...adapted,
      ...(rc.tieBreaks ? ['tie-break'] : []),
      ...(rc.receiverChoices ? ['several receivers'] : []),
    ]
    results.push({seed, agree: diffs.length === 0, snapshotAgree: snapshotDiffs.length === 0, notes, slices, sliceOrder, steps: s.steps, events: eventsChecked})
    const dir = path.join(OUT, `seed-${seed}`)
    if (diffs.length > 0 || snapshotDiffs.length > 0) {
      mkdirSync(dir, {recursive: true})
      writeFileSync(`${dir}/snapshot.yaml`, stringify(serializeSnapshot(state)))
      writeFileSync(`${dir}/live.yaml`, stringify({slices: live.slices, events: live.events}))
      writeFileSync(
        `${dir}/diffs.txt`,
        `server ${state.serverVersion}\n${notes.join('\n')}\n${[...diffs, ...snapshotDiffs].join('\n')}\nsteps: ${s.steps.join(', ') || 'none'}\n` +
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
    process.stdout.write(`  (upstream random at creation: ${ties} with a tie-break, ${receivers} with several receivers; compared against the alternatives)\n`)
    for (const [k, n] of [...paths.entries()].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${String(n).padStart(4)}  ${k}\n`)
    const several = results.filter((r) => r.slices > 1).length
    const order = results.filter((r) => r.sliceOrder).length
    const steps = new Map<string, number>()
    for (const r of results) for (const st of r.steps) steps.set(st, (steps.get(st) ?? 0) + 1)
    process.stdout.write(`  several slices: ${several}; slice order decided some hint: ${order}; events checked: ${results.reduce((a, r) => a + r.events, 0)}\n`)
    process.stdout.write(`  steps: ${[...steps].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}\n`)
  })
})
