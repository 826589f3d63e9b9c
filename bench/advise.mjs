#!/usr/bin/env node
// The advisor's cost, before and after, in one invocation (issues 19/23). Prints figures and the
// ratio, never pass/fail.
//
//   npm run build && npx node bench/advise.mjs [--base REF] [--services 1000] [--nodes 512] [--rounds 5] [--keep]
//
// What it times: explainAdvised() (src/advise/report.ts: explain's report plus one
// recommendation per Service, what `explain -A`, `check -A` and `watch` compute) on every Service
// of a synthetic snapshot, in-process, once per child process (a CLI run makes one call, so the
// first call is what counts), with the main thread's CPU time (on a loaded machine the wall time
// waits for a core, the CPU time does not) and the process's peak RSS. Two builds of the engine
// are bundled with esbuild: `base` from git REF's src/ (default main) and `head` from the
// working tree's src/; the child processes alternate base, head, base, head ... for --rounds
// rounds after one warm-up round, so both see the same load; a third process per round times
// explain() alone on the head build (no advisor), for the advisor's share. The two reports must be the same
// JSON (sha256 compared): the speed-up changes no figure.
//
// The snapshot: bench/big-snapshot.mjs's generator with --nodes Ready nodes in 6 zones and
// --services Services of 10 endpoints (a third topology-mode Auto, a third trafficDistribution
// PreferSameZone, a third plain), no svc/big. All commands run under the project's Node.
import {spawnSync} from 'node:child_process'
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {bundleExports, extractSrcAt} from './engine-bundle.mjs'
import {generate} from './big-snapshot.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const BASE = opt('--base', 'main')
const SERVICES = Number(opt('--services', 1000))
const NODES = Number(opt('--nodes', 512))
const ROUNDS = Number(opt('--rounds', 5))
const KEEP = args.includes('--keep')
const NODE = join(ROOT, 'node_modules', '.bin', 'node')

function run(cmd, argv, opts = {}) {
  const r = spawnSync(cmd, argv, {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  if (r.status !== 0) {
    process.stderr.write(`bench: ${[cmd, ...argv].join(' ')} exited ${r.status}\n${r.stderr}\n`)
    process.exit(1)
  }
  return r
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')

const dir = mkdtempSync(join(os.tmpdir(), 'kubectl-topology-advise-'))
try {
  const snapshot = join(dir, 'snapshot.json')
  writeFileSync(snapshot, JSON.stringify(generate({nodes: NODES, smallServices: SERVICES, bigEndpoints: 0})))

  // The base's src/ from git, the head's from the working tree.
  const baseRoot = join(dir, 'base')
  mkdirSync(baseRoot)
  const sha = extractSrcAt(BASE, ROOT, baseRoot)

  const bundles = {}
  for (const [name, root] of [
    ['base', baseRoot],
    ['head', ROOT],
  ]) {
    bundles[name] = await bundleExports({
      root,
      dir,
      name,
      exports: {explainAdvised: 'src/advise/report.ts', explain: 'src/explain/report.ts', parseSnapshot: 'src/cluster/snapshot/snapshot.ts'},
      nodeModules: join(ROOT, 'node_modules'),
    })
  }

  const script = join(dir, 'advise-time.mjs')
  writeFileSync(
    script,
    `import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {performance} from 'node:perf_hooks'
const {explain, explainAdvised, parseSnapshot} = await import(process.argv[2])
const file = process.argv[3]
const state = parseSnapshot(readFileSync(file, 'utf8'), file)
const m = process.threadCpuUsage()
const t = performance.now()
const report = process.argv[4] === 'explain' ? explain(state, state.services, {}) : explainAdvised(state, state.services, {})
const wall = performance.now() - t
const dm = process.threadCpuUsage(m)
const sha = createHash('sha256').update(JSON.stringify(report)).digest('hex')
process.stdout.write(JSON.stringify({wall, cpu: (dm.user + dm.system) / 1000, rss: process.resourceUsage().maxRSS / 1024, sha, services: report.services.length}))
`,
  )
  // explain() alone (no advisor) on the head build: what the advisor adds on top.
  const results = {base: [], head: [], explain: []}
  for (let round = -1; round < ROUNDS; round++) {
    for (const name of ['base', 'head', 'explain']) {
      const r = JSON.parse(run(NODE, [script, pathToFileURL(bundles[name === 'explain' ? 'head' : name]).href, snapshot, name === 'explain' ? 'explain' : 'advised']).stdout)
      if (round >= 0) results[name].push(r)
    }
  }
  const shas = new Set([...results.base, ...results.head].map((r) => r.sha))
  const fig = (name, k) => median(results[name].map((r) => r[k]))
  const out = []
  out.push(
    `advisor bench: explainAdvised() on ${SERVICES} Services (10 endpoints each) / ${NODES} nodes, one call per process, ${ROUNDS} rounds base/head alternating (Node ${run(NODE, ['--version']).stdout.trim()}, ${os.cpus().length} cpus)`,
  )
  out.push(`reports identical: ${shas.size === 1 ? 'yes' : `NO (${shas.size} different)`}; ${results.head[0]?.services} explanations`)
  out.push('| build | wall median (min-max) | main-thread CPU median | peak RSS median |')
  out.push('|---|---|---|---|')
  for (const [name, label] of [
    ['base', `base ${BASE} (${sha})`],
    ['head', 'head (working tree)'],
    ['explain', 'reference: explain() alone, no advisor (head)'],
  ]) {
    const ws = results[name].map((r) => r.wall)
    out.push(
      `| ${label} | ${fig(name, 'wall').toFixed(0)} ms (${Math.min(...ws).toFixed(0)}-${Math.max(...ws).toFixed(0)}) | ${fig(name, 'cpu').toFixed(0)} ms | ${fig(name, 'rss').toFixed(0)} MiB |`,
    )
  }
  const share = (name) => `${((1 - fig('explain', 'cpu') / fig(name, 'cpu')) * 100).toFixed(0)}%`
  out.push(`the advisor's share of the main-thread CPU time: base ${share('base')}, head ${share('head')}`)
  out.push(
    `ratio base/head: wall ${(fig('base', 'wall') / fig('head', 'wall')).toFixed(2)}x, CPU ${(fig('base', 'cpu') / fig('head', 'cpu')).toFixed(2)}x, RSS ${(fig('base', 'rss') / fig('head', 'rss')).toFixed(2)}x`,
  )
  out.push(`load average (1, 5, 15 min) at the end: ${load()}`)
  if (KEEP) out.push(`kept: ${dir} (node ${script} <bundle url> ${snapshot})`)
  process.stdout.write(`${out.join('\n')}\n`)
  if (shas.size !== 1) process.exitCode = 1
} finally {
  if (!KEEP) rmSync(dir, {recursive: true, force: true})
}
