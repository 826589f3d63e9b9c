// Regenerates examples/three-zones.yaml and examples/unlabeled-node.yaml from the real
// control plane (every hint in them was written by the real EndpointSlice controller, except
// the one edit described in examples/README.md).
//   CLUSTER_INSTANCE=example node scripts/cluster.mjs up
//   eval "$(CLUSTER_INSTANCE=example node scripts/cluster.mjs env)"
//   npm run build && CLUSTER_INSTANCE=example node scripts/run-ts.mjs test/e2e/make-example.ts
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {cluster} from './fixtures.js'
import {buildExample, controller, makeDrift} from './example-build.js'
import {NAMESPACE, UNLABELED_NODE} from './example-scenario.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const snapshot = () => execFileSync(process.execPath, ['bin/kubectl-topology.js', 'snapshot', '-A'], {cwd: root, encoding: 'utf8', env: process.env})

const c = cluster()
await c.core.createNamespace({body: {metadata: {name: NAMESPACE}}}).catch((e: unknown) => {
  if (!String(e).includes('409') && !String((e as {code?: number}).code).includes('409')) throw e
})
await buildExample(c, NAMESPACE)
controller('pause')
try {
  await makeDrift(c, NAMESPACE)
  writeFileSync(`${root}/examples/three-zones.yaml`, header('three-zones') + snapshot())
} finally {
  controller('resume')
}
await c.createNode(UNLABELED_NODE)
// The controller reacts to the new node: every Service with hints is requeued and loses them.
await c.waitForReconciled({
  namespace: NAMESPACE,
  service: 'checkout',
  expectedEndpoints: (await c.listEndpointSlices(NAMESPACE, 'checkout')).flatMap((s) => (s.endpoints ?? []).map((e) => ({ip: e.addresses[0]!, ready: true}))),
  until: (r) => r.endpoints.every((e) => e.hints === null),
})
writeFileSync(`${root}/examples/unlabeled-node.yaml`, header('unlabeled-node') + snapshot())
console.error('wrote examples/three-zones.yaml and examples/unlabeled-node.yaml')

function header(name: string): string {
  return `# examples/${name}.yaml: a snapshot of a real kube-apiserver/kube-controller-manager v1.36.3\n# taken with \`kubectl topology snapshot -A\`; regenerate with test/e2e/make-example.ts (see examples/README.md).\n`
}
