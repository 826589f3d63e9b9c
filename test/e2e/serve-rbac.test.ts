// deploy/kubernetes/rbac.yaml is enough for `kubectl topology serve`, and no more: the objects
// are created on the real API server, a token of the ServiceAccount is minted (TokenRequest),
// serve runs with only that token and produces every metric family of the catalogue, reads
// Events without a warning, and the same token is refused a write and a read serve does not do.
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {CoreV1Api, KubeConfig, KubernetesObjectApi, type KubernetesObject} from '@kubernetes/client-node'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {FAMILIES} from '../../src/serve/catalogue.js'
import {BIN, ROOT} from '../cli/run-cli.js'
import {createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, statusOf, waitForReconciled} from './fixtures.js'
import {serviceAccountKubeconfig} from './sa-token.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
const SA = {namespace: 'kubectl-topology', name: 'kubectl-topology-serve'}
let ns: string
let serve: ChildProcessWithoutNullStreams | undefined
let stderr = ''
const tmp = mkdtempSync(path.join(tmpdir(), 'e2e-serve-rbac-'))

beforeAll(async () => {
  const admin = kubeConfig('admin')
  await deleteAllNodes()
  for (const z of ZONES) await createNode({name: `${z}-node`, zone: z, cpu: 4})
  ns = await createNamespace('serve-rbac')
  const expectedEndpoints = []
  for (const [zi, z] of ZONES.entries())
    for (let i = 0; i < 2; i++) {
      const ip = `10.247.${zi}.${i + 10}`
      await createPod({namespace: ns, name: `web-${z}-${i}`, labels: {app: 'web'}, nodeName: `${z}-node`, ip, ready: true})
      expectedEndpoints.push({ip, ready: true})
    }
  await createService({namespace: ns, name: 'web', selector: {app: 'web'}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
  await waitForReconciled({namespace: ns, service: 'web', expectedEndpoints, expectEvent: true, until: (r) => r.endpoints.every((e) => e.hints?.forZones?.length)})
  // The manifests, as a user would apply them (created, or left as an earlier run made them).
  const objects = KubernetesObjectApi.makeApiClient(admin)
  const docs = parseAllDocuments(readFileSync(path.join(ROOT, 'deploy/kubernetes/rbac.yaml'), 'utf8')).map((d) => d.toJS() as KubernetesObject)
  for (const o of docs) {
    try {
      await objects.create(o)
    } catch (e) {
      if (statusOf(e) !== 409) throw e
    }
  }
})

afterAll(() => {
  if (serve && serve.exitCode === null) serve.kill('SIGKILL')
  rmSync(tmp, {recursive: true, force: true})
})

describe('serve with the ServiceAccount of deploy/kubernetes/rbac.yaml', () => {
  it('produces every metric family, and the token can neither write nor read Secrets', async () => {
    const kubeconfig = await serviceAccountKubeconfig(SA, tmp)
    serve = spawn(process.execPath, [BIN, 'serve', '--listen', '127.0.0.1:0'], {cwd: ROOT, env: {...process.env, KUBECONFIG: kubeconfig, NO_COLOR: '1'}})
    serve.stdout.on('data', () => {})
    serve.stderr.on('data', (d) => (stderr += d))
    const deadline = Date.now() + 60_000
    let address: string | undefined
    for (;;) {
      if (serve.exitCode !== null) throw new Error(`serve exited ${serve.exitCode}:\n${stderr}`)
      if (Date.now() > deadline) throw new Error(`serve not ready in 60 s:\n${stderr}`)
      address ??= /serving http:\/\/(127\.0\.0\.1:\d+)\/metrics/.exec(stderr)?.[1]
      if (address && (await fetch(`http://${address}/readyz`)).status === 200) break
      await new Promise((r) => setTimeout(r, 100))
    }
    const body = await (await fetch(`http://${address}/metrics`)).text()
    // (The --traffic-from families need a Prometheus: test/e2e/traffic.test.ts.)
    const missing = FAMILIES.filter((f) => !('only' in f) && !body.split('\n').some((l) => l.startsWith(`${f.name}{`) || l.startsWith(`${f.name} `))).map((f) => f.name)
    expect(missing, body).toEqual([])
    expect(body).toContain(`kubectl_topology_service_hints_live{namespace="${ns}",service="web",address_type="IPv4"} 1`)
    // Events were readable: no warning about them (the only warning allowed: the calico-system and ovn-kubernetes DaemonSets, not granted).
    expect(stderr).not.toMatch(/cannot list events/)
    expect(stderr.split('\n').filter((l) => l.startsWith('Warning:') && !l.includes('calico-system'))).toEqual([])

    const kc = new KubeConfig()
    kc.loadFromFile(kubeconfig)
    const core = kc.makeApiClient(CoreV1Api)
    const refused = async (what: Promise<unknown>) => {
      try {
        await what
        return 'allowed'
      } catch (e) {
        return statusOf(e)
      }
    }
    expect(await refused(core.deleteNamespacedService({namespace: ns, name: 'web'}))).toBe(403)
    expect(await refused(core.listSecretForAllNamespaces({}))).toBe(403)
    expect(await refused(core.listPodForAllNamespaces({}))).toBe(403)
    expect(await refused(core.listServiceForAllNamespaces({}))).toBe('allowed')
  })
})
