// simulate against the live control plane gives the same result as on a snapshot of it;
// --rollout from-workload reads the Deployments and StatefulSets behind the Services.
import {AppsV1Api, CoreV1Api, DiscoveryV1Api, RbacAuthorizationV1Api} from '@kubernetes/client-node'
import {ObjectSerializer} from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js'
import {spawnSync} from 'node:child_process'
import {mkdtempSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {stringify} from 'yaml'
import {loadKubeConfig} from '../../src/cluster/kubeconfig.js'
import {readClusterState} from '../../src/cluster/live.js'
import type {RolloutStepResult} from '../../src/simulate/simulate-types.js'
import {BIN, ROOT} from '../cli/run-cli.js'
import {cluster} from './fixtures.js'
import {buildExample} from './example-build.js'
import {buildRolloutScenario} from './rollout-scenario.js'

function cli(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd: ROOT, env: process.env, encoding: 'utf8', maxBuffer: 1 << 30, input, timeout: 120_000})
  return {stdout: r.stdout, stderr: r.stderr, code: r.status}
}

const c = cluster()
let ns = ''

describe('simulate on the live control plane', () => {
  beforeAll(async () => {
    ns = await c.createNamespace('simulate')
    await buildExample(c, ns)
    await buildRolloutScenario(c, ns)
  })

  it.each([
    [['svc/checkout']],
    [['svc/cart', '--without-zone', 'eu-west-1c']],
    [['svc/sessions', '--replicas', '9', '--traffic', 'eu-west-1a=0.5,eu-west-1b=0.25,eu-west-1c=0.25']],
    [['svc/search', '--rollout', 'maxSurge=25%,maxUnavailable=0', '--disruption']],
  ])('%j: live equals the snapshot of it', (args) => {
    const live = cli(['simulate', ...args, '-n', ns, '-o', 'json'])
    expect(live.stderr).toBe('')
    expect(live.code).toBe(0)
    const snap = cli(['snapshot', '-n', ns])
    expect(snap.code).toBe(0)
    const replay = cli(['simulate', ...args, '-n', ns, '--from-file', '-', '-o', 'json'], snap.stdout)
    expect(replay.code).toBe(0)
    const a = JSON.parse(live.stdout)
    const b = JSON.parse(replay.stdout)
    // Where the input came from is the only thing that may differ.
    expect(a.source).toBe('live')
    expect(b.source).toBe('snapshot')
    expect({...b, source: 'x'}).toEqual({...a, source: 'x'})
    // Not vacuous: the strategies were scored.
    expect(JSON.stringify(a)).toContain('Auto')
  })

  it('the read-only identity (no Nodes) needs a traffic model that does not come from node CPU', () => {
    const r = cli(['simulate', 'svc/catalog', '-n', ns, '--context', 'readonly', '-o', 'json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('cannot list nodes')
    expect(r.stderr).toContain('error: the cpu traffic model needs Ready nodes')
    const ok = cli(['simulate', 'svc/catalog', '-n', ns, '--context', 'readonly', '--traffic', 'eu-west-1a=1,eu-west-1b=1,eu-west-1c=1', '-o', 'json'])
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout).source).toBe('live')
  })

  // ---- --rollout from-workload -------------------------------------------------------------

  // The JSON's steps, typed as the source's own (simulate-types.ts).
  interface Svc {
    rolloutParameters?: Record<string, unknown>
    rollout?: RolloutStepResult[]
  }
  const json = (args: string[], input = '') => {
    const r = cli(['simulate', ...args, '-n', ns, '-o', 'json', ...(input ? ['--from-file', '-'] : [])], input)
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    return JSON.parse(r.stdout) as {source: string; services: Svc[]}
  }
  const snapshot = () => {
    const r = cli(['snapshot', '-n', ns])
    expect(r.code).toBe(0)
    return r.stdout
  }

  it('Deployment web: the rollout read from it equals --rollout maxSurge=2,maxUnavailable=1,replicas=9, live and from a snapshot', () => {
    const args = ['svc/web', '--strategies', 'Auto,PreferSameZone']
    const fromWorkload = json([...args, '--rollout', 'from-workload'])
    const explicit = json([...args, '--rollout', 'maxSurge=2,maxUnavailable=1,replicas=9'])
    const [w] = fromWorkload.services
    const [e] = explicit.services
    expect(w!.rolloutParameters).toMatchObject({
      source: 'workload',
      workload: {kind: 'Deployment', name: 'web'},
      type: 'RollingUpdate',
      replicas: 9,
      maxSurge: 2,
      maxUnavailable: 1,
      resolved: {maxSurge: 2, maxUnavailable: 1},
      overridden: [],
    })
    expect(e!.rolloutParameters).toMatchObject({source: 'flag', workload: null, replicas: 9, resolved: {maxSurge: 2, maxUnavailable: 1}})
    expect(w!.rollout).toEqual(e!.rollout)
    // Not vacuous: 9 pods, 2 surge and 1 unavailable take several steps, and other values give other steps.
    expect(w!.rollout!.length).toBeGreaterThan(5)
    expect(w!.rollout![1]!.action).toBe('create 2 new pod(s) (not ready)')
    expect(json([...args, '--rollout', 'maxSurge=1,maxUnavailable=0,replicas=9']).services[0]!.rollout).not.toEqual(w!.rollout)
    // The same from a snapshot of the namespace.
    const replay = json([...args, '--rollout', 'from-workload'], snapshot())
    expect(replay.source).toBe('snapshot')
    expect({...replay, source: 'x'}).toEqual({...fromWorkload, source: 'x'})
  })

  it('StatefulSet db: highest ordinal first, one at a time, ordinal 0 kept by the partition; live equals the snapshot', () => {
    const args = ['svc/db', '--strategies', 'Auto']
    const fromWorkload = json([...args, '--rollout', 'from-workload'])
    const explicit = json([...args, '--rollout', 'from-workload,partition=1,maxUnavailable=1'])
    const [w] = fromWorkload.services
    expect(w!.rolloutParameters).toMatchObject({
      source: 'workload',
      workload: {kind: 'StatefulSet', name: 'db'},
      type: 'RollingUpdate',
      replicas: 6,
      partition: 1,
      maxUnavailable: 1,
      maxSurge: null,
      resolved: {maxSurge: 0, maxUnavailable: 1},
      notes: [],
    })
    expect(explicit.services[0]!.rolloutParameters).toMatchObject({overridden: ['partition', 'maxUnavailable']})
    expect(w!.rollout).toEqual(explicit.services[0]!.rollout)
    expect(w!.rollout!.map((s) => s.action)).toEqual(['start', ...[5, 4, 3, 2, 1].flatMap((o) => [`recreate db-${o} (not ready)`, `db-${o} becomes ready`])])
    // 6 endpoints in three equal zones need 2 per zone: any pod being recreated drops the hints.
    expect(w!.rollout![1]!.readyByZone).toEqual({'eu-west-1a': 2, 'eu-west-1b': 2, 'eu-west-1c': 1})
    expect(w!.rollout![1]!.hints).toBe('refused')
    expect(w!.rollout!.at(-1)).toMatchObject({oldPods: 1, newReady: 5, hints: 'hold'})
    // Overrides change the steps: two at a time (with the feature gate), every ordinal.
    const two = json([...args, '--rollout', 'from-workload,partition=0,maxUnavailable=2']).services[0]!
    expect(two.rollout!.map((s) => s.action)[1]).toBe('recreate db-5, db-4 (not ready)')
    expect(two.rollout![1]!.readyByZone).toEqual({'eu-west-1a': 2, 'eu-west-1b': 2, 'eu-west-1c': 0})
    expect(two.rollout!.at(-1)).toMatchObject({oldPods: 0, newReady: 6})
    expect((two.rolloutParameters!.notes as string[])[0]).toMatch(/MaxUnavailableStatefulSet feature gate/)
    const replay = json([...args, '--rollout', 'from-workload'], snapshot())
    expect({...replay, source: 'x'}).toEqual({...fromWorkload, source: 'x'})
  })

  it('two workloads behind Service api: one line naming both (exit 2); --workload picks one', () => {
    const r = cli(['simulate', 'svc/api', '-n', ns, '--rollout', 'from-workload'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain(
      `error: --rollout from-workload: 2 workloads are behind Service ${ns}/api (deployment/api, deployment/api-canary): pick one with --workload deployment/api`,
    )
    const canary = json(['svc/api', '--strategies', 'Auto', '--rollout', 'from-workload', '--workload', 'deployment/api-canary'])
    expect(canary.services[0]!.rolloutParameters).toMatchObject({workload: {kind: 'Deployment', name: 'api-canary'}, type: 'Recreate', replicas: 1})
    expect((canary.services[0]!.rolloutParameters!.notes as string[])[0]).toBe(
      `2 workloads are behind Service ${ns}/api: the rollout replaces the 1 ready endpoint(s) whose pods are named api-canary-<hash>-<suffix>; the other 6 stay`,
    )
    // Only the canary's pod goes (in eu-west-1c); api's six stay ready throughout. The new pod goes
    // where the Service has the fewest endpoints (a tie: the first zone by name).
    expect(canary.services[0]!.rollout!.map((s) => [s.action, s.readyByZone])).toEqual([
      ['start', {'eu-west-1a': 2, 'eu-west-1b': 2, 'eu-west-1c': 3}],
      ['delete 1 old pod(s) (Recreate)', {'eu-west-1a': 2, 'eu-west-1b': 2, 'eu-west-1c': 2}],
      ['create 1 new pod(s) (not ready)', {'eu-west-1a': 2, 'eu-west-1b': 2, 'eu-west-1c': 2}],
      ['1 new pod(s) become ready', {'eu-west-1a': 3, 'eu-west-1b': 2, 'eu-west-1c': 2}],
    ])
    const api = json(['svc/api', '--strategies', 'Auto', '--rollout', 'from-workload', '--workload', 'deploy/api'])
    // The API's defaults: 25% of 6 = 2 surge (up), 1 unavailable (down).
    expect(api.services[0]!.rolloutParameters).toMatchObject({
      type: 'RollingUpdate',
      replicas: 6,
      maxSurge: '25%',
      maxUnavailable: '25%',
      resolved: {maxSurge: 2, maxUnavailable: 1},
    })
    const missing = cli(['simulate', 'svc/api', '-n', ns, '--rollout', 'from-workload', '--workload', 'statefulset/api'])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain(`error: --workload: no statefulset/api behind Service ${ns}/api (behind it: deployment/api, deployment/api-canary)`)
  })

  it('the workloads are listed page by page, two lists whatever the number of Services; only those behind a selected Service are kept', async () => {
    const ctx = await loadKubeConfig({context: 'admin', requestTimeoutMs: 30_000})
    const names = (s: {deployments?: {metadata: {name: string}}[]; statefulSets?: {metadata: {name: string}}[]}) =>
      [...(s.deployments ?? []), ...(s.statefulSets ?? [])].map((w) => w.metadata.name)
    const whole = await readClusterState(ctx, {namespace: ns, withWorkloads: 'required'})
    expect(names(whole)).toEqual(['api', 'api-canary', 'web', 'db'])
    const without = await readClusterState(ctx, {namespace: ns})
    expect(without.requests).toBe(whole.requests - 2)
    expect(without.deployments).toBeUndefined()
    // One item per page: 3 Deployments + 1 StatefulSet take more requests, and give the same.
    const paged = await readClusterState(ctx, {namespace: ns, withWorkloads: 'required', pageSize: 1})
    expect(names(paged)).toEqual(names(whole))
    expect(paged.requests).toBeGreaterThan(whole.requests)
    const db = await readClusterState(ctx, {namespace: ns, labelSelector: 'app', withWorkloads: 'required'})
    expect(db.services).toEqual([])
    expect(names(db)).toEqual([])
  })

  it('kubectl get nodes,services,endpointslices,deployments,statefulsets -A -o yaml: the same rollouts', async () => {
    // What kubectl prints: a v1 List of the objects as the API serves them, with apiVersion and kind.
    const core = c.kc.makeApiClient(CoreV1Api)
    const apps = c.kc.makeApiClient(AppsV1Api)
    const disc = c.kc.makeApiClient(DiscoveryV1Api)
    const wire = (items: unknown[], type: string, apiVersion: string, kind: string) => items.map((o) => ({...ObjectSerializer.serialize(o, type, ''), apiVersion, kind}))
    const items = [
      ...wire((await core.listNode()).items, 'V1Node', 'v1', 'Node'),
      ...wire((await core.listServiceForAllNamespaces()).items, 'V1Service', 'v1', 'Service'),
      ...wire((await disc.listEndpointSliceForAllNamespaces()).items, 'V1EndpointSlice', 'discovery.k8s.io/v1', 'EndpointSlice'),
      ...wire((await apps.listDeploymentForAllNamespaces()).items, 'V1Deployment', 'apps/v1', 'Deployment'),
      ...wire((await apps.listStatefulSetForAllNamespaces()).items, 'V1StatefulSet', 'apps/v1', 'StatefulSet'),
    ]
    const list = stringify({apiVersion: 'v1', kind: 'List', items, metadata: {resourceVersion: ''}})
    for (const svc of ['web', 'db']) {
      const args = [`svc/${svc}`, '--strategies', 'Auto', '--rollout', 'from-workload']
      const live = json(args)
      const fromList = json(args, list)
      expect(fromList.services[0]!.rolloutParameters).toEqual(live.services[0]!.rolloutParameters)
      expect(fromList.services[0]!.rollout).toEqual(live.services[0]!.rollout)
    }
  })

  it('readonly context (ClusterRole view): reads the workloads; Nodes unreadable, new pods are placed by zone only', () => {
    const traffic = ['--traffic', 'eu-west-1a=1,eu-west-1b=1,eu-west-1c=1']
    const admin = json(['svc/web', ...traffic, '--strategies', 'PreferSameZone', '--rollout', 'from-workload'])
    const r = cli(['simulate', 'svc/web', '-n', ns, '--context', 'readonly', ...traffic, '--strategies', 'PreferSameZone', '--rollout', 'from-workload', '-o', 'json'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('cannot list nodes')
    const ro = JSON.parse(r.stdout) as {services: Svc[]}
    expect(ro.services[0]!.rolloutParameters).toEqual(admin.services[0]!.rolloutParameters)
    const shape = (steps: RolloutStepResult[]) => steps.map((s) => [s.action, s.oldPods, s.newReady, s.newNotReady, s.readyByZone])
    expect(shape(ro.services[0]!.rollout!)).toEqual(shape(admin.services[0]!.rollout!))
  })

  it('an identity that may not list deployments: simulate --rollout from-workload fails with the forbidden error; snapshot warns and goes on', async () => {
    // A ServiceAccount with a Role for Services and EndpointSlices only, and a token for it (TokenRequest).
    const core = c.kc.makeApiClient(CoreV1Api)
    const rbac = c.kc.makeApiClient(RbacAuthorizationV1Api)
    await core.createNamespacedServiceAccount({namespace: ns, body: {metadata: {name: 'no-apps'}}})
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: {name: 'no-apps'},
        rules: [
          {apiGroups: [''], resources: ['services', 'events'], verbs: ['get', 'list']},
          {apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list']},
        ],
      },
    })
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: {name: 'no-apps'},
        roleRef: {apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'no-apps'},
        subjects: [{kind: 'ServiceAccount', name: 'no-apps', namespace: ns}],
      },
    })
    const token = await core.createNamespacedServiceAccountToken({name: 'no-apps', namespace: ns, body: {spec: {audiences: [], expirationSeconds: 600}}})
    const cl = c.kc.getCurrentCluster()!
    const dir = mkdtempSync(path.join(os.tmpdir(), 'no-apps-'))
    const kubeconfig = path.join(dir, 'kubeconfig')
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{name: 'e2e', cluster: {server: cl.server, 'certificate-authority-data': cl.caData}}],
        users: [{name: 'no-apps', user: {token: token.status!.token}}],
        contexts: [{name: 'no-apps', context: {cluster: 'e2e', user: 'no-apps', namespace: ns}}],
        'current-context': 'no-apps',
      }),
      {mode: 0o600},
    )
    const traffic = ['--traffic', 'eu-west-1a=1,eu-west-1b=1,eu-west-1c=1']
    const r = cli(['simulate', 'svc/web', '--kubeconfig', kubeconfig, ...traffic, '--rollout', 'from-workload'])
    expect(r.code).toBe(7)
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error:'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(
      /^error: Error from server \(Forbidden\): deployments\.apps is forbidden: User "system:serviceaccount:[^"]+:no-apps" cannot list resource "deployments" in API group "apps" in the namespace/,
    )
    expect(r.stdout).toBe('')
    // The parameters from the flag need no workload: no list of deployments is sent.
    const flagOnly = cli(['simulate', 'svc/web', '--kubeconfig', kubeconfig, ...traffic, '--rollout', 'maxSurge=2,maxUnavailable=1', '-o', 'json'])
    expect(flagOnly.code).toBe(0)
    expect(JSON.parse(flagOnly.stdout).services[0].rollout.length).toBeGreaterThan(1)
    const snap = cli(['snapshot', 'svc/web', '--kubeconfig', kubeconfig])
    expect(snap.code).toBe(0)
    expect(snap.stderr).toContain('Warning: cannot list deployments and statefulsets in namespace')
    expect(snap.stderr).toContain('(missing permission: list deployments.apps, statefulsets.apps)')
    expect(snap.stdout).not.toMatch(/^deployments:/m)
    const replay = cli(['simulate', 'svc/web', '-n', ns, ...traffic, '--rollout', 'from-workload', '--from-file', '-'], snap.stdout)
    expect(replay.code).toBe(4)
    expect(replay.stderr).toContain('the snapshot holds no Deployments or StatefulSets')
  })
})
