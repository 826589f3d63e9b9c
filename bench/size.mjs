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
// JSON.parse-ing it. hyperfine is installed when missing (bench/rounds.mjs). The lower bounds: the
// tool reading and decoding each file with a selection that matches no Service, and V8's own indented
// JSON.stringify of what -o json prints (timed in this process).
//
// --base REF: git REF's tree is built in a temporary folder and its table, -o json and lean
// -o json run in the same rounds (ratios to the same floors), and every output of the two builds
// is compared by sha256 (they must be the same bytes).
//
//   npm run build && npx node bench/size.mjs [--runs 5] [--base REF] [--no-rss] [--keep]
import {createHash} from 'node:crypto'
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {stringify} from 'yaml'
import {generate} from './big-snapshot.mjs'
import {interleavedRounds, median, paired, writerFloor} from './rounds.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const args = process.argv.slice(2)
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 5
const BASE = args.includes('--base') ? args[args.indexOf('--base') + 1] : undefined
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

/** sha256 of what argv writes to stdout and stderr. */
function outputSha(argv) {
  const r = spawnSync(argv[0], argv.slice(1), {cwd: ROOT, maxBuffer: 1 << 30})
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`)
  return createHash('sha256').update(r.stdout).update('\0').update(r.stderr).digest('hex')
}

/** git REF's tree, built (scripts/build.mjs) in `dir`/base with the working tree's node_modules; returns its bin and short sha. */
function buildBase(ref, dir) {
  const root = join(dir, 'base')
  mkdirSync(root)
  const sha = spawnSync('git', ['rev-parse', '--short', ref], {cwd: ROOT, encoding: 'utf8'})
  if (sha.status !== 0) throw new Error(`git rev-parse ${ref} failed: ${sha.stderr}`)
  const tar = spawnSync('git', ['archive', '--format=tar', ref], {cwd: ROOT, maxBuffer: 1 << 30})
  if (tar.status !== 0) throw new Error(`git archive ${ref} failed: ${tar.stderr}`)
  if (spawnSync('tar', ['-x', '-C', root], {input: tar.stdout}).status !== 0) throw new Error('tar -x failed')
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(root, 'node_modules'))
  const b = spawnSync(NODE, ['scripts/build.mjs'], {cwd: root, encoding: 'utf8'})
  if (b.status !== 0) throw new Error(`building ${ref} failed: ${b.stderr}`)
  return {bin: join(root, 'bin', 'kubectl-topology.js'), sha: sha.stdout.trim()}
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
  const NO_RSS = args.includes('--no-rss')
  // Only the peak RSS of `explain -A` reads it.
  const yaml = join(dir, 'big.yaml')
  if (!NO_RSS) writeFileSync(yaml, stringify(list, {aliasDuplicateObjects: false, lineWidth: 0}))
  const mb = (f) => (existsSync(f) ? (statSync(f).size / 1e6).toFixed(1) : '-')

  const explainWith = (bin, file, ...extra) => [NODE, bin, 'explain', 'svc/big', '-n', 'bench', '-f', file, ...extra]
  const explain = (...extra) => explainWith(BIN, json, ...extra)
  const floor = (file) => [NODE, '-e', `JSON.parse(require('fs').readFileSync(${JSON.stringify(file)}, 'utf8'))`]
  // Each case's ratio is to the floor of its own file (`of`: that floor's index).
  const cases = [
    {name: 'parse floor', argv: floor(json)},
    {name: 'explain table', argv: explain(), of: 0},
    {name: 'explain -o json', argv: explain('-o', 'json'), of: 0},
    {name: 'explain -o yaml', argv: explain('-o', 'yaml'), of: 0},
    {name: 'lean parse floor', argv: floor(lean)},
    {name: 'lean -o json', argv: explainWith(BIN, lean, '-o', 'json'), of: 4},
    // The tool's own read floor: start-up, reading and decoding the file, and a selection that
    // matches no Service ("No Services found"): what every row above pays before the engine.
    {name: 'read, no Service', argv: [NODE, BIN, 'explain', '-n', 'bench', '-l', 'none=none', '-f', json], of: 0},
    {name: 'lean read', argv: [NODE, BIN, 'explain', '-n', 'bench', '-l', 'none=none', '-f', lean], of: 4},
  ]
  const base = BASE === undefined ? undefined : buildBase(BASE, dir)
  if (base) {
    cases.push(
      {name: `base table`, argv: explainWith(base.bin, json), of: 0, head: 1},
      {name: `base -o json`, argv: explainWith(base.bin, json, '-o', 'json'), of: 0, head: 2},
      {name: `base lean json`, argv: explainWith(base.bin, lean, '-o', 'json'), of: 4, head: 5},
    )
  }
  const loadBefore = loadavg()[0]
  const s = interleavedRounds(cases, runs, ROOT)
  const out = []
  out.push(`files: ${json} ${mb(json)} MB, ${lean} ${mb(lean)} MB, ${yaml} ${mb(yaml)} MB; ${runs} interleaved rounds (wall, median)`)
  if (base) out.push(`base: ${BASE} (${base.sha}), built in ${dir}/base; head: the working tree's dist/`)
  for (const [k, c] of cases.entries()) {
    const ratio = c.of === undefined ? '' : `  ${paired(s[k].wall, s[c.of].wall).toFixed(2)}x the floor (CPU ${paired(s[k].cpu, s[c.of].cpu).toFixed(2)}x)`
    const vsHead = c.head === undefined ? '' : `; base/head wall ${paired(s[k].wall, s[c.head].wall).toFixed(2)}x, CPU ${paired(s[k].cpu, s[c.head].cpu).toFixed(2)}x`
    out.push(`  ${c.name.padEnd(16)} ${(median(s[k].wall) * 1000).toFixed(0).padStart(6)} ms, CPU ${(median(s[k].cpu) * 1000).toFixed(0).padStart(6)} ms${ratio}${vsHead}`)
  }
  if (base) {
    const differ = []
    for (const [file, extra] of [
      [json, []],
      [json, ['-o', 'json']],
      [json, ['-o', 'yaml']],
      [json, ['-o', 'wide']],
      [lean, ['-o', 'json']],
    ]) {
      if (outputSha(explainWith(base.bin, file, ...extra)) !== outputSha(explainWith(BIN, file, ...extra))) differ.push(`${file} ${extra.join(' ')}`)
    }
    out.push(differ.length === 0 ? '  outputs of base and head: the same bytes (table, json, yaml, wide; lean json)' : `  OUTPUTS DIFFER: ${differ.join('; ')}`)
  }
  // The writer's floor: V8's own indented JSON.stringify of the document -o json printed (the same
  // bytes, checked), in this process, the median of 3 (CPU): writing that output costs at least this.
  const printed = spawnSync(explain('-o', 'json')[0], explain('-o', 'json').slice(1), {cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 30}).stdout
  const {seconds: w, same} = writerFloor(printed, 3)
  const readX = paired(s[6].cpu, s[0].cpu)
  const leanReadX = paired(s[7].cpu, s[4].cpu)
  out.push(
    `  lower bounds (CPU): reading and decoding alone ${readX.toFixed(2)}x the floor (lean ${leanReadX.toFixed(2)}x); V8's indented JSON.stringify of the ${(printed.length / 1e6).toFixed(1)} MB -o json prints (${same ? 'the same bytes' : 'NOT the same bytes'}) ${(w * 1000).toFixed(0)} ms: -o json >= ${(readX + w / median(s[0].cpu)).toFixed(2)}x, lean -o json >= ${(leanReadX + w / median(s[4].cpu)).toFixed(2)}x, before the engine and the advisor`,
  )
  // Issue 23: -o yaml streamed like -o json, within 1.3x of it.
  out.push(`  -o yaml / -o json: ${paired(s[3].wall, s[2].wall).toFixed(2)}x (median of per-round ratios)`)
  for (const [name, argv] of NO_RSS
    ? []
    : [
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
