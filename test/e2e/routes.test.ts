// Who routes each request, live: the objects Istio 1.27.0, Linkerd edge-25.4.4, ingress-nginx
// v1.15.0 and Envoy Gateway v1.9.0 install (test/fixtures/routes/, each file naming its origin;
// the Gateway API v1.3.0 CRDs are created first) are created for real on the test control
// plane, next to client namespaces labelled for each mesh, an Ingress and an HTTPRoute sending
// to a Service with trafficDistribution PreferSameNode. explain, check, watch and the snapshot
// round trip must name each client path and its verdict. RBAC: the readonly context (ClusterRole
// view, which has no Gateway API rights) gets one warning, never a failure.
import {type ChildProcessWithoutNullStreams, spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {ApiextensionsV1Api, AppsV1Api, CoreV1Api, CustomObjectsApi, NetworkingV1Api} from '@kubernetes/client-node'
import {parseAllDocuments} from 'yaml'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {runCliAsync} from './apiproxy.js'
import {createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, statusOf, waitForReconciled} from './fixtures.js'

const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'routes')
const ZONES = ['zone-a', 'zone-b', 'zone-c']
type Obj = {
  apiVersion: string
  kind: string
  metadata: {name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string>}
  [k: string]: unknown
}

let ns: string
let core: CoreV1Api
let apps: AppsV1Api
let net: NetworkingV1Api
let custom: CustomObjectsApi
let ext: ApiextensionsV1Api
const created: (() => Promise<unknown>)[] = []
const run = (args: string[], env: Record<string, string> = {}) => runCliAsync(args, {env, timeoutMs: 90_000})

const load = (file: string): Obj[] =>
  parseAllDocuments(readFileSync(path.join(FIXTURES, file), 'utf8'))
    .map((d) => d.toJSON() as Obj | null)
    .filter((d): d is Obj => d !== null)

const ignore409 = async (f: () => Promise<unknown>) => {
  try {
    await f()
  } catch (e) {
    if (statusOf(e) !== 409) throw e
  }
}
const quietly = (f: () => Promise<unknown>) => async () => {
  try {
    await f()
  } catch (e) {
    if (statusOf(e) !== 404) throw e
  }
}

/** Creates one fixture object as it is (its namespace, else `fallbackNs`), remembering how to delete it. */
async function create(o: Obj, fallbackNs: string): Promise<void> {
  const namespace = o.metadata.namespace ?? fallbackNs
  const body = JSON.parse(JSON.stringify(o))
  const name = o.metadata.name
  switch (o.kind) {
    case 'Namespace':
      return ignore409(() => core.createNamespace({body}))
    case 'CustomResourceDefinition':
      await ignore409(() => ext.createCustomResourceDefinition({body}))
      created.push(quietly(() => ext.deleteCustomResourceDefinition({name})))
      return
    case 'Deployment':
      await apps.createNamespacedDeployment({namespace, body})
      created.push(quietly(() => apps.deleteNamespacedDeployment({namespace, name})))
      return
    case 'DaemonSet':
      await apps.createNamespacedDaemonSet({namespace, body})
      created.push(quietly(() => apps.deleteNamespacedDaemonSet({namespace, name})))
      return
    case 'IngressClass':
      await net.createIngressClass({body})
      created.push(quietly(() => net.deleteIngressClass({name})))
      return
    case 'GatewayClass':
      await custom.createClusterCustomObject({group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gatewayclasses', body})
      created.push(quietly(() => custom.deleteClusterCustomObject({group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gatewayclasses', name})))
      return
    case 'Gateway':
      await custom.createNamespacedCustomObject({group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gateways', namespace, body})
      return
    default:
      throw new Error(`fixture kind ${o.kind} not handled`)
  }
}

/** Waits (bounded) until the API server serves the Gateway API resources. */
async function waitForGatewayApi(): Promise<void> {
  const deadline = Date.now() + 60_000
  for (;;) {
    try {
      await custom.listClusterCustomObject({group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes'})
      await custom.listClusterCustomObject({group: 'gateway.networking.k8s.io', version: 'v1', plural: 'gatewayclasses'})
      return
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((r) => setTimeout(r, 250))
    }
  }
}

beforeAll(async () => {
  const kc = kubeConfig('admin') // refuses anything but a loopback server
  core = kc.makeApiClient(CoreV1Api)
  apps = kc.makeApiClient(AppsV1Api)
  net = kc.makeApiClient(NetworkingV1Api)
  custom = kc.makeApiClient(CustomObjectsApi)
  ext = kc.makeApiClient(ApiextensionsV1Api)
  await deleteAllNodes()
  for (const z of ZONES) await createNode({name: `routes-${z}`, zone: z, cpu: 4})
  ns = await createNamespace('routes')
  const expectedEndpoints = []
  for (const [i, z] of ZONES.entries()) {
    const ip = `10.246.0.${i + 10}`
    await createPod({namespace: ns, name: `web-${i}`, labels: {app: 'web'}, nodeName: `routes-${z}`, ip, ready: true})
    expectedEndpoints.push({ip, ready: true})
  }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, trafficDistribution: 'PreferSameNode'})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints, until: (r) => r.endpoints.every((e) => (e.hints?.forZones?.length ?? 0) > 0)})

  // CRDs first, then every project's objects as their manifests render them.
  for (const o of load('gateway-api-v1.3.0-standard-crds.yaml')) await create(o, ns)
  await waitForGatewayApi()
  for (const f of ['istio-1.27.0.yaml', 'linkerd-edge-25.4.4.yaml', 'ingress-nginx-v1.15.0.yaml', 'envoy-gateway-v1.9.0.yaml']) for (const o of load(f)) await create(o, ns)

  // Clients: a namespace per mesh, labelled as each project documents.
  const client = async (prefix: string, labels: Record<string, string>, annotations: Record<string, string> = {}) => {
    const name = await createNamespace(prefix)
    await core.patchNamespace({
      name,
      body: [
        {op: 'add', path: '/metadata/labels', value: labels},
        {op: 'add', path: '/metadata/annotations', value: annotations},
      ],
    })
    return name
  }
  await client('sidecars', {'istio-injection': 'enabled'})
  await client('ambient', {'istio.io/dataplane-mode': 'ambient'})
  await client('linkerd', {}, {'linkerd.io/inject': 'enabled'})
  // North-south: an Ingress of class nginx and an HTTPRoute on the quickstart's Gateway, both to svc/web.
  await net.createNamespacedIngress({
    namespace: ns,
    body: {
      metadata: {name: 'web'},
      spec: {ingressClassName: 'nginx', rules: [{http: {paths: [{path: '/', pathType: 'Prefix', backend: {service: {name: 'web', port: {number: 80}}}}]}}]},
    },
  })
  await custom.createNamespacedCustomObject({
    group: 'gateway.networking.k8s.io',
    version: 'v1',
    plural: 'httproutes',
    namespace: ns,
    body: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: {name: 'web'},
      spec: {parentRefs: [{name: 'eg'}], rules: [{backendRefs: [{group: '', kind: 'Service', name: 'web', port: 80, weight: 1}]}]},
    },
  })
}, 240_000)

afterAll(async () => {
  for (const undo of created.splice(0).reverse()) await undo()
})

interface Path {
  via: string
  version?: string
  clients: string
  verdict: string
  bypassesNode: boolean
  zoneHints: boolean | 'unknown'
  nodeHints: boolean | 'unknown'
}
const EXPECTED = [
  {via: 'istio-sidecar', version: '1.27.0', verdict: 'honours', zoneHints: false, nodeHints: false},
  {via: 'istio-ztunnel', version: '1.27.0', verdict: 'honours', zoneHints: false, nodeHints: false},
  {via: 'linkerd', version: 'edge-25.4.4', verdict: 'partial', zoneHints: true, nodeHints: false},
  {via: 'ingress-nginx', version: '1.15.0', verdict: 'ignores', zoneHints: false, nodeHints: false},
  {via: 'envoy-gateway', version: '1.9.0', verdict: 'partial', zoneHints: false, nodeHints: false},
]

describe('explain, check, snapshot and watch name who routes each request', () => {
  let report: {routes: {proxies: {name: string; version?: string}[]; source: string}; services: {clientPaths: {setting: string; paths: Path[]; unknown: string[]}}[]}

  it('explain --client-paths: one path per mesh and gateway, with its version and verdict', async () => {
    const json = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin', '--client-paths', '-o', 'json'])
    expect(json.code, json.stderr).toBe(0)
    expect(json.stderr).toBe('')
    report = JSON.parse(json.stdout)
    expect(report.routes.source).toBe('detected')
    expect(report.routes.proxies.map((p) => `${p.name} ${p.version}`)).toEqual([
      'istio-sidecar 1.27.0',
      'istio-ztunnel 1.27.0',
      'linkerd edge-25.4.4',
      'ingress-nginx 1.15.0',
      'envoy-gateway 1.9.0',
    ])
    const cp = report.services[0]!.clientPaths
    expect(cp.setting).toBe('trafficDistribution: PreferSameNode')
    expect(cp.paths.map((p) => ({via: p.via, version: p.version, verdict: p.verdict, zoneHints: p.zoneHints, nodeHints: p.nodeHints}))).toEqual(EXPECTED)
    expect(cp.paths.every((p) => p.bypassesNode)).toBe(true)
    expect(cp.paths.find((p) => p.via === 'ingress-nginx')!.clients).toBe(`Ingress ${ns}/web (ingress-nginx)`)
    expect(cp.paths.find((p) => p.via === 'envoy-gateway')!.clients).toBe(`Gateway ${ns}/eg (HTTPRoute web)`)
    expect(cp.unknown).toContain('clients in other clusters (a multi-cluster mesh, an east-west gateway, a load balancer outside) are not seen from this cluster')

    const table = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin', '--client-paths'])
    expect(table.code, table.stderr).toBe(0)
    expect(table.stdout).toMatch(
      /^Meshes and gateways: Istio 1\.27\.0, Istio ztunnel 1\.27\.0, Linkerd edge-25\.4\.4, ingress-nginx 1\.15\.0, Envoy Gateway 1\.9\.0 \(detected\)$/m,
    )
    expect(table.stdout).toMatch(/^Clients: {5}Istio sidecar 1\.27\.0, Pods with an Istio sidecar in namespace sidecars-\S+: honours the setting: /m)
    expect(table.stdout).toContain(`ingress-nginx 1.15.0, Ingress ${ns}/web (ingress-nginx): ignores the setting: ingress-nginx runs without --enable-topology-aware-routing`)
    expect(table.stdout).toContain("honours it in part: PreferSameNode acts as PreferSameZone: any trafficDistribution value forces the proxy's zone")

    // Without the flag nothing more is read or said (the old output).
    const plainRun = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin', '-o', 'json'])
    const plainReport = JSON.parse(plainRun.stdout)
    expect(plainReport.routes).toBeUndefined()
    expect(plainReport.services[0].clientPaths).toBeUndefined()
  })

  it('check --client-paths: proxy-topology fails (exit 1), naming the first proxy', async () => {
    const r = await run(['check', 'svc/web', '-n', ns, '--context', 'admin', '--client-paths', '-o', 'json'])
    expect(r.code, r.stderr).toBe(1)
    const checked = JSON.parse(r.stdout)
    expect(checked.policies.proxyHonoursTopology).toBe(true)
    const res = checked.services[0].results.find((x: {policy: string}) => x.policy === 'proxy-topology')
    expect(res.status).toBe('fail')
    expect(res.message).toMatch(
      /^clients reach this Service through 3 proxies that ignore all or part of its topology setting \(trafficDistribution: PreferSameNode\): linkerd edge-25\.4\.4/,
    )
  })

  it('snapshot --client-paths + explain --from-file give the same paths (source snapshot)', async () => {
    const snap = await run(['snapshot', 'svc/web', '-n', ns, '--context', 'admin', '--client-paths'])
    expect(snap.code, snap.stderr).toBe(0)
    expect(snap.stdout).toContain('routes:')
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'routes-snap-')), 'snap.yaml')
    writeFileSync(file, snap.stdout)
    const offline = await run(['explain', 'svc/web', '-n', ns, '--from-file', file, '-o', 'json'])
    expect(offline.code, offline.stderr).toBe(0)
    const o = JSON.parse(offline.stdout)
    expect(o.routes).toEqual({...report.routes, source: 'snapshot'})
    expect(o.services[0].clientPaths).toEqual(report.services[0]!.clientPaths)
    const c = await run(['check', 'svc/web', '-n', ns, '--from-file', file, '--require-proxy-topology', '-o', 'json'])
    expect(c.code, c.stderr).toBe(1)
    expect(JSON.parse(c.stdout).services[0].results.find((x: {policy: string}) => x.policy === 'proxy-topology').status).toBe('fail')
  })

  it('watch --client-paths: prints the paths, then a path whose verdict changes', async () => {
    let out = ''
    let err = ''
    const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, 'watch', 'svc/web', '-n', ns, '--context', 'admin', '--client-paths', '--plain'], {
      cwd: ROOT,
      env: {...process.env},
    })
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    const waitFor = async (what: string, re: RegExp) => {
      const deadline = Date.now() + 60_000
      while (!re.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`waiting for ${what}\n--- stdout:\n${out}\n--- stderr:\n${err}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    try {
      await waitFor('the client paths', /Z {2}clients: Linkerd edge-25\.4\.4, Pods meshed by Linkerd in namespace linkerd-\S+: honours it in part: /)
      expect(out).toMatch(/Z {2}Meshes and gateways: Istio 1\.27\.0, /)
      await core.patchNamespacedService({name: 'web', namespace: ns, body: [{op: 'replace', path: '/spec/trafficDistribution', value: 'PreferSameZone'}]})
      await waitFor('linkerd partial -> honours', /Z {2}client path linkerd \(Pods meshed by Linkerd in namespace linkerd-\S+\): partial -> honours: /)
      expect(out).toMatch(/client path envoy-gateway \(Gateway \S+\/eg \(HTTPRoute web\)\): partial -> honours: /)
    } finally {
      child.kill('SIGTERM')
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)))
      await core.patchNamespacedService({name: 'web', namespace: ns, body: [{op: 'replace', path: '/spec/trafficDistribution', value: 'PreferSameNode'}]})
    }
    expect(err).not.toMatch(/error:|at .*\.js:\d+/)
  })

  it('readonly (view, no Gateway API rights): one warning naming the permissions, exit 0, routes unknown', async () => {
    const r = await run(['explain', 'svc/web', '-n', ns, '--context', 'readonly', '--client-paths', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const warnings = r.stderr.split('\n').filter((l) => l.includes('cannot read the meshes and gateways'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('list gatewayclasses.gateway.networking.k8s.io')
    const cp = JSON.parse(r.stdout).services[0].clientPaths
    expect(cp.unknown).toContain('Gateway API routes could not be read: clients entering through a Gateway are not known')
    expect(cp.paths.some((p: Path) => p.via === 'envoy-gateway')).toBe(false)
  })
})
