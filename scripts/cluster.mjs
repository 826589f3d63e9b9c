#!/usr/bin/env node
// A real, minimal Kubernetes control plane for the end-to-end tests: etcd,
// kube-apiserver and kube-controller-manager (only the EndpointSlice controller, plus the
// ClusterRole aggregation controller that fills in `view`), all listening on 127.0.0.1 only,
// on ports the OS hands out. Docs: docs/testing.md.
//
//   node scripts/cluster.mjs up                 start (builds the binaries on first use);
//                                               already up and healthy: says so, exit 0
//   node scripts/cluster.mjs down               stop exactly what `up` started (by pid)
//   node scripts/cluster.mjs env                print `export KUBECONFIG=...`
//   node scripts/cluster.mjs status             print server and KUBECONFIG, exit 1 when not up
//   node scripts/cluster.mjs pause-controller   SIGSTOP / SIGCONT kube-controller-manager
//   node scripts/cluster.mjs resume-controller
//   node scripts/cluster.mjs apiserver stop     stop kube-apiserver only (SIGTERM, by pid); etcd and
//                                               kube-controller-manager keep running
//   node scripts/cluster.mjs apiserver start    start it again: same flags, ports, certificates and
//                                               service-account key; returns once /readyz is 200
//   node scripts/cluster.mjs controller-manager restart
//                                               stop and start kube-controller-manager with
//                                               its flags (fresh informers); once /healthz is 200
//   node scripts/cluster.mjs etcd-delete KEY    delete one key straight from etcd (a /registry/...
//                                               key), behind the API server's back: what a watch
//                                               cannot see while kube-apiserver is stopped
//   node scripts/cluster.mjs etcd-compact       compact etcd's history to its current revision:
//                                               a watch from an older resourceVersion gets 410
//   node scripts/cluster.mjs run -- CMD ARGS    up, run CMD with KUBECONFIG set, down (even on
//                                               failure or SIGINT/SIGTERM); exits with CMD's
//                                               code. A control plane that was already up is
//                                               reused and left up. CMD's PATH starts with
//                                               this version's `kubectl` (built on its first
//                                               call) and `kubectl-topology` (this checkout's
//                                               bin/kubectl-topology.js), so `kubectl topology
//                                               ...` works through kubectl's plugin discovery
//   node scripts/cluster.mjs build-kubectl      build this version's kubectl only (if missing);
//                                               prints its path
//   node scripts/cluster.mjs kube-proxy ...      a real kube-proxy per test Node, each in its own
//                                               network namespace (scripts/kube-proxy.mjs);
//                                               `down` stops them too
//   node scripts/cluster.mjs versions           the pinned Kubernetes versions, which are built
//   node scripts/cluster.mjs build              build the binaries only
//
// Every command takes `--version 1.32` (or CLUSTER_VERSION=1.32; also 1.32.13 / v1.32.13): the
// control plane of that pinned minor (test/controlplane/v1.32/), as its own instance
// (state in run-v1.32/ unless CLUSTER_INSTANCE is given), so versions run side by side.
// Without it: DEFAULT_VERSION, instance `run`.
//
// The kubeconfig has two token users/contexts: `admin` (system:masters, current) and
// `readonly` (bound to the `view` ClusterRole). Process logs are in the temp dir (state file:
// $XDG_CACHE_HOME/kubectl-topology/run/state.json).
//
// The binaries are built from test/controlplane/v1.X/go.mod with the Go toolchain and cached in
// $XDG_CACHE_HOME/kubectl-topology/k8s-<version>/ (default ~/.cache/...). To pin another
// patch or add a minor: `test/controlplane/bump.sh vX.Y.Z`; DEFAULT_VERSION below names the
// version used when none is asked for.
// etcd comes from Debian's etcd-server package (installed with apt-get when missing).
//
// Plain Node ESM with built-ins only: it runs before anything in the project is built.

import {spawn, spawnSync} from 'node:child_process'
import {generateKeyPairSync, randomBytes} from 'node:crypto'
import {closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import https from 'node:https'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {aptInstall, which} from './debian.mjs'
import {kubeProxyMain, stopKubeProxies} from './kube-proxy.mjs'

const DEFAULT_VERSION = 'v1.36.3'

const HOST = '127.0.0.1'
// Dual-stack, so tests can make IPv6 and dual-stack Services (a Service is still IPv4-only
// unless it asks); the IPv6 range is a unique-local one, /108 as kube-apiserver requires.
const SERVICE_CIDR = '10.96.0.0/16,fd00:10:96::/108'
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const MODULES = path.join(ROOT, 'test', 'controlplane')
const CACHE = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'kubectl-topology')

/** The pinned versions: {minor: 'v1.32', version: 'v1.32.13', dir}, from test/controlplane/v1.X/go.mod. */
function pinnedVersions() {
  const out = []
  for (const d of readdirSync(MODULES)) {
    if (!/^v1\.\d+$/.test(d)) continue
    let mod
    try {
      mod = readFileSync(path.join(MODULES, d, 'go.mod'), 'utf8')
    } catch {
      continue
    }
    const m = /^\s*(?:require\s+)?k8s\.io\/kubernetes (v1\.\d+\.\d+)\b/m.exec(mod)
    if (m && m[1].startsWith(`${d}.`)) out.push({minor: d, version: m[1], dir: path.join(MODULES, d)})
  }
  return out.sort((a, b) => Number(a.minor.slice(3)) - Number(b.minor.slice(3)))
}

/** `--version X` / `--version=X` (before any `--`) wins over CLUSTER_VERSION; removed from argv. */
function takeVersionArg(argv) {
  const end = argv.indexOf('--') < 0 ? argv.length : argv.indexOf('--')
  for (let i = 0; i < end; i++) {
    if (argv[i] === '--version' && i + 1 < end) return argv.splice(i, 2)[1]
    if (argv[i].startsWith('--version=')) return argv.splice(i, 1)[0].slice('--version='.length)
  }
  return undefined
}

const ARGV = process.argv.slice(2)
const ASKED_VERSION = takeVersionArg(ARGV) ?? process.env.CLUSTER_VERSION ?? ''
const PINNED = pinnedVersions()
const PIN = (() => {
  if (!ASKED_VERSION) return PINNED.find((p) => p.version === DEFAULT_VERSION)
  const m = /^v?(1\.\d+)(\.\d+)?$/.exec(ASKED_VERSION.trim())
  const pin = m && PINNED.find((p) => p.minor === `v${m[1]}` && (!m[2] || p.version === `v${m[1]}${m[2]}`))
  if (!pin) {
    process.stderr.write(
      `cluster: no pinned Kubernetes version ${JSON.stringify(ASKED_VERSION)}; pinned: ${PINNED.map((p) => p.version).join(', ')} ` +
        '(add one with test/controlplane/bump.sh vX.Y.Z)\n',
    )
    process.exit(2)
  }
  return pin
})()
if (!PIN) {
  process.stderr.write(`cluster: DEFAULT_VERSION ${DEFAULT_VERSION} has no module under test/controlplane/\n`)
  process.exit(2)
}
const K8S_VERSION = PIN.version
const BIN_DIR = path.join(CACHE, `k8s-${K8S_VERSION}`)
// CLUSTER_INSTANCE=name runs a separate control plane with its own state (several
// engineers, or test suites, side by side on one machine). Without it the default version
// is instance 'run' and any other version its own 'v1.X', so versions run side by side.
const INSTANCE = process.env.CLUSTER_INSTANCE || (K8S_VERSION === DEFAULT_VERSION ? '' : PIN.minor)
if (INSTANCE && !/^[a-z0-9][a-z0-9.-]{0,30}$/.test(INSTANCE)) {
  process.stderr.write(`CLUSTER_INSTANCE must be a short lowercase name, got ${JSON.stringify(INSTANCE)}\n`)
  process.exit(2)
}
const RUN_DIR = path.join(CACHE, INSTANCE ? `run-${INSTANCE}` : 'run')
const STATE_FILE = path.join(RUN_DIR, 'state.json')
const BINARIES = ['kube-apiserver', 'kube-controller-manager', 'kube-proxy']
// kubectl is built apart from BINARIES, on its first call (see ensureKubectl).
const KUBECTL = 'kubectl'
// Stop order: dependants first.
const PROCS = ['kube-controller-manager', 'kube-apiserver', 'etcd']

const log = (msg) => process.stderr.write(`cluster: ${msg}\n`)
const secs = (t0) => `${((Date.now() - t0) / 1000).toFixed(1)}s`
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// Set by SIGINT/SIGTERM while `up` or `run` works: start loops stop, the build is killed.
let interrupted = null
let buildChild = null

class StartError extends Error {
  constructor(message, logFile) {
    super(message)
    this.logFile = logFile
  }
}

// ---- small helpers ----------------------------------------------------------------------

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, HOST, () => {
      const {port} = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

async function freePorts(n) {
  const ports = new Set()
  // The OS does not hand out a port that is still bound, but it may repeat one after close.
  for (let i = 0; ports.size < n && i < 50; i++) ports.add(await freePort())
  if (ports.size < n) throw new Error('could not get free loopback ports')
  return [...ports]
}

/** HTTP(S) request against 127.0.0.1 with a bounded time. Resolves {status, body}. */
function request(url, {method = 'GET', token, body, ca, timeoutMs = 5000} = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url)
    const mod = u.protocol === 'https:' ? https : http
    const headers = {Accept: 'application/json'}
    if (token) headers.Authorization = `Bearer ${token}`
    let data
    if (body !== undefined) {
      data = Buffer.from(JSON.stringify(body))
      headers['Content-Type'] = 'application/json'
      headers['Content-Length'] = data.length
    }
    const opts = {method, headers, timeout: timeoutMs}
    if (u.protocol === 'https:') {
      if (ca) opts.ca = ca
      else opts.rejectUnauthorized = false
    }
    const req = mod.request(u, opts, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode, body: Buffer.concat(chunks).toString('utf8')}))
    })
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs}ms: ${method} ${url}`)))
    req.on('error', reject)
    if (data) req.write(data)
    req.end()
  })
}

/** Linux: a zombie or a missing /proc entry is dead. Elsewhere: signal 0. */
function isAlive(pid) {
  if (!pid) return false
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3)
    return state !== 'Z' && state !== 'X'
  } catch (e) {
    if (e.code !== 'ENOENT' || !existsSync('/proc/self/stat')) {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    return false
  }
}

/** True when pid is alive and (where /proc tells) still runs the binary we started. */
function isOurs(pid, bin) {
  if (!isAlive(pid)) return false
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0]
    return cmdline === bin || path.basename(cmdline) === path.basename(bin)
  } catch {
    return true // no /proc: trust the pid
  }
}

function tail(file, lines = 40) {
  try {
    const text = readFileSync(file, 'utf8').trimEnd().split('\n')
    return text.slice(-lines).join('\n')
  } catch (e) {
    return `(cannot read ${file}: ${e.message})`
  }
}

function readState() {
  try {
    return JSON.parse(readFileSync(STATE_FILE, 'utf8'))
  } catch {
    return null
  }
}

function writeState(state) {
  mkdirSync(RUN_DIR, {recursive: true})
  const tmp = `${STATE_FILE}.${process.pid}`
  writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', {mode: 0o600}) // holds the admin token
  renameSync(tmp, STATE_FILE)
}

// ---- binaries ---------------------------------------------------------------------------

/** The binary exists and reports K8S_VERSION (a plain `go build` without our -X flags reports v0.0.0-master). */
function haveBinary(b) {
  const bin = path.join(BIN_DIR, b)
  if (!existsSync(bin)) return false
  if (b === KUBECTL) {
    // kubectl has no --version; its client version is what -ldflags stamped.
    const r = spawnSync(bin, ['version', '--client', '-o', 'json'], {encoding: 'utf8', timeout: 10_000})
    try {
      return r.status === 0 && JSON.parse(r.stdout).clientVersion?.gitVersion === K8S_VERSION
    } catch {
      return false
    }
  }
  const r = spawnSync(bin, ['--version'], {encoding: 'utf8', timeout: 10_000})
  return r.status === 0 && r.stdout.trim() === `Kubernetes ${K8S_VERSION}`
}

/** -ldflags: strip symbols and stamp the version that `kubectl version` and /version report. */
function ldflags() {
  const [major, minor] = K8S_VERSION.replace(/^v/, '').split('.')
  const vars = {gitVersion: K8S_VERSION, gitMajor: major, gitMinor: minor, gitTreeState: 'clean'}
  const x = []
  for (const pkg of ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version']) {
    for (const [k, v] of Object.entries(vars)) x.push(`-X ${pkg}.${k}=${v}`)
  }
  return ['-s', '-w', ...x].join(' ')
}

/**
 * Builds those of `wanted` that are missing (a cache from before kube-proxy was added keeps its
 * other two). `up` wants only the control plane; kube-proxy is built on the first `kube-proxy add`,
 * so a version that only runs the EndpointSlice differential (the CI matrix) never builds it.
 */
async function ensureBinaries(wanted = BINARIES) {
  const missing = wanted.filter((b) => !haveBinary(b))
  if (missing.length === 0) return
  const go = which('go', ['/usr/local/go/bin', '/usr/lib/go/bin'])
  if (!go) throw new Error(`Go toolchain not found (needed once to build ${missing.join(', ')})`)
  const t0 = Date.now()
  log(`building ${missing.join(', ')} ${K8S_VERSION} into ${BIN_DIR} (first use; takes a while) ...`)
  // Build into a private directory, then rename: a half-built cache never looks complete.
  const partial = `${BIN_DIR}.partial-${process.pid}`
  mkdirSync(partial, {recursive: true})
  // The pinned go.mod lists the control plane's tools only, so kubectl's own dependencies
  // (k8s.io/kubectl's imports) are not in its go.sum. kubectl builds against a copy of the
  // pin (go -modfile; the checked-in go.mod/go.sum stay untouched) that `-mod=mod` completes:
  // every version still comes from k8s.io/kubernetes's own go.mod at the pinned tag (minimal
  // version selection), the same module and ldflags as the control plane.
  const modArgs = []
  if (missing.includes(KUBECTL)) {
    const scratch = path.join(partial, 'kubectl-build.mod')
    writeFileSync(scratch, readFileSync(path.join(PIN.dir, 'go.mod')))
    writeFileSync(path.join(partial, 'kubectl-build.sum'), readFileSync(path.join(PIN.dir, 'go.sum')))
    modArgs.push('-mod=mod', `-modfile=${scratch}`)
  }
  const code = await new Promise((resolve) => {
    const child = (buildChild = spawn(
      go,
      ['build', '-trimpath', ...modArgs, `-ldflags=${ldflags()}`, '-o', partial + path.sep, ...missing.map((b) => `k8s.io/kubernetes/cmd/${b}`)],
      {
        cwd: PIN.dir,
        stdio: 'inherit',
      },
    ))
    child.on('exit', (c, sig) => resolve(c ?? (sig ? 128 : 1)))
    child.on('error', (e) => {
      log(`go build: ${e.message}`)
      resolve(1)
    })
  })
  buildChild = null
  if (code !== 0 || interrupted) {
    rmSync(partial, {recursive: true, force: true})
    throw new Error(`go build failed (exit ${code})`)
  }
  mkdirSync(BIN_DIR, {recursive: true})
  for (const b of missing) renameSync(path.join(partial, b), path.join(BIN_DIR, b))
  rmSync(partial, {recursive: true, force: true})
  log(`build: ${secs(t0)}`)
}

function ensureEtcd() {
  const found = which('etcd', ['/usr/bin', '/usr/local/bin'])
  if (found) return found
  aptInstall(['etcd-server'], 'etcd', log)
  const etcd = which('etcd', ['/usr/bin', '/usr/local/bin'])
  if (!etcd) throw new Error('etcd-server installed but no etcd binary found')
  return etcd
}

// ---- processes --------------------------------------------------------------------------

/** Starts a detached process (its own process group, outlives this script) logging to a file. */
function startProcess(name, bin, args, dir) {
  const logFile = path.join(dir, `${name}.log`)
  const fd = openSync(logFile, 'a')
  const child = spawn(bin, args, {cwd: dir, stdio: ['ignore', fd, fd], detached: true})
  closeSync(fd)
  let exited = null
  child.on('exit', (code, signal) => (exited = {code, signal}))
  child.on('error', (e) => (exited = {code: null, signal: null, error: e.message}))
  child.unref()
  return {name, bin, pid: child.pid, logFile, exited: () => exited}
}

/** Polls check() until it returns true, the process exits, or timeoutMs passes. */
async function waitFor(proc, what, timeoutMs, check) {
  const deadline = Date.now() + timeoutMs
  let last = ''
  while (Date.now() < deadline) {
    if (interrupted) throw new StartError(`interrupted (${interrupted})`)
    const ex = proc.exited()
    if (ex) {
      throw new StartError(`${proc.name} exited during start (${ex.error ?? (ex.signal ? `signal ${ex.signal}` : `exit ${ex.code}`)})`, proc.logFile)
    }
    try {
      const r = await check()
      if (r === true) return
      last = String(r)
    } catch (e) {
      last = e.message
    }
    await sleep(250)
  }
  throw new StartError(`${proc.name}: ${what} not reached within ${timeoutMs / 1000}s (last: ${last})`, proc.logFile)
}

async function stopPid(name, pid, bin, graceMs = 10_000) {
  if (!pid || !isOurs(pid, bin)) return false
  try {
    process.kill(pid, 'SIGTERM')
    process.kill(pid, 'SIGCONT') // in case pause-controller stopped it: let it see the SIGTERM
  } catch {
    return false
  }
  const deadline = Date.now() + graceMs
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true
    await sleep(100)
  }
  log(`${name} (pid ${pid}) did not stop within ${graceMs / 1000}s: SIGKILL`)
  try {
    process.kill(pid, 'SIGKILL')
  } catch {}
  const killDeadline = Date.now() + 5000
  while (isAlive(pid) && Date.now() < killDeadline) await sleep(100)
  return true
}

async function stopAll(state, {keepDir = false} = {}) {
  await stopKubeProxies(state, kubeProxyContext())
  for (const name of PROCS) {
    const p = state.processes?.[name]
    if (p && (await stopPid(name, p.pid, p.bin))) log(`stopped ${name} (pid ${p.pid})`)
  }
  if (state.dir && !keepDir) rmSync(state.dir, {recursive: true, force: true})
}

async function waitForReadyz(apiserver, server, token) {
  await waitFor(apiserver, '/readyz', 120_000, async () => {
    const r = await request(`${server}/readyz`, {token})
    return r.status === 200 || `HTTP ${r.status} ${r.body.slice(0, 300)}`
  })
}

async function waitForHealthz(kcm, port) {
  await waitFor(kcm, '/healthz', 60_000, async () => {
    const r = await request(`https://${HOST}:${port}/healthz`)
    return r.status === 200 || `HTTP ${r.status} ${r.body.slice(0, 300)}`
  })
}

// ---- apiserver stop|start, etcd-delete (fault tests) -----------------------------------

/** The state of a running instance whose etcd still runs (the API server may be stopped). */
function runningState() {
  const state = readState()
  const etcd = state?.processes?.etcd
  if (!state || !etcd || !isOurs(etcd.pid, etcd.bin)) throw new Error('control plane is not up (no running etcd): run `node scripts/cluster.mjs up` first')
  return state
}

/**
 * Stops or starts kube-apiserver alone. stop: SIGTERM by pid (SIGKILL after 10 s), the state
 * keeps its flags; start: the same binary and flags (ports, --cert-dir with the serving
 * certificate generated at `up`, the service-account keys, etcd), then waits for /readyz. While
 * it is stopped `status` says "not up" and `up` would restart the whole instance.
 */
/**
 * Restarts kube-controller-manager with the flags `up` gave it: fresh informers. After the API
 * server was stopped for a while, client-go's reflectors back off (0.8 s doubling to 30 s, with
 * jitter up to twice that) and stay behind until their next try; a test that stopped the API
 * server leaves the next test a controller that has caught up. Returns once /healthz is 200.
 */
async function controllerManagerVerb(verb) {
  if (verb !== 'restart') throw new Error(`usage: cluster.mjs controller-manager restart (got ${JSON.stringify(verb ?? '')})`)
  const state = runningState()
  const p = state.processes['kube-controller-manager']
  if (!p?.args) throw new Error('this instance was started before `controller-manager restart` existed (no recorded flags): `down` and `up` it first')
  const t0 = Date.now()
  if (isOurs(p.pid, p.bin)) await stopPid('kube-controller-manager', p.pid, p.bin)
  const proc = startProcess('kube-controller-manager', p.bin, p.args, state.dir)
  state.processes['kube-controller-manager'] = {...p, pid: proc.pid}
  writeState(state)
  await waitForHealthz(proc, state.ports.controllerManager)
  log(`kube-controller-manager restarted (pid ${proc.pid}, ${secs(t0)})`)
  return 0
}

async function apiserverVerb(verb) {
  const state = runningState()
  const p = state.processes['kube-apiserver']
  if (!p?.args) throw new Error('this instance was started before `apiserver start` existed (no recorded flags): `down` and `up` it first')
  const running = isOurs(p.pid, p.bin)
  if (verb === 'stop') {
    if (!running) {
      log('kube-apiserver is not running')
      return 0
    }
    const t0 = Date.now()
    await stopPid('kube-apiserver', p.pid, p.bin)
    log(`stopped kube-apiserver (pid ${p.pid}, ${secs(t0)}); etcd and kube-controller-manager keep running`)
    return 0
  }
  if (verb !== 'start') throw new Error(`usage: cluster.mjs apiserver stop|start (got ${JSON.stringify(verb ?? '')})`)
  if (running) {
    log(`kube-apiserver already runs (pid ${p.pid})`)
    return 0
  }
  const t0 = Date.now()
  const proc = startProcess('kube-apiserver', p.bin, p.args, state.dir)
  state.processes['kube-apiserver'] = {...p, pid: proc.pid}
  writeState(state)
  await waitForReadyz(proc, state.server, state.adminToken)
  log(`kube-apiserver up again on ${state.server} (pid ${proc.pid}, ${secs(t0)})`)
  return 0
}

/** Deletes one /registry/ key in etcd through its v3 JSON gateway (etcd 3.4+); says how many keys went. */
async function etcdDelete(key) {
  if (typeof key !== 'string' || !/^\/registry\/[\x21-\x7e]+$/.test(key))
    throw new Error(`usage: cluster.mjs etcd-delete /registry/<resource>/<namespace>/<name> (got ${JSON.stringify(key ?? '')})`)
  const state = runningState()
  const r = await request(`http://${HOST}:${state.ports.etcd}/v3/kv/deleterange`, {method: 'POST', body: {key: Buffer.from(key).toString('base64')}})
  if (r.status !== 200) throw new Error(`etcd deleterange ${key}: HTTP ${r.status} ${r.body.slice(0, 300)}`)
  const deleted = Number(JSON.parse(r.body).deleted ?? 0)
  log(`etcd: deleted ${deleted} key(s) ${key}`)
  return deleted === 1 ? 0 : 1
}

/**
 * Compacts etcd's history up to its current revision (the v3 JSON gateway): every
 * resourceVersion before now is gone from etcd, so a watch from one of them is answered 410 Gone
 * whether the API server serves it from its watch cache or from etcd.
 */
async function etcdCompact() {
  const state = runningState()
  const etcd = `http://${HOST}:${state.ports.etcd}`
  // A range read of one key: its header holds the store's current revision.
  const head = await request(`${etcd}/v3/kv/range`, {method: 'POST', body: {key: Buffer.from('/registry/').toString('base64'), limit: 1}})
  if (head.status !== 200) throw new Error(`etcd range: HTTP ${head.status} ${head.body.slice(0, 300)}`)
  const revision = JSON.parse(head.body).header?.revision
  if (!revision) throw new Error(`etcd range: no revision in ${head.body.slice(0, 300)}`)
  const r = await request(`${etcd}/v3/kv/compaction`, {method: 'POST', body: {revision, physical: true}})
  if (r.status !== 200) throw new Error(`etcd compaction to ${revision}: HTTP ${r.status} ${r.body.slice(0, 300)}`)
  log(`etcd: compacted to revision ${revision}`)
  return 0
}

// ---- kubeconfig -------------------------------------------------------------------------

function kubeconfig({server, caData, users, current}) {
  // JSON is YAML: kubectl and client-node read it as a kubeconfig.
  return (
    JSON.stringify(
      {
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{name: 'kubectl-topology-e2e', cluster: {server, 'certificate-authority-data': caData}}],
        users: users.map(({name, token}) => ({name, user: {token}})),
        contexts: users.map(({name}) => ({name, context: {cluster: 'kubectl-topology-e2e', user: name}})),
        'current-context': current,
        preferences: {},
      },
      null,
      2,
    ) + '\n'
  )
}

// ---- up ---------------------------------------------------------------------------------

async function healthy(state) {
  if (!state) return false
  for (const name of PROCS) {
    const p = state.processes?.[name]
    if (!p || !isOurs(p.pid, p.bin)) return false
  }
  try {
    const r = await request(`${state.server}/readyz`, {token: state.adminToken, ca: state.ca, timeoutMs: 3000})
    return r.status === 200
  } catch {
    return false
  }
}

/** Returns {state, started}: started is false when a healthy control plane was already up. */
async function upUnlocked() {
  const existing = readState()
  if (existing) {
    if (existing.version !== K8S_VERSION) {
      log(`running control plane is ${existing.version}, want ${K8S_VERSION}: restarting it`)
    } else if (await healthy(existing)) {
      log(`already up (${existing.server}); KUBECONFIG=${existing.kubeconfig}`)
      return {state: existing, started: false}
    } else {
      log('state file points at a dead or unhealthy control plane: cleaning it up')
    }
    await stopAll(existing)
    rmSync(STATE_FILE, {force: true})
  }

  const tAll = Date.now()
  await ensureBinaries(['kube-apiserver', 'kube-controller-manager'])
  const etcdBin = ensureEtcd()
  const apiserverBin = path.join(BIN_DIR, 'kube-apiserver')
  const kcmBin = path.join(BIN_DIR, 'kube-controller-manager')

  const t0 = Date.now()
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-topology-cp-'))
  const [etcdPort, etcdPeerPort, apiPort, kcmPort] = await freePorts(4)
  const adminToken = randomBytes(24).toString('hex')
  const readonlyToken = randomBytes(24).toString('hex')
  const server = `https://${HOST}:${apiPort}`
  const state = {
    version: K8S_VERSION,
    dir,
    server,
    kubeconfig: path.join(dir, 'kubeconfig'),
    adminToken,
    ports: {etcd: etcdPort, etcdPeer: etcdPeerPort, apiserver: apiPort, controllerManager: kcmPort},
    processes: {},
    startedAt: new Date().toISOString(),
  }
  // Record as we go so `down` can clean up after a half-finished start.
  const record = (proc, args) => {
    state.processes[proc.name] = {pid: proc.pid, bin: proc.bin, log: proc.logFile, ...(args ? {args} : {})}
    writeState(state)
  }
  writeState(state)

  let ca
  try {
    // etcd (client and peer both on loopback; the peer port must not be the default 2380)
    const etcdUrl = `http://${HOST}:${etcdPort}`
    const peerUrl = `http://${HOST}:${etcdPeerPort}`
    const etcd = startProcess(
      'etcd',
      etcdBin,
      [
        '--name=default',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=default=${peerUrl}`,
        '--initial-cluster-state=new',
        '--logger=zap',
      ],
      dir,
    )
    record(etcd)
    await waitFor(etcd, 'health', 30_000, async () => {
      const r = await request(`${etcdUrl}/health`)
      return (r.status === 200 && JSON.parse(r.body).health === 'true') || `HTTP ${r.status} ${r.body}`
    })
    log(`etcd up on ${etcdUrl} (${secs(t0)})`)

    // kube-apiserver
    writeFileSync(path.join(dir, 'tokens.csv'), `${adminToken},admin,admin-uid,"system:masters"\n${readonlyToken},readonly,readonly-uid\n`, {mode: 0o600})
    const {privateKey, publicKey} = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: {type: 'spki', format: 'pem'},
      privateKeyEncoding: {type: 'pkcs8', format: 'pem'},
    })
    writeFileSync(path.join(dir, 'sa.key'), privateKey, {mode: 0o600})
    writeFileSync(path.join(dir, 'sa.pub'), publicKey)
    const certDir = path.join(dir, 'pki')
    const apiserverArgs = [
      `--etcd-servers=${etcdUrl}`,
      `--bind-address=${HOST}`,
      `--advertise-address=${HOST}`,
      `--secure-port=${apiPort}`,
      `--cert-dir=${certDir}`, // self-signed serving cert (CA + leaf) generated here, reused on restart
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      `--service-account-issuer=https://kubernetes.default.svc`,
      `--service-account-key-file=${path.join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${path.join(dir, 'sa.key')}`,
      `--service-cluster-ip-range=${SERVICE_CIDR}`,
      // No service-account controller runs, so the ServiceAccount admission plugin would
      // reject every Pod ("serviceaccount default not found").
      '--disable-admission-plugins=ServiceAccount',
      // The built-in `kubernetes` Service would get 127.0.0.1 endpoints, which Endpoints
      // validation rejects (loopback) and the reconciler would retry forever.
      '--endpoint-reconciler-type=none',
    ]
    const apiserver = startProcess('kube-apiserver', apiserverBin, apiserverArgs, dir)
    // The flags are kept for `apiserver start` (the same ports, certificates and keys).
    record(apiserver, apiserverArgs)
    await waitForReadyz(apiserver, server, adminToken)
    // The generated apiserver.crt holds the leaf and its self-signed CA: trust that bundle.
    ca = readFileSync(path.join(certDir, 'apiserver.crt'), 'utf8')
    const verified = await request(`${server}/readyz`, {token: adminToken, ca})
    if (verified.status !== 200) throw new Error(`apiserver not reachable with its own CA: HTTP ${verified.status}`)
    state.ca = ca
    const crb = await request(`${server}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
      method: 'POST',
      token: adminToken,
      ca,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: {name: 'kubectl-topology-readonly-view'},
        roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view'},
        subjects: [{apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'readonly'}],
      },
    })
    if (crb.status !== 201 && crb.status !== 409) throw new Error(`creating ClusterRoleBinding: HTTP ${crb.status} ${crb.body}`)
    const caData = Buffer.from(ca).toString('base64')
    writeFileSync(
      state.kubeconfig,
      kubeconfig({
        server,
        caData,
        users: [
          {name: 'admin', token: adminToken},
          {name: 'readonly', token: readonlyToken},
        ],
        current: 'admin',
      }),
      {mode: 0o600},
    )
    const kcmKubeconfig = path.join(dir, 'controller-manager.kubeconfig')
    writeFileSync(kcmKubeconfig, kubeconfig({server, caData, users: [{name: 'admin', token: adminToken}], current: 'admin'}), {mode: 0o600})
    writeState(state)
    log(`kube-apiserver up on ${server} (${secs(t0)})`)

    // kube-controller-manager: the EndpointSlice controller only.
    const kcmArgs = [
      `--kubeconfig=${kcmKubeconfig}`,
      `--authentication-kubeconfig=${kcmKubeconfig}`,
      `--authorization-kubeconfig=${kcmKubeconfig}`,
      // No client CA / request-header config exists to look up (the apiserver only writes
      // extension-apiserver-authentication when it has one): don't retry forever.
      '--authentication-skip-lookup=true',
      // The EndpointSlice controller is what the tests exercise; the aggregation controller
      // fills in the aggregated ClusterRoles (`view` is empty without it).
      '--controllers=endpointslice-controller,clusterrole-aggregation-controller',
      '--leader-elect=false',
      `--bind-address=${HOST}`,
      `--secure-port=${kcmPort}`,
      `--cert-dir=${path.join(dir, 'kcm-pki')}`,
    ]
    const kcm = startProcess('kube-controller-manager', kcmBin, kcmArgs, dir)
    // The flags are kept for `controller-manager restart`.
    record(kcm, kcmArgs)
    await waitForHealthz(kcm, kcmPort)
    await waitFor(kcm, 'aggregated ClusterRole view', 60_000, async () => {
      const r = await request(`${server}/apis/rbac.authorization.k8s.io/v1/clusterroles/view`, {token: adminToken, ca})
      const rules = r.status === 200 ? (JSON.parse(r.body).rules ?? []) : []
      return rules.some((rule) => rule.resources?.includes('endpointslices')) || `HTTP ${r.status}, ${rules.length} rules`
    })
    log(`kube-controller-manager up (${secs(t0)})`)
  } catch (e) {
    log(`start failed: ${e.message}`)
    if (e.logFile) process.stderr.write(`---- last lines of ${e.logFile} ----\n${tail(e.logFile)}\n----\n`)
    await stopAll(state, {keepDir: !interrupted})
    rmSync(STATE_FILE, {force: true})
    if (!interrupted) log(`logs kept in ${dir}`)
    throw e
  }
  log(`start: ${secs(t0)} (total ${secs(tAll)}); KUBECONFIG=${state.kubeconfig}`)
  return {state, started: true}
}

/**
 * One `up`/`down` at a time per instance (two terminals running `npm run test:e2e` would
 * otherwise both start a control plane and one would be orphaned). The lock file holds the
 * holder's pid; a dead holder's lock is taken over. Bounded: a first build may take a while.
 */
async function withLock(fn) {
  mkdirSync(RUN_DIR, {recursive: true})
  const lock = path.join(RUN_DIR, 'lock')
  const deadline = Date.now() + 45 * 60_000
  let told = false
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), {flag: 'wx'})
      break
    } catch (e) {
      if (e.code !== 'EEXIST') throw e
    }
    const holder = Number.parseInt(readFileSync(lock, 'utf8'), 10)
    if (!isAlive(holder)) {
      rmSync(lock, {force: true})
      continue
    }
    if (interrupted) throw new Error(`interrupted (${interrupted}) while waiting for pid ${holder}`)
    if (Date.now() > deadline) throw new Error(`${lock} held by pid ${holder} for too long`)
    if (!told) log(`waiting for pid ${holder} (another up/down of this instance) ...`)
    told = true
    await sleep(500)
  }
  try {
    return await fn()
  } finally {
    rmSync(lock, {force: true})
  }
}

const up = () => withLock(upUnlocked)
const down = () => withLock(downUnlocked)

// ---- down / env / run -------------------------------------------------------------------

async function downUnlocked() {
  const state = readState()
  if (!state) {
    log('not up (no state file)')
    await stopKubeProxies(null, kubeProxyContext()) // namespaces a lost state file left behind
    return
  }
  const t0 = Date.now()
  await stopAll(state)
  rmSync(STATE_FILE, {force: true})
  log(`down (${secs(t0)})`)
}

async function run(cmd) {
  if (cmd.length === 0) throw new Error('usage: cluster.mjs run -- CMD [ARGS...]')
  const {state, started} = await up()
  if (!started) log('reusing the running control plane; it stays up afterwards')
  const binDir = path.join(ROOT, 'node_modules', '.bin')
  const shimDir = writeShims()
  // The command's own cluster.mjs calls (e.g. the kube-proxy differential's `kube-proxy add`)
  // reach this instance and build/run this version's binaries.
  const env = {
    ...process.env,
    KUBECONFIG: state.kubeconfig,
    CLUSTER_VERSION: K8S_VERSION,
    ...(INSTANCE ? {CLUSTER_INSTANCE: INSTANCE} : {}),
    PATH: [shimDir, binDir, process.env.PATH].join(path.delimiter),
  }
  try {
    return await runWith(cmd, env, started)
  } finally {
    rmSync(shimDir, {recursive: true, force: true})
  }
}

/** POSIX single-quoted word (for the shims' absolute paths). */
const shq = (s) => `'${String(s).replaceAll("'", `'\\''`)}'`

/**
 * A fresh directory for `run`'s PATH holding two scripts:
 *   kubectl           this version's kubectl (client and server of one version, never the
 *                     machine's), built by `build-kubectl` on its first call;
 *   kubectl-topology  this checkout's bin/kubectl-topology.js under this Node, so kubectl's
 *                     plugin discovery runs the build under test for `kubectl topology ...`.
 */
function writeShims() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kubectl-topology-path-'))
  const kubectl = path.join(BIN_DIR, KUBECTL)
  const self = fileURLToPath(import.meta.url)
  writeFileSync(
    path.join(dir, 'kubectl'),
    `#!/bin/sh\n[ -x ${shq(kubectl)} ] || ${shq(process.execPath)} ${shq(self)} --version ${K8S_VERSION} build-kubectl >&2 || exit 127\nexec ${shq(kubectl)} "$@"\n`,
    {mode: 0o755},
  )
  writeFileSync(path.join(dir, 'kubectl-topology'), `#!/bin/sh\nexec ${shq(process.execPath)} ${shq(path.join(ROOT, 'bin', 'kubectl-topology.js'))} "$@"\n`, {mode: 0o755})
  return dir
}

async function runWith(cmd, env, started) {
  if (interrupted) {
    if (started) await down()
    return 128 + os.constants.signals[interrupted]
  }
  const child = (runChild = spawn(cmd[0], cmd.slice(1), {stdio: 'inherit', env}))
  const code = await new Promise((resolve) => {
    child.on('exit', (c, sig) => resolve(c ?? 128 + (os.constants.signals[sig] ?? 1)))
    child.on('error', (e) => {
      log(`${cmd[0]}: ${e.message}`)
      resolve(127)
    })
  })
  runChild = null
  if (started) await down()
  if (interrupted) return 128 + os.constants.signals[interrupted]
  return code
}

let runChild = null

/** What scripts/kube-proxy.mjs needs from this script. */
function kubeProxyContext() {
  return {
    instance: INSTANCE,
    version: K8S_VERSION,
    binDir: BIN_DIR,
    log,
    tail,
    readState,
    writeState,
    withLock,
    ensureBinaries,
    startProcess,
    stopPid,
    isOurs,
    pinnedBuild,
    request,
  }
}

/**
 * `kube-proxy add --proxy-version 1.33`: the pinned version of that minor (or exact version) and
 * its cache directory; throws naming the pinned ones when there is none.
 */
function pinnedBuild(asked) {
  const m = /^v?(1\.\d+)(\.\d+)?$/.exec(String(asked ?? '').trim())
  const pin = m && PINNED.find((p) => p.minor === `v${m[1]}` && (!m[2] || p.version === `v${m[1]}${m[2]}`))
  if (!pin) throw new Error(`no pinned Kubernetes version ${JSON.stringify(asked)}; pinned: ${PINNED.map((p) => p.version).join(', ')}`)
  const binDir = path.join(CACHE, `k8s-${pin.version}`)
  return {
    version: pin.version,
    binDir,
    /** Builds that version's binaries (first use): `cluster.mjs --version V build` as its own instance (its own lock). */
    build() {
      const env = {...process.env}
      delete env.CLUSTER_INSTANCE
      delete env.CLUSTER_VERSION
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--version', pin.version, 'build'], {stdio: ['ignore', 2, 2], env, timeout: 3_600_000})
      if (r.status !== 0) throw new Error(`building ${pin.version} failed (exit ${r.status}): node scripts/cluster.mjs --version ${pin.version} build`)
    },
  }
}

function onSignal(sig) {
  if (interrupted) return // second signal while cleaning up: keep cleaning up
  interrupted = sig
  log(`${sig}: stopping`)
  for (const child of [buildChild, runChild]) {
    try {
      child?.kill(sig)
    } catch {}
  }
}

async function main() {
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const [command, ...rest] = ARGV
  switch (command) {
    case 'up':
      await up()
      return interrupted ? 128 + os.constants.signals[interrupted] : 0
    case 'down':
      await down()
      return 0
    case 'env': {
      const state = readState()
      if (!(await healthy(state))) {
        process.stderr.write('control plane is not up: run `npm run cluster:up` first\n')
        return 1
      }
      process.stdout.write(`export KUBECONFIG=${state.kubeconfig}\n`)
      return 0
    }
    case 'status': {
      const state = readState()
      const ok = await healthy(state)
      process.stdout.write(ok ? `up: ${state.server}\nKUBECONFIG=${state.kubeconfig}\n` : 'not up\n')
      return ok ? 0 : 1
    }
    case 'pause-controller':
    case 'resume-controller': {
      // SIGSTOP / SIGCONT the controller manager: tests use it to hold the EndpointSlice
      // controller while they create a state it has not reconciled yet (drift), then let it run.
      const state = readState()
      const pid = state?.processes?.['kube-controller-manager']?.pid
      if (!pid) {
        process.stderr.write('control plane is not up\n')
        return 1
      }
      process.kill(pid, command === 'pause-controller' ? 'SIGSTOP' : 'SIGCONT')
      return 0
    }
    case 'apiserver':
      return apiserverVerb(rest[0])
    case 'controller-manager':
      return controllerManagerVerb(rest[0])
    case 'etcd-delete':
      return etcdDelete(rest[0])
    case 'etcd-compact':
      return etcdCompact()
    case 'run': {
      const i = rest.indexOf('--')
      return run(i >= 0 ? rest.slice(i + 1) : rest)
    }
    case 'kube-proxy':
      return kubeProxyMain(rest, kubeProxyContext())
    case 'build':
      // Only the binaries (e.g. to build every version ahead of a matrix run).
      await withLock(ensureBinaries)
      log(`${K8S_VERSION}: ${BIN_DIR}`)
      return 0
    case 'build-kubectl':
      // This version's kubectl only (run's PATH shim calls this on kubectl's first use).
      await withLock(() => ensureBinaries([KUBECTL]))
      process.stdout.write(`${path.join(BIN_DIR, KUBECTL)}\n`)
      return 0
    case 'versions': {
      // One line a pinned version: version, built or not, default, binary dir.
      for (const p of PINNED) {
        const dir = path.join(CACHE, `k8s-${p.version}`)
        const built = BINARIES.every((b) => existsSync(path.join(dir, b)))
        const line = [p.version.padEnd(9), built ? 'built    ' : 'not built', p.version === DEFAULT_VERSION ? 'default' : '       ', dir]
        process.stdout.write(line.join('  ') + '\n')
      }
      return 0
    }
    default:
      process.stderr.write(
        'usage: node scripts/cluster.mjs [--version 1.X] up | down | env | status | pause-controller | resume-controller | apiserver stop|start | etcd-delete KEY | etcd-compact | versions | build | build-kubectl | run -- CMD [ARGS...] | kube-proxy ...\n',
      )
      return 2
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    log(`error: ${e.message}`)
    process.exit(interrupted ? 128 + os.constants.signals[interrupted] : 1)
  },
)
