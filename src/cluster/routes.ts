// Reading what src/dataplane/routes/ needs to tell who routes each request, read-only:
//   * Deployments of the control planes and controllers, cluster-wide, by the labels their
//     charts set (istiod: app=istiod; linkerd-destination: linkerd.io/control-plane-component=destination;
//     ingress-nginx: app.kubernetes.io/name=ingress-nginx; Envoy Gateway: control-plane=envoy-gateway);
//   * the ztunnel DaemonSet (by name: its chart labels the DaemonSet itself app.kubernetes.io/name=ztunnel
//     from 1.24 and with nothing of its own before);
//   * Namespaces (injection and ambient labels, annotations);
//   * Pods carrying a mesh's proxy, by label, only when that mesh was found;
//   * Ingresses and IngressClasses; GatewayClasses, Gateways, HTTPRoutes, GRPCRoutes
//     (gateway.networking.k8s.io/v1; an API not installed reads as empty).
// A refusal (403) is never a failure: one warning names the missing permissions and the list
// stays unread (the model then says what it cannot know). 401 or no answer is the command's
// error, as everywhere; any other failure becomes a warning.

import type {RoutesObjects} from '../dataplane/routes/types.js'
import {trimRoutes} from '../dataplane/routes/trim.js'
import {ISTIO_SIDECAR_LABEL, LINKERD_PROXY_LABEL} from '../dataplane/routes/routes.js'
import {errorContext, forEachPage} from './client.js'
import {apiStatusCode, toCliError} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {clean, LIST_PAGE_SIZE} from './live.js'

type Obj = Record<string, unknown>

/** Label selectors of the Deployments read (one list each). */
export const CONTROL_PLANE_SELECTORS = [
  'app=istiod',
  'linkerd.io/control-plane-component=destination',
  'app.kubernetes.io/name=ingress-nginx',
  'control-plane=envoy-gateway',
] as const

/** The one warning refused reads give; `missing` are "verb resource" strings. */
export function routesForbiddenWarning(missing: string[]): string {
  return `cannot read the meshes and gateways (missing permission: ${missing.join(', ')}); client paths through them are reported as unknown where they could not be read`
}

export async function readRoutesObjects(ctx: KubeContext): Promise<RoutesObjects & {requests: number}> {
  const k8s = await import('./k8s.js')
  const custom = ctx.kc.makeApiClient(k8s.CustomObjectsApi)
  const core = ctx.kc.makeApiClient(k8s.CoreV1Api)
  const o = ctx.apiOptions
  const start = ctx.stats.requests
  const errCtx = errorContext(ctx)
  const missing: string[] = []
  const other: string[] = []

  /** A list: its items, [] when the API is not served (404), undefined when refused or failed. */
  const list = async (what: string, permission: string, page: (cont: string | undefined) => Promise<{items: unknown[]; continue?: string}>): Promise<Obj[] | undefined> => {
    const out: Obj[] = []
    try {
      await forEachPage(
        async (cont) => {
          const p = await page(cont)
          return {items: p.items, resourceVersion: '', ...(p.continue ? {continue: p.continue} : {})}
        },
        (p) => {
          for (const x of p.items) out.push(clean(x) as Obj)
        },
        undefined,
        what,
      )
      return out
    } catch (e) {
      const code = apiStatusCode(e)
      if (code === 404) return []
      if (code === 403) {
        if (!missing.includes(permission)) missing.push(permission)
        return undefined
      }
      const err = toCliError(e, what, errCtx)
      if (code === 401 || code === undefined) throw err
      other.push(`cannot ${what}: ${err.message}; client paths through meshes and gateways may be reported as unknown`)
      return undefined
    }
  }
  const listCustom = (group: string, version: string, plural: string, kind: string, labelSelector?: string, fieldSelector?: string) =>
    list(`list ${plural}.${group}${labelSelector ? ` (${labelSelector})` : ''}`, `list ${plural}.${group}`, async (cont) => {
      const r = (await custom.listClusterCustomObject(
        {group, version, plural, limit: LIST_PAGE_SIZE, ...(cont ? {_continue: cont} : {}), ...(labelSelector ? {labelSelector} : {}), ...(fieldSelector ? {fieldSelector} : {})},
        o,
      )) as Obj
      const items = ((r.items as Obj[] | undefined) ?? []).map((x) => ({apiVersion: `${group}/${version}`, kind, ...x}))
      const meta = r.metadata as {continue?: string} | undefined
      return {items, ...(meta?.continue ? {continue: meta.continue} : {})}
    })
  const serialize = (x: unknown, type: string, kind: string) => ({apiVersion: 'v1', kind, ...(clean(k8s.ObjectSerializer.serialize(x, type, '')) as Obj)})
  const listPods = (labelSelector: string) =>
    list(`list pods (${labelSelector})`, 'list pods', async (cont) => {
      const p = await core.listPodForAllNamespaces({labelSelector, limit: LIST_PAGE_SIZE, ...(cont ? {_continue: cont} : {})}, o)
      // Metadata only: which Pods carry a proxy, nothing else of them is kept.
      const items = p.items.map((x) => {
        const m = serialize(x, 'V1Pod', 'Pod') as {metadata?: Obj}
        const meta = m.metadata ?? {}
        return {apiVersion: 'v1', kind: 'Pod', metadata: {name: meta.name, namespace: meta.namespace, ...(meta.labels ? {labels: meta.labels} : {})}}
      })
      return {items, ...(p.metadata?._continue ? {continue: p.metadata._continue} : {})}
    })

  const [deploymentLists, daemonSets, namespaces, ingresses, ingressClasses, gatewayClasses, gateways, httpRoutes, grpcRoutes] = await Promise.all([
    Promise.all(CONTROL_PLANE_SELECTORS.map((sel) => listCustom('apps', 'v1', 'deployments', 'Deployment', sel))),
    listCustom('apps', 'v1', 'daemonsets', 'DaemonSet', undefined, 'metadata.name=ztunnel'),
    list('list namespaces', 'list namespaces', async (cont) => {
      const p = await core.listNamespace({limit: LIST_PAGE_SIZE, ...(cont ? {_continue: cont} : {})}, o)
      return {items: p.items.map((x) => serialize(x, 'V1Namespace', 'Namespace')), ...(p.metadata?._continue ? {continue: p.metadata._continue} : {})}
    }),
    listCustom('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
    listCustom('networking.k8s.io', 'v1', 'ingressclasses', 'IngressClass'),
    listCustom('gateway.networking.k8s.io', 'v1', 'gatewayclasses', 'GatewayClass'),
    listCustom('gateway.networking.k8s.io', 'v1', 'gateways', 'Gateway'),
    listCustom('gateway.networking.k8s.io', 'v1', 'httproutes', 'HTTPRoute'),
    listCustom('gateway.networking.k8s.io', 'v1', 'grpcroutes', 'GRPCRoute'),
  ])
  const read: RoutesObjects = {}
  if (deploymentLists.every((l) => l !== undefined)) read.deployments = deploymentLists.flat() as unknown as RoutesObjects['deployments']
  else if (deploymentLists.some((l) => l !== undefined)) read.deployments = deploymentLists.flatMap((l) => l ?? []) as unknown as RoutesObjects['deployments']
  const set = <K extends keyof RoutesObjects>(k: K, v: Obj[] | undefined) => {
    if (v !== undefined) read[k] = v as unknown as RoutesObjects[K]
  }
  set('daemonSets', daemonSets)
  set('namespaces', namespaces)
  set('ingresses', ingresses)
  set('ingressClasses', ingressClasses)
  set('gatewayClasses', gatewayClasses)
  set('gateways', gateways)
  set('httpRoutes', httpRoutes)
  set('grpcRoutes', grpcRoutes)

  // Pods with a proxy: only for the meshes found (a mesh not installed has none).
  const deps = read.deployments ?? []
  const selectors: string[] = []
  if (deps.some((d) => /^istiod/.test(d.metadata.name))) selectors.push(`${ISTIO_SIDECAR_LABEL}=istio`, 'istio.io/dataplane-mode=ambient')
  if (deps.some((d) => d.metadata.name === 'linkerd-destination')) selectors.push(LINKERD_PROXY_LABEL)
  if (selectors.length > 0) {
    const pods = await Promise.all(selectors.map(listPods))
    if (pods.every((p) => p !== undefined)) read.pods = pods.flat() as unknown as RoutesObjects['pods']
  }

  missing.sort()
  const warnings = [...(missing.length > 0 ? [routesForbiddenWarning(missing)] : []), ...other]
  if (warnings.length > 0) read.warnings = warnings
  return {...trimRoutes(read), requests: ctx.stats.requests - start}
}
