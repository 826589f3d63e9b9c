// Which kube-proxy version runs on each node (issue 22: version skew inside one cluster). Pure.
//
// During a node-pool or DaemonSet upgrade different nodes run different kube-proxy minors, and
// kube-proxy may lag the API server by up to three minors (Kubernetes version skew policy,
// kubernetes/website content/en/releases/version-skew-policy.md "kube-proxy"). The rules that
// differ by minor are those of upstream/features.ts (kube-proxy's pkg/proxy/topology.go per
// release): before 1.31 hints are used only for an annotated Service on a node with a zone label
// (v1.30 topology.go canUseTopology, ServiceTrafficDistribution off by default); node hints
// (forNodes, PreferSameNode) only from 1.34 (PreferSameTrafficDistribution alpha and off in
// 1.33, beta and on in 1.34: pkg/features/kube_features.go; v1.33 topology.go
// topologyModeFromHints and endpointslicecache.go read them only with the gate on).
//
// The version comes from the kube-proxy Pods, never from Node.status.nodeInfo.kubeProxyVersion
// (deprecated and no longer set, KEP-4004): the Pods of the kube-proxy DaemonSet (label
// k8s-app=kube-proxy, as kubeadm's and most distributions' manifests set), and static Pods'
// mirror Pods (annotation kubernetes.io/config.mirror, named kube-proxy-<node> as on GKE, where
// they carry component=kube-proxy), each with its spec.nodeName and the image tag of its
// kube-proxy container. A node with no such Pod gets the DaemonSet template's image.

import {findDaemonSet, imageVersion, mainContainer, parseSemver} from './objects.js'
import type {DaemonSet} from './types.js'
import type {KubeProxyPod, ProxyNodeVersion} from './proxy-nodes-types.js'

export type {KubeProxyPod, ProxyNodeVersion} from './proxy-nodes-types.js'

/** The namespace whose Pods are read. */
export const KUBE_PROXY_NAMESPACE = 'kube-system'
const MIRROR_ANNOTATION = 'kubernetes.io/config.mirror'

/** The Pod is a kube-proxy Pod of a node: 'pod' (DaemonSet) or 'static-pod' (a mirror), else null. */
export function kubeProxyPodKind(pod: KubeProxyPod): 'pod' | 'static-pod' | null {
  if ((pod.metadata.namespace ?? '') !== KUBE_PROXY_NAMESPACE) return null
  const node = pod.spec?.nodeName ?? ''
  if (node === '') return null
  const labels = pod.metadata.labels ?? {}
  const mirror = Object.hasOwn(pod.metadata.annotations ?? {}, MIRROR_ANNOTATION)
  const named = pod.metadata.name === `kube-proxy-${node}`
  if (labels['k8s-app'] !== 'kube-proxy' && labels.component !== 'kube-proxy' && !named) return null
  return mirror ? 'static-pod' : 'pod'
}

/** The kube-proxy container's image: the container named kube-proxy, else the first. */
function podImage(pod: KubeProxyPod): string | null {
  const cs = pod.spec?.containers ?? []
  return (cs.find((c) => c.name === 'kube-proxy') ?? cs[0])?.image ?? null
}

const ended = (pod: KubeProxyPod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed'

/**
 * The kube-proxy version of each node with a kube-proxy Pod (a Pod not being deleted before one
 * that is, then the newest), and of each of `nodeNames` without one: the kube-proxy DaemonSet's
 * image in kube-system (left out without a DaemonSet). Sorted by node name.
 */
export function proxyNodeVersions(pods: readonly KubeProxyPod[], daemonSets: readonly DaemonSet[], nodeNames: Iterable<string> = []): ProxyNodeVersion[] {
  const byNode = new Map<string, {pod: KubeProxyPod; kind: 'pod' | 'static-pod'}>()
  const rank = (p: KubeProxyPod) => [p.metadata.deletionTimestamp ? 0 : 1, p.metadata.creationTimestamp ?? ''] as const
  for (const pod of pods) {
    const kind = kubeProxyPodKind(pod)
    if (kind === null || ended(pod)) continue
    const node = pod.spec!.nodeName!
    const had = byNode.get(node)
    if (had) {
      const [a, b] = [rank(had.pod), rank(pod)]
      if (a[0] > b[0] || (a[0] === b[0] && a[1] >= b[1])) continue
    }
    byNode.set(node, {pod, kind})
  }
  const ds = findDaemonSet(daemonSets, ['kube-proxy'], [KUBE_PROXY_NAMESPACE])
  const dsImage = ds ? (mainContainer(ds, 'kube-proxy')?.image ?? null) : null
  const out: ProxyNodeVersion[] = []
  for (const node of new Set([...byNode.keys(), ...nodeNames])) {
    const found = byNode.get(node)
    if (found) {
      const image = podImage(found.pod)
      out.push({node, version: imageVersion(image ?? undefined) ?? null, image, from: found.kind, object: `Pod ${KUBE_PROXY_NAMESPACE}/${found.pod.metadata.name}`})
    } else if (ds) {
      out.push({node, version: imageVersion(dsImage ?? undefined) ?? null, image: dsImage, from: 'daemonset', object: `DaemonSet ${KUBE_PROXY_NAMESPACE}/${ds.metadata.name}`})
    }
  }
  return out.sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))
}

/** "1.33" of "1.33.13"; null when unknown. */
export function proxyMinor(version: string | null | undefined): string | null {
  const s = parseSemver(version ?? undefined)
  return s ? `${s.major}.${s.minor}` : null
}

/**
 * The rules one kube-proxy minor applies (see the file comment). `gates` are the feature gates
 * the KubeProxyConfiguration or flags set (DataPlane.settings "featureGates.NAME"), shared by
 * every node of the DaemonSet; a gate is only honoured in the minors where it exists unlocked.
 */
export interface ProxyRules {
  /** The minor these rules are of ("1.33"); null: unknown, the cluster-wide rules. */
  minor: string | null
  /** Node hints are read (PreferSameTrafficDistribution on). */
  preferSameGate: boolean
  /** Hints are read only for an annotated Service on a node with a zone label (before 1.31). */
  requireAnnotation: boolean
}

export function proxyRulesFor(version: string | null, settings: Record<string, string>): ProxyRules | null {
  const s = parseSemver(version ?? undefined)
  if (s?.major !== 1) return null
  const gate = (name: string): boolean | undefined => (settings[`featureGates.${name}`] === 'true' ? true : settings[`featureGates.${name}`] === 'false' ? false : undefined)
  // PreferSameTrafficDistribution: absent before 1.33, alpha (off) 1.33, beta (on) 1.34, GA locked 1.35.
  const preferSameGate = s.minor < 33 ? false : s.minor >= 35 ? true : (gate('PreferSameTrafficDistribution') ?? s.minor >= 34)
  // ServiceTrafficDistribution: absent before 1.30, alpha (off) 1.30, beta (on) 1.31; with it on, the annotation is not read.
  const requireAnnotation = s.minor < 30 ? true : s.minor >= 31 ? false : !(gate('ServiceTrafficDistribution') ?? false)
  return {minor: `${s.major}.${s.minor}`, preferSameGate, requireAnnotation}
}
