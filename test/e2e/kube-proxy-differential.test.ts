// Differential test: what `explain --per-node` says each node's kube-proxy routes to, against
// what the real kube-proxy (built from the same Kubernetes module as the control plane)
// programs on that node.
//
// Once per file: the fixed Nodes of KP_NODES (kube-proxy-scenarios.ts), each proxy Node with
// its own kube-proxy in its own network namespace (`node scripts/cluster.mjs kube-proxy add`),
// in KP_MODE: iptables, nftables, or mixed (default: the Nodes alternate). Then per seeded
// scenario: one Service in a fresh namespace (Pods + the real EndpointSlice controller, or
// hand-made EndpointSlices); wait until every kube-proxy has synced; run the built CLI's
// `explain svc/svc -n NS --per-node -o json`; and compare, for every proxy Node and IP family,
// the endpoint IPs explain lists (`services[].nodes[].ports[].endpoints`, per Service port:
// cluster ∪ local endpoints, pkg/proxy/topology.go CategorizeEndpoints' allReachableEndpoints)
// with those kube-proxy programmed for that Service port (the KUBE-SVC-/KUBE-SVL- chains, or
// the nftables service-/local- chains: scripts/kube-proxy.mjs readRules). Any difference fails
// the scenario, prints the seed and the scenario, and dumps them to test-results/kube-proxy/seed-N/.
// Then hand-built cases the generator does not make (a slice of a family the Service has no
// ClusterIP of, a slice carrying another port, a port only some slices carry), checked the same way.
//
// Version skew (issue 22): KP_PROXY_VERSIONS, a comma list of pinned minors ("1.37,1.33,1.36,1.30"),
// runs the proxy Nodes' kube-proxies at those versions in turn (`kube-proxy add --proxy-version`,
// which also creates each Node's kube-proxy Pod object, as its DaemonSet would): explain reads
// each Node's version from its Pod and must predict each kube-proxy with its own minor's rules;
// every Node's kubeProxyVersion must be the one started, and a Service that asks for
// PreferSameNode must name, in its kubeProxySkew notices, exactly the Nodes whose kube-proxy
// ignores node hints (before 1.34). With skew the scenarios are drawn with focus 'skew' (mostly
// PreferSameNode and node hints: kube-proxy-scenarios.ts).
//
// KP_SCENARIOS (default 20), KP_SEED (default 1), KP_MODE (iptables | nftables | mixed);
// KP_OUT (default test-results/kube-proxy) is where mismatches are dumped, and KP_RESULTS, when
// set, a JSON file the per-seed results are written to (scripts/matrix.mjs reads it).
// `npm run build` first (test:e2e does): the CLI is run from dist/.
import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import type {V1EndpointSlice} from '@kubernetes/client-node'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
// @ts-expect-error: plain ESM script without type declarations
import {endpointIP, isSynced, readRules, syncStatus} from '../../scripts/kube-proxy.mjs'
import {ROOT, runCli} from '../cli/run-cli.js'
import {cluster} from './fixtures.js'
import {generateKpScenario, KP_NODES, PORT_NAME, TARGET_PORT, type KpScenario} from './kube-proxy-scenarios.js'

const COUNT = Number(process.env.KP_SCENARIOS ?? 20)
const FIRST_SEED = Number(process.env.KP_SEED ?? 1)
const MODE = process.env.KP_MODE ?? 'mixed'
/** Pinned minors for the proxy Nodes in turn; empty: the control plane's own. */
const PROXY_VERSIONS = (process.env.KP_PROXY_VERSIONS ?? '')
  .split(',')
  .map((v) => v.trim())
  .filter(Boolean)
const OUT = path.resolve(ROOT, process.env.KP_OUT ?? 'test-results/kube-proxy')
const SERVICE = 'svc'
const CLUSTER_SCRIPT = fileURLToPath(new URL('../../scripts/cluster.mjs', import.meta.url))
/** After the last write, how long a lasting difference is read again before it counts. */
const SETTLE_MS = 30_000

const c = cluster()

interface Proxy {
  node: string
  zone: string | null
  mode: 'iptables' | 'nftables'
  netns: string
  /** The kube-proxy version it runs ("1.33.13"), from `kube-proxy list`. */
  version: string
}
interface RuleRow {
  family: 'IPv4' | 'IPv6'
  service: string
  clusterEndpoints: string[]
  localEndpoints: string[]
}
interface SyncFamily {
  lastSync: number
  lastQueued: number
}
interface PortView {
  mode: string
  fallback: boolean
  reason: string | null
  endpoints: string[]
}
interface NodeRow extends PortView {
  name: string
  zone: string | null
  kubeProxyVersion?: string | null
  ports?: (PortView & {name: string; protocol: string})[]
}
interface ExplainJson {
  services: {addressType: 'IPv4' | 'IPv6'; nodes?: NodeRow[]; controller: {hintsSet: boolean}; kubeProxySkew?: {nodes: string[]; effect: string}[]}[]
}

const proxies: Proxy[] = []
const results: {seed: number; style: string; agree: boolean; ms: number; hinted: boolean; topology: boolean; fallback: boolean; skewNamed: boolean}[] = []
const minorOf = (v: string) => Number(/^v?1\.(\d+)/.exec(v)?.[1] ?? 0)

/**
 * A Service asking for PreferSameNode whose hints are set: its kubeProxySkew notices name
 * exactly the proxy Nodes whose kube-proxy reads no node hints (before 1.34), when some do and
 * others do not. Empty when that holds or does not apply.
 */
function skewNoticeDiffs(s: KpScenario, explained: ExplainJson): string[] {
  const old = proxies.filter((p) => minorOf(p.version) < 34).map((p) => p.node)
  if (s.trafficDistribution !== 'PreferSameNode' || old.length === 0 || old.length === proxies.length) return []
  const diffs: string[] = []
  for (const sv of explained.services) {
    if (!sv.controller.hintsSet) continue
    const named = sorted((sv.kubeProxySkew ?? []).flatMap((k) => k.nodes))
    if (named.join() !== sorted(old).join())
      diffs.push(`${sv.addressType}: kubeProxySkew names [${named.join(',')}], the Nodes whose kube-proxy ignores node hints are [${sorted(old).join(',')}]`)
  }
  return diffs
}

function clusterScript(args: string[]): string {
  const r = spawnSync(process.execPath, [CLUSTER_SCRIPT, ...args], {encoding: 'utf8', env: process.env, timeout: 300_000})
  if (r.status !== 0) throw new Error(`cluster.mjs ${args.join(' ')}: exit ${r.status}\n${r.stderr}${r.error ? r.error.message : ''}`)
  return r.stdout
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Into a failed scenario's dump: what the harness says of each kube-proxy (alive, pid, last sync
 * per family) and the last 64 KiB of its log, to tell a kube-proxy that fell behind (seen once, at
 * load 15: one node's kube-proxy programmed every endpoint, as without its zone) from a wrong
 * prediction. Best effort: a failure here must not hide the scenario's own.
 */
function dumpProxies(dir: string): void {
  try {
    const listed = JSON.parse(clusterScript(['kube-proxy', 'list', '--json'])) as {node: string; log: string | null}[]
    writeFileSync(`${dir}/proxies.json`, `${JSON.stringify(listed, null, 2)}\n`)
    for (const p of listed) {
      if (!p.log || !/^[a-z0-9.-]+$/.test(p.node)) continue
      const text = readFileSync(p.log)
      writeFileSync(`${dir}/kube-proxy-${p.node}.log`, text.subarray(Math.max(0, text.length - 65_536)))
    }
  } catch (e) {
    writeFileSync(`${dir}/proxies.txt`, `could not read the kube-proxies: ${e instanceof Error ? e.message : String(e)}\n`)
  }
}

const now = () => Date.now() / 1000

async function pool<T>(items: readonly T[], width: number, f: (x: T) => Promise<unknown>): Promise<void> {
  let next = 0
  await Promise.all(
    Array.from({length: Math.min(width, items.length)}, async () => {
      while (next < items.length) await f(items[next++]!)
    }),
  )
}

/** Builds the scenario; returns its namespace and the time (epoch s) just before its first write. */
async function build(s: KpScenario): Promise<{ns: string; started: number}> {
  const ns = await c.createNamespace(`kp-${s.seed}`)
  const started = now()
  const ports = [{name: PORT_NAME, port: 80, targetPort: TARGET_PORT, protocol: 'TCP'}]
  const common = {
    namespace: ns,
    name: SERVICE,
    ports,
    type: s.type,
    ...(s.internalTrafficPolicy ? {internalTrafficPolicy: s.internalTrafficPolicy} : {}),
    ...(s.externalTrafficPolicy ? {externalTrafficPolicy: s.externalTrafficPolicy} : {}),
  }
  if (s.kind === 'managed') {
    await pool(s.pods, 16, (p) => c.createPod({namespace: ns, name: p.name, labels: {app: SERVICE}, nodeName: p.nodeName, ip: p.ip, ready: p.ready, terminating: p.terminating}))
    await c.createService({
      ...common,
      selector: {app: SERVICE},
      annotations: s.annotations,
      trafficDistribution: s.trafficDistribution,
      publishNotReadyAddresses: s.publishNotReadyAddresses,
    })
    await c.waitForReconciled({
      namespace: ns,
      service: SERVICE,
      expectedEndpoints: s.pods.map((p) => ({ip: p.ip, ready: s.publishNotReadyAddresses || (p.ready && !p.terminating)})),
      expectEvent: s.annotations['service.kubernetes.io/topology-mode'] === 'Auto' ? true : undefined,
      timeoutMs: 60_000,
    })
    if (s.rolloutUnhint.length > 0) {
      // A rollout half done: the controller (paused) has not hinted these endpoints yet.
      clusterScript(['pause-controller'])
      const drop = new Set(s.rolloutUnhint)
      const list = await c.discovery.listNamespacedEndpointSlice({namespace: ns, labelSelector: `kubernetes.io/service-name=${SERVICE}`})
      for (const slice of list.items) {
        if (!(slice.endpoints ?? []).some((e) => drop.has(e.addresses[0]!))) continue
        const body: V1EndpointSlice = {...slice, endpoints: (slice.endpoints ?? []).map((e) => (drop.has(e.addresses[0]!) ? {...e, hints: undefined} : e))}
        await c.discovery.replaceNamespacedEndpointSlice({name: slice.metadata!.name!, namespace: ns, body})
      }
    }
  } else {
    await c.createService({
      ...common,
      annotations: s.annotations,
      ipFamilies: s.ipFamilies,
      ipFamilyPolicy: s.ipFamilies.length === 2 ? 'RequireDualStack' : 'SingleStack',
    })
    for (const sl of s.slices) {
      await c.discovery.createNamespacedEndpointSlice({
        namespace: ns,
        body: {
          metadata: {name: sl.name, labels: {'kubernetes.io/service-name': SERVICE}},
          addressType: sl.addressType,
          ports: [{name: PORT_NAME, port: TARGET_PORT, protocol: 'TCP'}],
          endpoints: sl.endpoints,
        },
      })
    }
  }
  return {ns, started}
}

/** Every kube-proxy has nothing queued that it has not synced, and has seen this scenario. */
function allSynced(started: number): boolean {
  return proxies.every((p) => isSynced(syncStatus(p.netns) as Record<string, SyncFamily>, started))
}

function explainNodes(ns: string, service = SERVICE): ExplainJson {
  const r = runCli(['explain', `svc/${service}`, '-n', ns, '--per-node', '-o', 'json'])
  if (r.code !== 0) throw new Error(`explain exited ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout) as ExplainJson
}

const norm = (ip: string) => ip.toLowerCase()
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort()

/** explain's view of one Service port on a node: its `ports` entry (the node-level fields when it lists none). */
function portView(row: NodeRow, portName: string): PortView | undefined {
  if (row.ports === undefined) return row
  return row.ports.find((p) => p.name === portName)
}

/** Per Service port (name, and the endpoint port number kube-proxy must program), per proxy Node and IP family. */
function compare(ns: string, explained: ExplainJson, rules: Map<string, RuleRow[]>, service = SERVICE, ports = [{name: PORT_NAME, target: TARGET_PORT}]): string[] {
  const diffs: string[] = []
  const families = new Set(explained.services.map((sv) => sv.addressType))
  for (const port of ports) {
    const key = `${ns}/${service}:${port.name}`
    const tag = ports.length > 1 ? ` port ${port.name}` : ''
    for (const p of proxies) {
      const rows = rules.get(p.node)!.filter((r) => r.service === key)
      for (const sv of explained.services) {
        const row = sv.nodes?.find((n) => n.name === p.node)
        if (row && row.kubeProxyVersion !== p.version) diffs.push(`${p.node}: explain says kube-proxy ${row.kubeProxyVersion}, it runs ${p.version}`)
        const view = row && portView(row, port.name)
        if (!view) {
          diffs.push(`${p.node}: explain lists no such node${row ? ` port ${port.name}` : ''} (${sv.addressType})`)
          continue
        }
        const r = rows.find((x) => x.family === sv.addressType)
        const programmed = [...(r?.clusterEndpoints ?? []), ...(r?.localEndpoints ?? [])]
        const badPort = programmed.filter((ep) => !ep.endsWith(`:${port.target}`))
        if (badPort.length > 0) diffs.push(`${p.node} ${sv.addressType}${tag}: endpoints with another port: ${badPort.join(',')}`)
        const real = sorted(programmed.map((ep) => norm(endpointIP(ep) as string)))
        const predicted = sorted(view.endpoints.map(norm))
        if (real.join() !== predicted.join()) {
          diffs.push(
            `${p.node} (kube-proxy ${p.version} ${p.mode}, zone ${p.zone ?? '<none>'}, ${sv.addressType}${tag}): explain [${predicted.join(',')}] ` +
              `(mode ${view.mode || '""'}${view.reason ? `, falls back: ${view.reason}` : ''}); ` +
              `kube-proxy cluster [${(r?.clusterEndpoints ?? []).join(',')}] local [${(r?.localEndpoints ?? []).join(',')}]`,
          )
        }
      }
      for (const r of rows) {
        if (!families.has(r.family))
          diffs.push(
            `${p.node} (${p.mode}${tag}): kube-proxy programs ${r.family} endpoints [${[...r.clusterEndpoints, ...r.localEndpoints].join(',')}], explain has no ${r.family} section`,
          )
      }
    }
  }
  return diffs
}

// Network namespaces need root (CI runs the e2e tests as root; scripts/debian.mjs needs it too).
const ROOT_USER = process.getuid?.() === 0
if (!ROOT_USER) process.stdout.write('kube-proxy differential: skipped, network namespaces need root\n')

describe.skipIf(!ROOT_USER)(`kube-proxy differential: explain --per-node vs the real kube-proxy (${COUNT} scenarios from seed ${FIRST_SEED}, ${MODE})`, () => {
  beforeAll(async () => {
    // The kube-proxies talk to the control plane of CLUSTER_INSTANCE; the test to KUBECONFIG's.
    // They must be the same one (a KUBECONFIG from another instance would have this file
    // delete that cluster's Nodes and wait in vain for kube-proxies that never see its objects).
    const up = /^up: (\S+)/m.exec(clusterScript(['status']))?.[1]
    const server = c.kc.getCurrentCluster()?.server
    if (up !== server) {
      throw new Error(
        `KUBECONFIG points at ${server}, but CLUSTER_INSTANCE=${process.env.CLUSTER_INSTANCE ?? ''} is ${up}: eval "$(node scripts/cluster.mjs env)" with the same CLUSTER_INSTANCE`,
      )
    }
    if (MODE !== 'mixed' && MODE !== 'iptables' && MODE !== 'nftables') throw new Error(`KP_MODE must be iptables, nftables or mixed, got ${MODE}`)
    const modes = (i: number): Proxy['mode'] => (MODE === 'mixed' ? (i % 2 === 0 ? 'iptables' : 'nftables') : (MODE as Proxy['mode']))
    await c.deleteAllNodes()
    for (const n of KP_NODES) await c.createNode(n)
    const t0 = Date.now()
    for (const [i, n] of KP_NODES.filter((x) => x.proxy).entries()) {
      const mode = modes(i)
      const version = PROXY_VERSIONS.length > 0 ? PROXY_VERSIONS[i % PROXY_VERSIONS.length]! : undefined
      clusterScript(['kube-proxy', 'remove', n.name]) // one left by an interrupted run (no-op otherwise)
      const netns = clusterScript(['kube-proxy', 'add', n.name, '--mode', mode, ...(version ? ['--proxy-version', version] : [])])
        .trim()
        .split('\n')
        .at(-1)!
      proxies.push({node: n.name, zone: n.zone ?? null, mode, netns, version: ''})
    }
    const listed = JSON.parse(clusterScript(['kube-proxy', 'list', '--json'])) as {node: string; version: string}[]
    for (const p of proxies) p.version = (listed.find((l) => l.node === p.node)?.version ?? '').replace(/^v/, '')
    process.stdout.write(`kube-proxy: ${proxies.map((p) => `${p.node}=${p.version}/${p.mode}`).join(' ')} started in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`)
  }, 600_000)

  afterAll(() => {
    spawnSync(process.execPath, [CLUSTER_SCRIPT, 'resume-controller'], {env: process.env, timeout: 30_000})
    for (const p of proxies) spawnSync(process.execPath, [CLUSTER_SCRIPT, 'kube-proxy', 'remove', p.node], {env: process.env, timeout: 60_000})
    const agree = results.filter((r) => r.agree).length
    const ms = results.reduce((a, r) => a + r.ms, 0)
    process.stdout.write(
      `\nkube-proxy differential (${MODE}${PROXY_VERSIONS.length > 0 ? `, kube-proxy ${proxies.map((p) => `${p.node}=${p.version}`).join(' ')}` : ''}): ${agree}/${results.length} scenarios agree; ` +
        `${results.filter((r) => r.skewNamed).length} with the skewed Nodes named; ` +
        `${results.filter((r) => r.hinted).length} hinted by the controller; ` +
        `${results.filter((r) => r.topology).length} with topology in use on some node, ${results.filter((r) => r.fallback).length} with a fallback; ` +
        `${(ms / Math.max(1, results.length) / 1000).toFixed(1)} s per scenario\n`,
    )
    const styles = new Map<string, number>()
    for (const r of results) styles.set(r.style, (styles.get(r.style) ?? 0) + 1)
    for (const [k, n] of [...styles.entries()].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${String(n).padStart(4)}  ${k}\n`)
    if (process.env.KP_RESULTS) {
      mkdirSync(path.dirname(process.env.KP_RESULTS), {recursive: true})
      writeFileSync(
        process.env.KP_RESULTS,
        `${JSON.stringify({mode: MODE, proxyVersions: Object.fromEntries(proxies.map((p) => [p.node, p.version])), firstSeed: FIRST_SEED, count: COUNT, results}, null, 2)}\n`,
      )
    }
  })

  const seeds = Array.from({length: COUNT}, (_, i) => FIRST_SEED + i)
  it.each(seeds)('seed %i', async (seed) => {
    const t0 = Date.now()
    const s = generateKpScenario(seed, PROXY_VERSIONS.length > 0 ? 'skew' : undefined)
    let ns = ''
    let diffs: string[] = []
    let explained: ExplainJson | undefined
    const rules = new Map<string, RuleRow[]>()
    try {
      const built = await build(s)
      ns = built.ns
      const written = now()
      // Synced: nothing queued that is not synced, this scenario seen, and a moment for the
      // informers (the same watch events reach the controller, the CLI and every kube-proxy).
      const deadline = Date.now() + SETTLE_MS
      while (!(allSynced(built.started) && now() > written + 0.3)) {
        if (Date.now() > deadline) throw new Error(`kube-proxies not synced within ${SETTLE_MS / 1000} s: ${JSON.stringify(proxies.map((p) => [p.node, syncStatus(p.netns)]))}`)
        await sleep(100)
      }
      explained = explainNodes(ns)
      // A difference may be a sync still under way (a watch event late): read again, bounded.
      for (;;) {
        for (const p of proxies) rules.set(p.node, readRules(p.netns, p.mode) as RuleRow[])
        diffs = [...compare(ns, explained, rules), ...skewNoticeDiffs(s, explained)]
        if (diffs.length === 0 || Date.now() > deadline) break
        await sleep(500)
        if (Date.now() > deadline - 5000) explained = explainNodes(ns)
      }
    } finally {
      if (s.rolloutUnhint.length > 0) clusterScript(['resume-controller'])
      if (ns) await c.core.deleteNamespacedService({name: SERVICE, namespace: ns}).catch(() => undefined)
    }
    const nodes = (explained?.services ?? []).flatMap((sv) => sv.nodes ?? []).filter((n) => proxies.some((p) => p.node === n.name))
    results.push({
      seed,
      style: `${s.kind === 'managed' ? 'managed, ' : ''}${s.style}${s.internalTrafficPolicy ? ', iTP Local' : ''}${s.externalTrafficPolicy ? ', NodePort eTP Local' : ''}`,
      agree: diffs.length === 0,
      ms: Date.now() - t0,
      hinted: (explained?.services ?? []).some((sv) => sv.controller.hintsSet),
      topology: nodes.some((n) => n.mode !== ''),
      fallback: nodes.some((n) => n.fallback),
      skewNamed: (explained?.services ?? []).some((sv) => (sv.kubeProxySkew ?? []).length > 0),
    })
    if (process.env.KP_VERBOSE) {
      const key = `${ns}/${SERVICE}:${PORT_NAME}`
      const lines = [`seed ${seed}: ${s.style}`]
      for (const p of proxies) {
        for (const sv of explained?.services ?? []) {
          const row = sv.nodes?.find((n) => n.name === p.node)
          const r = rules.get(p.node)?.find((x) => x.service === key && x.family === sv.addressType)
          lines.push(
            `  ${p.node} ${p.mode} ${sv.addressType}: explain ${row?.mode || '-'}${row?.reason ? `/${row.reason}` : ''} [${row?.endpoints.join(',')}]; kube-proxy [${[...(r?.clusterEndpoints ?? []), ...(r?.localEndpoints ?? [])].join(',')}]`,
          )
        }
      }
      process.stdout.write(`${lines.join('\n')}\n`)
    }
    if (diffs.length > 0) {
      const dir = `${OUT}/seed-${seed}`
      mkdirSync(dir, {recursive: true})
      writeFileSync(`${dir}/scenario.json`, JSON.stringify(s, null, 2))
      writeFileSync(`${dir}/explain.json`, JSON.stringify(explained, null, 2))
      writeFileSync(`${dir}/rules.json`, JSON.stringify(Object.fromEntries(rules), null, 2))
      dumpProxies(dir)
      writeFileSync(
        `${dir}/diffs.txt`,
        `${diffs.join('\n')}\nreproduce: KP_SEED=${seed} KP_SCENARIOS=1 KP_MODE=${MODE}${PROXY_VERSIONS.length > 0 ? ` KP_PROXY_VERSIONS=${PROXY_VERSIONS.join(',')}` : ''} npm run test:e2e -- test/e2e/kube-proxy-differential.test.ts\n`,
      )
    }
    expect(diffs, `seed ${seed} (${MODE}; dumped to ${path.relative(ROOT, OUT)}/seed-${seed}); scenario:\n${JSON.stringify(s)}`).toEqual([])
  })

  // Hand-built cases, outside what the seeded scenarios generate (every generated slice carries
  // exactly the Service's one port, in the Service's IP families). kube-proxy keeps one endpoint
  // list per Service port and IP family, and none for a family the Service has no ClusterIP of;
  // explain's per-node view must agree on every port of the Service (`nodes[].ports`).
  describe('hand-built cases: ports and IP families', () => {
    const ep = (ip: string, nodeName: string, zone: string, hint?: string) => ({
      addresses: [ip],
      conditions: {ready: true},
      nodeName,
      zone,
      ...(hint ? {hints: {forZones: [{name: hint}]}} : {}),
    })
    const probes: {
      name: string
      why: string
      ipFamilies?: ('IPv4' | 'IPv6')[]
      ports: {name: string; port: number}[]
      slices: {name: string; addressType: 'IPv4' | 'IPv6'; ports: string[]; endpoints: ReturnType<typeof ep>[]}[]
    }[] = [
      {
        name: 'ipv6-slice-on-ipv4-service',
        why:
          'an IPv6 slice of an IPv4-only Service: kube-proxy has no IPv6 ClusterIP for the Service and programs nothing ' +
          '(pkg/proxy/servicechangetracker.go serviceToServiceMap: GetClusterIPByFamily == "" -> no service ports); explain: not proxied',
        ipFamilies: ['IPv4'],
        ports: [{name: 'http', port: 8080}],
        slices: [
          {name: 'v4', addressType: 'IPv4', ports: ['http'], endpoints: [ep('10.250.0.1', 'kp-a-1', 'zone-a')]},
          {name: 'v6', addressType: 'IPv6', ports: ['http'], endpoints: [ep('fd00:250::1', 'kp-a-1', 'zone-a')]},
        ],
      },
      {
        name: 'slice-with-another-port',
        why:
          "a slice whose only port is named differently from the Service's one port: kube-proxy files its endpoints under that other port " +
          '(pkg/proxy/endpointslicecache.go endpointInfoByServicePort keys by ServicePortName), so port http does not route to them',
        ports: [{name: 'http', port: 8080}],
        slices: [
          {name: 'a', addressType: 'IPv4', ports: ['http'], endpoints: [ep('10.251.0.1', 'kp-a-1', 'zone-a')]},
          {name: 'b', addressType: 'IPv4', ports: ['other'], endpoints: [ep('10.251.0.2', 'kp-b-1', 'zone-b')]},
        ],
      },
      {
        name: 'two-ports-different-endpoints',
        why:
          'a two-port Service whose second port only the hinted slice carries: for port metrics every ready endpoint is hinted, so ' +
          'kube-proxy uses PreferSameZone (pkg/proxy/topology.go topologyModeFromHints, per service port); port http has an ' +
          'unhinted ready endpoint and falls back to all three',
        ports: [
          {name: 'http', port: 8080},
          {name: 'metrics', port: 9090},
        ],
        slices: [
          {
            name: 'a',
            addressType: 'IPv4',
            ports: ['http', 'metrics'],
            endpoints: [ep('10.252.0.1', 'kp-a-1', 'zone-a', 'zone-a'), ep('10.252.0.2', 'kp-b-1', 'zone-b', 'zone-b')],
          },
          {name: 'b', addressType: 'IPv4', ports: ['http'], endpoints: [ep('10.252.0.3', 'kp-c-1', 'zone-c')]},
        ],
      },
    ]
    it.each(probes.map((p) => [p.name, p] as const))('%s', async (_name, probe) => {
      const ns = await c.createNamespace(`kp-known-${probe.name}`.slice(0, 40))
      const started = now()
      const service = 'known'
      try {
        await c.createService({
          namespace: ns,
          name: service,
          ports: probe.ports.map((p) => ({name: p.name, port: p.port, targetPort: p.port, protocol: 'TCP'})),
          ...(probe.ipFamilies ? {ipFamilies: probe.ipFamilies, ipFamilyPolicy: 'SingleStack' as const} : {}),
        })
        const portNumber = (name: string) => probe.ports.find((p) => p.name === name)?.port ?? 7070
        for (const sl of probe.slices) {
          await c.discovery.createNamespacedEndpointSlice({
            namespace: ns,
            body: {
              metadata: {name: `${service}-${sl.name}`, labels: {'kubernetes.io/service-name': service}},
              addressType: sl.addressType,
              ports: sl.ports.map((name) => ({name, port: portNumber(name), protocol: 'TCP'})),
              endpoints: sl.endpoints,
            },
          })
        }
        const written = now()
        const deadline = Date.now() + SETTLE_MS
        while (!(allSynced(started) && now() > written + 0.3)) {
          if (Date.now() > deadline) throw new Error('kube-proxies not synced')
          await sleep(100)
        }
        const explained = explainNodes(ns, service)
        // As for the seeded scenarios: a difference may be a sync still under way (kube-proxy
        // up to 1.32 reports one sync time for both families), so read again, bounded.
        let diffs: string[] = []
        for (;;) {
          const rules = new Map(proxies.map((p) => [p.node, readRules(p.netns, p.mode) as RuleRow[]]))
          diffs = compare(
            ns,
            explained,
            rules,
            service,
            probe.ports.map((p) => ({name: p.name, target: p.port})),
          )
          if (diffs.length === 0 || Date.now() > deadline) break
          await sleep(500)
        }
        if (process.env.KP_VERBOSE) process.stdout.write(`${probe.name} (${probe.why}): ${diffs.length === 0 ? 'agree' : diffs.join('; ')}\n`)
        expect(diffs, `${probe.name}: ${probe.why}`).toEqual([])
      } finally {
        await c.core.deleteNamespacedService({name: service, namespace: ns}).catch(() => undefined)
      }
    })
  })
})
