#!/usr/bin/env node
// Throughput of `kubectl topology simulate --dataset`: clusters scored per minute with every
// KEP-2004 strategy (random, local, local-shared, local-weighted, local-opt), through the built
// CLI (npm run build first). Baseline in the same invocation: the same CLI scoring only `random`,
// so the ratio shows what the subsetting algorithms cost on this machine under its current load.
// Usage: node bench/simulate-throughput.mjs [clusters=200000] [family=unbalanced]
import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

const clusters = Number(process.argv[2] ?? 200000)
const family = process.argv[3] ?? 'unbalanced'
const bin = fileURLToPath(new URL('../bin/kubectl-topology.js', import.meta.url))

function run(strategies) {
  const args = [bin, 'simulate', '--dataset', family, '--clusters', String(clusters), '--seed', 'bench', '-o', 'csv']
  if (strategies) args.push('--strategies', strategies)
  const t0 = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, {encoding: 'utf8'})
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  if (r.status !== 0) throw new Error(`simulate failed: ${r.stderr}`)
  return {seconds, perMinute: (clusters / seconds) * 60}
}

const baseline = run('random')
const all = run()
const fmt = (n) => Math.round(n).toLocaleString('en-US')
console.log(`dataset ${family}, ${fmt(clusters)} clusters, node ${process.version}`)
console.log(`baseline (random only):        ${baseline.seconds.toFixed(2)} s  ${fmt(baseline.perMinute)} clusters/minute`)
console.log(`all KEP-2004 strategies (5):   ${all.seconds.toFixed(2)} s  ${fmt(all.perMinute)} clusters/minute`)
console.log(`ratio all/baseline time: ${(all.seconds / baseline.seconds).toFixed(2)}x; target >= 100,000 clusters/minute: ${all.perMinute >= 100000 ? 'met' : 'NOT met'}`)
