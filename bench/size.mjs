#!/usr/bin/env node
// Issue 14 class 10 "Size": time and memory of explain on big input, as ratios to the floor of
// merely reading and parsing the same file, in one run (interleaved rounds, bench/rounds.mjs).
// Prints figures and ratios, never pass/fail. Targets (issue 14):
//   explain svc/big -n bench -f big.json          <= 3x the parse floor, peak RSS <= 250 MB
//   explain svc/big -n bench -f big.json -o json  <= 4x the parse floor
//   explain svc/big -n bench -f big.json -o yaml  <= 1.3x -o json (issue 23)
//   explain -A -f big.yaml (the whole cluster as YAML)                peak RSS <= 600 MB
// Issue 23: table <= 2x and -o json <= 2.5x the floor; on lean.json, -o json <= 3x its floor.
// The files: bench/big-snapshot.mjs's cluster; big.json holds its 5,000 nodes and the one Service
// with 50,000 endpoints (14 MB), lean.json the same without the endpoints' targetRef (less to
// parse, the same to explain and print), big.yaml all of it with 2,000 small Services of 42
// endpoints each (about 50 MB, the size issue 14 names). The floor: `node -e` reading the file and
// JSON.parse-ing it. hyperfine is installed when missing (bench/rounds.mjs).
//
//   npm run build && npx node bench/size.mjs [--runs 5] [--keep]
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stringify} from 'yaml'
import {generate} from './big-snapshot.mjs'
import {interleavedRounds, median, paired} from './rounds.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 5
const NODE = join(ROOT, 'node_modules', '.bin', 'node')
const BIN = join(ROOT, 'bin', 'kubectl-topology.js')
for (const p of [NODE, join(ROOT, 'dist', 'app.cjs'), '/usr/bin/time']) {
  if (!existsSync(p)) {
    process.stderr.write(`bench: ${p} is missing (npm ci, npm run build, GNU time)\n`)
    process.exit(2)
  }
}

/** Peak RSS in MB (largest of `times` runs), and the bytes written to stdout. */
function peak(argv, times = 2) {
  let max = 0
  let bytes = 0
  for (let i = 0; i < times; i++) {
    const r = spawnSync('/usr/bin/time', ['-v', ...argv], {cwd: ROOT, maxBuffer: 1 << 30})
    if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr.toString())
    max = Math.max(max, Number(m[1]) / 1000)
    bytes = r.stdout.length
  }
  return {mb: max, bytes}
}

const dir = mkdtempSync(join(tmpdir(), 'kubectl-topology-size-'))
try {
  // 42 endpoints per small Service: a YAML file of about 50 MB; big.json does not depend on it.
  const list = generate({smallEndpoints: 42})
  // explain svc/big reads a file of that Service alone (with the nodes): 14 MB of JSON.
  const json = join(dir, 'big.json')
  const one = list.items.filter((o) => o.kind === 'Node' || o.metadata.namespace === 'bench')
  writeFileSync(json, JSON.stringify({...list, items: one}))
  const lean = join(dir, 'lean.json')
  const noTargetRef = (o) => (o.kind === 'EndpointSlice' ? {...o, endpoints: o.endpoints.map(({targetRef, ...e}) => e)} : o)
  writeFileSync(lean, JSON.stringify({...list, items: one.map(noTargetRef)}))
  const yaml = join(dir, 'big.yaml')
  writeFileSync(yaml, stringify(list, {aliasDuplicateObjects: false, lineWidth: 0}))
  const mb = (f) => (statSync(f).size / 1e6).toFixed(1)

  const explainFile = (file, ...extra) => [NODE, BIN, 'explain', 'svc/big', '-n', 'bench', '-f', file, ...extra]
  const explain = (...extra) => explainFile(json, ...extra)
  const floor = (file) => [NODE, '-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`]
  const cases = [
    {name: 'parse floor', argv: floor(json)},
    {name: 'explain table', argv: explain()},
    {name: 'explain -o json', argv: explain('-o', 'json')},
    {name: 'explain -o yaml', argv: explain('-o', 'yaml')},
    {name: 'lean parse floor', argv: floor(lean)},
    {name: 'lean -o json', argv: explainFile(lean, '-o', 'json')},
  ]
  const loadBefore = loadavg()[0]
  const s = interleavedRounds(cases, runs, ROOT)
  const out = []
  out.push(`files: ${json} ${mb(json)} MB, ${lean} ${mb(lean)} MB, ${yaml} ${mb(yaml)} MB; ${runs} interleaved rounds (wall, median)`)
  for (const [k, c] of cases.entries()) {
    const base = k < 4 ? 0 : 4
    const ratio = k === base ? '' : `  ${paired(s[k].wall, s[base].wall).toFixed(2)}x the floor (CPU ${paired(s[k].cpu, s[base].cpu).toFixed(2)}x)`
    out.push(`  ${c.name.padEnd(16)} ${(median(s[k].wall) * 1000).toFixed(0).padStart(6)} ms${ratio}`)
  }
  // Issue 23: -o yaml streamed like -o json, within 1.3x of it.
  out.push(`  -o yaml / -o json: ${paired(s[3].wall, s[2].wall).toFixed(2)}x (median of per-round ratios)`)
  for (const [name, argv] of [
    ['parse floor', cases[0].argv],
    ['explain table', explain()],
    ['explain -o json', explain('-o', 'json')],
    ['explain -o yaml', explain('-o', 'yaml')],
    ['lean -o json', cases[5].argv],
    ['explain -A yaml', [NODE, BIN, 'explain', '-A', '-f', yaml]],
  ]) {
    const p = peak(argv)
    out.push(`  peak RSS ${name.padEnd(16)} ${p.mb.toFixed(0).padStart(5)} MB, stdout ${(p.bytes / 1e6).toFixed(1)} MB`)
  }
  out.push(`load average (1 min): ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after`)
  process.stdout.write(`${out.join('\n')}\n`)
} finally {
  if (!args.includes('--keep')) rmSync(dir, {recursive: true, force: true})
}
