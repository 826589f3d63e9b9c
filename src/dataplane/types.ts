// Which component load-balances Service traffic, and whether it honours EndpointSlice hints.
//
// Wire-format subsets (what `kubectl get -o json` prints) of the objects the detection reads.
// They live here until they move to src/upstream/api/types.ts; nothing here depends on a
// client library.

import type {ObjectMeta} from '../upstream/api/types.js'
import type {ProxyNodeVersion} from './proxy-nodes-types.js'

export interface EnvVar {
  name: string
  value?: string
  valueFrom?: unknown
}

export interface Container {
  name: string
  image?: string
  command?: string[]
  args?: string[]
  env?: EnvVar[]
}

/** apps/v1 DaemonSet, the fields detection reads. */
export interface DaemonSet {
  apiVersion?: string
  kind?: 'DaemonSet'
  metadata: ObjectMeta
  spec?: {
    template?: {
      metadata?: {labels?: Record<string, string>; annotations?: Record<string, string>}
      spec?: {containers?: Container[]; initContainers?: Container[]; hostNetwork?: boolean}
    }
  }
  status?: {desiredNumberScheduled?: number; numberReady?: number}
}

/** v1 ConfigMap. */
export interface ConfigMap {
  apiVersion?: string
  kind?: 'ConfigMap'
  metadata: ObjectMeta
  data?: Record<string, string>
}

/** operator.tigera.io/v1 Installation (tigera operator), the field that selects the data plane. */
export interface CalicoInstallation {
  apiVersion?: string
  kind?: 'Installation'
  metadata: ObjectMeta
  spec?: {calicoNetwork?: {linuxDataplane?: string}; variant?: string}
  status?: {calicoVersion?: string; variant?: string}
}

/** crd.projectcalico.org/v1 (or projectcalico.org/v3) FelixConfiguration. */
export interface FelixConfiguration {
  apiVersion?: string
  kind?: 'FelixConfiguration'
  metadata: ObjectMeta
  spec?: {bpfEnabled?: boolean}
}

/** apps/v1 Deployment, the fields detection reads (kube-ovn-controller's flags). */
export interface Deployment {
  apiVersion?: string
  kind?: 'Deployment'
  metadata: ObjectMeta
  spec?: {
    template?: {
      metadata?: {labels?: Record<string, string>; annotations?: Record<string, string>}
      spec?: {containers?: Container[]; initContainers?: Container[]; hostNetwork?: boolean}
    }
  }
}

/** What `detectDataPlane` reads: kube-system (calico-system, ovn-kubernetes) DaemonSets and ConfigMaps. */
export interface DataPlaneObjects {
  daemonSets: DaemonSet[]
  configMaps: ConfigMap[]
  /** Deployments named by a data plane (kube-ovn-controller); undefined = not read. */
  deployments?: Deployment[]
  /** operator.tigera.io/v1 Installations (the operator's is named "default"). */
  installations?: CalicoInstallation[]
  /** FelixConfigurations; only the one named "default" is read. */
  felixConfigurations?: FelixConfiguration[]
}

// ---- the answer ----------------------------------------------------------------------------

export const DATA_PLANE_NAMES = ['kube-proxy', 'cilium', 'calico', 'antrea', 'kube-router', 'ovn-kubernetes', 'kube-ovn', 'unknown'] as const
export type DataPlaneName = (typeof DATA_PLANE_NAMES)[number]

export type Tristate = true | false | 'unknown'

/**
 * How a data plane picks the endpoints a node sends to (see selection.ts `endpointsForNode`).
 * - kube-proxy: pkg/proxy/topology.go CategorizeEndpoints (also Antrea, whose
 *   pkg/agent/proxy/topology.go is the same algorithm with its own PreferSame gate);
 * - cilium: pkg/loadbalancer/writer/writer.go DefaultSelectBackends with service topology on;
 * - calico-annotation: Calico eBPF v3.26-v3.30 felix/bpf/proxy/topology.go
 *   ShouldAppendTopologyAwareEndpoint (per endpoint, no safeguards);
 * - calico-tar-td: Calico eBPF v3.31.5+ / v3.32+ FilterEpsByTopologyAwareRouting then
 *   FilterEpsByTrafficDistribution;
 * - kube-ovn: kube-ovn's service-scoped OVN template load balancers (kubeovn/kube-ovn#7378,
 *   node hints per #7457): by spec.trafficDistribution only, node -> zone -> all;
 * - all-endpoints: hints are ignored, every usable endpoint is used (cluster-wide).
 */
export type SelectionRule = 'kube-proxy' | 'cilium' | 'calico-annotation' | 'calico-tar-td' | 'kube-ovn' | 'all-endpoints'

/** One object (or flag) the answer rests on, for people: "DaemonSet kube-system/cilium: image quay.io/cilium/cilium:v1.18.4". */
export type Evidence = string

/** Who load-balances one kind of client traffic. */
export interface TrafficPath {
  /** pods: traffic from pod network namespaces; host: from host-network processes and NodePorts. */
  traffic: 'pods' | 'host'
  by: DataPlaneName
  honoursZoneHints: Tristate
}

export interface DataPlane {
  /** The data plane that load-balances pod traffic to ClusterIPs (what `explain` reports per zone). */
  name: DataPlaneName
  /** From the image tag, without "v" and build suffixes ("1.34.1", "3.32.1"); unset when not tagged. */
  version?: string
  /** Mode and settings found, by their own names: mode, kube-proxy-replacement, enable-service-topology, ... */
  settings: Record<string, string>
  /** Zone hints (`hints.forZones`) narrow the endpoints a node uses. */
  honoursZoneHints: Tristate
  /** Node hints (`hints.forNodes`, trafficDistribution PreferSameNode) narrow them. */
  honoursNodeHints: Tristate
  /** How to model one node's endpoint choice (selection.ts). Unset when it cannot be told. */
  selection?: SelectionRule
  /**
   * kube-proxy (or Antrea) only: the Kubernetes minor whose kube-proxy rules apply, from the
   * kube-proxy image (it can lag the API server, e.g. a managed add-on not upgraded). Pass it
   * to upstream/features.ts `features()` for the kube-proxy side instead of the server version.
   */
  proxyVersion?: string
  /**
   * kube-proxy only: the version each node runs, from its kube-proxy Pod (or the DaemonSet for a
   * node without one); see proxy-nodes.ts. Unset when the Pods were not read.
   */
  proxyNodes?: ProxyNodeVersion[]
  /** PreferSame gate value to pass to kube-proxy's CategorizeEndpoints (kube-proxy, Antrea). */
  preferSameGate?: boolean
  /** Who handles pod and host traffic when they differ (e.g. Cilium for pods, kube-proxy for hosts). */
  paths: TrafficPath[]
  /** Other data planes found and not chosen (e.g. kube-proxy next to Cilium). */
  alsoFound: DataPlaneName[]
  evidence: Evidence[]
  source: 'detected' | 'flag' | 'snapshot'
  /** Plain words for when hints are set but ignored or handled differently from kube-proxy. */
  message?: string
  /** The setting to change (Helm value, config key) when hints are ignored. */
  fix?: string
  /** Things that could not be read (RBAC), one line each, naming the permission. */
  warnings: string[]
}
