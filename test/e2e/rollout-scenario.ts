// Services with the Deployments and StatefulSets behind them, on the example cluster's nodes
// (example-scenario.ts NODES must exist): test/e2e/simulate.test.ts checks `simulate
// --rollout from-workload` on them, and test/e2e/make-rollout-example.ts writes
// examples/rollouts.yaml from them. No deployment or statefulset controller runs: the objects
// are there to be read; the Pods are made by the fixtures, named as those controllers name them.
import {AppsV1Api, type V1Deployment, type V1StatefulSet} from '@kubernetes/client-node'
import type {Cluster} from './fixtures.js'
import {NODES, ZONES} from './example-scenario.js'

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
const workers = (zone: string) => NODES.filter((n) => n.zone === zone && !n.labels && n.ready !== false).map((n) => n.name)

export interface RolloutPod {
  name: string
  labels: Record<string, string>
  zone: string
  nodeName: string
  ip: string
}

export interface RolloutService {
  name: string
  pods: RolloutPod[]
}

/** Pods per zone, named by `name(i, k, zone index)`, round-robin over the zone's workers. */
function podsPerZone(perZone: [number, number, number], subnet: number, name: (i: number, k: number, zi: number) => string, labels: Record<string, string>): RolloutPod[] {
  const out: RolloutPod[] = []
  let i = 0
  perZone.forEach((count, zi) => {
    const zone = ZONES[zi]!
    for (let k = 0; k < count; k++) {
      const ws = workers(zone)
      out.push({name: name(i, k, zi), labels, zone, nodeName: ws[k % ws.length]!, ip: `10.${subnet}.${zi + 1}.${10 + k}`})
      i++
    }
  })
  return out
}

/**
 * web: Deployment web, 9 replicas, RollingUpdate maxSurge 2 / maxUnavailable 1; 3 pods per zone.
 * db: StatefulSet db, 6 replicas, RollingUpdate partition 1 (maxUnavailable: the default 1; the API server drops
 *     the field while the MaxUnavailableStatefulSet gate is off, its default through 1.36); db-0..db-5, two per zone in ordinal order.
 * api: Deployments api (6 replicas, the API's defaults: RollingUpdate 25%/25%) and api-canary
 *      (1 replica, Recreate, template labels app=api,track=canary): both behind Service api.
 */
const ROLLOUT_SERVICES: RolloutService[] = [
  // <deployment>-<pod-template-hash>-<5 characters>, as the ReplicaSet controller names them.
  {name: 'web', pods: podsPerZone([3, 3, 3], 120, (_i, k, zi) => `web-7d9f8b6c4-z${zi + 1}p${k}x`, {app: 'web'})},
  {name: 'db', pods: podsPerZone([2, 2, 2], 121, (i) => `db-${i}`, {app: 'db'})},
  {
    name: 'api',
    pods: [
      ...podsPerZone([2, 2, 2], 122, (_i, k, zi) => `api-5c6d7e8f9-z${zi + 1}p${k}x`, {app: 'api'}),
      ...podsPerZone([0, 0, 1], 123, (_i, k, zi) => `api-canary-6b7c8d9e-z${zi + 1}p${k}x`, {app: 'api', track: 'canary'}),
    ],
  },
]

const container = {name: 'app', image: 'registry.invalid/e2e/app:1'}

function rolloutWorkloads(): {deployments: V1Deployment[]; statefulSets: V1StatefulSet[]} {
  const template = (labels: Record<string, string>) => ({metadata: {labels}, spec: {containers: [container]}})
  return {
    deployments: [
      {
        metadata: {name: 'web'},
        spec: {
          replicas: 9,
          selector: {matchLabels: {app: 'web'}},
          template: template({app: 'web'}),
          strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: 2 as never, maxUnavailable: 1 as never}},
        },
      },
      {metadata: {name: 'api'}, spec: {replicas: 6, selector: {matchLabels: {app: 'api'}}, template: template({app: 'api'})}},
      {
        metadata: {name: 'api-canary'},
        spec: {replicas: 1, selector: {matchLabels: {app: 'api', track: 'canary'}}, template: template({app: 'api', track: 'canary'}), strategy: {type: 'Recreate'}},
      },
    ],
    statefulSets: [
      {
        metadata: {name: 'db'},
        spec: {
          replicas: 6,
          serviceName: 'db',
          selector: {matchLabels: {app: 'db'}},
          template: template({app: 'db'}),
          updateStrategy: {type: 'RollingUpdate', rollingUpdate: {partition: 1}},
        },
      },
    ],
  }
}

/** Creates the Pods, Services and workloads in `namespace` and waits for the EndpointSlice controller. */
export async function buildRolloutScenario(c: Cluster, namespace: string): Promise<void> {
  const apps = c.kc.makeApiClient(AppsV1Api)
  const {deployments, statefulSets} = rolloutWorkloads()
  await Promise.all([
    ...deployments.map((body) => apps.createNamespacedDeployment({namespace, body})),
    ...statefulSets.map((body) => apps.createNamespacedStatefulSet({namespace, body})),
  ])
  const pods = ROLLOUT_SERVICES.flatMap((s) => s.pods)
  await Promise.all(pods.map((p) => c.createPod({namespace, name: p.name, labels: p.labels, nodeName: p.nodeName, ip: p.ip, ready: true})))
  for (const s of ROLLOUT_SERVICES) await c.createService({namespace, name: s.name, selector: {app: s.name}, annotations: AUTO})
  for (const s of ROLLOUT_SERVICES) {
    await c.waitForReconciled({
      namespace,
      service: s.name,
      expectedEndpoints: s.pods.map((p) => ({ip: p.ip, ready: true})),
      expectEvent: true,
    })
  }
}
