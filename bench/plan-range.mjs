#!/usr/bin/env node
// plan over a wide HPA range, before and after, in one invocation (issue 23). Prints figures and
// ratios, never pass/fail.
//
//   npm run build && npx node bench/plan-range.mjs [--base REF] [--max 500] [--rounds 3] [--no-cli] [--keep]
//
// The input: examples/autoscaling.yaml with svc/web's HPA set to minReplicas 1, maxReplicas --max
// (web's Deployment rolls one pod at a time: maxSurge 1, maxUnavailable 0; a zone spread
// constraint; a PDB). What it times: plan() on svc/web, in-process, after parseSnapshot, once per
// child process (a CLI run makes one call), with the main thread's CPU time (on a loaded machine
// the wall time waits for a core, the CPU time does not) and the process's peak RSS. Two builds
// are bundled with esbuild: `base` from git REF's src/ (default main) and `head` from the working
// tree's src/; the child processes alternate base, head, base, head ... for --rounds rounds after
// one warm-up round, so both see the same load. The two reports must be the same JSON (sha256
// compared): the speed-up changes no figure. Unless --no-cli, each round also runs the built CLI
// (dist/, `kubectl-topology plan svc/web -n shop -f FILE -o json` under /usr/bin/time) for the
// figure a user waits for, startup included. All commands run under the project's Node.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {bundleExports, extractSrcAt} from './engine-bundle.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const BASE = opt('--base', 'main')
const MAX = Number(opt('--max', 500))
const ROUNDS = Number(opt('--rounds', 3))
const KEEP = args.includes('--keep')
const CLI = !args.includes('--no-cli') && existsSync(join(ROOT, 'dist', 'app.cjs')) && existsSync('/usr/bin/time')
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

const dir = mkdtempSync(join(os.tmpdir(), 'kubectl-topology-plan-range-'))
try {
  // The snapshot: the bundled example with web's HPA widened (the one HPA whose target is web).
  const text = readFileSync(join(ROOT, 'examples', 'autoscaling.yaml'), 'utf8')
  const at = text.indexOf('name: web\n      namespace: shop\n    spec:\n      scaleTargetRef:')
  if (at < 0) throw new Error("examples/autoscaling.yaml: web's HPA not found")
  const widened =
    text.slice(0, at) +
    text
      .slice(at)
      .replace(/minReplicas: \d+/, 'minReplicas: 1')
      .replace(/maxReplicas: \d+/, `maxReplicas: ${MAX}`)
  const snapshot = join(dir, 'hpa.yaml')
  writeFileSync(snapshot, widened)

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
      exports: {plan: 'src/plan/plan.ts', parseSnapshot: 'src/cluster/snapshot/snapshot.ts'},
      nodeModules: join(ROOT, 'node_modules'),
    })
  }

  const script = join(dir, 'plan-time.mjs')
  writeFileSync(
    script,
    `import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {performance} from 'node:perf_hooks'
const {plan, parseSnapshot} = await import(process.argv[2])
const file = process.argv[3]
const state = parseSnapshot(readFileSync(file, 'utf8'), file)
const svc = state.services.filter((s) => s.metadata.namespace === 'shop' && s.metadata.name === 'web')
const m = process.threadCpuUsage()
const t = performance.now()
const report = plan(state, svc, {kubeVersion: state.serverVersion, versionSource: 'server'})
const wall = performance.now() - t
const dm = process.threadCpuUsage(m)
const sha = createHash('sha256').update(JSON.stringify(report)).digest('hex')
const s = report.services[0]
process.stdout.write(JSON.stringify({wall, cpu: (dm.user + dm.system) / 1000, rss: process.resourceUsage().maxRSS / 1024, sha, rows: s.range.rows.length, steps: s.rollouts.reduce((n, r) => n + r.steps.length, 0), notes: s.notes.length}))
`,
  )
  const cli = () => {
    const r = spawnSync('/usr/bin/time', ['-f', '%e %U %S %M', NODE, join(ROOT, 'bin', 'kubectl-topology.js'), 'plan', 'svc/web', '-n', 'shop', '-f', snapshot, '-o', 'json'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    })
    if (r.status !== 0) throw new Error(`CLI run failed: ${r.stderr}`)
    const [wall, user, sys, rss] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number)
    return {wall: wall * 1000, cpu: (user + sys) * 1000, rss: rss / 1024}
  }
  const results = {base: [], head: [], cli: []}
  for (let round = -1; round < ROUNDS; round++) {
    for (const name of ['base', 'head']) {
      const r = JSON.parse(run(NODE, [script, pathToFileURL(bundles[name]).href, snapshot]).stdout)
      if (round >= 0) results[name].push(r)
    }
    if (CLI && round >= 0) results.cli.push(cli())
  }
  const shas = new Set([...results.base, ...results.head].map((r) => r.sha))
  const fig = (name, k) => median(results[name].map((r) => r[k]))
  const h = results.head[0]
  const out = []
  out.push(
    `plan bench: plan() on svc/web of examples/autoscaling.yaml with its HPA at 1..${MAX}, one call per process, ${ROUNDS} rounds base/head alternating (Node ${run(NODE, ['--version']).stdout.trim()}, ${os.cpus().length} cpus)`,
  )
  out.push(`reports identical: ${shas.size === 1 ? 'yes' : `NO (${shas.size} different)`}; ${h.rows} range rows, ${h.steps} rollout steps, ${h.notes} note(s)`)
  out.push('| build | wall median (min-max) | main-thread CPU median | peak RSS median |')
  out.push('|---|---|---|---|')
  const rows = [
    ['base', `base ${BASE} (${sha}), plan() in-process`],
    ['head', 'head (working tree), plan() in-process'],
  ]
  if (CLI) rows.push(['cli', 'head CLI (dist/, startup included; CPU of all threads)'])
  for (const [name, label] of rows) {
    const ws = results[name].map((r) => r.wall)
    out.push(
      `| ${label} | ${fig(name, 'wall').toFixed(0)} ms (${Math.min(...ws).toFixed(0)}-${Math.max(...ws).toFixed(0)}) | ${fig(name, 'cpu').toFixed(0)} ms | ${fig(name, 'rss').toFixed(0)} MiB |`,
    )
  }
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
