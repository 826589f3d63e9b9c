// serve's deploy manifests on the real API server. The kustomize base, rendered by this
// Kubernetes version's own kubectl (`kubectl kustomize`, on PATH inside `cluster.mjs run`), is
// the plain YAML of deploy/kubernetes/; the prometheus-operator overlay is applied with
// `kubectl apply --server-side -k` after the operator's CRDs (vendored at v0.93.0 under
// test/fixtures/prometheus-operator/), so the API server validates every object strictly: the
// Deployment and its pod template, the Service, the ServiceMonitor and PrometheusRule against
// the operator's schemas. A Pod made of the Deployment's template is admitted (dry run) by the
// namespace's "restricted" Pod Security admission, and the same Pod with a privilege is not.
// The Deployment's ServiceAccount (rbac.yaml's, which serve-rbac.test.ts proves enough and no
// more) runs serve with the Deployment's own arguments and its probes answer 200.
//
// No kubelet, scheduler or Deployment controller runs in this harness: the Deployment gets
// no ReplicaSet and no Pod, and nothing here runs the image (there is no container runtime).
import {spawn, spawnSync, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {ApiextensionsV1Api, AppsV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi, type KubernetesObject, type V1Pod} from '@kubernetes/client-node'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {BIN, ROOT} from '../cli/run-cli.js'
import {kubeConfig, statusOf} from './fixtures.js'
import {serviceAccountKubeconfig, serviceAccountToken} from './sa-token.js'

// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects read from YAML.
type Obj = any
const NS = 'kubectl-topology'
const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-serve-deploy-'))
let serve: ChildProcessWithoutNullStreams | undefined
let stderr = ''

afterAll(() => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL')
  rmSync(tmp, {recursive: true, force: true})
})

const yamlDocs = (text: string): Obj[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS())
    .filter((o) => o)
const fileDocs = (...files: string[]): Obj[] => files.flatMap((f) => yamlDocs(readFileSync(path.join(ROOT, f), 'utf8')))
const key = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`
const byKey = (os: Obj[]) => Object.fromEntries(os.map((o) => [key(o), o]))
let kubectlWarnings = ''
/** This version's kubectl (PATH inside `cluster.mjs run`): its stdout; its stderr kept in kubectlWarnings. */
function kubectl(...args: string[]): string {
  const r = spawnSync('kubectl', args, {cwd: ROOT, encoding: 'utf8', timeout: 120_000})
  if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.status ?? r.signal ?? r.error}\n${r.stderr}`)
  kubectlWarnings += r.stderr
  return r.stdout
}

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    if (serve && serve.exitCode !== null) throw new Error(`serve exited (${serve.exitCode}) while waiting for ${what}\n--- stderr:\n${stderr}`)
    try {
      const v = await probe()
      if (v !== null && v !== undefined && v !== false) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last})` : ''}\n--- serve stderr:\n${stderr}`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

describe('the kustomize base', () => {
  it("renders, with this version's kubectl, to the plain YAML of deploy/kubernetes/", () => {
    const rendered = yamlDocs(kubectl('kustomize', 'deploy/kustomize/base'))
    const plain = fileDocs('deploy/kubernetes/rbac.yaml', 'deploy/kubernetes/deployment.yaml', 'deploy/kubernetes/service.yaml')
    expect(Object.keys(byKey(rendered)).sort()).toEqual(Object.keys(byKey(plain)).sort())
    expect(byKey(rendered)).toEqual(byKey(plain))
  })
})

describe('the prometheus-operator overlay on the API server', () => {
  const overlay = 'deploy/kustomize/overlays/prometheus-operator'
  let rendered: Obj[] = []
  let applied = ''
  beforeAll(async () => {
    kubeConfig('admin') // refuses anything but a loopback server
    // The operator's CRDs as its release ships them, installed the way its docs say (kubectl
    // apply --server-side: they are too large for the last-applied annotation).
    kubectl('--context', 'admin', 'apply', '--server-side', '--force-conflicts', '-f', 'test/fixtures/prometheus-operator/')
    // (Not `kubectl wait`: it errors on a CRD whose status has no conditions yet.)
    const ext = kubeConfig('admin').makeApiClient(ApiextensionsV1Api)
    for (const name of ['servicemonitors.monitoring.coreos.com', 'prometheusrules.monitoring.coreos.com'])
      await waitFor(`${name} Established`, async () =>
        (await ext.readCustomResourceDefinition({name})).status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'),
      )
    rendered = yamlDocs(kubectl('kustomize', overlay))
    // What a user runs (kubectl's default --validate=strict: unknown or duplicate fields are refused).
    applied = kubectl('--context', 'admin', 'apply', '--server-side', '--force-conflicts', '--field-manager=e2e-serve-deploy', '-k', overlay)
  })

  it("is created and validated strictly, with the operator's CRDs; the pod template passes restricted Pod Security", async () => {
    const admin = kubeConfig('admin')
    const objects = KubernetesObjectApi.makeApiClient(admin)
    // The Namespace warns of pods that would violate "restricted" (pod-security.kubernetes.io/warn): kubectl prints none.
    expect(kubectlWarnings).not.toMatch(/violate PodSecurity/)
    for (const o of rendered) expect(applied, key(o)).toMatch(new RegExp(`${o.metadata.name} (serverside-applied|unchanged)`))

    // Read back: what the server stored is what the overlay says.
    const apps = admin.makeApiClient(AppsV1Api)
    const deployment = await apps.readNamespacedDeployment({namespace: NS, name: 'kubectl-topology-serve'})
    const want = rendered.find((o) => o.kind === 'Deployment')
    const container = deployment.spec!.template.spec!.containers[0]!
    expect(container.image).toBe('registry.example.com/platform/kubectl-topology:0.1.0')
    expect(container.args).toEqual(want.spec.template.spec.containers[0].args)
    expect(deployment.spec!.template.spec!.securityContext).toMatchObject({runAsNonRoot: true, runAsUser: 65532, seccompProfile: {type: 'RuntimeDefault'}})
    // No Deployment controller or kubelet here: nothing ever runs it (and the test says so).
    expect(deployment.status?.readyReplicas).toBeUndefined()
    const custom = admin.makeApiClient(CustomObjectsApi)
    const monitor = (await custom.getNamespacedCustomObject({
      group: 'monitoring.coreos.com',
      version: 'v1',
      namespace: NS,
      plural: 'servicemonitors',
      name: 'kubectl-topology-serve',
    })) as Obj
    expect(monitor.spec.endpoints).toEqual([{port: 'metrics', path: '/metrics', interval: '30s', scrapeTimeout: '10s'}])
    const rule = (await custom.getNamespacedCustomObject({
      group: 'monitoring.coreos.com',
      version: 'v1',
      namespace: NS,
      plural: 'prometheusrules',
      name: 'kubectl-topology',
    })) as Obj
    expect(rule.spec.groups[0].rules.map((r: Obj) => r.alert)).toContain('TopologyHintsDisabled')

    // The operator's schema is enforced: a ServiceMonitor endpoint with a numeric port is refused.
    const bad = structuredClone(rendered.find((o) => o.kind === 'ServiceMonitor'))
    bad.metadata.name = 'kubectl-topology-bad'
    bad.spec.endpoints = [{port: 9780}]
    await expect(objects.create(bad as KubernetesObject)).rejects.toSatisfy((e) => statusOf(e) === 422)

    // A Pod of the Deployment's template, in the namespace that enforces "restricted" Pod
    // Security: admitted (dry run); with privilege escalation allowed: refused.
    const core = admin.makeApiClient(CoreV1Api)
    const pod = (spec: Obj): V1Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {name: 'kubectl-topology-serve-template', namespace: NS, labels: want.spec.template.metadata.labels},
      spec,
    })
    const admitted = await core.createNamespacedPod({namespace: NS, body: pod(want.spec.template.spec), dryRun: 'All', fieldValidation: 'Strict'})
    expect(admitted.spec!.containers[0]!.securityContext!.readOnlyRootFilesystem).toBe(true)
    const escalating = structuredClone(want.spec.template.spec)
    escalating.containers[0].securityContext.allowPrivilegeEscalation = true
    const refused = await core.createNamespacedPod({namespace: NS, body: pod(escalating), dryRun: 'All'}).then(
      () => 'admitted',
      (e) => `${statusOf(e)} ${(e as Error).message}`,
    )
    expect(refused).toMatch(/^403 .*violates PodSecurity.*restricted:latest.*allowPrivilegeEscalation != false/s)
  })

  /**
   * serve run as the Deployment's container would run it (its arguments, listening on loopback
   * instead of every address), started by `spawnServe`; the probes of the Deployment answer 200,
   * no warning but calico-system's (not granted), and SIGTERM ends it with 130. Returns stderr.
   */
  async function runAsTheContainer(spawnServe: (args: string[]) => ChildProcessWithoutNullStreams): Promise<string> {
    const c = deployment().spec.template.spec.containers[0]
    const args: string[] = c.args.map((a: string) => (a === `:${c.ports[0].containerPort}` ? '127.0.0.1:0' : a))
    expect(args).toContain('127.0.0.1:0')
    stderr = ''
    serve = spawnServe(args)
    serve.stdout.on('data', () => {})
    serve.stderr.on('data', (d) => (stderr += d))
    const address = await waitFor('the serving line', async () => /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1])
    const probe = async (p: Obj) => (await fetch(`http://${address}${p.httpGet.path}`, {signal: AbortSignal.timeout(p.timeoutSeconds * 1000)})).status
    expect(await probe(c.livenessProbe)).toBe(200)
    await waitFor('the readiness probe 200', async () => (await probe(c.readinessProbe)) === 200)
    expect(stderr.split('\n').filter((l) => l.startsWith('Warning:') && !l.includes('calico-system'))).toEqual([])
    const exited = new Promise<number | null>((r) => serve!.once('exit', (code) => r(code)))
    serve.kill('SIGTERM')
    expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 15 s'), 15_000))])).toBe(130)
    return stderr
  }
  const deployment = () => fileDocs('deploy/kubernetes/deployment.yaml')[0]
  const serviceAccount = () => ({namespace: deployment().metadata.namespace as string, name: deployment().spec.template.spec.serviceAccountName as string})

  it("runs serve with a token of the Deployment's ServiceAccount and the Deployment's arguments; its probes answer 200", async () => {
    const kubeconfig = await serviceAccountKubeconfig(serviceAccount(), tmp)
    await runAsTheContainer((args) => spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: {...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1'}}))
  })

  // A Pod's view, without a kubelet: the token, CA and namespace at the path Kubernetes mounts
  // them (a tmpfs over /run, in a mount namespace of serve's own: nothing on this machine
  // changes), KUBERNETES_SERVICE_HOST and _PORT set, no kubeconfig and a HOME without one.
  // Needs root and unshare(1): skipped without them.
  const podView = process.getuid?.() === 0 && spawnSync('unshare', ['-m', '--propagation', 'private', 'true']).status === 0
  it.skipIf(!podView)('finds the in-cluster configuration a Pod of the Deployment has (the mounted token)', async () => {
    const {token, server, caData} = await serviceAccountToken(serviceAccount())
    const secrets = mkdtempSync(path.join(tmp, 'serviceaccount-'))
    writeFileSync(path.join(secrets, 'token'), token)
    writeFileSync(path.join(secrets, 'ca.crt'), Buffer.from(caData!, 'base64'))
    writeFileSync(path.join(secrets, 'namespace'), serviceAccount().namespace)
    const home = mkdtempSync(path.join(tmp, 'home-'))
    const url = new URL(server)
    const {KUBECONFIG: _, ...env} = process.env
    const mount = 'mount -t tmpfs tmpfs /run && mkdir -p /run/secrets/kubernetes.io/serviceaccount && cp "$0"/* /run/secrets/kubernetes.io/serviceaccount/ && exec "$@"'
    const log = await runAsTheContainer((args) =>
      spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', mount, secrets, process.execPath, BIN, ...args], {
        cwd: ROOT,
        env: {...env, HOME: home, KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port, NO_COLOR: '1'},
      }),
    )
    // client-node's loadFromCluster() names its context inClusterContext: no kubeconfig was read.
    expect(log).toMatch(/serving http:\/\/127\.0\.0\.1:\d+\/metrics .*for inClusterContext$/m)
  })
})
