#!/usr/bin/env node
// Throughput of `kubectl topology simulate --dataset`: clusters scored per minute with the default
// strategies (a dataset's default set: Auto, PreferSameZone, PreferSameNode and the five KEP-2004
// ones, none being the tool's baseline) and with topology-keys too (--keys adds it), through the
// built CLI (npm run build first). Baseline in the same invocation: the same CLI scoring only `none`, so the ratios
// show what the strategies cost on this machine under its current load.
//
// With --base REF (e.g. main), git REF's tree is extracted to a temporary directory and built there
// (node_modules symlinked), and every row is timed on both builds, alternating base, head, base,
// head, so both see the same load; the outputs of the two builds must be byte-identical (sha256
// compared), so a speed-up changes no figure. The load average is printed before and after.
// Each run's CPU time (user + system, read by the child itself at exit) is printed next to its
// wall time: on a shared machine the wall time grows with the load, the CPU time much less.
// Usage: node bench/simulate-throughput.mjs [clusters=200000] [family=unbalanced] [--base REF] [--rounds 2]
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdtempSync, rmSync, symlinkSync} from 'node:fs'
import os from 'node:os'
import {join, resolve} from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const argv = process.argv.slice(2)
const opt = (name, dflt) => {
  const i = argv.indexOf(name)
  if (i < 0) return dflt
  const v = argv[i + 1]
  argv.splice(i, 2)
  return v
}
const BASE = opt('--base', undefined)
const ROUNDS = Number(opt('--rounds', BASE ? 2 : 1))
const clusters = Number(argv[0] ?? 200000)
const family = argv[1] ?? 'unbalanced'
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return r
}

// Loaded into the child before the CLI: at exit, its own CPU time on stderr (node:process cpuUsage).
const CPU_PROBE = "data:text/javascript,import{writeSync}from'node:fs';process.on('exit',()=>{const u=process.cpuUsage();writeSync(2,'\\nbench-cpu-us '+(u.user+u.system)+'\\n')})"

function run(root, strategies, extra = []) {
  const args = [
    '--import',
    CPU_PROBE,
    join(root, 'bin', 'kubectl-topology.js'),
    'simulate',
    '--dataset',
    family,
    '--clusters',
    String(clusters),
    '--seed',
    'bench',
    '-o',
    'csv',
    ...extra,
  ]
  if (strategies) args.push('--strategies', strategies)
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, {encoding: 'utf8', maxBuffer: 1 << 30})
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`simulate failed: ${r.stderr}`)
  const cpu = /bench-cpu-us (\d+)/.exec(r.stderr)
  if (cpu === null) throw new Error(`simulate did not report its CPU time: ${r.stderr}`)
  return {seconds, cpu: Number(cpu[1]) / 1e6, sha: createHash('sha256').update(r.stdout).digest('hex')}
}

let dir
const builds = [['head', ROOT]]
try {
  if (BASE !== undefined) {
    dir = mkdtempSync(join(os.tmpdir(), 'kubectl-topology-simbench-'))
    const sha = sh('git', ['rev-parse', '--short', BASE], {cwd: ROOT}).stdout.trim()
    const tar = spawnSync('git', ['archive', '--format=tar', BASE], {cwd: ROOT, maxBuffer: 1 << 30})
    if (tar.status !== 0) throw new Error(`git archive ${BASE} failed: ${tar.stderr}`)
    sh('tar', ['-x', '-C', dir], {input: tar.stdout, encoding: undefined})
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
    sh(process.execPath, [join(dir, 'scripts', 'build.mjs')], {cwd: dir})
    builds.unshift([`base ${BASE} (${sha})`, dir])
  }
  const rows = [
    ['baseline (none only)', 'none', []],
    ['default strategies (8)', undefined, []],
    ['all strategies (9, topology-keys)', undefined, ['--keys', 'kubernetes.io/hostname,topology.kubernetes.io/zone,*']],
  ]
  const fmt = (n) => Math.round(n).toLocaleString('en-US')
  console.log(`dataset ${family}, ${fmt(clusters)} clusters, node ${process.version}, ${ROUNDS} round(s), load average before: ${load()}`)
  for (const [label, strategies, extra] of rows) {
    const times = new Map(builds.map(([name]) => [name, []]))
    const cpus = new Map(builds.map(([name]) => [name, []]))
    const shas = new Set()
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, root] of builds) {
        const r = run(root, strategies, extra)
        times.get(name).push(r.seconds)
        cpus.get(name).push(r.cpu)
        shas.add(r.sha)
      }
    }
    if (shas.size !== 1) throw new Error(`${label}: the builds' outputs differ (${[...shas].join(', ')})`)
    const best = new Map([...times].map(([name, ts]) => [name, Math.min(...ts)]))
    const bestCpu = new Map([...cpus].map(([name, ts]) => [name, Math.min(...ts)]))
    for (const [name, seconds] of best) {
      const perMinute = (clusters / seconds) * 60
      const cpu = bestCpu.get(name)
      console.log(
        `${label.padEnd(34)} ${name.padEnd(18)} ${seconds.toFixed(2)} s  ${fmt(perMinute)} clusters/minute; CPU ${cpu.toFixed(2)} s, ${fmt((clusters / cpu) * 60)} clusters/CPU-minute`,
      )
    }
    if (BASE !== undefined) {
      const [[, b], [, h]] = [...best]
      const [[, bc], [, hc]] = [...bestCpu]
      console.log(`${label.padEnd(34)} head/base time ${(h / b).toFixed(2)}, CPU ${(hc / bc).toFixed(2)} (outputs identical, sha256 ${[...shas][0].slice(0, 12)})`)
    }
  }
  console.log(`load average after: ${load()}`)
} finally {
  if (dir !== undefined) rmSync(dir, {recursive: true, force: true})
}
