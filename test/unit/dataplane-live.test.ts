// readDataPlaneObjects / detectLiveDataPlane against a small fake API server on 127.0.0.1
// serving the published manifests of test/unit/data/dataplane/: the calls made, the wire
// round trip through client-node, RBAC refusals as one warning (never a failure), 401 as the
// command's error.
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, beforeEach, describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {dataPlaneForbiddenWarning, detectLiveDataPlane, readDataPlaneObjects} from '../../src/cluster/dataplane.js'
import {loadKubeConfig, type KubeContext} from '../../src/cluster/kubeconfig.js'
import {detectDataPlane} from '../../src/dataplane/detect.js'
import {CliError} from '../../src/errors.js'
import {writeFakeKubeconfig} from './fake-kubeconfig.js'

type Obj = Record<string, any>
const DIR = path.join(import.meta.dirname, 'data', 'dataplane')

function objects(...files: string[]): Obj[] {
  return files.flatMap((f) => parseAllDocuments(fs.readFileSync(path.join(DIR, f), 'utf8')).map((d) => d.toJS() as Obj)).filter(Boolean)
}

interface Fake {
  objects: Obj[]
  forbid: RegExp | null
  unauthorized: boolean
  requests: string[]
}
const fake: Fake = {objects: [], forbid: null, unauthorized: false, requests: []}

function send(res: http.ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, {'content-type': 'application/json'})
  res.end(JSON.stringify(body))
}
const status = (res: http.ServerResponse, code: number, reason: string, message: string) =>
  send(res, code, {kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message})

const handler: http.RequestListener = (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  const p = url.pathname
  fake.requests.push(p)
  if (fake.unauthorized) return status(res, 401, 'Unauthorized', 'Unauthorized')
  if (fake.forbid?.test(p)) return status(res, 403, 'Forbidden', `forbidden: User "dev" cannot access ${p}`)
  let m: RegExpExecArray | null
  if ((m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/daemonsets$/.exec(p))) {
    const items = fake.objects.filter((o) => o.kind === 'DaemonSet' && (o.metadata.namespace ?? 'kube-system') === m![1])
    return send(res, 200, {kind: 'DaemonSetList', apiVersion: 'apps/v1', metadata: {resourceVersion: '1'}, items})
  }
  if ((m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)$/.exec(p))) {
    const d = fake.objects.find((o) => o.kind === 'Deployment' && o.metadata.namespace === m![1] && o.metadata.name === m![2])
    return d ? send(res, 200, d) : status(res, 404, 'NotFound', `deployments.apps "${m[2]}" not found`)
  }
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/pods$/.exec(p))) {
    const items = fake.objects.filter((o) => o.kind === 'Pod' && (o.metadata.namespace ?? 'default') === m![1])
    return send(res, 200, {kind: 'PodList', apiVersion: 'v1', metadata: {resourceVersion: '1'}, items})
  }
  if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps\/([^/]+)$/.exec(p))) {
    const cm = fake.objects.find((o) => o.kind === 'ConfigMap' && o.metadata.namespace === m![1] && o.metadata.name === m![2])
    return cm ? send(res, 200, cm) : status(res, 404, 'NotFound', `configmaps "${m[2]}" not found`)
  }
  if ((m = /^\/apis\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(p))) {
    const [, group, version, plural, name] = m
    const kind = plural === 'installations' ? 'Installation' : plural === 'felixconfigurations' ? 'FelixConfiguration' : ''
    const o = fake.objects.find((x) => x.kind === kind && x.metadata.name === name && (x.apiVersion ?? '') === `${group}/${version}`)
    return o ? send(res, 200, o) : status(res, 404, 'NotFound', `${plural} "${name}" not found`)
  }
  status(res, 404, 'NotFound', 'the server could not find the requested resource')
}

let server: http.Server
let ctx: KubeContext
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-dataplane-'))

beforeAll(async () => {
  server = http.createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const kc = path.join(tmp, 'config')
  writeFakeKubeconfig(kc, server, 'shop')
  ctx = await loadKubeConfig({kubeconfig: kc, requestTimeoutMs: 10_000})
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((r) => server.close(r))
  fs.rmSync(tmp, {recursive: true, force: true})
})
beforeEach(() => {
  fake.objects = []
  fake.forbid = null
  fake.unauthorized = false
  fake.requests = []
})

describe('readDataPlaneObjects', () => {
  it('lists DaemonSets in kube-system, calico-system and ovn-kubernetes, GETs only the ConfigMaps of what it found', async () => {
    fake.objects = objects('cilium-socketlb-v1.16.5.yaml', 'kube-proxy-kubeadm-1.34.yaml')
    const read = await readDataPlaneObjects(ctx)
    expect(fake.requests.sort()).toEqual([
      '/api/v1/namespaces/kube-system/configmaps/cilium-config',
      '/api/v1/namespaces/kube-system/configmaps/kube-proxy',
      '/api/v1/namespaces/kube-system/configmaps/kube-proxy-config',
      '/api/v1/namespaces/kube-system/pods',
      '/apis/apps/v1/namespaces/calico-system/daemonsets',
      '/apis/apps/v1/namespaces/kube-system/daemonsets',
      '/apis/apps/v1/namespaces/ovn-kubernetes/daemonsets',
    ])
    expect(read.requests).toBe(7)
    expect(read.deployments).toBeUndefined()
    expect(read.kubeProxyPods).toEqual([])
    expect(read.warnings).toEqual([])
    expect(read.installations).toBeUndefined()
    // The wire round trip keeps what detection reads, and gives the same answer as the file.
    expect(read.daemonSets.map((d) => d.metadata.name).sort()).toEqual(['cilium', 'kube-proxy'])
    expect(read.daemonSets.find((d) => d.metadata.name === 'kube-proxy')!.spec!.template!.spec!.containers![0]!.command).toEqual([
      '/usr/local/bin/kube-proxy',
      '--config=/var/lib/kube-proxy/config.conf',
      '--hostname-override=$(NODE_NAME)',
    ])
    const live = detectDataPlane(read)
    const file = detectDataPlane({daemonSets: fake.objects.filter((o) => o.kind === 'DaemonSet') as never, configMaps: fake.objects.filter((o) => o.kind === 'ConfigMap') as never})
    expect(live).toEqual(file)
    expect(live).toMatchObject({name: 'cilium', alsoFound: ['kube-proxy'], honoursZoneHints: false, source: 'detected'})
  })

  it('Calico operator install: reads FelixConfiguration and Installation "default"', async () => {
    fake.objects = [
      ...objects('calico-operator-bpf-v3.32.1.yaml'),
      {
        apiVersion: 'crd.projectcalico.org/v1',
        kind: 'FelixConfiguration',
        metadata: {name: 'default', annotations: {'operator.tigera.io/bpfEnabled': 'true'}},
        spec: {bpfEnabled: true},
      },
    ]
    const d = await detectLiveDataPlane(ctx)
    expect(d).toMatchObject({name: 'calico', version: '3.32.1', honoursZoneHints: true, settings: {bpfEnabled: 'true'}})
    expect(fake.requests).toContain('/apis/crd.projectcalico.org/v1/felixconfigurations/default')
    expect(fake.requests).toContain('/apis/operator.tigera.io/v1/installations/default')
  })

  it('Calico manifest install with FELIX_BPFENABLED: no custom-resource reads', async () => {
    fake.objects = objects('calico-bpf-v3.32.1.yaml')
    const d = await detectLiveDataPlane(ctx)
    expect(d).toMatchObject({name: 'calico', settings: {FELIX_BPFENABLED: 'true'}})
    expect(fake.requests.some((r) => r.includes('projectcalico') || r.includes('tigera'))).toBe(false)
  })

  it('forbidden kube-system: one warning naming the permission, "unknown", no failure', async () => {
    fake.objects = objects('kube-proxy-kubeadm-1.34.yaml')
    fake.forbid = /namespaces\/kube-system\//
    const d = await detectLiveDataPlane(ctx)
    expect(d.name).toBe('unknown')
    expect(d.warnings).toEqual([dataPlaneForbiddenWarning(['list daemonsets.apps in kube-system', 'list pods in kube-system'])])
    expect(d.warnings[0]).toContain('missing permission: list daemonsets.apps in kube-system, list pods in kube-system')
    expect(d.message).toBe('the data plane could not be read: whether nodes honour the hints is unknown')
  })

  it('forbidden ConfigMaps only: Cilium still named, its defaults assumed, one warning', async () => {
    fake.objects = objects('cilium-kpr-topology-v1.18.4.yaml')
    fake.forbid = /configmaps/
    const d = await detectLiveDataPlane(ctx)
    expect(d).toMatchObject({name: 'cilium', honoursZoneHints: false})
    expect(d.warnings).toEqual([dataPlaneForbiddenWarning(['get configmaps in kube-system'])])
  })

  it('forbidden Calico custom resources: the mode stays unknown (not assumed off)', async () => {
    fake.objects = objects('calico-operator-bpf-v3.32.1.yaml', 'kube-proxy-kubeadm-1.34.yaml')
    fake.forbid = /projectcalico|tigera/
    const d = await detectLiveDataPlane(ctx)
    expect(d).toMatchObject({name: 'calico', honoursZoneHints: 'unknown'})
    expect(d.warnings[0]).toContain('get felixconfigurations.crd.projectcalico.org, get installations.operator.tigera.io')
  })

  it('ovn-kubernetes: found in its own namespace', async () => {
    fake.objects = objects('ovn-kubernetes-v1.3.0.yaml')
    const d = await detectLiveDataPlane(ctx)
    expect(d).toMatchObject({name: 'ovn-kubernetes', honoursZoneHints: false, warnings: []})
    expect(d.evidence[0]).toBe('DaemonSet ovn-kubernetes/ovnkube-node: image ghcr.io/ovn-kubernetes/ovn-kubernetes/ovn-kube-ubuntu:master')
  })

  it('kube-ovn: GETs the kube-ovn-controller Deployment for --enable-lb; refused, its default is assumed with one warning', async () => {
    fake.objects = objects('kube-ovn-v1.16.2.yaml', 'kube-proxy-kubeadm-1.34.yaml')
    const d = await detectLiveDataPlane(ctx)
    expect(fake.requests).toContain('/apis/apps/v1/namespaces/kube-system/deployments/kube-ovn-controller')
    expect(d).toMatchObject({name: 'kube-ovn', version: '1.16.2', alsoFound: ['kube-proxy'], settings: {'enable-lb': 'true'}, warnings: []})
    fake.requests = []
    fake.forbid = /deployments/
    const refused = await detectLiveDataPlane(ctx)
    expect(refused).toMatchObject({name: 'kube-ovn', settings: {'enable-lb': 'true (default, assumed)'}})
    expect(refused.warnings).toEqual([dataPlaneForbiddenWarning(['get deployments.apps in kube-system'])])
  })

  it('a refused ovn-kubernetes namespace is reported only when nothing was found elsewhere', async () => {
    fake.objects = objects('kube-proxy-kubeadm-1.34.yaml')
    fake.forbid = /namespaces\/(calico-system|ovn-kubernetes)\//
    const found = await detectLiveDataPlane(ctx)
    expect(found.name).toBe('kube-proxy')
    expect(found.warnings).toEqual([dataPlaneForbiddenWarning(['list daemonsets.apps in calico-system'])])
    fake.objects = []
    const none = await detectLiveDataPlane(ctx)
    expect(none.warnings).toEqual([dataPlaneForbiddenWarning(['list daemonsets.apps in calico-system', 'list daemonsets.apps in ovn-kubernetes'])])
  })

  it('kube-proxy Pods: each node its own version (the DaemonSet Pods, a static mirror Pod), other Pods skipped', async () => {
    const kpPod = (name: string, node: string, tag: string, meta: Obj = {labels: {'k8s-app': 'kube-proxy'}}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name, namespace: 'kube-system', creationTimestamp: '2026-11-28T08:00:00Z', ...meta},
      spec: {nodeName: node, containers: [{name: 'kube-proxy', image: `registry.k8s.io/kube-proxy:${tag}`}]},
      status: {phase: 'Running'},
    })
    fake.objects = [
      ...objects('kube-proxy-kubeadm-1.34.yaml'),
      kpPod('kube-proxy-abcde', 'node-1', 'v1.34.1'),
      kpPod('kube-proxy-node-2', 'node-2', 'v1.31.4', {labels: {component: 'kube-proxy'}, annotations: {'kubernetes.io/config.mirror': 'x'}}),
      kpPod('coredns-1', 'node-1', 'v1.11.1', {labels: {'k8s-app': 'kube-dns'}}),
    ]
    const d = await detectLiveDataPlane(ctx)
    expect(d.name).toBe('kube-proxy')
    expect(d.proxyNodes).toEqual([
      {node: 'node-1', version: '1.34.1', image: 'registry.k8s.io/kube-proxy:v1.34.1', from: 'pod', object: 'Pod kube-system/kube-proxy-abcde'},
      {node: 'node-2', version: '1.31.4', image: 'registry.k8s.io/kube-proxy:v1.31.4', from: 'static-pod', object: 'Pod kube-system/kube-proxy-node-2'},
    ])
    expect(d.warnings).toEqual([])
  })

  it('forbidden Pods only: kube-proxy still named, no per-node versions, one warning', async () => {
    fake.objects = objects('kube-proxy-kubeadm-1.34.yaml')
    fake.forbid = /\/pods$/
    const d = await detectLiveDataPlane(ctx)
    expect(d).toMatchObject({name: 'kube-proxy', proxyVersion: '1.34.1'})
    expect(d.proxyNodes).toBeUndefined()
    expect(d.warnings).toEqual([dataPlaneForbiddenWarning(['list pods in kube-system'])])
  })

  it('401 is the command error', async () => {
    fake.unauthorized = true
    await expect(readDataPlaneObjects(ctx)).rejects.toBeInstanceOf(CliError)
  })
})
