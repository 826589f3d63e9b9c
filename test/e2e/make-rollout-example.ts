// Regenerates examples/rollouts.yaml from the real control plane: the example cluster's nodes,
// and in namespace `shop` the Services, Pods, Deployments and StatefulSet of
// test/e2e/rollout-scenario.ts (every hint written by the real EndpointSlice controller).
//   CLUSTER_INSTANCE=example node scripts/cluster.mjs up
//   eval "$(CLUSTER_INSTANCE=example node scripts/cluster.mjs env)"
//   npm run build && CLUSTER_INSTANCE=example npx node scripts/run-ts.mjs test/e2e/make-rollout-example.ts
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {cluster} from './fixtures.js'
import {NAMESPACE, NODES} from './example-scenario.js'
import {buildRolloutScenario} from './rollout-scenario.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const c = cluster()
await c.core.createNamespace({body: {metadata: {name: NAMESPACE}}}).catch((e: unknown) => {
  if (!String(e).includes('409') && !String((e as {code?: number}).code).includes('409')) throw e
})
await c.deleteAllNodes()
for (const n of NODES) await c.createNode(n)
await buildRolloutScenario(c, NAMESPACE)
const snapshot = execFileSync(process.execPath, ['bin/kubectl-topology.js', 'snapshot', '-n', NAMESPACE], {cwd: root, encoding: 'utf8', env: process.env})
writeFileSync(
  `${root}/examples/rollouts.yaml`,
  `# examples/rollouts.yaml: a snapshot of a real kube-apiserver/kube-controller-manager v1.36.3\n# taken with \`kubectl topology snapshot -n ${NAMESPACE}\`; regenerate with test/e2e/make-rollout-example.ts (see examples/README.md).\n` +
    snapshot,
)
console.error('wrote examples/rollouts.yaml')
