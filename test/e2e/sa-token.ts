// A ServiceAccount's token (TokenRequest) for the admin context's server, alone in a kubeconfig:
// what a Pod of that ServiceAccount would hold. Shared by serve-rbac.test.ts (the RBAC
// of deploy/kubernetes/rbac.yaml is enough and no more) and serve-deploy.test.ts (the
// Deployment's ServiceAccount runs serve with the Deployment's arguments).
import {readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {CoreV1Api} from '@kubernetes/client-node'
import {kubeConfig} from './fixtures.js'

/** A token of the ServiceAccount (TokenRequest, one hour), and the server and CA (base64 PEM) it is for. */
export async function serviceAccountToken(sa: {namespace: string; name: string}): Promise<{token: string; server: string; caData?: string; skipTLSVerify: boolean}> {
  const admin = kubeConfig('admin')
  const core = admin.makeApiClient(CoreV1Api)
  const tr = await core.createNamespacedServiceAccountToken({...sa, body: {spec: {expirationSeconds: 3600, audiences: []}}})
  const cluster = admin.getCurrentCluster()!
  const caData = cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined)
  const token = tr.status?.token
  if (!token) throw new Error(`TokenRequest for ${sa.namespace}/${sa.name} returned no token`)
  return {token, server: cluster.server, ...(caData ? {caData} : {}), skipTLSVerify: cluster.skipTLSVerify === true}
}

export async function serviceAccountKubeconfig(sa: {namespace: string; name: string}, dir: string): Promise<string> {
  const {token, server, caData, skipTLSVerify} = await serviceAccountToken(sa)
  const file = path.join(dir, `kubeconfig-${sa.namespace}-${sa.name}`)
  writeFileSync(
    file,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'sa',
      clusters: [{name: 'c', cluster: {server, ...(caData ? {'certificate-authority-data': caData} : {}), ...(skipTLSVerify ? {'insecure-skip-tls-verify': true} : {})}}],
      contexts: [{name: 'sa', context: {cluster: 'c', user: 'sa'}}],
      users: [{name: 'sa', user: {token}}],
    }),
  )
  return file
}
