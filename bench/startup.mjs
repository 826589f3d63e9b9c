// Start-up time and peak memory of `kubectl topology`, as ratios against `node -e 0` (the
// pinned Node) measured in the same rounds (each round runs every command once). Targets
// (issue 23; issue 7's were 2.5x and 4x): `--help` <= 1.2x, `explain --from-file
// examples/three-zones.yaml` <= 2x, for the npm install (bin/kubectl-topology.js run by the
// pinned Node) and the standalone executable.
//
//   npm run build && npm run package     # (once) dist/ and the executable
//   node bench/startup.mjs [--runs 15] [--sea PATH] [--kubectl] [--snapshot-probe]
//
// Every run is a new process ("cold" start of the program; the OS file cache is warm,
// as it is for a user's second command). --kubectl also measures the same commands
// through kubectl's plugin discovery (kubectl's own start-up included, for information).
// The npm install's compile and code caches go to a directory of this run's own
// (NODE_COMPILE_CACHE), made in the warm-up rounds, so other installs on the machine cannot
// change them while it runs. Peak RSS: /usr/bin/time -v, median of 5 runs each. Prints a Markdown table. The verdict
// uses the wall-clock ratio (the median over rounds of command/baseline in the same round);
// the CPU ratio (user+sys, the same way) is printed too, as it is steadier when other work
// shares the machine.
//
// --snapshot-probe also measures what a V8 startup snapshot of the program would give the
// standalone executable (issue 23; docs/design.md "Startup" has the figures and why the
// executable does not use one): single executable applications of this Node with
// `useSnapshot`, built in a temporary directory from dist/app.cjs (see snapshotProbe below).
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {interleavedRounds, line, median, paired} from './rounds.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : dflt
}
const RUNS = Number(opt('--runs', '15'))
const NODE = process.execPath
const SEA = resolve(ROOT, opt('--sea', '.cache/sea-build/linux-amd64/kubectl-topology'))
const EXAMPLE = 'examples/three-zones.yaml'
const THROUGH_KUBECTL = args.includes('--kubectl')
const SNAPSHOT_PROBE = args.includes('--snapshot-probe')

if (!existsSync(join(ROOT, 'dist', 'app.cjs'))) throw new Error('dist/app.cjs is missing: run `npm run build`')
const hasSea = existsSync(SEA)
if (!hasSea) process.stderr.write(`bench: no standalone executable at ${SEA} (run \`npm run package\`); measuring the npm install only\n`)

const compileCache = mkdtempSync(join(tmpdir(), 'bench-compile-cache-'))
process.env.NODE_COMPILE_CACHE = compileCache

const HELP = ['--help']
const EXPLAIN = ['explain', '-A', '--from-file', EXAMPLE]
const cases = [{name: 'baseline: node -e 0', argv: [NODE, '-e', '0'], baseline: true}]
const bin = join(ROOT, 'bin', 'kubectl-topology.js')
cases.push({name: 'npm: --help', argv: [NODE, bin, ...HELP], target: 1.2})
cases.push({name: 'npm: explain --from-file', argv: [NODE, bin, ...EXPLAIN], target: 2})
if (hasSea) {
  cases.push({name: 'standalone: --help', argv: [SEA, ...HELP], target: 1.2})
  cases.push({name: 'standalone: explain --from-file', argv: [SEA, ...EXPLAIN], target: 2})
}
/**
 * The main script of a probe executable built with `useSnapshot` (Node runs it once at build
 * time with --build-snapshot; it may require built-ins only). It loads dist/app.cjs as
 * src/entry/app-loader.ts does, runs `explain` once on the example with stdout muted, so that
 * the functions a command runs have bytecode in the snapshot, and sets the function each
 * start runs: the command on its command line (the first argument is the executable again).
 * It is a measurement, not the product: no dispatch, help, completion, client-node or views.
 */
const probeMain = (root) => `'use strict'
const {readFileSync} = require('node:fs')
const {Script} = require('node:vm')
const v8 = require('node:v8')
const ROOT = ${JSON.stringify(root)}
const file = ROOT + '/dist/app.cjs'
const code = readFileSync(file, 'utf8')
const script = new Script('(function (exports, require, module, __filename, __dirname) {' + code + '\\n})', {filename: file})
const module = {exports: {}}
script.runInThisContext()(module.exports, require, module, file, ROOT + '/dist')
const app = module.exports
const pkg = JSON.parse(readFileSync(ROOT + '/package.json', 'utf8'))
const manifest = JSON.parse(readFileSync(ROOT + '/oclif.manifest.json', 'utf8'))
const pjson = {name: pkg.name, version: pkg.version, description: pkg.description, type: 'module', oclif: pkg.oclif}
const host = {root: ROOT, pjson, manifest: () => manifest, runner: () => Promise.reject(new Error('not in the probe'))}
async function warm() {
  const write = process.stdout.write
  process.stdout.write = () => true
  await app.runCommand('explain', ['-A', '--from-file', ROOT + '/${EXAMPLE}'], host, manifest)
  process.stdout.write = write
  process.exitCode = undefined
}
warm()
v8.startupSnapshot.setDeserializeMainFunction(() => {
  const [id, ...argv] = process.argv.slice(2)
  app.runCommand(id, argv, host, manifest)
})
`

/**
 * Three probe executables in `dir`, each this Node (not stripped: its debug sections are
 * never read at run time) with an empty snapshot (what a snapshot costs before any program),
 * the program's snapshot with the flags of the shipped executable, or the same with V8's
 * optimising compilers off too (in the snapshot they cost a short run more than they give it).
 */
function snapshotProbe(dir) {
  writeFileSync(join(dir, 'empty.cjs'), "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {})\n")
  writeFileSync(join(dir, 'program.cjs'), probeMain(ROOT))
  const made = {}
  for (const [name, main, execArgv] of [
    ['empty', 'empty.cjs', []],
    ['program', 'program.cjs', ['--min-semi-space-size=16']],
    ['program-no-opt', 'program.cjs', ['--min-semi-space-size=16', '--no-opt', '--no-maglev']],
  ]) {
    const config = join(dir, `${name}.json`)
    const output = join(dir, name)
    writeFileSync(config, JSON.stringify({main: join(dir, main), executable: NODE, output, disableExperimentalSEAWarning: true, useSnapshot: true, useCodeCache: false, execArgv}))
    const r = spawnSync(NODE, ['--build-sea', config], {cwd: ROOT, encoding: 'utf8'})
    if (r.status !== 0) throw new Error(`--snapshot-probe: building ${name} failed: ${r.stderr}`)
    made[name] = output
  }
  return made
}

let probeDir
if (SNAPSHOT_PROBE) {
  probeDir = mkdtempSync(join(tmpdir(), 'bench-snapshot-probe-'))
  const probe = snapshotProbe(probeDir)
  cases.push({name: 'probe: empty snapshot executable', argv: [probe.empty], info: true})
  cases.push({name: 'probe: snapshot explain (executable flags)', argv: [probe.program, ...EXPLAIN], info: true})
  cases.push({name: 'probe: snapshot explain (+ --no-opt --no-maglev)', argv: [probe['program-no-opt'], ...EXPLAIN], info: true})
}
let pathDir
if (THROUGH_KUBECTL) {
  // kubectl finds kubectl-topology on PATH; one directory per install kind.
  pathDir = mkdtempSync(join(tmpdir(), 'bench-path-'))
  const kubectl = spawnSync('sh', ['-c', 'command -v kubectl'], {encoding: 'utf8'}).stdout.trim()
  if (!kubectl) throw new Error('--kubectl: kubectl is not on PATH')
  cases.push({name: 'kubectl version --client (kubectl alone)', argv: [kubectl, 'version', '--client'], info: true})
  if (hasSea) {
    symlinkSync(SEA, join(pathDir, 'kubectl-topology'))
    const env = `PATH=${pathDir}:/usr/bin:/bin`
    cases.push({name: 'kubectl topology --help (standalone)', argv: ['env', env, kubectl, 'topology', ...HELP], info: true})
    cases.push({name: 'kubectl topology explain (standalone)', argv: ['env', env, kubectl, 'topology', ...EXPLAIN], info: true})
  }
}

for (const c of cases) {
  const r = spawnSync(c.argv[0], c.argv.slice(1), {cwd: ROOT, encoding: 'utf8'})
  if (r.status !== 0) throw new Error(`${c.name}: exit ${r.status}: ${r.stderr}`)
}

// Rounds: each round is one hyperfine invocation running every command once, in turn, so
// the commands interleave run by run and a change of machine load (the machine is shared)
// hits all of them alike; the ratio of a command is the median over rounds of its time over
// the baseline's in the same round. Two warm-up rounds first (discarded): they also make
// the npm install's per-command code cache (src/entry/main.ts).
const samples = interleavedRounds(cases, RUNS, ROOT)

function peakRssKb(argv) {
  const samples = []
  for (let i = 0; i < 5; i++) {
    const r = spawnSync('/usr/bin/time', ['-v', ...argv], {cwd: ROOT, encoding: 'utf8'})
    const m = r.stderr.match(/Maximum resident set size \(kbytes\): (\d+)/)
    if (!m) throw new Error(`/usr/bin/time -v gave no RSS for ${line(argv)} (Debian: apt-get install time)`)
    samples.push(Number(m[1]))
  }
  return samples.sort((a, b) => a - b)[2]
}

const base = samples[0]
const rows = cases.map((c, i) => {
  const s = samples[i]
  return {c, med: median(s.wall), min: Math.min(...s.wall), ratio: paired(s.wall, base.wall), cpu: median(s.cpu), cpuRatio: paired(s.cpu, base.cpu), rss: peakRssKb(c.argv)}
})
if (pathDir) rmSync(pathDir, {recursive: true, force: true})
if (probeDir) rmSync(probeDir, {recursive: true, force: true})
rmSync(compileCache, {recursive: true, force: true})

const ms = (s) => `${(s * 1000).toFixed(0)} ms`
const out = []
out.push(
  `Node ${process.version}, ${RUNS} rounds (after 2 warm-up rounds), each running every command once in turn (hyperfine -N --runs 1); ${new Date().toISOString().slice(0, 16)}Z; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
)
out.push('')
out.push('| command | median wall | min wall | median CPU (user+sys) | wall ratio (median of pairs) | CPU ratio | target | peak RSS |')
out.push('|---|---|---|---|---|---|---|---|')
let missed = 0
for (const r of rows) {
  const verdict = r.c.target === undefined ? '' : r.ratio <= r.c.target ? `<= ${r.c.target}x ok` : `<= ${r.c.target}x MISSED`
  if (r.c.target !== undefined && r.ratio > r.c.target) missed++
  out.push(
    `| ${r.c.name} | ${ms(r.med)} | ${ms(r.min)} | ${ms(r.cpu)} | ${r.c.baseline ? '1.00x' : `${r.ratio.toFixed(2)}x`} | ${r.c.baseline ? '1.00x' : `${r.cpuRatio.toFixed(2)}x`} | ${verdict} | ${(r.rss / 1024).toFixed(0)} MB |`,
  )
}
process.stdout.write(`${out.join('\n')}\n`)
if (missed) process.stdout.write(`\n${missed} target(s) missed\n`)
