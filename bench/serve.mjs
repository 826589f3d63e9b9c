#!/usr/bin/env node
// `kubectl topology serve` at scale (issue 21 "Figures"), on the load of bench/scale.mjs
// (bench/scale-load.mjs: 2,000 Services, 20,000 endpoints, 1,000 nodes). Prints figures, never
// pass/fail:
//   1. first full state: serve's start to /readyz 200 (every resource listed, every Service
//      explained), against `explain -A -o json` wall time on the same server (medians of --runs);
//   2. change to metric: --changes times, one EndpointSlice's first endpoint flips ready <->
//      not ready (a replace), and the time from the write's response to the end of the first
//      /metrics response (polled every 10 ms, as Prometheus asks: OpenMetrics, gzip) that shows
//      the Service's new ready count: p50, p95, max;
//   3. /metrics served (request to last byte): the scrape that first shows a change (the body
//      is written again), and with nothing changed (cached), as Prometheus asks and plain (text,
//      no gzip): p50, p95 of --scrapes GETs each;
//   4. steady RSS of the serve process (/proc/PID/status VmRSS) after the changes, and its CPU
//      time (/proc/PID/stat utime+stime) over two windows of --idle seconds with nothing
//      changing (the first holds the garbage collector giving back the burst's heap).
//
//   CLUSTER_INSTANCE=bench node scripts/cluster.mjs up
//   eval "$(CLUSTER_INSTANCE=bench node scripts/cluster.mjs env)"
//   npm run build && npx node bench/serve.mjs [--services 2000] [--nodes 1000] [--runs 3] [--changes 100] [--scrapes 20] [--idle 10]
//     [--bin OTHER/bin/kubectl-topology.js]             another build (before/after on the same server)
//     [--serve-node-args "--cpu-prof --cpu-prof-dir=D"]  Node flags of the long-running serve (profiles)
//
// Only 127.0.0.1: the load refuses other servers, serve listens on 127.0.0.1.
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {gunzipSync} from 'node:zlib'
import {connectLoad} from './scale-load.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const args = process.argv.slice(2)
// --bin: another build's bin/kubectl-topology.js (a before/after comparison on the same server).
const BIN = args.includes('--bin') ? path.resolve(args[args.indexOf('--bin') + 1]) : path.join(ROOT, 'bin', 'kubectl-topology.js')
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? Number(args[i + 1]) : def
}
const SERVICES = opt('services', 2000)
const NODES = opt('nodes', 1000)
const RUNS = opt('runs', 3)
const CHANGES = opt('changes', 100)
const SCRAPES = opt('scrapes', 20)
const IDLE = opt('idle', 10)
// Node flags for the long-running serve only (profiling: --serve-node-args "--cpu-prof --cpu-prof-dir=/tmp/prof").
const SERVE_NODE_ARGS = (() => {
  const i = args.indexOf('--serve-node-args')
  return i >= 0 ? args[i + 1].split(' ').filter(Boolean) : []
})()

const load = await connectLoad({services: SERVICES, nodes: NODES})
await load.createLoad()
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]
}
const median = (xs) => quantile(xs, 0.5)
const CLK_TCK = 100

function explainWall() {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, [BIN, 'explain', '-A', '-o', 'json'], {stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
  if (r.status !== 0) throw new Error(`explain -A: exit ${r.status}: ${r.stderr}`)
  return performance.now() - t0
}

async function startServe(nodeArgs = []) {
  const t0 = performance.now()
  const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--listen', '127.0.0.1:0'], {stdio: ['ignore', 'ignore', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  let address
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`)
    if (Date.now() > deadline) throw new Error(`serve not ready after 120 s: ${err}`)
    address ??= /serving http:\/\/(127\.0\.0\.1:\d+)\//.exec(err)?.[1]
    if (address) {
      try {
        if ((await fetch(`http://${address}/readyz`)).status === 200) break
      } catch {}
    }
    await sleep(20)
  }
  return {child, address, readyMs: performance.now() - t0, stderr: () => err}
}

const stop = (child) =>
  new Promise((r) => {
    child.once('exit', r)
    child.kill('SIGTERM')
  })

const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK
}
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024

// ---- 1. first full state -----------------------------------------------------------------
process.stderr.write(`first full state: ${RUNS} runs of explain -A and of serve, alternated\n`)
const explainMs = []
const readyMs = []
for (let i = 0; i < RUNS; i++) {
  explainMs.push(explainWall())
  const s = await startServe()
  readyMs.push(s.readyMs)
  await stop(s.child)
}

// ---- 2-4. one long-running serve ---------------------------------------------------------
const s = await startServe(SERVE_NODE_ARGS)
// A scrape as Prometheus sends it (OpenMetrics preferred, gzip), or plain (text format, no
// compression: what the first version of this bench measured with fetch). `ms` ends with the
// response's last byte (decompressing and reading the body are the client's, not counted).
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1'
const scrape = (headers) =>
  new Promise((resolve, reject) => {
    const t0 = performance.now()
    http
      .get(`http://${s.address}/metrics`, {headers}, (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => {
          const end = performance.now()
          const ms = end - t0
          const raw = Buffer.concat(chunks)
          resolve({ms, end, bytes: raw.length, body: (res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString()})
        })
        res.on('error', reject)
      })
      .on('error', reject)
  })
const metrics = () => scrape({accept: PROMETHEUS_ACCEPT, 'accept-encoding': 'gzip'})
const plainMetrics = () => scrape({})
const readyCount = (body, ns, svc) => {
  const m = new RegExp(`^kubectl_topology_service_ready_endpoints\\{namespace="${ns}",service="${svc}",address_type="IPv4"\\} (\\d+)$`, 'm').exec(body)
  return m ? Number(m[1]) : undefined
}
process.stderr.write(`change to metric: ${CHANGES} changes\n`)
const latencies = []
/** From the write's response to the end of the response that shows it. */
const t0Done = (t0, m) => m.end - t0
const afterChange = []
for (let c = 0; c < CHANGES; c++) {
  const i = (c * 37) % SERVICES
  const ns = load.nsName(i)
  const svc = load.svcName(i)
  const before = readyCount((await metrics()).body, ns, svc)
  const slice = await load.disc.readNamespacedEndpointSlice({namespace: ns, name: `${svc}-bench`})
  const ready = !slice.endpoints[0].conditions.ready
  const endpoints = slice.endpoints.map((e, j) => (j === 0 ? {...e, conditions: {...e.conditions, ready, serving: ready}} : e))
  await load.disc.replaceNamespacedEndpointSlice({namespace: ns, name: `${svc}-bench`, body: {...slice, endpoints}})
  const t0 = performance.now()
  const want = before + (ready ? 1 : -1)
  for (;;) {
    const m = await metrics()
    if (readyCount(m.body, ns, svc) === want) {
      // The first scrape that shows the change: the one that wrote the body again.
      latencies.push(t0Done(t0, m))
      afterChange.push(m.ms)
      break
    }
    if (performance.now() - t0 > 30_000) throw new Error(`change ${c}: ${ns}/${svc} not ${want} after 30 s`)
    await sleep(10)
  }
}
await sleep(1000)
process.stderr.write(`/metrics unchanged: ${SCRAPES} GETs\n`)
const cached = []
const cachedPlain = []
for (let i = 0; i < SCRAPES; i++) {
  cached.push((await metrics()).ms)
  cachedPlain.push((await plainMetrics()).ms)
}
const last = await metrics()
const bytes = last.body.length
const gzBytes = last.bytes
const rss = rssMiB(s.child.pid)
process.stderr.write(`idle: ${IDLE} s\n`)
const cpu0 = cpuSeconds(s.child.pid)
await sleep(IDLE * 1000)
const cpuIdle = cpuSeconds(s.child.pid) - cpu0
const rssIdle = rssMiB(s.child.pid)
// A second window: the first holds the garbage collector giving back the burst's heap.
const cpu1 = cpuSeconds(s.child.pid)
await sleep(IDLE * 1000)
const cpuIdle2 = cpuSeconds(s.child.pid) - cpu1
const rssIdle2 = rssMiB(s.child.pid)
await stop(s.child)

const f = (x) => x.toFixed(0)
console.log(
  `Load: ${NODES} nodes, ${SERVICES} Services, ${SERVICES * load.PER_SLICE} endpoints; server ${load.server}; node ${process.version}; ${os.cpus().length} CPUs; load average ${os.loadavg()[0].toFixed(1)}`,
)
console.log('')
if (RUNS > 0) {
  console.log(`first full state: serve start to /readyz 200, median of ${RUNS}: ${f(median(readyMs))} ms (runs ${readyMs.map(f).join(', ')})`)
  console.log(
    `                  explain -A -o json wall, median of ${RUNS}: ${f(median(explainMs))} ms (runs ${explainMs.map(f).join(', ')}); ratio ${(median(readyMs) / median(explainMs)).toFixed(2)}x`,
  )
}
console.log(`change to metric, ${CHANGES} changes: p50 ${f(quantile(latencies, 0.5))} ms, p95 ${f(quantile(latencies, 0.95))} ms, max ${f(Math.max(...latencies))} ms`)
console.log(`/metrics showing a change (body written again; OpenMetrics, gzip): p50 ${f(quantile(afterChange, 0.5))} ms, p95 ${f(quantile(afterChange, 0.95))} ms`)
console.log(
  `/metrics unchanged, as Prometheus scrapes (OpenMetrics, gzip): p50 ${quantile(cached, 0.5).toFixed(1)} ms, p95 ${quantile(cached, 0.95).toFixed(1)} ms; body ${(bytes / 1e6).toFixed(1)} MB, ${(gzBytes / 1e6).toFixed(2)} MB sent`,
)
console.log(`/metrics unchanged, plain (text format, no gzip): p50 ${quantile(cachedPlain, 0.5).toFixed(1)} ms, p95 ${quantile(cachedPlain, 0.95).toFixed(1)} ms`)
console.log(`RSS after the changes: ${f(rss)} MiB; after ${IDLE} s idle: ${f(rssIdle)} MiB; after ${2 * IDLE} s: ${f(rssIdle2)} MiB`)
console.log(
  `CPU while idle: ${cpuIdle.toFixed(2)} s over the first ${IDLE} s (${((cpuIdle / IDLE) * 100).toFixed(1)}% of a core), ${cpuIdle2.toFixed(2)} s over the next ${IDLE} s (${((cpuIdle2 / IDLE) * 100).toFixed(1)}%)`,
)
