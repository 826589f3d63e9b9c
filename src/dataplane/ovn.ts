// The two OVN-based node data planes: ovn-kubernetes and kube-ovn. Both load-balance pod traffic
// to ClusterIPs in OVN (a load balancer on each node's logical switch), before any kube-proxy
// rule sees the packet. Pure: reads the DaemonSets (and kube-ovn-controller's Deployment) a live
// read or a snapshot gives. docs/dataplane.md has the rules and their sources.
//
// ovn-kubernetes (ovn-kubernetes/ovn-kubernetes, formerly ovn-org/ovn-kubernetes):
//   go-controller/pkg/ovn/controller/services/lb_config.go buildServiceLBConfigs builds the
//   cluster-wide and per-node load balancers from util.GetEndpointsForService
//   (go-controller/pkg/util/util.go), which reads addresses, ports, readiness and nodeName, never
//   `hints` nor `spec.trafficDistribution` (read at 8871cd9c, 2026-08-21, after v1.3.0). Only
//   internalTrafficPolicy/externalTrafficPolicy Local narrow the endpoints. Topology-aware hints
//   were proposed in ovn-org/ovn-kubernetes#3165 (2022, closed unmerged); trafficDistribution in
//   ovn-kubernetes/ovn-kubernetes#6888 (open). No release honours hints.
//   Manifests: helm/ovn-kubernetes at v1.3.0: DaemonSet ovnkube-node in namespace ovn-kubernetes
//   (openshift-ovn-kubernetes on OpenShift); the chart's image tag is "master" (no version).
//
// kube-ovn (kubeovn/kube-ovn): kube-ovn-controller (Deployment) programs VPC-wide OVN load
//   balancers from EndpointSlices when --enable-lb is on (pkg/controller/config.go, default
//   true; dist/images/install.sh ENABLE_LB=true). Up to v1.16.2 / v1.15.24
//   (pkg/controller/endpoint_slice.go handleUpdateEndpointSlice) every ready endpoint is a
//   backend; hints are not read. kubeovn/kube-ovn#7378 (merged 2026-09-04) added service-scoped
//   template load balancers that implement ClusterIP trafficDistribution from `forNodes` /
//   `forZones` (PreferSameNode: node -> zone -> cluster; PreferSameZone/PreferClose: zone ->
//   cluster), and #7457 (merged 2026-09-16) made PreferSameNode require complete node hints and a
//   hint for the node. Both are after v1.16.2, so the first release with them is v1.17.0.
//   Host-network clients reach ClusterIPs through kube-proxy's rules (kubeovn/kube-ovn#53: the
//   OVN load balancers sit on the pods' logical switches, not on the node switch).

import {boolish, commandLine, findDaemonSet, flagValue, imageVersion, mainContainer, parseSemver, ref, versionAtLeast} from './objects.js'
import type {DaemonSet, DataPlane, DataPlaneObjects, Deployment, TrafficPath, Tristate} from './types.js'

// ---- messages --------------------------------------------------------------------------------

export const OVN_KUBERNETES_MESSAGE =
  'hints are set, but ovn-kubernetes builds its OVN load balancers from every endpoint (it reads neither hints nor trafficDistribution; ovn-kubernetes/ovn-kubernetes#6888 is open): every node routes to all endpoints'
export const OVN_KUBERNETES_FIX =
  "ovn-kubernetes has no setting for hints: internalTrafficPolicy: Local keeps traffic on the client's node (without fallback); zone routing needs ovn-kubernetes/ovn-kubernetes#6888"
export const KUBE_OVN_SEMANTICS =
  "kube-ovn's OVN load balancers follow trafficDistribution for ClusterIPs (PreferSameNode: endpoints hinted for the client's node, then for its zone, then all; PreferSameZone/PreferClose: hinted for its zone, then all); the topology-mode annotation alone does not narrow them"
export const KUBE_OVN_FIX =
  'upgrade kube-ovn to v1.17 or later (kubeovn/kube-ovn#7378, #7457), or run kube-ovn-controller with --enable-lb=false so that kube-proxy load-balances Services'

/** "hints are set, but kube-ovn v1.16.2 ...": the OVN load balancers before trafficDistribution support. */
function kubeOvnIgnoresMessage(version: string | undefined): string {
  return `hints are set, but kube-ovn${version ? ` v${version}` : ''} load-balances ClusterIPs in OVN with every endpoint (trafficDistribution support came in v1.17, kubeovn/kube-ovn#7378): pods on every node reach all endpoints`
}

/** The first kube-ovn minor whose OVN load balancers read hints (kubeovn/kube-ovn#7378, #7457). */
const KUBE_OVN_HINTS_SINCE = {major: 1, minor: 17} as const

// ---- detection -------------------------------------------------------------------------------

/** The DaemonSet names that mark each data plane. */
const OVN_KUBERNETES_DAEMONSETS = ['ovnkube-node'] as const
export const KUBE_OVN_DAEMONSETS = ['kube-ovn-cni'] as const
/** kube-ovn's controller Deployment, whose --enable-lb decides who load-balances Services. */
export const KUBE_OVN_CONTROLLER = 'kube-ovn-controller'

export interface OvnKubernetesFacts {
  ds: DaemonSet
  version?: string
  evidence: string[]
  settings: Record<string, string>
}

export function inspectOvnKubernetes(objects: DataPlaneObjects): OvnKubernetesFacts | undefined {
  const ds = findDaemonSet(objects.daemonSets, OVN_KUBERNETES_DAEMONSETS)
  if (!ds) return undefined
  // Interconnect (single-node-zone) charts name the container ovnkube-controller, the older
  // central mode ovnkube-node: both run the same image.
  const cs = ds.spec?.template?.spec?.containers ?? []
  const image = (cs.find((c) => c.name === 'ovnkube-controller' || c.name === 'ovnkube-node') ?? cs[0])?.image
  const version = imageVersion(image)
  return {
    ds,
    ...(version !== undefined ? {version} : {}),
    settings: {},
    evidence: [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`],
  }
}

export interface KubeOvnFacts {
  ds: DaemonSet
  version?: string
  /** kube-ovn-controller --enable-lb: kube-ovn load-balances ClusterIPs in OVN. */
  enableLb: boolean
  settings: Record<string, string>
  evidence: string[]
}

export function inspectKubeOvn(objects: DataPlaneObjects): KubeOvnFacts | undefined {
  const ds = findDaemonSet(objects.daemonSets, KUBE_OVN_DAEMONSETS)
  if (!ds) return undefined
  const image = mainContainer(ds, 'cni-server')?.image
  const ctrl: Deployment | undefined = objects.deployments?.find((d) => d.metadata.name === KUBE_OVN_CONTROLLER && (d.metadata.namespace ?? '') === (ds.metadata.namespace ?? ''))
  const ctrlContainer = ctrl ? mainContainer(ctrl, KUBE_OVN_CONTROLLER) : undefined
  // The controller's image is the same kube-ovn image; the DaemonSet's tag first.
  const version = imageVersion(image) ?? imageVersion(ctrlContainer?.image)
  const evidence = [`${ref(ds, 'DaemonSet')}: image ${image ?? '(none)'}`]
  const settings: Record<string, string> = {}
  let enableLb = true
  if (ctrl) {
    const flag = flagValue(commandLine(ctrlContainer), 'enable-lb', true)
    enableLb = boolish(flag ?? 'true') ?? true
    settings['enable-lb'] = flag ?? 'true (default)'
    evidence.push(`${ref(ctrl, 'Deployment')}: --enable-lb=${flag ?? '(unset: default true)'}`)
  } else {
    settings['enable-lb'] = 'true (default, assumed)'
    evidence.push(
      `Deployment ${ds.metadata.namespace ?? ''}/${KUBE_OVN_CONTROLLER} ${objects.deployments === undefined ? 'was not read' : 'not found'}: --enable-lb assumed at its default (true)`,
    )
  }
  return {ds, ...(version !== undefined ? {version} : {}), enableLb, settings, evidence}
}

type Answer = Omit<DataPlane, 'source' | 'warnings' | 'alsoFound'>

/**
 * ovn-kubernetes: pods and host-network clients go through OVN (the node's gateway router carries
 * the same load balancers); no release reads hints. `kubeProxy` is kube-proxy's host path when a
 * kube-proxy DaemonSet runs too (unusual: ovn-kubernetes installs run without it).
 */
export function ovnKubernetesAnswer(f: OvnKubernetesFacts, kubeProxy: {evidence: string[]} | undefined): Answer {
  const evidence = [...f.evidence]
  if (kubeProxy)
    evidence.push(
      ...kubeProxy.evidence,
      "kube-proxy runs next to ovn-kubernetes: pod traffic to ClusterIPs is translated by OVN's logical switch load balancers before kube-proxy's rules",
    )
  return {
    name: 'ovn-kubernetes',
    ...(f.version !== undefined ? {version: f.version} : {}),
    settings: f.settings,
    honoursZoneHints: false,
    honoursNodeHints: false,
    selection: 'all-endpoints',
    paths: [
      {traffic: 'pods', by: 'ovn-kubernetes', honoursZoneHints: false},
      {traffic: 'host', by: 'ovn-kubernetes', honoursZoneHints: false},
    ],
    evidence,
    message: OVN_KUBERNETES_MESSAGE,
    fix: OVN_KUBERNETES_FIX,
  }
}

/**
 * kube-ovn with --enable-lb: pods go through OVN; host-network clients through kube-proxy when it
 * runs (kubeovn/kube-ovn#53), otherwise nobody known.
 */
export function kubeOvnAnswer(f: KubeOvnFacts, kubeProxy: {evidence: string[]; honoursZoneHints: Tristate} | undefined): Answer {
  const v = parseSemver(f.version)
  let zone: Tristate = 'unknown'
  let node: Tristate = 'unknown'
  let selection: DataPlane['selection']
  let message: string
  let fix: string | undefined
  if (v === undefined) {
    message = `kube-ovn's version is not in the kube-ovn-cni image tag: its OVN load balancers honour trafficDistribution from v${KUBE_OVN_HINTS_SINCE.major}.${KUBE_OVN_HINTS_SINCE.minor} (kubeovn/kube-ovn#7378) and ignore hints before`
  } else if (versionAtLeast(v, KUBE_OVN_HINTS_SINCE.major, KUBE_OVN_HINTS_SINCE.minor)) {
    zone = true
    node = true
    selection = 'kube-ovn'
    message = KUBE_OVN_SEMANTICS
  } else {
    zone = false
    node = false
    selection = 'all-endpoints'
    message = kubeOvnIgnoresMessage(f.version)
    fix = KUBE_OVN_FIX
  }
  const host: TrafficPath = kubeProxy
    ? {traffic: 'host', by: 'kube-proxy', honoursZoneHints: kubeProxy.honoursZoneHints}
    : {traffic: 'host', by: 'unknown', honoursZoneHints: 'unknown'}
  const evidence = [...f.evidence]
  if (kubeProxy)
    evidence.push(
      ...kubeProxy.evidence,
      "kube-proxy runs next to kube-ovn: OVN's logical switch load balancers translate pod traffic to ClusterIPs first; host-network clients go through kube-proxy (kubeovn/kube-ovn#53)",
    )
  return {
    name: 'kube-ovn',
    ...(f.version !== undefined ? {version: f.version} : {}),
    settings: f.settings,
    honoursZoneHints: zone,
    honoursNodeHints: node,
    ...(selection !== undefined ? {selection} : {}),
    ...(node !== 'unknown' ? {preferSameGate: node} : {}),
    paths: [{traffic: 'pods', by: 'kube-ovn', honoursZoneHints: zone}, host],
    evidence,
    message,
    ...(fix !== undefined ? {fix} : {}),
  }
}
