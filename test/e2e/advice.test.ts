// "Follow the advice" on the real control plane (issue 19): for every scenario of
// test/e2e/advice-scenarios.ts, the commands explain and plan print are taken exactly as printed
// (from the table and from the JSON, which must carry the same strings), run verbatim with
// /bin/sh -c on a terminal under the harness's PATH (this minor's kubectl; `kubectl topology` is
// this checkout's build through kubectl's plugin discovery), and after the real EndpointSlice
// controller has synced, the Service's mode, whether hints are written and explain's predicted
// in-zone share must be what the advice promised. A command that fails or changes nothing fails
// the scenario, naming it and the command.
//
// Each run (one explain command, its alternative, or plan's commands in order) gets its own copy
// of the scenario (a fresh namespace on the same Nodes), so runs do not see each other's changes.
// Needs `node scripts/cluster.mjs run -- ...` (docs/testing.md).
import {appendFileSync, mkdirSync, mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {Copy} from './advice-build.js'
import {countOfCommand, type Expect, jsonCommands, type Mode, type PlanServiceJson, type Run, runsOf, type ServiceJson, tableCommands, tableSections} from './advice-commands.js'
import {onTerminal, piped, topology} from './advice-run.js'
import {type AdviceScenario, scenariosFor, targetsOf, workers} from './advice-scenarios.js'
import {cluster} from './fixtures.js'

const VERSION = process.env.CLUSTER_VERSION ?? ''
const MINOR = Number(/^v?1\.(\d+)/.exec(VERSION)?.[1] ?? Number.NaN)
/** Optional: one JSON line per command run (scenario, Service, command, outcome), for the corpus's command list. */
const LOG = process.env.ADVICE_COMMANDS_LOG
const SYNC_WAIT_MS = 30_000
/** Runs followed at once within a scenario (each in its own namespace). */
const PARALLEL_RUNS = 4
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Printed {
  explain: ServiceJson
  plan: PlanServiceJson
  runs: Run[]
}

/** explain and plan for the whole namespace, in JSON and as tables; per target Service its runs. */
async function readPrinted(copy: Copy, targets: string[], failures: string[], tables: boolean): Promise<Map<string, Printed>> {
  const ns = copy.namespace
  const [ej, et, pj, pt] = await Promise.all([
    topology(`explain -n ${ns} -o json`),
    tables ? topology(`explain -n ${ns}`) : undefined,
    topology(`plan -n ${ns} -o json`),
    tables ? topology(`plan -n ${ns}`) : undefined,
  ])
  const explain = JSON.parse(ej) as {services: ServiceJson[]}
  const plan = JSON.parse(pj) as {services: PlanServiceJson[]}
  const explainTable = tableSections(et ?? '')
  const planTable = tableSections(pt ?? '')
  const out = new Map<string, Printed>()
  for (const name of targets) {
    const where = `${copy.scenario.name} ${ns}/${name}`
    const e = explain.services.find((s) => s.namespace === ns && s.name === name)
    const p = plan.services.find((s) => s.namespace === ns && s.name === name)
    if (!e || !p) {
      failures.push(`${where}: missing from explain or plan -n ${ns}`)
      continue
    }
    // The same strings in the table as in the JSON (on the first copy; later copies must print
    // the same strings as it, but for the namespace).
    for (const [source, json, table] of !tables
      ? []
      : ([
          ['explain', jsonCommands(e, 'explain'), tableCommands(explainTable.get(`${ns}/${name}`) ?? '')],
          ['plan', jsonCommands(p, 'plan'), tableCommands(planTable.get(`${ns}/${name}`) ?? '')],
        ] as const)) {
      const a = [...json].sort()
      const b = [...new Set(table)].sort()
      if (JSON.stringify(a) !== JSON.stringify(b))
        failures.push(`${where}: ${source}'s table and JSON print different commands:\n  JSON:  ${a.join('\n         ')}\n  table: ${b.join('\n         ')}`)
    }
    out.set(name, {explain: e, plan: p, runs: runsOf(e, p)})
  }
  return out
}

function modeOf(path: string, trafficDistribution: string | undefined): Mode | 'unknown' {
  if (path === 'topology-mode-auto') return 'Auto'
  if (path === 'none') return 'none'
  if (path === 'traffic-distribution' && trafficDistribution) return trafficDistribution as Mode
  return 'unknown'
}

type HintState = 'all' | 'none' | 'some'

async function hintState(copy: Copy, svc: string): Promise<HintState> {
  const slices = await cluster().listEndpointSlices(copy.namespace, svc)
  const eps = slices.flatMap((s) => s.endpoints ?? []).filter((e) => e.conditions?.ready !== false)
  const hinted = eps.filter((e) => (e.hints?.forZones?.length ?? 0) > 0).length
  return hinted === 0 ? 'none' : hinted === eps.length ? 'all' : 'some'
}

/** Runs one sequence of printed commands in `copy` and checks the promise; failures are appended. */
async function follow(copy: Copy, svc: string, printed: Printed, run: Run, failures: string[]): Promise<void> {
  const s = copy.scenario
  const env = {XDG_STATE_HOME: mkdtempSync(path.join(os.tmpdir(), 'advice-state-'))}
  const tag = `${s.name} ${copy.namespace}/${svc} (${run.source} ${run.variant})`
  for (const cmd of run.commands) {
    const before = await copy.versions(svc)
    const t0 = Date.now()
    const r = await onTerminal(cmd, env)
    const ms = Date.now() - t0
    const after = await copy.versions(svc)
    const changed = JSON.stringify(before) !== JSON.stringify(after)
    if (LOG)
      appendFileSync(LOG, `${JSON.stringify({minor: MINOR, scenario: s.name, service: svc, source: run.source, variant: run.variant, command: cmd, code: r.code, changed, ms})}\n`)
    if (r.code !== 0) {
      failures.push(`${tag}: \`${cmd}\` exited ${r.code}:\n${r.output.trim().split('\n').slice(-6).join('\n')}`)
      return
    }
    if (!changed) {
      failures.push(`${tag}: \`${cmd}\` changed nothing (Service, workload and HPA as before)${r.answered ? '' : `; output: ${r.output.trim().split('\n').slice(-3).join(' | ')}`}`)
      return
    }
    // The controllers that do not run: the scheduler places the Pods of a new count.
    const now = copy.expected(svc).length
    const count = countOfCommand(cmd, now)
    if (count !== null) {
      if (/\bkubectl scale\b/.test(cmd)) {
        const replicas = await copy.workloadReplicas(svc)
        if (replicas !== count) failures.push(`${tag}: after \`${cmd}\` the workload has ${replicas} replicas, not ${count}`)
      } else {
        const min = await copy.hpaMin(svc)
        if (min === null || min > count || (count > now && min !== count)) failures.push(`${tag}: after \`${cmd}\` the HPA's minReplicas is ${min}`)
        if (count > now) await copy.scaleWorkload(svc, count)
      }
      const zones = printed.plan.range.rows.find((row) => row.replicas === count)?.zones
      if (!zones) {
        failures.push(`${tag}: plan shows no placement for ${count} replicas (its range: ${printed.plan.range.rows.map((x) => x.replicas).join(',')})`)
        return
      }
      await copy.place(svc, zones)
    }
  }
  if (!run.expect) {
    failures.push(`${tag}: \`${run.commands.join(' && ')}\`: the tool does not say what mode this leads to`)
    return
  }
  await check(copy, svc, run, run.expect, tag, failures)
}

interface ExplainJson {
  services: {mode: {path: string}; controller: {hintsSet: boolean}; traffic: {inZoneSharePredicted: number | null}}[]
}

async function check(copy: Copy, svc: string, run: Run, want: Expect, tag: string, failures: string[]): Promise<void> {
  const explainNow = async () => (JSON.parse(await topology(`explain svc/${svc} -n ${copy.namespace} -o json`)) as ExplainJson).services[0]!
  // The controller's sync: explain predicts what it writes next (the differential suite proves
  // the prediction), so a bounded poll until the live hints are that, then explain again.
  // The Service, its Pods and workload are final here: explain's figures are the ones after the sync.
  const e = await explainNow()
  const predicted: HintState = e.controller.hintsSet ? 'all' : 'none'
  let hints = await hintState(copy, svc)
  const deadline = Date.now() + SYNC_WAIT_MS
  while (hints !== predicted && Date.now() < deadline) {
    await sleep(200)
    hints = await hintState(copy, svc)
  }
  const cmds = run.commands.map((c) => `\`${c}\``).join(' then ')
  if (hints !== predicted)
    failures.push(`${tag}: after ${cmds} the controller did not write what explain predicted (hints on ${predicted} endpoints) within ${SYNC_WAIT_MS / 1000}s: ${hints}`)
  const live = await cluster().core.readNamespacedService({name: svc, namespace: copy.namespace})
  const mode = modeOf(e.mode.path, live.spec?.trafficDistribution)
  const promised = `${run.promise === 'advice' ? 'promised' : "plan's figures (no promise printed)"}: mode ${want.mode}, hints ${want.hints ?? '-'}, in-zone ${want.inZone ?? '-'}`
  if (mode !== want.mode) failures.push(`${tag}: after ${cmds} the mode is ${mode}, ${promised}`)
  if (want.hints !== null && hints !== (want.hints ? 'all' : 'none')) failures.push(`${tag}: after ${cmds} hints are on ${hints} endpoints, ${promised}`)
  const inZone = e.traffic.inZoneSharePredicted
  if (want.inZone !== null && (inZone === null || Math.abs(inZone - want.inZone) > 0.005)) {
    failures.push(`${tag}: after ${cmds} explain predicts ${inZone === null ? 'no' : `${(inZone * 100).toFixed(1)}%`} in-zone, ${promised}`)
  }
}

/** The same runs in another copy: the same strings but for the namespace. */
function sameRuns(a: Run[], b: Run[], nsA: string, nsB: string): boolean {
  const norm = (runs: Run[], ns: string) => JSON.stringify(runs.map((r) => r.commands.map((c) => c.replaceAll(ns, 'NS'))))
  return norm(a, nsA) === norm(b, nsB)
}

/** Runs the tasks, at most `width` at a time. */
async function pool(tasks: (() => Promise<void>)[], width: number): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < tasks.length) await tasks[next++]!()
  }
  await Promise.all(Array.from({length: Math.min(width, tasks.length)}, worker))
}

async function followScenario(s: AdviceScenario): Promise<string[]> {
  const c = cluster()
  const failures: string[] = []
  await c.deleteAllNodes()
  for (const n of s.nodes) await c.createNode(n)
  const targets = targetsOf(s)
  const newCopy = async () => {
    const copy = new Copy(c, s, await c.createNamespace(s.namespacePrefix ?? 'advice'))
    await copy.build()
    return copy
  }
  const first = await newCopy()
  const printed0 = await readPrinted(first, targets, failures, true)
  // One copy per run index; the copies (namespaces on the same Nodes) are independent, so they
  // are built, read and followed side by side.
  const count = Math.max(0, ...[...printed0.values()].map((p) => p.runs.length))
  const others = await Promise.all(Array.from({length: Math.max(0, count - 1)}, newCopy))
  const copies = [first, ...others]
  const printed = [printed0, ...(await Promise.all(others.map((copy) => readPrinted(copy, targets, [], false))))]
  const tasks: (() => Promise<void>)[] = []
  for (const [j, copy] of copies.entries()) {
    for (const svc of targets) {
      const p = printed[j]!.get(svc)
      const p0 = printed0.get(svc)
      if (!p || !p0?.runs[j]) continue
      if (!sameRuns(p0.runs, p.runs, first.namespace, copy.namespace)) {
        failures.push(`${s.name} ${svc}: a second copy of the scenario printed other commands`)
        continue
      }
      tasks.push(() => follow(copy, svc, p, p.runs[j]!, failures))
    }
  }
  await pool(tasks, PARALLEL_RUNS)
  return failures.sort()
}

describe(`follow the advice (Kubernetes ${VERSION})`, () => {
  beforeAll(async () => {
    if (LOG) mkdirSync(path.dirname(LOG), {recursive: true})
    // The harness's PATH: kubectl of the control plane's own version.
    // The first call builds this version's kubectl (docs/testing.md: minutes on a loaded machine).
    const built = await piped('kubectl version --client', {}, 45 * 60_000)
    expect(built.code, built.stderr).toBe(0)
    const v = await piped('kubectl version -o json')
    const versions = JSON.parse(v.output) as {clientVersion?: {gitVersion?: string}; serverVersion?: {gitVersion?: string}}
    expect(versions.clientVersion?.gitVersion, "run under `node scripts/cluster.mjs run --`: its PATH has this version's kubectl").toBe(versions.serverVersion?.gitVersion)
    expect(versions.serverVersion?.gitVersion).toBe(VERSION)
  }, 50 * 60_000)

  it('has at least 30 (scenario, Service) pairs for this minor', () => {
    expect(Number.isFinite(MINOR)).toBe(true)
    expect(scenariosFor(MINOR).flatMap((s) => targetsOf(s)).length).toBeGreaterThanOrEqual(30)
  })

  it('a fix `nodes` prints for a ready Node without a zone label, run verbatim, labels the Node with a zone', async () => {
    const c = cluster()
    await c.deleteAllNodes()
    for (const n of [...workers(['zone-a', 'zone-b'], 1), {name: 'no-zone-w0', cpu: '4'}]) await c.createNode(n)
    const out = await topology('nodes')
    const fixes = out
      .split('\n')
      .map((l) => /:\s(kubectl .*)$/.exec(l.trim())?.[1])
      .filter((x): x is string => x !== undefined)
    // Every line that offers a command must run as printed (a template such as `=<zone>` is
    // not a command: sh reads `<zone` as a redirection).
    for (const fix of fixes) {
      const r = await onTerminal(fix)
      if (LOG)
        appendFileSync(
          LOG,
          `${JSON.stringify({minor: MINOR, scenario: 'nodes: a Node without a zone label', service: null, source: 'nodes', variant: 'command', command: fix, code: r.code})}\n`,
        )
      expect(r.code, `\`${fix}\`: ${r.output}`).toBe(0)
      const node = await c.core.readNode({name: 'no-zone-w0'})
      expect(node.metadata?.labels?.['topology.kubernetes.io/zone'], `\`${fix}\``).toMatch(/^zone-[ab]$/)
    }
  })

  for (const s of scenariosFor(Number.isFinite(MINOR) ? MINOR : 36)) {
    it(s.name, async () => {
      const failures = await followScenario(s)
      expect(failures, failures.join('\n\n')).toEqual([])
    }, 600_000)
  }
})
