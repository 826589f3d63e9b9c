// check, nodes and explain -A against the real control plane: the list calls stay constant
// whatever the number of Services (recorded by the proxy in front of the API server), check's
// verdicts and exit codes on Services reconciled by the real EndpointSlice controller, and
// nodes on real Node objects.
import Ajv2020 from 'ajv/dist/2020.js'
import {XMLValidator} from 'fast-xml-parser'
import {readFileSync} from 'node:fs'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ApiProxy, runCliAsync} from './apiproxy.js'
import {cluster, clusterWideListCalls, createNamespace, createNode, createPod, createService, deleteAllNodes, kubeConfig, waitForReconciled} from './fixtures.js'

const ZONES = ['zone-a', 'zone-b', 'zone-c']
let proxy: ApiProxy
let ns: string

/** A selector-less Service with one hand-made EndpointSlice of 10 endpoints (what bench/scale.mjs creates). */
async function bareService(namespace: string, i: number): Promise<void> {
  const c = cluster()
  const name = `bare-${i}`
  await c.core.createNamespacedService({namespace, body: {metadata: {name}, spec: {ports: [{name: 'http', port: 80, protocol: 'TCP'}], trafficDistribution: 'PreferSameZone'}}})
  await c.discovery.createNamespacedEndpointSlice({
    namespace,
    body: {
      metadata: {name: `${name}-1`, labels: {'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'e2e'}},
      addressType: 'IPv4',
      ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
      endpoints: Array.from({length: 10}, (_, j) => ({
        addresses: [`10.246.${i}.${j + 1}`],
        conditions: {ready: true},
        nodeName: `${ZONES[j % 3]}-node`,
        zone: ZONES[j % 3],
        hints: {forZones: [{name: ZONES[j % 3]!}]},
      })),
    },
  })
}

/**
 * The data-plane read (src/cluster/dataplane.ts): the Pods of kube-system (kube-proxy versions),
 * the DaemonSets of kube-system, calico-system and ovn-kubernetes, one page each (the test control
 * plane runs none; ConfigMaps are read only for the DaemonSets found). A constant too.
 */
const DATA_PLANE_LISTS = [
  '/api/v1/namespaces/kube-system/pods',
  '/apis/apps/v1/namespaces/kube-system/daemonsets',
  '/apis/apps/v1/namespaces/calico-system/daemonsets',
  '/apis/apps/v1/namespaces/ovn-kubernetes/daemonsets',
]

const listCalls = (p: ApiProxy) =>
  p.requests
    .filter((r) => r.method === 'GET')
    .map((r) => r.url.split('?')[0]!)
    .sort()

beforeAll(async () => {
  kubeConfig('admin')
  await deleteAllNodes()
  for (const z of ZONES) await createNode({name: `${z}-node`, zone: z, cpu: 4})
  await createNode({name: 'cp-node', zone: 'zone-a', cpu: 4, labels: {'node-role.kubernetes.io/control-plane': ''}})
  ns = await createNamespace('check')
  // web: 9 endpoints, hints set. cart: 11 endpoints, refused.
  for (const [svc, perZone] of [
    ['web', [3, 3, 3]],
    ['cart', [4, 4, 3]],
  ] as const) {
    const expectedEndpoints = []
    for (const [zi, z] of ZONES.entries()) {
      for (let i = 0; i < perZone[zi]!; i++) {
        const ip = `10.247.${svc === 'web' ? 1 : 2}${zi}.${i + 10}`
        await createPod({namespace: ns, name: `${svc}-${z}-${i}`, labels: {app: svc}, nodeName: `${z}-node`, ip, ready: true})
        expectedEndpoints.push({ip, ready: true})
      }
    }
    await createService({namespace: ns, name: svc, selector: {app: svc}, labels: {tier: 'frontend'}, annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
    await waitForReconciled({namespace: ns, service: svc, expectedEndpoints, expectEvent: svc === 'web' ? 'TopologyAwareHintsEnabled' : 'TopologyAwareHintsDisabled'})
  }
  proxy = await ApiProxy.start()
})

afterAll(async () => {
  await proxy?.close()
})

describe('explain -A and check -A: a constant number of list calls', () => {
  it('1 and 51 Services in a namespace: the same requests', async () => {
    const scaleNs = await createNamespace('scale')
    await bareService(scaleNs, 0)
    const runs: Record<string, {calls: string[]; expected: string[]; services: number}[]> = {explain: [], check: []}
    const measure = async () => {
      for (const cmd of ['explain', 'check'] as const) {
        proxy.reset()
        const r = await runCliAsync([cmd, '-A', '-o', 'json', '--context', 'admin'], {env: {KUBECONFIG: proxy.kubeconfig}, timeoutMs: 90_000})
        expect([0, 1]).toContain(r.code)
        const doc = JSON.parse(r.stdout)
        runs[cmd]!.push({
          calls: listCalls(proxy),
          expected: [...(await clusterWideListCalls({events: cmd === 'explain'})), ...DATA_PLANE_LISTS].sort(),
          services: doc.services.filter((s: {namespace: string}) => s.namespace === scaleNs).length,
        })
      }
    }
    await measure()
    for (let i = 1; i <= 50; i++) await bareService(scaleNs, i)
    await measure()
    for (const cmd of ['explain', 'check']) {
      const [one, many] = runs[cmd]!
      expect(one!.services).toBe(1)
      expect(many!.services).toBe(51)
      // version, nodes, services, endpointslices (and for explain the Services' events): one
      // list call per page of each, never one per Service. The pages count what the whole
      // control plane holds: other test files (and earlier runs on a reused control plane)
      // leave Services and slices behind.
      expect(one!.calls).toEqual(one!.expected)
      expect(many!.calls).toEqual(many!.expected)
      expect(new Set(many!.calls)).toEqual(
        new Set([
          '/api/v1/nodes',
          '/api/v1/services',
          '/apis/discovery.k8s.io/v1/endpointslices',
          '/version',
          ...DATA_PLANE_LISTS,
          ...(cmd === 'explain' ? ['/api/v1/events'] : []),
        ]),
      )
    }
  })
})

describe('check on a live cluster', () => {
  it('-l tier=frontend --require-hints: web passes, cart fails with the controller message; exit 1; JUnit well-formed', async () => {
    const r = await runCliAsync(['check', '-n', ns, '-l', 'tier=frontend', '--require-hints', '--no-drift', '-o', 'junit', '--context', 'admin'], {
      env: {KUBECONFIG: proxy.kubeconfig},
    })
    expect(r.code).toBe(1)
    expect(XMLValidator.validate(r.stdout)).toBe(true)
    expect(r.stdout).toContain(`<testsuite name="${ns}/cart" tests="2" failures="1" errors="0" skipped="0">`)
    expect(r.stdout).toContain(`<testsuite name="${ns}/web" tests="2" failures="0" errors="0" skipped="0">`)
    expect(r.stdout).toContain(
      '<failure message="hints dropped: TopologyAwareHintsDisabled: Unable to allocate minimum required endpoints to each zone without exceeding overload threshold (11 endpoints, 3 zones), addressType: IPv4" type="require-hints">',
    )
  })
  it('a passing Service exits 0; the JSON validates against the schema', async () => {
    const r = await runCliAsync(
      [
        'check',
        'svc/web',
        '-n',
        ns,
        '--require-hints',
        '--no-fallback',
        '--max-overload',
        '20%',
        '--min-endpoints-per-zone',
        '3',
        '--no-drift',
        '--lint',
        '-o',
        'json',
        '--context',
        'admin',
      ],
      {env: {KUBECONFIG: proxy.kubeconfig}},
    )
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    const validate = new Ajv2020.default({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(new URL('../../schema/check.v1.json', import.meta.url), 'utf8')))
    expect(validate(doc)).toBe(true)
    expect(doc.services[0].results.map((x: {policy: string; status: string}) => `${x.policy}=${x.status}`)).toEqual([
      'require-hints=pass',
      'no-fallback=pass',
      'max-overload=pass',
      'min-endpoints-per-zone=pass',
      'no-drift=pass',
      'lint=pass',
    ])
    expect(doc.kubernetesVersion).toBe('1.36')
  })
  it('errors keep their own exit codes: unknown Service 4, bad policy value 2, bad policy file 3', async () => {
    const env = {KUBECONFIG: proxy.kubeconfig}
    const missing = await runCliAsync(['check', 'svc/nope', '-n', ns, '--context', 'admin'], {env})
    expect(missing.code).toBe(4)
    const bad = await runCliAsync(['check', 'svc/web', '-n', ns, '--max-overload', 'lots', '--context', 'admin'], {env})
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim()).toBe('error: --max-overload: invalid value "lots": give a percentage with % (20%) or a fraction from 0 to 1 (0.2)')
    const file = await runCliAsync(['check', 'svc/web', '-n', ns, '--policy-file', '/nonexistent/policy.yaml', '--context', 'admin'], {env})
    expect(file.code).toBe(3)
  })
})

describe('nodes on a live cluster', () => {
  it('counts workers, ignores the control-plane node, and names an unlabeled node with the fix', async () => {
    await createNode({name: 'bare-node', cpu: 4})
    try {
      proxy.reset()
      const r = await runCliAsync(['nodes', '-o', 'json', '--context', 'admin'], {env: {KUBECONFIG: proxy.kubeconfig}})
      expect(r.code).toBe(0)
      const doc = JSON.parse(r.stdout)
      const validate = new Ajv2020.default({allErrors: true, strict: true}).compile(JSON.parse(readFileSync(new URL('../../schema/nodes.v1.json', import.meta.url), 'utf8')))
      expect(validate(doc)).toBe(true)
      expect(doc.auto).toMatchObject({possible: false, reason: 'disabling-nodes'})
      expect(doc.totals).toMatchObject({nodes: 5, counted: 3, ignored: {'control-plane': 1, 'not-ready': 0, 'no-zone-label': 1, 'no-cpu': 0}})
      expect(doc.disablingNodes).toEqual([{name: 'bare-node', status: 'no-zone-label', fix: 'label node bare-node with topology.kubernetes.io/zone set to the zone it runs in'}])
      // Only the nodes are read.
      expect(proxy.requests.filter((x) => x.method === 'GET').map((x) => x.url.split('?')[0])).toEqual(['/api/v1/nodes'])
      const table = await runCliAsync(['nodes', '--context', 'admin'], {env: {KUBECONFIG: proxy.kubeconfig}})
      expect(table.stdout).toMatch(/^topology-mode Auto: hints disabled for every Service: Insufficient Node information/)
      expect(table.stdout).toMatch(/bare-node\s+<none>\s+4\s+no zone label: disables hints/)
    } finally {
      await cluster().core.deleteNode({name: 'bare-node'})
    }
  })
})
