// Which data plane, live: the DaemonSets, Deployments and ConfigMaps of test/unit/data/dataplane/
// (each project's published manifests, origin in each file) are created for real in their
// namespaces (kube-system, ovn-kubernetes) of the test control plane, then `explain` and `check` are run against it and must report what
// detectDataPlane finds in the same files; `snapshot` + `explain --from-file` must give the
// same answer (source "snapshot"). RBAC: a user who can read the Service's namespace but not
// kube-system gets one warning and "unknown", never a failure. The objects are removed after
// each case (no kubelet or DaemonSet controller runs: no pod is ever started).
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {AppsV1Api, CoreV1Api, RbacAuthorizationV1Api} from '@kubernetes/client-node'
import {parseAllDocuments} from 'yaml'
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {detectDataPlane} from '../../src/dataplane/detect.js'
import type {ConfigMap, DaemonSet, Deployment} from '../../src/dataplane/types.js'
import {runCliAsync} from './apiproxy.js'
import {createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, statusOf, waitForReconciled} from './fixtures.js'

const DATA = path.join(import.meta.dirname, '..', 'unit', 'data', 'dataplane')
const ZONES = ['zone-a', 'zone-b', 'zone-c']
const NODES = ZONES.map((zone) => ({name: `dp-${zone}`, zone}))

let ns: string
let apps: AppsV1Api
let core: CoreV1Api
const created: {kind: 'DaemonSet' | 'Deployment' | 'ConfigMap' | 'Namespace'; namespace: string; name: string}[] = []

const run = (args: string[], env: Record<string, string> = {}) => runCliAsync(args, {env, timeoutMs: 60_000})

function fixture(...files: string[]): {daemonSets: DaemonSet[]; configMaps: ConfigMap[]; deployments: Deployment[]} {
  const docs = files.flatMap((file) => parseAllDocuments(readFileSync(path.join(DATA, file), 'utf8')).map((d) => d.toJSON() as {kind?: string} | null))
  return {
    daemonSets: docs.filter((d): d is DaemonSet => d?.kind === 'DaemonSet'),
    configMaps: docs.filter((d): d is ConfigMap => d?.kind === 'ConfigMap'),
    deployments: docs.filter((d): d is Deployment => d?.kind === 'Deployment'),
  }
}

/** Creates the fixtures' objects as they are (namespace included), remembering them for cleanup. */
async function install(...files: string[]): Promise<void> {
  const {daemonSets, configMaps, deployments} = fixture(...files)
  for (const o of [...daemonSets, ...deployments, ...configMaps]) {
    const namespace = o.metadata.namespace ?? 'kube-system'
    if (namespace !== 'kube-system' && !created.some((c) => c.kind === 'Namespace' && c.name === namespace)) {
      try {
        await core.createNamespace({body: {metadata: {name: namespace}}})
        created.push({kind: 'Namespace', namespace: '', name: namespace})
      } catch (e) {
        if (statusOf(e) !== 409) throw e
      }
    }
    const body = JSON.parse(JSON.stringify(o))
    if (o.kind === 'DaemonSet') await apps.createNamespacedDaemonSet({namespace, body: completeForApi(body)})
    else if (o.kind === 'Deployment') await apps.createNamespacedDeployment({namespace, body: completeForApi(body)})
    else await core.createNamespacedConfigMap({namespace, body})
    created.push({kind: o.kind!, namespace, name: o.metadata.name})
  }
}

/**
 * A fixture trimmed to what detection reads may lack fields the API requires (a selector, pod
 * labels): only those are added (the selector from the pod labels, else app=<name>); nothing
 * detection reads is changed.
 */
function completeForApi<T extends DaemonSet | Deployment>(ds: T): T {
  const spec = (ds.spec ??= {}) as NonNullable<DaemonSet['spec']> & {selector?: unknown}
  const template = (spec.template ??= {})
  const meta = (template.metadata ??= {})
  meta.labels ??= {app: ds.metadata.name}
  spec.selector ??= {matchLabels: meta.labels}
  return ds
}

async function cleanup(): Promise<void> {
  for (const c of created.splice(0).reverse()) {
    try {
      if (c.kind === 'DaemonSet') await apps.deleteNamespacedDaemonSet({namespace: c.namespace, name: c.name})
      else if (c.kind === 'Deployment') await apps.deleteNamespacedDeployment({namespace: c.namespace, name: c.name})
      else if (c.kind === 'ConfigMap') await core.deleteNamespacedConfigMap({namespace: c.namespace, name: c.name})
      else await core.deleteNamespace({name: c.name})
    } catch (e) {
      if (statusOf(e) !== 404) throw e
    }
  }
}

beforeAll(async () => {
  const kc = kubeConfig('admin') // refuses anything but a loopback server
  apps = kc.makeApiClient(AppsV1Api)
  core = kc.makeApiClient(CoreV1Api)
  await deleteAllNodes()
  for (const n of NODES) await createNode({name: n.name, zone: n.zone, cpu: 4})
  ns = await createNamespace('dataplane')
  const expectedEndpoints = []
  for (const [i, node] of NODES.entries()) {
    const ip = `10.245.0.${i + 10}`
    await createPod({namespace: ns, name: `web-${i}`, labels: {app: 'web'}, nodeName: node.name, ip, ready: true})
    expectedEndpoints.push({ip, ready: true})
  }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints, until: (r) => r.endpoints.every((e) => (e.hints?.forZones?.length ?? 0) > 0)})
})
afterEach(cleanup)
afterAll(cleanup)

interface Case {
  file: string
  /** Installed with `file` (e.g. kube-proxy next to it). */
  also?: string[]
  /** The header line's description, as explain prints it. */
  header: RegExp
  /** The data-plane-hints policy on the hinted Service. */
  policy: 'pass' | 'fail'
  /** The per-zone verdict explain gives (JSON kubeProxy.reason of every zone). */
  zoneReason: string | null
  /** The column header of the zone table. */
  column: string
}

const CASES: Case[] = [
  {file: 'kube-proxy-kubeadm-1.34.yaml', header: /^Data plane: kube-proxy v1\.34\.\d+ \(iptables\), detected$/m, policy: 'pass', zoneReason: null, column: 'KUBE-PROXY'},
  {
    file: 'kube-proxy-kubeadm-1.23-ipvs.yaml',
    header: /^Data plane: kube-proxy v1\.23\.\d+ \(ipvs, TopologyAwareHints off\), detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'KUBE-PROXY',
  },
  {
    file: 'cilium-kpr-v1.18.4.yaml',
    header: /^Data plane: Cilium 1\.18\.4 kube-proxy replacement without service topology, detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'CILIUM',
  },
  {
    file: 'cilium-kpr-topology-v1.18.4.yaml',
    header: /^Data plane: Cilium 1\.18\.4 kube-proxy replacement with service topology, detected$/m,
    policy: 'pass',
    zoneReason: null,
    column: 'CILIUM',
  },
  {
    file: 'cilium-socketlb-v1.16.5.yaml',
    header: /^Data plane: Cilium 1\.16\.5 .*without service topology, detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'CILIUM',
  },
  {file: 'calico-bpf-v3.32.1.yaml', header: /^Data plane: Calico v3\.32\.1 eBPF, detected$/m, policy: 'pass', zoneReason: null, column: 'CALICO'},
  {file: 'calico-bpf-v3.31.0.yaml', header: /^Data plane: Calico v3\.31\.0 eBPF, detected$/m, policy: 'fail', zoneReason: 'ignored-by-data-plane', column: 'CALICO'},
  {file: 'antrea-v2.5.3.yaml', header: /^Data plane: Antrea v2\.5\.3 \(Antrea Proxy\), detected$/m, policy: 'pass', zoneReason: null, column: 'ANTREA'},
  {
    file: 'kube-router-all-features.yaml',
    header: /^Data plane: kube-router \(IPVS service proxy\), detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'KUBE-ROUTER',
  },
  {
    file: 'kube-router-proxy-off-with-kube-proxy.yaml',
    header: /^Data plane: kube-proxy v1\.34\.\d+ \(iptables\), detected$/m,
    policy: 'pass',
    zoneReason: null,
    column: 'KUBE-PROXY',
  },
  {
    file: 'ovn-kubernetes-v1.3.0.yaml',
    header: /^Data plane: ovn-kubernetes \(OVN load balancers\), detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'OVN-KUBERNETES',
  },
  {
    file: 'kube-ovn-v1.16.2.yaml',
    header: /^Data plane: kube-ovn v1\.16\.2 \(OVN load balancers\), detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'KUBE-OVN',
  },
  {
    file: 'kube-ovn-v1.16.2.yaml',
    also: ['kube-proxy-kubeadm-1.34.yaml'],
    header: /^Data plane: kube-ovn v1\.16\.2 \(OVN load balancers, kube-proxy for host traffic\), detected$/m,
    policy: 'fail',
    zoneReason: 'ignored-by-data-plane',
    column: 'KUBE-OVN',
  },
]

describe('explain and check on a live cluster state the data plane of kube-system', () => {
  it('with no data plane objects: unknown, kube-proxy rules, exit 0', async () => {
    const r = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(
      /^Data plane: unknown \(no kube-proxy, cilium, calico-node, antrea-agent, ovnkube-node, kube-ovn-cni or kube-router DaemonSet found\); kube-proxy's rules assumed$/m,
    )
    expect(r.stdout).toMatch(/KUBE-PROXY/)
  })

  for (const c of CASES) {
    it(`${[c.file, ...(c.also ?? [])].join(' + ')}: explain and check follow the data plane; snapshot + --from-file agree`, async () => {
      await install(c.file, ...(c.also ?? []))
      const expected = detectDataPlane(fixture(c.file, ...(c.also ?? [])), {source: 'detected'})

      const table = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin'])
      expect(table.code, table.stderr).toBe(0)
      expect(table.stderr).toBe('')
      expect(table.stdout).toMatch(c.header)
      expect(table.stdout.split('\n').find((l) => l.startsWith('ZONE'))).toMatch(new RegExp(`${c.column}$`))
      if (c.policy === 'fail') {
        // Said plainly at the top of the Service, with the fix.
        expect(table.stdout).toContain(`Data plane:  ${expected.message}`)
        if (expected.fix) expect(table.stdout).toContain(`fix: ${expected.fix}`)
      }

      const json = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin', '-o', 'json'])
      expect(json.code, json.stderr).toBe(0)
      const report = JSON.parse(json.stdout)
      expect(report.dataPlane).toMatchObject({
        name: expected.name,
        version: expected.version ?? null,
        honoursZoneHints: expected.honoursZoneHints,
        honoursNodeHints: expected.honoursNodeHints,
        source: 'detected',
        message: expected.message ?? null,
        fix: expected.fix ?? null,
        paths: expected.paths,
        alsoFound: expected.alsoFound,
        settings: expected.settings,
        warnings: [],
      })
      const svc = report.services[0]
      expect(svc.controller.hintsSet).toBe(true)
      for (const z of svc.zones) expect(z.kubeProxy.reason).toBe(c.zoneReason)
      // Hints honoured: every request stays in its zone; ignored: one in three (3 zones, 1 endpoint each).
      expect(svc.traffic.inZoneShareLive).toBeCloseTo(c.zoneReason === null ? 1 : 1 / 3, 5)
      expect(svc.findings.includes('data-plane-ignores-hints')).toBe(c.policy === 'fail')

      const check = await run(['check', 'svc/web', '-n', ns, '--context', 'admin', '--require-data-plane-hints', '-o', 'json'])
      expect(check.code, check.stderr).toBe(c.policy === 'fail' ? 1 : 0)
      const checked = JSON.parse(check.stdout)
      expect(checked.dataPlane.name).toBe(expected.name)
      expect(checked.services[0].results.find((x: {policy: string}) => x.policy === 'data-plane-hints').status).toBe(c.policy)

      // snapshot records the detected answer; --from-file reports it with source "snapshot".
      const snap = await run(['snapshot', 'svc/web', '-n', ns, '--context', 'admin'])
      expect(snap.code, snap.stderr).toBe(0)
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dp-snap-')), 'snap.yaml')
      writeFileSync(file, snap.stdout)
      const fromFile = await run(['explain', 'svc/web', '-n', ns, '--from-file', file, '-o', 'json'])
      expect(fromFile.code, fromFile.stderr).toBe(0)
      const offline = JSON.parse(fromFile.stdout)
      expect(offline.dataPlane).toEqual({...report.dataPlane, source: 'snapshot'})
      expect(offline.services[0].zones).toEqual(svc.zones)
      expect(offline.services[0].traffic).toEqual(svc.traffic)
      expect(offline.services[0].dataPlane).toEqual(svc.dataPlane)
      const offlineTable = await run(['explain', 'svc/web', '-n', ns, '--from-file', file])
      expect(offlineTable.stdout).toMatch(new RegExp(c.header.source.replace(', detected', ', from the snapshot'), 'm'))
    })
  }

  it('--data-plane overrides detection (nothing read from kube-system)', async () => {
    await install('kube-proxy-kubeadm-1.34.yaml')
    const r = await run(['explain', 'svc/web', '-n', ns, '--context', 'admin', '--data-plane', 'kube-router', '-o', 'json'])
    expect(r.code, r.stderr).toBe(0)
    const report = JSON.parse(r.stdout)
    expect(report.dataPlane).toMatchObject({name: 'kube-router', source: 'flag', honoursZoneHints: false})
  })
})

describe('RBAC', () => {
  it('the readonly context (ClusterRole view) reads the DaemonSets and ConfigMaps of kube-system', async () => {
    await install('cilium-kpr-v1.18.4.yaml')
    const r = await run(['explain', 'svc/web', '-n', ns, '--context', 'readonly'])
    expect(r.code, r.stderr).toBe(0)
    // view cannot list Nodes (that warning is the Nodes read's), but reads DaemonSets and ConfigMaps.
    expect(r.stderr).not.toContain("cannot read the data plane's configuration")
    expect(r.stdout).toMatch(/^Data plane: Cilium 1\.18\.4 kube-proxy replacement without service topology, detected$/m)
  })

  it('a user who cannot read kube-system gets one warning and "unknown", never a failure', async () => {
    await install('cilium-kpr-v1.18.4.yaml')
    // A ServiceAccount allowed to read the Service's namespace only (RoleBinding to view there).
    const kc = kubeConfig('admin')
    const rbac = kc.makeApiClient(RbacAuthorizationV1Api)
    await core.createNamespacedServiceAccount({namespace: ns, body: {metadata: {name: 'ns-reader'}}})
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: {name: 'ns-reader-view'},
        roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view'},
        subjects: [{kind: 'ServiceAccount', name: 'ns-reader', namespace: ns}],
      },
    })
    const token = (
      await core.createNamespacedServiceAccountToken({namespace: ns, name: 'ns-reader', body: {spec: {audiences: ['https://kubernetes.default.svc'], expirationSeconds: 600}}})
    ).status?.token
    expect(token).toBeTruthy()
    const cluster = kc.getCurrentCluster()!
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dp-rbac-'))
    const kubeconfig = path.join(dir, 'kubeconfig')
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [
          {
            name: 'local',
            cluster: {
              server: cluster.server,
              ...(cluster.caData ? {'certificate-authority-data': cluster.caData} : {}),
              ...(cluster.caFile ? {'certificate-authority': cluster.caFile} : {}),
            },
          },
        ],
        users: [{name: 'ns-reader', user: {token}}],
        contexts: [{name: 'ns-reader', context: {cluster: 'local', user: 'ns-reader', namespace: ns}}],
        'current-context': 'ns-reader',
      }),
    )
    const r = await run(['explain', 'svc/web', '-n', ns], {KUBECONFIG: kubeconfig})
    expect(r.code, r.stderr).toBe(0)
    const warnings = r.stderr.split('\n').filter((l) => l.includes("cannot read the data plane's configuration"))
    expect(warnings).toHaveLength(1)
    // One warning naming every refused read (in the order the answers came).
    for (const p of ['list daemonsets.apps in kube-system', 'list pods in kube-system', 'list daemonsets.apps in calico-system', 'list daemonsets.apps in ovn-kubernetes'])
      expect(warnings[0]).toContain(p)
    expect(r.stdout).toMatch(/^Data plane: unknown \(the data plane's configuration could not be read\); kube-proxy's rules assumed$/m)

    const c = await run(['check', 'svc/web', '-n', ns, '-o', 'json'], {KUBECONFIG: kubeconfig})
    const checked = JSON.parse(c.stdout)
    expect(checked.dataPlane.name).toBe('unknown')
    // An unknown data plane: check says once that data-plane-hints is not checked, no row per Service.
    expect(checked.services[0].results.find((x: {policy: string}) => x.policy === 'data-plane-hints')).toBeUndefined()
    expect(checked.warnings.filter((w: string) => w.startsWith('data-plane-hints not checked'))).toHaveLength(1)
  })
})
