// A kubeconfig with nothing but a ServiceAccount's token (TokenRequest) for the admin context's
// server: what a Pod of that ServiceAccount would hold. Shared by serve-rbac.test.ts (the RBAC
// of deploy/kubernetes/rbac.yaml is enough and no more) and serve-deploy.test.ts (the
// Deployment's ServiceAccount runs serve with the Deployment's arguments).
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {CoreV1Api} from '@kubernetes/client-node'
import {kubeConfig} from './fixtures.js'

export async function serviceAccountKubeconfig(sa: {namespace: string; name: string}, dir: string): Promise<string> {
  const admin = kubeConfig('admin')
  const core = admin.makeApiClient(CoreV1Api)
  const tr = await core.createNamespacedServiceAccountToken({...sa, body: {spec: {expirationSeconds: 3600, audiences: []}}})
  const cluster = admin.getCurrentCluster()!
  const file = path.join(dir, `kubeconfig-${sa.namespace}-${sa.name}`)
  const caData = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined)
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'sa',
      clusters: [
        {
          name: 'c',
          cluster: {server: cluster.server, ...(caData ? {'certificate-authority-data': caData} : {}), ...(cluster.skipTLSVerify ? {'insecure-skip-tls-verify': true} : {})},
        },
      ],
      contexts: [{name: 'sa', context: {cluster: 'c', user: 'sa'}}],
      users: [{name: 'sa', user: {token: tr.status!.token}}],
    }),
  )
  return file
}
