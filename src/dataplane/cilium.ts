// Cilium's facts for data plane detection (detect.ts): its version, kube-proxy replacement and
// service topology settings from the agent DaemonSet and cilium-config, its messages, and which
// Services it treats as topology-aware. Pure. docs/dataplane.md has the rules and their sources.

import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE} from '../upstream/api/types.js'
import {boolish, dsVersion, findConfigMap, ref, versionAtLeast} from './objects.js'
import type {ConfigMap, DaemonSet, Tristate} from './types.js'

export const CILIUM_NO_TOPOLOGY = "hints are set, but Cilium's kube-proxy replacement runs without service topology: every node routes to all endpoints"
export const CILIUM_BESIDE_KUBE_PROXY =
  'hints are set and kube-proxy honours them, but Cilium load-balances pod traffic to ClusterIPs itself (at the socket or at the pod) without service topology: pods on every node reach all endpoints; only host-network clients follow the hints'
export const CILIUM_NO_TOPOLOGY_NO_KPR = 'hints are set, but Cilium load-balances ClusterIPs without service topology: every node routes to all endpoints'
export const CILIUM_FIX = 'set the Helm value loadBalancer.serviceTopology=true (cilium-config key enable-service-topology: "true") and restart the cilium agents'
export const CILIUM_SEMANTICS =
  'Cilium uses zone hints only for Services with the topology-mode (or topology-aware-hints) annotation or trafficDistribution: PreferClose; it ignores node hints'
export const CILIUM_SEMANTICS_120 =
  "Cilium uses zone hints only for Services with the topology-mode (or topology-aware-hints) annotation or trafficDistribution PreferClose/PreferSameZone; for PreferSameNode it keeps the endpoints on the client's node (by nodeName, not node hints), else all"
export const CILIUM_1180_NO_SAFEGUARDS =
  "Cilium 1.18.0 applies zone hints backend by backend without kube-proxy's safeguards: a backend without hints is kept, and a zone with no backend hinted for it gets none (fixed in 1.18.1, cilium/cilium#41116)"
export const CILIUM_1180_FIX = 'upgrade Cilium to 1.18.1 or later'

/** "true"/"strict" -> "true"; "false"/"disabled" -> "false"; "partial"/"probe" kept (Cilium <= 1.13). */
export function normalizeKubeProxyReplacement(v: string | undefined): 'true' | 'false' | 'partial' | 'probe' | undefined {
  switch ((v ?? '').trim().toLowerCase()) {
    case 'true':
    case 'strict':
      return 'true'
    case 'false':
    case 'disabled':
      return 'false'
    case 'partial':
      return 'partial'
    case 'probe':
      return 'probe'
    default:
      return undefined
  }
}

interface CiliumFacts {
  version?: string
  settings: Record<string, string>
  evidence: string[]
  serviceTopology: boolean
  kpr: 'true' | 'false' | 'partial' | 'probe' | undefined
  socketLB: boolean | undefined
  honoursZoneHints: Tristate
  warnings: string[]
}

export function inspectCilium(ds: DaemonSet, configMaps: readonly ConfigMap[] | undefined): CiliumFacts {
  const {version, semver, image} = dsVersion(ds, 'cilium-agent')
  const evidence = [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`]
  const warnings: string[] = []
  const cm = configMaps ? findConfigMap(configMaps, 'cilium-config', ds.metadata.namespace ?? '') : undefined
  const data = cm?.data ?? {}
  const settings: Record<string, string> = {}
  // Keys as install/kubernetes/cilium/templates/cilium-configmap.yaml writes them; the agent
  // flags of the same names are pkg/option/config.go KubeProxyReplacement, EnableServiceTopology
  // (pkg/loadbalancer/config.go UserConfig in 1.18+), and the socket-LB options.
  for (const k of ['kube-proxy-replacement', 'enable-service-topology', 'bpf-lb-sock', 'bpf-lb-sock-hostns-only', 'enable-host-reachable-services', 'cni-chaining-mode']) {
    if (data[k] !== undefined) settings[k] = data[k]!
  }
  if (cm) {
    evidence.push(
      `${ref(cm, 'ConfigMap')}: ${['kube-proxy-replacement', 'enable-service-topology', 'bpf-lb-sock', 'bpf-lb-sock-hostns-only'].map((k) => `${k}=${data[k] === undefined ? '(unset)' : JSON.stringify(data[k])}`).join(', ')}`,
    )
  } else {
    evidence.push(`ConfigMap ${ds.metadata.namespace ?? ''}/cilium-config not found: Cilium's defaults assumed (no service topology)`)
  }
  const serviceTopology = boolish(data['enable-service-topology']) ?? false
  if (settings['enable-service-topology'] === undefined) settings['enable-service-topology'] = 'false (default)'
  const kpr = normalizeKubeProxyReplacement(data['kube-proxy-replacement'])
  // The agent turns socket LB on with the kube-proxy replacement unless bpf-lb-sock says
  // otherwise (daemon/cmd/kube_proxy_replacement.go); bpf-lb-sock-hostns-only limits it to
  // the host namespace, pods then go per packet through bpf_lxc, still Cilium.
  const sock = boolish(data['bpf-lb-sock']) ?? boolish(data['enable-host-reachable-services'])
  const socketLB = sock ?? (kpr === 'true' ? true : kpr === undefined ? undefined : false)
  // Service topology arrived in Cilium 1.11 (cilium/cilium#17929).
  let zone: Tristate = serviceTopology
  if (serviceTopology && semver !== undefined && !versionAtLeast(semver, 1, 11)) zone = false
  return {
    ...(version !== undefined ? {version} : {}),
    settings,
    evidence,
    serviceTopology,
    kpr,
    socketLB,
    honoursZoneHints: zone,
    warnings,
  }
}

/** For the Cilium selection rule: does Cilium treat this Service as topology-aware? */
export function ciliumTopologyAware(annotations: Record<string, string> | undefined, trafficDistribution: string | undefined, preferSameZoneAlias = false): boolean {
  // pkg/loadbalancer/reflectors (k8s.go) isTopologyAware / getAnnotationTopologyAwareHints: the
  // deprecated annotation has precedence over topology-mode; any value but "", "disabled",
  // "Disabled" counts; or spec.trafficDistribution == PreferClose.
  const a = annotations ?? {}
  const value = Object.hasOwn(a, ANNOTATION_TOPOLOGY_AWARE_HINTS) ? a[ANNOTATION_TOPOLOGY_AWARE_HINTS]! : (a[ANNOTATION_TOPOLOGY_MODE] ?? '')
  return (
    !(value === '' || value === 'disabled' || value === 'Disabled') || trafficDistribution === 'PreferClose' || (preferSameZoneAlias && trafficDistribution === 'PreferSameZone')
  )
}
