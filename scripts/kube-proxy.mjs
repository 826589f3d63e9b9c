// The real kube-proxy for the end-to-end tests, one per test Node, each in a network namespace
// of its own. Dispatched from scripts/cluster.mjs (`node scripts/cluster.mjs kube-proxy ...`),
// which hands in its state-file and process helpers; the rest of this module (reading the
// rules, the sync metrics) is plain functions the tests import. Docs: docs/testing.md.
//
//   kube-proxy add NODE --mode iptables|nftables [--proxy-version 1.X]
//                                                   start kube-proxy for the Node (which must
//                                                   exist, with an InternalIP); prints the namespace.
//                                                   --proxy-version runs that pinned minor's
//                                                   kube-proxy (version skew; built with
//                                                   `cluster.mjs --version 1.X build`) instead of
//                                                   the control plane's. Either way it creates the
//                                                   Node's kube-proxy Pod object in kube-system
//                                                   (kube-proxy-NODE, label k8s-app=kube-proxy,
//                                                   image registry.k8s.io/kube-proxy:vVERSION),
//                                                   as a DaemonSet would on a real cluster: there
//                                                   is no kubelet here, the Pod never runs, it only
//                                                   tells the tool the Node's kube-proxy version
//   kube-proxy remove NODE                          stop it, delete its namespace and socket
//   kube-proxy list [--json]                        what runs, per Node
//   kube-proxy rules NODE [--json]                  the endpoints it programmed, per Service port
//   kube-proxy wait [NODE...] [--after EPOCH_SECONDS] [--timeout SECONDS]
//                                                   until each has synced every change it queued,
//                                                   and has seen one made at or after that time
//
// Network safety. A namespace made by `ip netns add` holds only its own loopback: the rules
// kube-proxy programs there cannot route a packet anywhere, and nothing here sends one to a
// non-loopback address. kube-proxy reaches the API server through a pair of socat forwarders
// joined by a Unix socket (the file system is shared between namespaces): inside, socat
// listens on 127.0.0.1:APIPORT, so the unchanged kubeconfig (https://127.0.0.1:APIPORT, TLS
// verified) works; outside, a second socat connects the socket to the real 127.0.0.1:APIPORT.
// Metrics and healthz listen on the namespace's own 127.0.0.1 (same ports in every namespace).
//
// Everything started is recorded in the control plane's state file before it is started
// (state.kubeProxies[NODE]: namespace, socket, pids), so `down` stops it even after a crash;
// `down` also deletes any namespace named for this instance (ktp-<instance>-...) that the
// state file lost, after stopping the processes inside it (`ip netns pids`).
//
// Plain Node ESM with built-ins only, like cluster.mjs.

import {spawnSync} from 'node:child_process'
import {existsSync, rmSync} from 'node:fs'
import path from 'node:path'
import {aptInstall, which} from './debian.mjs'

export const METRICS_PORT = 10249
export const HEALTHZ_PORT = 10256
export const MODES = ['iptables', 'nftables']

const SBIN = ['/usr/sbin', '/sbin', '/usr/bin', '/bin']
/** Command -> Debian package. */
const TOOLS = {
  ip: 'iproute2',
  iptables: 'iptables',
  'iptables-save': 'iptables',
  'ip6tables-save': 'iptables',
  nft: 'nftables',
  conntrack: 'conntrack',
  socat: 'socat',
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Installs (apt, as cluster.mjs does for etcd) whichever of the tools kube-proxy and this harness need is missing. */
export function ensureNetTools(log) {
  const missing = Object.keys(TOOLS).filter((cmd) => !which(cmd, SBIN))
  if (missing.length === 0) return
  aptInstall([...new Set(missing.map((c) => TOOLS[c]))], `kube-proxy harness tools (${missing.join(', ')})`, log)
  const still = Object.keys(TOOLS).filter((cmd) => !which(cmd, SBIN))
  if (still.length > 0) throw new Error(`still missing after apt-get install: ${still.join(', ')}`)
}

function tool(cmd) {
  const p = which(cmd, SBIN)
  if (!p) throw new Error(`${cmd} not found (run \`node scripts/cluster.mjs kube-proxy add\` once: it installs it)`)
  return p
}

/** The network namespace of a Node's kube-proxy: ktp-<instance>-<node>. */
export function netnsName(instance, node) {
  return `${netnsPrefix(instance)}${node.replace(/[^a-z0-9.-]/g, '-')}`
}

function netnsPrefix(instance) {
  return `ktp-${instance || 'run'}-`
}

/** Runs a command (bounded), returns {status, stdout, stderr}. */
function run(cmd, args, {input, timeoutMs = 15_000} = {}) {
  const r = spawnSync(cmd, args, {input: input ?? '', encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 << 20})
  return {status: r.status, stdout: r.stdout ?? '', stderr: (r.stderr ?? '') + (r.error ? String(r.error.message) : '')}
}

function mustRun(cmd, args, opts) {
  const r = run(cmd, args, opts)
  if (r.status !== 0) throw new Error(`${[cmd, ...args].join(' ')}: exit ${r.status}: ${r.stderr.trim()}`)
  return r.stdout
}

/** `ip netns exec NS CMD ARGS` (bounded). */
function inNetns(netns, cmd, args, opts) {
  return run(tool('ip'), ['netns', 'exec', netns, cmd, ...args], opts)
}

export function listNetns() {
  if (!which('ip', SBIN)) return []
  const r = run(tool('ip'), ['netns', 'list'])
  return r.status === 0
    ? r.stdout
        .split('\n')
        .map((l) => l.split(' ')[0])
        .filter(Boolean)
    : []
}

// ---- reading what kube-proxy programmed -------------------------------------------------------

/**
 * One HTTP/1.0 GET to 127.0.0.1:port inside the namespace (through socat, bounded); the body.
 */
export function getInNetns(netns, port, urlPath, timeoutMs = 5000) {
  const r = inNetns(netns, tool('socat'), ['-t', '5', '-T', '5', '-', `TCP:127.0.0.1:${port}`], {
    input: `GET ${urlPath} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n`,
    timeoutMs,
  })
  if (r.status !== 0) throw new Error(`GET 127.0.0.1:${port}${urlPath} in ${netns}: ${r.stderr.trim() || `exit ${r.status}`}`)
  const i = r.stdout.indexOf('\r\n\r\n')
  const status = Number(/^HTTP\/\d\.\d (\d+)/.exec(r.stdout)?.[1] ?? 0)
  return {status, body: i >= 0 ? r.stdout.slice(i + 4) : ''}
}

/**
 * Sync times per IP family from kube-proxy's metrics (seconds since the epoch):
 * lastSync = kubeproxy_sync_proxy_rules_last_timestamp_seconds (end of the last successful
 * sync), lastQueued = kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds (last change
 * that asked for a sync). Both are set by the proxiers (pkg/proxy/iptables/proxier.go,
 * pkg/proxy/nftables/proxier.go: Sync / syncProxyRules). {} when metrics do not answer yet.
 */
export function syncStatus(netns) {
  let r
  try {
    r = getInNetns(netns, METRICS_PORT, '/metrics')
  } catch {
    return {}
  }
  if (r.status !== 200) return {}
  return parseSyncMetrics(r.body)
}

export function parseSyncMetrics(text) {
  // From 1.33 both gauges carry an ip_family label (one proxier per family). Up to 1.32 they
  // have none (pkg/proxy/metrics/metrics.go: one gauge, set by whichever family's proxier
  // synced or queued last): then there is one entry, "any", for the proxy as a whole.
  const out = {}
  const re = /^kubeproxy_sync_proxy_rules_last_(queued_)?timestamp_seconds(?:\{([^}]*)\})?\s+(\S+)/gm
  for (const m of text.matchAll(re)) {
    const fam = /ip_family="(IPv4|IPv6)"/.exec(m[2] ?? '')?.[1] ?? 'any'
    const entry = (out[fam] ??= {lastSync: 0, lastQueued: 0})
    entry[m[1] ? 'lastQueued' : 'lastSync'] = Number(m[3])
  }
  return out
}

/**
 * Synced: no IP family kube-proxy runs has a change queued that it has not synced, and some
 * family queued a change at or after `after` (epoch seconds; so it has seen a change made then:
 * a family the change does not concern, e.g. IPv6 for an IPv4-only Service, queues nothing).
 */
export function isSynced(status, after = 0) {
  const fams = Object.values(status)
  return fams.length > 0 && fams.every((f) => f.lastSync > 0 && f.lastSync >= f.lastQueued) && fams.some((f) => f.lastQueued >= after)
}

/** "ns/name:port" from iptables' comment; a port without a name is "ns/name". */
function endpointParts(ep) {
  // "10.1.0.1:8080" or "[fd00::1]:8080"
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(ep)
  return m ? {ip: m[1], port: Number(m[2])} : {ip: ep, port: 0}
}

/**
 * `iptables-save -t nat` (or ip6tables-save) as kube-proxy's iptables proxier writes it
 * (pkg/proxy/iptables/proxier.go): each routed endpoint is one rule in the Service port's
 * KUBE-SVC-<hash> (Cluster policy) or KUBE-SVL-<hash> (Local policy) chain, commented
 * "NS/NAME:PORT -> IP:PORT". Returns {service: {cluster: [ep], local: [ep]}} in rule order.
 */
export function parseIptablesSave(text) {
  const out = {}
  const re = /^-A (KUBE-SV[CL])-\S+ .*?--comment "?([^"\s]+) -> ([^"\s]+)"?/
  for (const line of text.split('\n')) {
    const m = re.exec(line)
    if (!m) continue
    const svc = (out[m[2]] ??= {cluster: [], local: []})
    svc[m[1] === 'KUBE-SVC' ? 'cluster' : 'local'].push(m[3])
  }
  return out
}

/**
 * `nft list table ip kube-proxy` (or ip6) as the nftables proxier writes it: chain
 * service-<hash>-NS/NAME/PROTO/PORT (Cluster policy) or local-<hash>-... (Local policy) picks an
 * endpoint with `numgen random mod N`, in one of two forms:
 *  - 1.36+ (pkg/proxy/nftables/proxier.go writeServiceToEndpointDNATs):
 *    `dnat ip addr . port to numgen random mod N map { 0 : IP . PORT, ... }`;
 *  - 1.29-1.35 (writeServiceToEndpointRules): `numgen random mod N vmap { 0 : goto
 *    endpoint-<hash>-NS/NAME/PROTO/PORT__IP/PORT, ... }`, each endpoint chain ending in
 *    `dnat to IP:PORT` (listed by nft as `dnat ip to ...` / `dnat ip6 to [...]:...`);
 *  - 1.37+ with one endpoint: that `dnat to IP:PORT` directly in the service chain.
 * Returns the same shape as parseIptablesSave.
 */
export function parseNft(text) {
  // Every chain's body, by name (a long map may span lines: count braces).
  const chains = new Map()
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const head = /^\s*chain (\S+) \{\s*$/.exec(lines[i])
    if (!head) continue
    let depth = 1
    let body = ''
    for (i++; i < lines.length && depth > 0; i++) {
      for (const ch of lines[i]) depth += ch === '{' ? 1 : ch === '}' ? -1 : 0
      if (depth > 0) body += `${lines[i]}\n`
    }
    i--
    chains.set(head[1], body)
  }
  const out = {}
  for (const [chain, body] of chains) {
    const head = /^(service|local)-[A-Z0-9]+-([^/\s]+)\/([^/\s]+)\/[a-z]+\/(\S*)$/.exec(chain)
    if (!head) continue
    const [, kind, ns, name, port] = head
    const key = port ? `${ns}/${name}:${port}` : `${ns}/${name}`
    const svc = (out[key] ??= {cluster: [], local: []})
    const eps = []
    const map = /numgen random mod \d+ map \{([^}]*)\}/.exec(body)
    const vmap = /numgen random mod \d+ vmap \{([^}]*)\}/.exec(body)
    if (map) {
      for (const m of map[1].matchAll(/(\d+)\s*:\s*([0-9a-fA-F.:]+?)\s+\.\s+(\d+)/g)) {
        eps[Number(m[1])] = m[2].includes(':') ? `[${m[2]}]:${m[3]}` : `${m[2]}:${m[3]}`
      }
    } else if (vmap) {
      for (const m of vmap[1].matchAll(/(\d+)\s*:\s*goto\s+([^\s,]+)/g)) {
        const dnat = /dnat (?:ip6? )?to (\S+)/.exec(chains.get(m[2]) ?? '')
        if (dnat) eps[Number(m[1])] = dnat[1]
      }
    } else {
      // 1.37+: a single endpoint is one plain `dnat to IP:PORT` in the service chain.
      const one = /dnat (?:ip6? )?to (\S+)/.exec(body)
      if (one) eps[0] = one[1]
    }
    svc[kind === 'service' ? 'cluster' : 'local'].push(...eps.filter(Boolean))
  }
  return out
}

/**
 * What kube-proxy in `netns` programmed, per IP family and Service port:
 * [{family, service: "ns/name:port", clusterEndpoints: ["ip:port"], localEndpoints: [...]}],
 * sorted by family, then service; endpoints sorted. A family whose table does not exist is
 * left out (kube-proxy runs no proxier for it, or has not synced yet).
 */
export function readRules(netns, mode) {
  const out = []
  for (const family of ['IPv4', 'IPv6']) {
    let parsed
    if (mode === 'iptables') {
      const r = inNetns(netns, tool(family === 'IPv4' ? 'iptables-save' : 'ip6tables-save'), ['-t', 'nat'])
      if (r.status !== 0) continue
      parsed = parseIptablesSave(r.stdout)
    } else {
      const r = inNetns(netns, tool('nft'), ['list', 'table', family === 'IPv4' ? 'ip' : 'ip6', 'kube-proxy'])
      if (r.status !== 0) continue
      parsed = parseNft(r.stdout)
    }
    for (const service of Object.keys(parsed).sort()) {
      const s = parsed[service]
      out.push({family, service, clusterEndpoints: [...s.cluster].sort(), localEndpoints: [...s.local].sort()})
    }
  }
  return out
}

/** Helpers for tests: the IPs of "ip:port" strings. */
export const endpointIP = (ep) => endpointParts(ep).ip

// ---- processes --------------------------------------------------------------------------------

/** ctx (from cluster.mjs): {instance, version, binDir, log, readState, writeState, withLock, ensureBinaries, startProcess, stopPid, isOurs}. */

async function stopEntry(entry, ctx) {
  // kube-proxy first (it would log the API server going away otherwise), then the forwarders.
  for (const key of ['kubeProxy', 'socatNetns', 'socatHost']) {
    const p = entry.processes?.[key]
    if (p && (await ctx.stopPid(`${key} of ${entry.node}`, p.pid, p.bin, 5000))) ctx.log(`stopped ${key} of ${entry.node} (pid ${p.pid})`)
  }
  deleteNetns(entry.netns, ctx)
  if (entry.socket) rmSync(entry.socket, {force: true})
}

/** Stops whatever still runs in the namespace (by pid: only ours run there), then deletes it. */
function deleteNetns(netns, ctx) {
  if (!netns || !listNetns().includes(netns)) return
  const ip = tool('ip')
  for (const sig of ['SIGTERM', 'SIGKILL']) {
    const pids = run(ip, ['netns', 'pids', netns])
      .stdout.split('\n')
      .map(Number)
      .filter((p) => p > 1)
    if (pids.length === 0) break
    for (const pid of pids) {
      try {
        process.kill(pid, sig)
      } catch {}
    }
    // bounded wait for them to go
    const deadline = Date.now() + 3000
    while (Date.now() < deadline && run(ip, ['netns', 'pids', netns]).stdout.trim() !== '') spawnSync('sleep', ['0.1'])
  }
  const r = run(ip, ['netns', 'del', netns])
  if (r.status === 0) ctx.log(`deleted network namespace ${netns}`)
  else ctx.log(`could not delete network namespace ${netns}: ${r.stderr.trim()}`)
}

/**
 * For cluster.mjs `down` (and `up` cleaning a crashed run): stops every kube-proxy and
 * forwarder in the state, deletes their namespaces and sockets, and any namespace of this
 * instance the state lost.
 */
export async function stopKubeProxies(state, ctx) {
  for (const entry of Object.values(state?.kubeProxies ?? {})) await stopEntry(entry, ctx)
  for (const netns of listNetns()) if (netns.startsWith(netnsPrefix(ctx.instance))) deleteNetns(netns, ctx)
}

/** The kube-proxy Pod object for the Node (no kubelet runs it): name, labels and image as a kubeadm DaemonSet's Pod. */
export function kubeProxyPodObject(node, version) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {name: `kube-proxy-${node}`, namespace: 'kube-system', labels: {'k8s-app': 'kube-proxy'}},
    spec: {nodeName: node, hostNetwork: true, containers: [{name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${version}`}]},
  }
}

/** Creates (or replaces) the Node's kube-proxy Pod object; deletes it with `version` null. */
async function syncPodObject(state, node, version, ctx) {
  const base = `${state.server}/api/v1/namespaces/kube-system/pods`
  const auth = {token: state.adminToken, ca: state.ca}
  const del = await ctx.request(`${base}/kube-proxy-${node}?gracePeriodSeconds=0`, {method: 'DELETE', ...auth})
  if (del.status !== 200 && del.status !== 202 && del.status !== 404) throw new Error(`delete Pod kube-system/kube-proxy-${node}: HTTP ${del.status} ${del.body.slice(0, 200)}`)
  if (version === null) return
  // A Pod deleted with grace period 0 and no kubelet goes at once; a create racing it gets 409: retry, bounded.
  for (let i = 0; ; i++) {
    const r = await ctx.request(base, {method: 'POST', body: kubeProxyPodObject(node, version), ...auth})
    if (r.status === 201) return
    if (r.status !== 409 || i >= 50) throw new Error(`create Pod kube-system/kube-proxy-${node}: HTTP ${r.status} ${r.body.slice(0, 200)}`)
    await sleep(100)
  }
}

async function add(node, mode, ctx, proxyVersion) {
  if (!/^[a-z0-9]([a-z0-9.-]{0,40}[a-z0-9])?$/.test(node)) throw new Error(`not a Node name this harness takes: ${JSON.stringify(node)}`)
  if (!MODES.includes(mode)) throw new Error(`--mode must be one of ${MODES.join(', ')}`)
  return ctx.withLock(async () => {
    const state = ctx.readState()
    if (!state?.server) throw new Error('control plane is not up: run `npm run cluster:up` first')
    state.kubeProxies ??= {}
    const old = state.kubeProxies[node]
    if (old) {
      if (old.processes?.kubeProxy && ctx.isOurs(old.processes.kubeProxy.pid, old.processes.kubeProxy.bin)) {
        throw new Error(`kube-proxy for ${node} already runs (pid ${old.processes.kubeProxy.pid}, namespace ${old.netns}): remove it first`)
      }
      await stopEntry(old, ctx)
      delete state.kubeProxies[node]
      ctx.writeState(state)
    }
    // The control plane's kube-proxy, or a pinned older (or newer) minor's for version skew.
    const build = proxyVersion === undefined ? {version: ctx.version, binDir: ctx.binDir} : ctx.pinnedBuild(proxyVersion)
    if (build.version === ctx.version) await ctx.ensureBinaries(['kube-proxy'])
    else if (!existsSync(path.join(build.binDir, 'kube-proxy'))) build.build()
    ensureNetTools(ctx.log)
    const t0 = Date.now()
    // kube-proxy runs iptables / ip6tables / nft by name: make sure it finds them.
    process.env.PATH = [...SBIN, process.env.PATH ?? ''].join(path.delimiter)
    const ip = tool('ip')
    const socat = tool('socat')
    const bin = path.join(build.binDir, 'kube-proxy')
    const netns = netnsName(ctx.instance, node)
    const socket = path.join(state.dir, `kp-${node}.sock`)
    const entry = {node, mode, version: build.version, netns, socket, processes: {}, startedAt: new Date().toISOString()}
    // Recorded before anything exists, so `down` cleans up after a crash in between.
    state.kubeProxies[node] = entry
    ctx.writeState(state)
    const record = (key, proc, binary) => {
      entry.processes[key] = {pid: proc.pid, bin: binary, log: proc.logFile}
      ctx.writeState(state)
    }
    try {
      deleteNetns(netns, ctx) // a leftover of the same name (crash before it was recorded)
      mustRun(ip, ['netns', 'add', netns])
      mustRun(ip, ['netns', 'exec', netns, ip, 'link', 'set', 'lo', 'up'])
      const apiPort = state.ports.apiserver
      rmSync(socket, {force: true})
      const host = ctx.startProcess(`kp-${node}-socat-host`, socat, [`UNIX-LISTEN:${socket},fork,reuseaddr,mode=600`, `TCP:127.0.0.1:${apiPort}`], state.dir)
      record('socatHost', host, socat)
      // `ip netns exec` execs the command: the pid is socat's (then kube-proxy's) own.
      const inner = ctx.startProcess(
        `kp-${node}-socat-netns`,
        ip,
        ['netns', 'exec', netns, socat, `TCP-LISTEN:${apiPort},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${socket}`],
        state.dir,
      )
      record('socatNetns', inner, socat)
      const kp = ctx.startProcess(
        `kube-proxy-${node}`,
        ip,
        [
          'netns',
          'exec',
          netns,
          bin,
          `--kubeconfig=${state.kubeconfig}`,
          `--hostname-override=${node}`,
          `--proxy-mode=${mode}`,
          // 0: leave the host-wide nf_conntrack_max alone.
          '--conntrack-max-per-core=0',
          `--metrics-bind-address=127.0.0.1:${METRICS_PORT}`,
          `--healthz-bind-address=127.0.0.1:${HEALTHZ_PORT}`,
          // The nftables proxier is alpha behind NFTablesProxyMode (off) up to 1.30, beta (on)
          // from 1.31: on an older version, nftables mode means the operator turned the gate on.
          ...(mode === 'nftables' && minorOf(build.version) < 31 ? ['--feature-gates=NFTablesProxyMode=true'] : []),
        ],
        state.dir,
      )
      record('kubeProxy', kp, bin)
      // Up: the metrics answer and each family has synced once.
      const deadline = Date.now() + 90_000
      let last = {}
      for (;;) {
        const ex = kp.exited()
        if (ex) throw Object.assign(new Error(`kube-proxy for ${node} exited during start (${ex.signal ? `signal ${ex.signal}` : `exit ${ex.code}`})`), {logFile: kp.logFile})
        for (const p of [host, inner]) {
          const e = p.exited()
          if (e) throw Object.assign(new Error(`${p.name} exited during start (exit ${e.code})`), {logFile: p.logFile})
        }
        last = syncStatus(netns)
        if (isSynced(last)) break
        if (Date.now() > deadline) throw Object.assign(new Error(`kube-proxy for ${node}: no first sync within 90 s (metrics: ${JSON.stringify(last)})`), {logFile: kp.logFile})
        await sleep(200)
      }
      await syncPodObject(state, node, build.version, ctx)
      ctx.log(`kube-proxy ${build.version} ${mode} for ${node} up in ${netns} (${((Date.now() - t0) / 1000).toFixed(1)}s; families ${Object.keys(last).join(', ')})`)
    } catch (e) {
      ctx.log(`kube-proxy add ${node} failed: ${e.message}`)
      if (e.logFile) process.stderr.write(`---- last lines of ${e.logFile} ----\n${ctx.tail(e.logFile)}\n----\n`)
      await stopEntry(entry, ctx)
      delete state.kubeProxies[node]
      ctx.writeState(state)
      throw e
    }
    return netns
  })
}

async function remove(node, ctx) {
  return ctx.withLock(async () => {
    const state = ctx.readState()
    const entry = state?.kubeProxies?.[node]
    if (!entry) {
      ctx.log(`no kube-proxy for ${node}`)
      return false
    }
    await stopEntry(entry, ctx)
    delete state.kubeProxies[node]
    ctx.writeState(state)
    await syncPodObject(state, node, null, ctx).catch((e) => ctx.log(`kube-proxy remove ${node}: ${e.message}`))
    return true
  })
}

function listEntries(ctx) {
  const state = ctx.readState()
  return Object.values(state?.kubeProxies ?? {}).map((e) => {
    const p = e.processes?.kubeProxy
    const alive = !!p && ctx.isOurs(p.pid, p.bin)
    return {node: e.node, mode: e.mode, version: e.version ?? ctx.version, netns: e.netns, pid: p?.pid ?? null, alive, log: p?.log ?? null, sync: alive ? syncStatus(e.netns) : {}}
  })
}

function entryOf(node, ctx) {
  const entry = ctx.readState()?.kubeProxies?.[node]
  if (!entry) throw new Error(`no kube-proxy for ${node} (see \`kube-proxy list\`)`)
  return entry
}

/** Waits until each node's kube-proxy isSynced(status, after); bounded. */
export async function waitSynced(netnses, after, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  const pending = new Set(netnses)
  const last = {}
  for (;;) {
    for (const ns of [...pending]) {
      last[ns] = syncStatus(ns)
      if (isSynced(last[ns], after)) pending.delete(ns)
    }
    if (pending.size === 0) return
    if (Date.now() > deadline) throw new Error(`not synced after ${after} within ${timeoutMs / 1000}s: ${[...pending].map((ns) => `${ns} ${JSON.stringify(last[ns])}`).join('; ')}`)
    await sleep(100)
  }
}

/** 30 for "v1.30.14". */
function minorOf(version) {
  return Number(/^v?1\.(\d+)/.exec(version ?? '')?.[1] ?? 0)
}

function flag(args, name) {
  const i = args.indexOf(name)
  if (i < 0) return undefined
  const v = args[i + 1]
  args.splice(i, 2)
  return v
}

const USAGE = `usage: node scripts/cluster.mjs kube-proxy
  add NODE --mode iptables|nftables [--proxy-version 1.X]
  remove NODE
  list [--json]
  rules NODE [--json]
  wait [NODE...] [--after EPOCH_SECONDS] [--timeout SECONDS]
`

/** `node scripts/cluster.mjs kube-proxy ...`; returns the exit code. */
export async function kubeProxyMain(argv, ctx) {
  const args = [...argv]
  const sub = args.shift()
  const json = args.includes('--json')
  if (json) args.splice(args.indexOf('--json'), 1)
  switch (sub) {
    case 'add': {
      const mode = flag(args, '--mode') ?? 'iptables'
      const proxyVersion = flag(args, '--proxy-version')
      if (args.length !== 1) break
      process.stdout.write(`${await add(args[0], mode, ctx, proxyVersion)}\n`)
      return 0
    }
    case 'remove':
      if (args.length !== 1) break
      await remove(args[0], ctx)
      return 0
    case 'list': {
      const rows = listEntries(ctx)
      if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
      else {
        for (const r of rows) {
          const sync = Object.entries(r.sync)
            .map(([f, s]) => `${f} synced ${new Date(s.lastSync * 1000).toISOString()}`)
            .join(', ')
          process.stdout.write(`${r.node}\t${r.version}\t${r.mode}\t${r.netns}\tpid ${r.pid}\t${r.alive ? 'running' : 'DEAD'}\t${sync}\n`)
        }
      }
      return 0
    }
    case 'rules': {
      if (args.length !== 1) break
      const entry = entryOf(args[0], ctx)
      const rules = readRules(entry.netns, entry.mode)
      if (json) process.stdout.write(`${JSON.stringify(rules, null, 2)}\n`)
      else {
        for (const r of rules) {
          process.stdout.write(`${r.family}\t${r.service}\tcluster: ${r.clusterEndpoints.join(',') || '-'}\tlocal: ${r.localEndpoints.join(',') || '-'}\n`)
        }
      }
      return 0
    }
    case 'wait': {
      const after = Number(flag(args, '--after') ?? 0)
      const timeout = Number(flag(args, '--timeout') ?? 30)
      const state = ctx.readState()
      const nodes = args.length > 0 ? args : Object.keys(state?.kubeProxies ?? {})
      await waitSynced(
        nodes.map((n) => entryOf(n, ctx).netns),
        after,
        timeout * 1000,
      )
      return 0
    }
    default:
  }
  process.stderr.write(USAGE)
  return 2
}
