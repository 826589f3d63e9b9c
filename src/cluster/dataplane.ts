// Reading what src/dataplane/detect.ts needs to name the data plane, read-only:
//   * DaemonSets in kube-system, in calico-system (tigera operator installs) and in
//     ovn-kubernetes (its helm chart and manifests); a refusal in ovn-kubernetes is reported only
//     when no data plane was found elsewhere (it cannot change the answer otherwise);
//   * the ConfigMaps kube-proxy, kube-proxy-config, cilium-config, antrea-config in kube-system
//     (one GET each, only those whose DaemonSet was found);
//   * for Calico without FELIX_BPFENABLED on calico-node: FelixConfiguration "default"
//     (crd.projectcalico.org/v1, else projectcalico.org/v3) and Installation "default"
//     (operator.tigera.io/v1), cluster-scoped custom objects;
//   * for kube-ovn (DaemonSet kube-ovn-cni): Deployment kube-ovn-controller in its namespace
//     (one GET), whose --enable-lb decides who load-balances Services;
//   * the Pods in kube-system, of which the kube-proxy ones (DaemonSet Pods, static mirror Pods)
//     give each node's kube-proxy version (src/dataplane/proxy-nodes.ts; issue 22).
// A refusal (403) is never a failure: it becomes one warning naming the missing permissions,
// and detection answers "unknown" (or assumes defaults for an unreadable ConfigMap). 401 is the
// command's error, as everywhere. Other failures of these auxiliary reads become warnings too.

import {detectDataPlane} from '../dataplane/detect.js'
import {KNOWN_DATA_PLANE_DAEMONSETS} from '../dataplane/detect.js'
import {KUBE_OVN_CONTROLLER, KUBE_OVN_DAEMONSETS} from '../dataplane/ovn.js'
import {KUBE_PROXY_NAMESPACE, kubeProxyPodKind, proxyNodeVersions, type KubeProxyPod} from '../dataplane/proxy-nodes.js'
import type {CalicoInstallation, ConfigMap, DaemonSet, DataPlane, DataPlaneObjects, Deployment, FelixConfiguration} from '../dataplane/types.js'
import {apiStatusCode, toCliError} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {errorContext, forEachPage} from './client.js'
import {clean, LIST_PAGE_SIZE} from './live.js'

export interface DataPlaneRead extends Required<Pick<DataPlaneObjects, 'daemonSets' | 'configMaps'>> {
  /** kube-ovn-controller, read only when kube-ovn-cni was found; undefined = not read. */
  deployments?: Deployment[]
  /** Read only when calico-node was found without FELIX_BPFENABLED; undefined = not read. */
  installations?: CalicoInstallation[]
  felixConfigurations?: FelixConfiguration[]
  /** The kube-proxy Pods in kube-system; undefined when they could not be read. */
  kubeProxyPods?: KubeProxyPod[]
  /** At most one RBAC warning, plus one per other failed read. */
  warnings: string[]
  /** HTTP requests this call sent. */
  requests: number
}

/** The namespaces whose DaemonSets are listed. */
export const DATA_PLANE_NAMESPACES = ['kube-system', 'calico-system', 'ovn-kubernetes'] as const

/** Namespaces whose refusal is reported only when no data plane DaemonSet was found elsewhere. */
const OPTIONAL_NAMESPACES: readonly string[] = ['ovn-kubernetes']

/** ConfigMaps read (GET) in the namespace of the DaemonSet that uses them. */
const CONFIG_MAPS: Record<string, string[]> = {
  'kube-proxy': ['kube-proxy', 'kube-proxy-config'],
  cilium: ['cilium-config'],
  'antrea-agent': ['antrea-config'],
}

/** The one warning a refused read gives; `missing` are "verb resource" strings. */
export function dataPlaneForbiddenWarning(missing: string[]): string {
  return `cannot read the data plane's configuration (missing permission: ${missing.join(', ')}); whether nodes honour hints is reported as unknown where it could not be read (name it with --data-plane)`
}

type Obj = Record<string, unknown>

export async function readDataPlaneObjects(ctx: KubeContext): Promise<DataPlaneRead> {
  const k8s = await import('./k8s.js')
  const core = ctx.kc.makeApiClient(k8s.CoreV1Api)
  const apps = ctx.kc.makeApiClient(k8s.AppsV1Api)
  const custom = ctx.kc.makeApiClient(k8s.CustomObjectsApi)
  const o = ctx.apiOptions
  const start = ctx.stats.requests
  const errCtx = errorContext(ctx)
  const missing: string[] = []
  const other: string[] = []
  const serialize = <T>(obj: unknown, type: string, apiVersion: string, kind: string): T =>
    ({apiVersion, kind, ...(clean(k8s.ObjectSerializer.serialize(obj, type, '')) as Obj)}) as T

  /** 403 -> missing permission, 404 -> absent, 401 or no HTTP answer -> thrown, any other status -> a warning. */
  const attempt = async <T>(what: string, permission: string, f: () => Promise<T>): Promise<{ok: true; v: T} | {ok: false; absent: boolean}> => {
    try {
      return {ok: true, v: await f()}
    } catch (e) {
      const code = apiStatusCode(e)
      if (code === 403) {
        if (!missing.includes(permission)) missing.push(permission)
        return {ok: false, absent: false}
      }
      if (code === 404) return {ok: false, absent: true}
      const err = toCliError(e, what, errCtx)
      // Unauthenticated, or no answer at all (unreachable, timed out): the command's error, as for
      // every read; only answers about these objects (403, 404, 5xx) degrade to a warning.
      if (code === 401 || code === undefined) throw err
      other.push(`cannot ${what}: ${err.message}; the data plane may be reported as unknown`)
      return {ok: false, absent: false}
    }
  }
  const guard = async <T>(what: string, permission: string, f: () => Promise<T>): Promise<T | undefined> => {
    const r = await attempt(what, permission, f)
    return r.ok ? r.v : undefined
  }

  const listDaemonSets = async (namespace: string): Promise<DaemonSet[]> => {
    const out: DaemonSet[] = []
    const page = async (cont: string | undefined) => {
      const p = await apps.listNamespacedDaemonSet({namespace, limit: LIST_PAGE_SIZE, _continue: cont}, o)
      return {items: p.items, resourceVersion: '', ...(p.metadata?._continue ? {continue: p.metadata._continue} : {})}
    }
    await forEachPage(
      page,
      (p) => {
        // One push per item: a page is as long as the server makes it (200,000 items overflow a spread call).
        for (const d of p.items) out.push(serialize<DaemonSet>(d, 'V1DaemonSet', 'apps/v1', 'DaemonSet'))
      },
      undefined,
      `list daemonsets in namespace "${namespace}"`,
    )
    return out
  }

  // The kube-proxy Pods: every Pod of kube-system is listed (static mirror Pods need not carry
  // the DaemonSet's label), only the kube-proxy ones are kept, with the fields read.
  const listKubeProxyPods = async (): Promise<KubeProxyPod[]> => {
    const out: KubeProxyPod[] = []
    const page = async (cont: string | undefined) => {
      const p = await core.listNamespacedPod({namespace: KUBE_PROXY_NAMESPACE, limit: LIST_PAGE_SIZE, _continue: cont}, o)
      return {items: p.items, resourceVersion: '', ...(p.metadata?._continue ? {continue: p.metadata._continue} : {})}
    }
    await forEachPage(
      page,
      (p) => {
        for (const pod of p.items) {
          const m = pod.metadata
          const kept: KubeProxyPod = {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              name: m?.name ?? '',
              namespace: m?.namespace ?? KUBE_PROXY_NAMESPACE,
              ...(m?.labels ? {labels: m.labels} : {}),
              ...(m?.annotations ? {annotations: m.annotations} : {}),
              ...(m?.creationTimestamp ? {creationTimestamp: new Date(m.creationTimestamp).toISOString()} : {}),
              ...(m?.deletionTimestamp ? {deletionTimestamp: new Date(m.deletionTimestamp).toISOString()} : {}),
            },
            spec: {
              ...(pod.spec?.nodeName ? {nodeName: pod.spec.nodeName} : {}),
              containers: (pod.spec?.containers ?? []).map((c) => ({name: c.name, ...(c.image ? {image: c.image} : {})})),
            },
            ...(pod.status?.phase ? {status: {phase: pod.status.phase}} : {}),
          }
          if (kubeProxyPodKind(kept) !== null) out.push(kept)
        }
      },
      undefined,
      `list pods in namespace "${KUBE_PROXY_NAMESPACE}"`,
    )
    return out
  }

  const [lists, kubeProxyPods] = await Promise.all([
    Promise.all(DATA_PLANE_NAMESPACES.map((ns) => guard(`list daemonsets in namespace "${ns}"`, `list daemonsets.apps in ${ns}`, () => listDaemonSets(ns)))),
    guard(`list pods in namespace "${KUBE_PROXY_NAMESPACE}"`, `list pods in ${KUBE_PROXY_NAMESPACE}`, listKubeProxyPods),
  ])
  const daemonSets = lists.flatMap((l) => l ?? [])
  // ovn-kubernetes' own namespace: a refusal there cannot change an answer already found elsewhere.
  if (daemonSets.some((d) => KNOWN_DATA_PLANE_DAEMONSETS.includes(d.metadata.name))) {
    for (const ns of OPTIONAL_NAMESPACES) {
      const i = missing.indexOf(`list daemonsets.apps in ${ns}`)
      if (i >= 0) missing.splice(i, 1)
    }
  }

  // The ConfigMaps of the DaemonSets found, in their namespaces.
  const wanted: {ns: string; name: string}[] = []
  for (const ds of daemonSets) {
    for (const name of CONFIG_MAPS[ds.metadata.name] ?? []) wanted.push({ns: ds.metadata.namespace ?? 'kube-system', name})
  }
  const got = await Promise.all(
    wanted.map(({ns, name}) =>
      guard(`get configmaps "${name}" in namespace "${ns}"`, `get configmaps in ${ns}`, async () =>
        serialize<ConfigMap>(await core.readNamespacedConfigMap({name, namespace: ns}, o), 'V1ConfigMap', 'v1', 'ConfigMap'),
      ),
    ),
  )
  const configMaps = got.filter((c): c is ConfigMap => c !== undefined)

  const read: DataPlaneRead = {daemonSets, configMaps, warnings: [], requests: 0}
  if (kubeProxyPods !== undefined) read.kubeProxyPods = kubeProxyPods

  // Calico: the mode is on the DaemonSet (manifest installs) or in the custom resources (operator).
  const calico = daemonSets.find((d) => d.metadata.name === 'calico-node')
  const calicoEnv = calico?.spec?.template?.spec?.containers?.find((c) => c.name === 'calico-node')?.env ?? []
  if (calico && !calicoEnv.some((e) => e.name === 'FELIX_BPFENABLED' && e.value !== undefined)) {
    const getCustom = (group: string, version: string, plural: string, name: string) =>
      attempt(`get ${plural}.${group} "${name}"`, `get ${plural}.${group}`, async () => (await custom.getClusterCustomObject({group, version, plural, name}, o)) as Obj)
    const [felixV1, install] = await Promise.all([
      getCustom('crd.projectcalico.org', 'v1', 'felixconfigurations', 'default'),
      getCustom('operator.tigera.io', 'v1', 'installations', 'default'),
    ])
    // The projectcalico.org/v3 CRDs (Calico 3.32 native v3 API) when the v1 ones do not exist.
    const felix = felixV1.ok || !felixV1.absent ? felixV1 : await getCustom('projectcalico.org', 'v3', 'felixconfigurations', 'default')
    // Known absent (404) counts as read; refused or failed leaves the field unset ("not read").
    if (felix.ok) read.felixConfigurations = [clean(felix.v) as FelixConfiguration]
    else if (felix.absent) read.felixConfigurations = []
    if (install.ok) read.installations = [clean(install.v) as CalicoInstallation]
    else if (install.absent) read.installations = []
  }

  // kube-ovn: --enable-lb is a flag of the kube-ovn-controller Deployment.
  const kubeOvn = daemonSets.find((d) => (KUBE_OVN_DAEMONSETS as readonly string[]).includes(d.metadata.name))
  if (kubeOvn) {
    const namespace = kubeOvn.metadata.namespace ?? 'kube-system'
    const got = await attempt(`get deployments.apps "${KUBE_OVN_CONTROLLER}" in namespace "${namespace}"`, `get deployments.apps in ${namespace}`, async () =>
      serialize<Deployment>(await apps.readNamespacedDeployment({name: KUBE_OVN_CONTROLLER, namespace}, o), 'V1Deployment', 'apps/v1', 'Deployment'),
    )
    if (got.ok) read.deployments = [got.v]
    else if (got.absent) read.deployments = []
  }

  // The reads run in parallel: name the permissions in a fixed order (kube-system first), not in the order the refusals came back.
  const rank = (p: string) => (p.endsWith(' in kube-system') ? 0 : p.includes(' in ') ? 1 : 2)
  missing.sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
  if (missing.length > 0) read.warnings.push(dataPlaneForbiddenWarning(missing))
  read.warnings.push(...other)
  read.requests = ctx.stats.requests - start
  return read
}

/** readDataPlaneObjects, then detectDataPlane on what was read (source 'detected'). */
export async function detectLiveDataPlane(ctx: KubeContext): Promise<DataPlane> {
  const read = await readDataPlaneObjects(ctx)
  return withProxyNodes(detectDataPlane(read, {source: 'detected', warnings: read.warnings}), read)
}

/**
 * Each node's kube-proxy version, from its Pod (proxy-nodes.ts), on a kube-proxy answer; and on
 * an unknown one when kube-proxy Pods were found (static Pods without a DaemonSet, as on GKE:
 * the figures already assume kube-proxy's rules). Nodes without a Pod keep the DaemonSet's version.
 */
export function withProxyNodes(plane: DataPlane, read: Pick<DataPlaneRead, 'kubeProxyPods' | 'daemonSets'>): DataPlane {
  if (read.kubeProxyPods === undefined) return plane
  if (plane.name !== 'kube-proxy' && !(plane.name === 'unknown' && read.kubeProxyPods.length > 0)) return plane
  return {...plane, proxyNodes: proxyNodeVersions(read.kubeProxyPods, read.daemonSets)}
}
