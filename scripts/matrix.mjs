#!/usr/bin/env node
// The version matrix: for each pinned Kubernetes minor, one control plane
// (`cluster.mjs --version X run`: build on first use, start, run, stop) and, against it, the
// suites that compare the product with that version's real components:
//   differential  test/e2e/differential.test.ts: explain vs the EndpointSlice controller (and
//                 the snapshot + --kube-version variant), seeded scenarios with several slices
//                 and mode-switch steps;
//   versions      test/e2e/versions.test.ts: the version's own behaviour and texts for a
//                 PreferSameZone Service and a zone-less endpoint, live;
//   kube-proxy    test/e2e/kube-proxy-differential.test.ts: explain --per-node vs that version's
//                 real kube-proxy (iptables and nftables; built on first use), in network
//                 namespaces; needs root;
//   advice        test/e2e/advice.test.ts: every command explain and plan print, run verbatim
//                 with that version's kubectl, gets the outcome the advice promised (issue 19);
//                 the commands run are listed in test-results/matrix/v1.X-advice-commands.jsonl.
// Then a summary table. Docs: docs/testing.md.
//
//   npm run test:matrix                                  every pinned version, every suite
//   MATRIX_VERSIONS=1.30,1.33 npm run test:matrix        some versions
//   npm run test:matrix -- --versions 1.30,1.37 --scenarios 100 --seed 1 --suites differential
//   npm run test:matrix -- --versions 1.37 --suites kube-proxy --kp-proxy-versions 1.37,1.33,1.36,1.30,1.30
//                          the kube-proxy suite with the proxy Nodes at those minors in turn
//                          (version skew, issue 22); results under v1.X-skew*, apart from the rest
//
// Env: MATRIX_VERSIONS, DIFF_SCENARIOS (default 30), DIFF_SEED, KP_SCENARIOS (default 20),
// KP_SEED, MATRIX_SUITES (flags win), DIFF_FOCUS=traffic (the trafficDistribution variant of the
// scenarios, test/e2e/scenarios.ts), MATRIX_TIMEOUT_MIN (per version, build included; default
// 45). Each version runs as its own cluster instance (matrix-v1.X, or $CLUSTER_INSTANCE-v1.X)
// and writes test-results/matrix/v1.X.json (differential), v1.X-kube-proxy.json, v1.X-vitest.json
// (per file) and mismatch dumps under test-results/matrix/v1.X/ and v1.X-kube-proxy/. Exit 0
// only when every version ran and every suite passed, every scenario agreeing.
//
// Plain Node ESM with built-ins only.
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync, rmSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const {values} = parseArgs({
  options: {
    versions: {type: 'string', default: process.env.MATRIX_VERSIONS ?? ''},
    scenarios: {type: 'string', default: process.env.DIFF_SCENARIOS ?? '30'},
    seed: {type: 'string', default: process.env.DIFF_SEED ?? '1'},
    'kp-scenarios': {type: 'string', default: process.env.KP_SCENARIOS ?? '20'},
    'kp-seed': {type: 'string', default: process.env.KP_SEED ?? '1'},
    'kp-proxy-versions': {type: 'string', default: process.env.KP_PROXY_VERSIONS ?? ''},
    suites: {type: 'string', default: process.env.MATRIX_SUITES ?? 'differential,versions,kube-proxy,advice'},
  },
})
const SUITE_FILES = {
  differential: 'test/e2e/differential.test.ts',
  versions: 'test/e2e/versions.test.ts',
  'kube-proxy': 'test/e2e/kube-proxy-differential.test.ts',
  advice: 'test/e2e/advice.test.ts',
}
const suites = values.suites.split(/[\s,]+/).filter(Boolean)
for (const x of suites) {
  if (!(x in SUITE_FILES)) {
    console.error(`--suites: unknown suite ${JSON.stringify(x)}; known: ${Object.keys(SUITE_FILES).join(', ')}`)
    process.exit(2)
  }
}
if (suites.length === 0) {
  console.error('--suites: at least one suite')
  process.exit(2)
}
for (const k of ['scenarios', 'seed', 'kp-scenarios', 'kp-seed']) {
  if (!/^\d+$/.test(values[k])) {
    console.error(`--${k} must be a whole number, got ${JSON.stringify(values[k])}`)
    process.exit(2)
  }
}
const timeoutMin = Number(process.env.MATRIX_TIMEOUT_MIN ?? 45)
if (!(timeoutMin > 0)) {
  console.error(`MATRIX_TIMEOUT_MIN must be a positive number, got ${JSON.stringify(process.env.MATRIX_TIMEOUT_MIN)}`)
  process.exit(2)
}

const cluster = path.join(ROOT, 'scripts', 'cluster.mjs')
const listed = spawnSync(process.execPath, [cluster, 'versions'], {encoding: 'utf8'})
if (listed.status !== 0) {
  process.stderr.write(listed.stderr)
  process.exit(1)
}
const pinned = listed.stdout
  .trim()
  .split('\n')
  .map((l) => l.split(/\s+/)[0])
const minorOf = (v) => /^v?(1\.\d+)/.exec(v)?.[1]
let versions = pinned
if (values.versions.trim()) {
  versions = []
  for (const want of values.versions.split(/[\s,]+/).filter(Boolean)) {
    const v = pinned.find((p) => minorOf(p) === minorOf(want))
    if (!v) {
      console.error(`matrix: no pinned version for ${JSON.stringify(want)}; pinned: ${pinned.join(', ')}`)
      process.exit(2)
    }
    versions.push(v)
  }
}

let stopping = null
let current = null
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopping = sig
    current?.kill(sig) // cluster.mjs run stops its control plane and forwards the signal
  })
}

const rows = []
const tAll = Date.now()
for (const version of versions) {
  if (stopping) break
  const minor = minorOf(version)
  // With --kp-proxy-versions (skew) the results and the instance are kept apart from a plain run's.
  const label = `v${minor}${values['kp-proxy-versions'] ? '-skew' : ''}`
  const focus = process.env.DIFF_FOCUS ? `-${process.env.DIFF_FOCUS}` : ''
  const out = path.join(ROOT, 'test-results', 'matrix', `${label}${focus}`)
  const resultsFile = path.join(ROOT, 'test-results', 'matrix', `${label}${focus}.json`)
  const kpOut = path.join(ROOT, 'test-results', 'matrix', `${label}-kube-proxy`)
  const kpFile = path.join(ROOT, 'test-results', 'matrix', `${label}-kube-proxy.json`)
  const vitestFile = path.join(ROOT, 'test-results', 'matrix', `${label}${focus}-vitest.json`)
  const adviceLog = path.join(ROOT, 'test-results', 'matrix', `${label}-advice-commands.jsonl`)
  // Only what this run rewrites: a differential-only run keeps the kube-proxy results, and so on.
  const stale = [
    vitestFile,
    ...(suites.includes('differential') ? [out, resultsFile] : []),
    ...(suites.includes('kube-proxy') ? [kpOut, kpFile] : []),
    ...(suites.includes('advice') ? [adviceLog] : []),
  ]
  for (const f of stale) rmSync(f, {recursive: true, force: true})
  const instance = `${process.env.CLUSTER_INSTANCE ? process.env.CLUSTER_INSTANCE : 'matrix'}-${label}`
  process.stderr.write(
    `\nmatrix: ${version}: ${suites.join(', ')}; ${values.scenarios} scenarios from seed ${values.seed}` +
      (suites.includes('kube-proxy') ? `, kube-proxy ${values['kp-scenarios']} from seed ${values['kp-seed']}` : '') +
      (values['kp-proxy-versions'] ? ` at kube-proxy ${values['kp-proxy-versions']}` : '') +
      ` (instance ${instance})\n`,
  )
  const t0 = Date.now()
  const code = await new Promise((resolve) => {
    const files = suites.map((x) => SUITE_FILES[x])
    const vitest = ['vitest', 'run', '-c', 'vitest.e2e.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestFile}`, ...files]
    const child = (current = spawn(process.execPath, [cluster, '--version', version, 'run', '--', ...vitest], {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        CLUSTER_INSTANCE: instance,
        DIFF_SCENARIOS: values.scenarios,
        DIFF_SEED: values.seed,
        DIFF_OUT: out,
        DIFF_RESULTS: resultsFile,
        KP_SCENARIOS: values['kp-scenarios'],
        KP_SEED: values['kp-seed'],
        KP_OUT: kpOut,
        KP_RESULTS: kpFile,
        KP_PROXY_VERSIONS: values['kp-proxy-versions'],
        ...(suites.includes('advice') ? {ADVICE_COMMANDS_LOG: adviceLog} : {}),
      },
    }))
    const timer = setTimeout(() => {
      process.stderr.write(`matrix: ${version} still running after ${timeoutMin} min: SIGTERM\n`)
      child.kill('SIGTERM')
    }, timeoutMin * 60_000)
    child.on('exit', (c, sig) => {
      clearTimeout(timer)
      resolve(c ?? (sig ? 128 : 1))
    })
    child.on('error', (e) => {
      clearTimeout(timer)
      process.stderr.write(`matrix: ${e.message}\n`)
      resolve(127)
    })
  })
  current = null
  const readJson = (f) => {
    try {
      return JSON.parse(readFileSync(f, 'utf8'))
    } catch {
      return null
    }
  }
  const report = readJson(resultsFile)
  const results = report?.results ?? []
  const kp = readJson(kpFile)?.results ?? []
  // Per file, from vitest's JSON reporter: passed / failed / - (not run).
  const fileStatus = (file) => readJson(vitestFile)?.testResults?.find((t) => t.name.endsWith(file))?.status ?? '-'
  rows.push({
    version: values['kp-proxy-versions'] ? `${version} (kube-proxy ${values['kp-proxy-versions']})` : version,
    server: report?.serverVersion ?? '-',
    exit: code,
    secs: Math.round((Date.now() - t0) / 1000),
    scenarios: results.length,
    agree: results.filter((r) => r.agree).length,
    disagree: results.filter((r) => !r.agree).map((r) => r.seed),
    snapAgree: results.filter((r) => r.snapshotAgree).length,
    snapDisagree: results.filter((r) => !r.snapshotAgree).map((r) => r.seed),
    adapted: results.filter((r) => r.notes.some((n) => /^API server (rejected|dropped) (trafficDistribution|step)/.test(n))).length,
    several: results.filter((r) => r.slices > 1).length,
    steps: results.reduce((a, r) => a + (r.steps?.length ?? 0), 0),
    kp: suites.includes('kube-proxy') ? `${kp.filter((r) => r.agree).length}/${kp.length}` : '-',
    kpOk: !suites.includes('kube-proxy') || (kp.length === Number(values['kp-scenarios']) && kp.every((r) => r.agree) && fileStatus(SUITE_FILES['kube-proxy']) === 'passed'),
    versions: suites.includes('versions') ? fileStatus(SUITE_FILES.versions) : '-',
    advice: suites.includes('advice') ? fileStatus(SUITE_FILES.advice) : '-',
  })
}

const head = [
  'version',
  'server',
  'scenarios',
  'agree',
  'disagree (seeds)',
  'snapshot agree',
  'snapshot disagree (seeds)',
  'several slices',
  'steps',
  'td refused',
  'kube-proxy',
  'versions',
  'advice',
  'time',
  'exit',
]
const table = rows.map((r) => [
  r.version,
  r.server,
  String(r.scenarios),
  String(r.agree),
  r.disagree.length ? `${r.disagree.length} (${r.disagree.join(' ')})` : '0',
  String(r.snapAgree),
  r.snapDisagree.length ? `${r.snapDisagree.length} (${r.snapDisagree.join(' ')})` : '0',
  String(r.several),
  String(r.steps),
  String(r.adapted),
  r.kp,
  r.versions,
  r.advice,
  `${r.secs}s`,
  String(r.exit),
])
const widths = head.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)))
const line = (cells) =>
  cells
    .map((c, i) => c.padEnd(widths[i]))
    .join('  ')
    .trimEnd()
process.stdout.write(
  `\nmatrix: ${values.scenarios} ${process.env.DIFF_FOCUS ? `${process.env.DIFF_FOCUS}-focused ` : ''}scenarios from seed ${values.seed} per version, ${Math.round((Date.now() - tAll) / 1000)}s\n`,
)
process.stdout.write(`${line(head)}\n${table.map(line).join('\n')}\n`)
process.stdout.write(
  '(td refused: scenarios whose trafficDistribution the API server rejected (created without it) or dropped (gate off), at creation or in a step; kube-proxy: scenarios agreeing with the real kube-proxy; details: test-results/matrix/v1.X*.json)\n',
)
const ok =
  !stopping &&
  rows.length === versions.length &&
  rows.every(
    (r) =>
      r.exit === 0 &&
      (!suites.includes('differential') || (r.scenarios === Number(values.scenarios) && r.disagree.length === 0 && r.snapDisagree.length === 0)) &&
      r.kpOk &&
      (!suites.includes('versions') || r.versions === 'passed') &&
      (!suites.includes('advice') || r.advice === 'passed'),
  )
process.exit(stopping ? 130 : ok ? 0 : 1)
