#!/usr/bin/env node
// simulate's what-ifs at scale (issue 14 class 8): --replicas up and down, and --rollout, on one
// Service with N endpoints, through the built CLI (npm run build first). Near-linear means: each
// what-if costs a bounded multiple of the baseline (the same CLI simulating the same N endpoints
// with no what-if), and doubling N about doubles its time (growth ~2x; a quadratic step shows as
// ~4x). Both are measured in the same run, so the ratios hold on a loaded machine.
//
//   npm run build && node bench/simulate-scale.mjs [N=20000] [runs=3]
//
// The input: examples/three-zones.yaml with Service shop/checkout's endpoints replaced by N
// ready ones spread over the worker nodes as the example spreads them (a snapshot written to a
// temporary directory, removed at the end). Cases, each at N and 2N:
//   baseline      simulate svc/checkout on the N-endpoint snapshot
//   replicas-up   the example (9 endpoints) --replicas N
//   replicas-down the N-endpoint snapshot --replicas N/10
//   rollout       the N-endpoint snapshot --rollout maxSurge=25%,maxUnavailable=0
//   recreate      the N-endpoint snapshot --rollout type=Recreate
// Wall time of each process: the median of `runs`, cases interleaved round by round.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parse} from 'yaml'

const N = Number(process.argv[2] ?? 20000)
const RUNS = Number(process.argv[3] ?? 3)
const root = fileURLToPath(new URL('..', import.meta.url))
const bin = join(root, 'bin/kubectl-topology.js')
const example = join(root, 'examples/three-zones.yaml')
const dir = mkdtempSync(join(tmpdir(), 'kt-simulate-scale-'))

/** The example with checkout's endpoints replaced by n ready ones, spread like the example's. */
function snapshotWith(n) {
  const snap = parse(readFileSync(example, 'utf8'))
  const slices = snap.endpointSlices.filter((s) => s.metadata.namespace === 'shop' && s.metadata.labels?.['kubernetes.io/service-name'] === 'checkout')
  const like = slices.flatMap((s) => s.endpoints ?? [])
  const [first] = slices
  snap.endpointSlices = snap.endpointSlices.filter((s) => !slices.includes(s))
  for (let k = 0; k * 1000 < n; k++) {
    const endpoints = []
    for (let i = k * 1000; i < Math.min(n, (k + 1) * 1000); i++) {
      const e = like[i % like.length]
      endpoints.push({
        addresses: [`10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`],
        conditions: {ready: true, serving: true, terminating: false},
        nodeName: e.nodeName,
        zone: e.zone,
        targetRef: {kind: 'Pod', namespace: 'shop', name: `checkout-gen-${i}`},
      })
    }
    snap.endpointSlices.push({...first, metadata: {...first.metadata, name: `checkout-gen-${k}`, uid: undefined}, endpoints})
  }
  const file = join(dir, `checkout-${n}.json`)
  writeFileSync(file, JSON.stringify(snap))
  return file
}

const sim = (file, extra) => [bin, 'simulate', 'svc/checkout', '-n', 'shop', '-f', file, '--strategies', 'Auto', '-o', 'json', ...extra]
const cases = []
for (const n of [N, 2 * N]) {
  const big = snapshotWith(n)
  cases.push(
    {name: 'baseline', n, argv: sim(big, [])},
    {name: 'replicas-up', n, argv: sim(example, ['--replicas', String(n)])},
    {name: 'replicas-down', n, argv: sim(big, ['--replicas', String(n / 10)])},
    {name: 'rollout', n, argv: sim(big, ['--rollout', 'maxSurge=25%,maxUnavailable=0'])},
    {name: 'recreate', n, argv: sim(big, ['--rollout', 'type=Recreate'])},
  )
}

const seconds = new Map(cases.map((c) => [c, []]))
for (let round = 0; round < RUNS; round++) {
  for (const c of cases) {
    const t0 = process.hrtime.bigint()
    const r = spawnSync(process.execPath, c.argv, {encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'ignore', 'pipe']})
    if (r.status !== 0) throw new Error(`${c.name} ${c.n}: exit ${r.status}: ${r.stderr}`)
    seconds.get(c).push(Number(process.hrtime.bigint() - t0) / 1e9)
  }
}
rmSync(dir, {recursive: true, force: true})

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const at = (name, n) => median(seconds.get(cases.find((c) => c.name === name && c.n === n)))
console.log(`simulate what-ifs on shop/checkout, N=${N} and 2N=${2 * N} endpoints, median of ${RUNS}, node ${process.version}`)
console.log('case           N: seconds (x baseline)   2N: seconds (x baseline)   growth 2N/N (2 = linear, 4 = quadratic)')
for (const name of ['baseline', 'replicas-up', 'replicas-down', 'rollout', 'recreate']) {
  const [a, b] = [at(name, N), at(name, 2 * N)]
  const x = (s, n) => (s / at('baseline', n)).toFixed(2)
  console.log(`${name.padEnd(14)} ${a.toFixed(2).padStart(6)} s (${x(a, N)}x)          ${b.toFixed(2).padStart(6)} s (${x(b, 2 * N)}x)          ${(b / a).toFixed(2)}`)
}
