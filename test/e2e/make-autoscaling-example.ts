// Regenerates examples/autoscaling.yaml from the real control plane: the example cluster's
// nodes and, in namespace `shop`, two Services with the Deployments, HorizontalPodAutoscalers and
// PodDisruptionBudget behind them (every hint written by the real EndpointSlice controller; no
// deployment, HPA or disruption controller runs: their objects are there to be read, the Pods
// are made by the fixtures, named as the ReplicaSet controller names them):
//   web: Auto, Deployment web 6 replicas (2/2/2), maxSurge 1 / maxUnavailable 0, a zone spread
//        constraint (maxSkew 1, DoNotSchedule), HPA web 3..12, PDB web maxUnavailable 1;
//   api: no mode yet, Deployment api 4 replicas (2/1/1), the API's rollout defaults, no zone
//        spread constraint, HPA api 2..20.
//   CLUSTER_INSTANCE=example node scripts/cluster.mjs up
//   eval "$(CLUSTER_INSTANCE=example node scripts/cluster.mjs env)"
//   npm run build && CLUSTER_INSTANCE=example npx node scripts/run-ts.mjs test/e2e/make-autoscaling-example.ts
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {cluster, createDeployment, createHpa, createPdb} from './fixtures.js'
import {NAMESPACE, NODES, ZONES} from './example-scenario.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const c = cluster()
await c.core.createNamespace({body: {metadata: {name: NAMESPACE}}}).catch((e: unknown) => {
  if (!String(e).includes('409') && !String((e as {code?: number}).code).includes('409')) throw e
})
await c.deleteAllNodes()
for (const n of NODES) await c.createNode(n)
const workers = (zone: string) => NODES.filter((n) => n.zone === zone && !n.labels && n.ready !== false).map((n) => n.name)

const services = [
  {name: 'web', perZone: [2, 2, 2], subnet: 130, hash: '6f8d9c7b5', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}},
  {name: 'api', perZone: [2, 1, 1], subnet: 131, hash: '5b7c9d8e6', annotations: undefined},
]
await createDeployment({namespace: NAMESPACE, name: 'web', replicas: 6, labels: {app: 'web'}, zoneSpread: 'DoNotSchedule', maxSurge: 1, maxUnavailable: 0})
await createHpa({namespace: NAMESPACE, name: 'web', deployment: 'web', min: 3, max: 12})
await createPdb({namespace: NAMESPACE, name: 'web', labels: {app: 'web'}, maxUnavailable: 1})
await createDeployment({namespace: NAMESPACE, name: 'api', replicas: 4, labels: {app: 'api'}})
await createHpa({namespace: NAMESPACE, name: 'api', deployment: 'api', min: 2, max: 20})
for (const s of services) {
  const expected: {ip: string; ready: boolean}[] = []
  for (const [zi, zone] of ZONES.entries()) {
    for (let k = 0; k < s.perZone[zi]!; k++) {
      const ws = workers(zone)
      const ip = `10.${s.subnet}.${zi + 1}.${10 + k}`
      await c.createPod({namespace: NAMESPACE, name: `${s.name}-${s.hash}-z${zi + 1}p${k}x`, labels: {app: s.name}, nodeName: ws[k % ws.length]!, ip, ready: true})
      expected.push({ip, ready: true})
    }
  }
  await c.createService({namespace: NAMESPACE, name: s.name, selector: {app: s.name}, ...(s.annotations ? {annotations: s.annotations} : {})})
  await c.waitForReconciled({namespace: NAMESPACE, service: s.name, expectedEndpoints: expected, ...(s.annotations ? {expectEvent: true} : {})})
}
const snapshot = execFileSync(process.execPath, ['bin/kubectl-topology.js', 'snapshot', '-n', NAMESPACE], {cwd: root, encoding: 'utf8', env: process.env})
writeFileSync(
  `${root}/examples/autoscaling.yaml`,
  `# examples/autoscaling.yaml: a snapshot of a real kube-apiserver/kube-controller-manager v1.36.3\n# taken with \`kubectl topology snapshot -n ${NAMESPACE}\`; regenerate with test/e2e/make-autoscaling-example.ts (see examples/README.md).\n` +
    snapshot,
)
console.error('wrote examples/autoscaling.yaml')
