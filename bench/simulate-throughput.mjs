#!/usr/bin/env node
// Throughput of `kubectl topology simulate --dataset`: clusters scored per minute with the default
// strategies (a dataset's default set: Auto, PreferSameZone, PreferSameNode and the five KEP-2004
// ones, none being the tool's baseline) and with topology-keys too (--keys adds it), through the
// built CLI (npm run build first). Baseline in the same invocation: the same CLI scoring only `none`, so the ratios
// show what the strategies cost on this machine under its current load.
// Usage: node bench/simulate-throughput.mjs [clusters=200000] [family=unbalanced]
import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const clusters = Number(process.argv[2] ?? 200000)
const family = process.argv[3] ?? 'unbalanced'
const bin = fileURLToPath(new URL('../bin/kubectl-topology.js', import.meta.url))

function run(strategies, extra = []) {
  const args = [bin, 'simulate', '--dataset', family, '--clusters', String(clusters), '--seed', 'bench', '-o', 'csv', ...extra]
  if (strategies) args.push('--strategies', strategies)
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, {encoding: 'utf8'})
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`simulate failed: ${r.stderr}`)
  return {seconds, perMinute: (clusters / seconds) * 60}
}

const baseline = run('none')
const defaults = run()
const all = run(undefined, ['--keys', 'kubernetes.io/hostname,topology.kubernetes.io/zone,*'])
const fmt = (n) => Math.round(n).toLocaleString('en-US')
const met = (r) => (r.perMinute >= 100000 ? 'met' : 'NOT met')
console.log(`dataset ${family}, ${fmt(clusters)} clusters, node ${process.version}`)
console.log(`baseline (none only):              ${baseline.seconds.toFixed(2)} s  ${fmt(baseline.perMinute)} clusters/minute`)
console.log(
  `default strategies (8):           ${defaults.seconds.toFixed(2)} s  ${fmt(defaults.perMinute)} clusters/minute  (${(defaults.seconds / baseline.seconds).toFixed(2)}x baseline time; >= 100,000/minute: ${met(defaults)})`,
)
console.log(
  `all strategies (9, topology-keys): ${all.seconds.toFixed(2)} s  ${fmt(all.perMinute)} clusters/minute  (${(all.seconds / baseline.seconds).toFixed(2)}x baseline time; >= 100,000/minute: ${met(all)})`,
)
