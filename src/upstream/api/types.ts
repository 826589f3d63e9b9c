// Subsets of the Kubernetes API types, from k8s.io/api v0.36.3 (Kubernetes v1.36.3):
// core/v1/types.go (Node, Service, Event; the ServiceTrafficDistribution* values),
// discovery/v1/types.go (EndpointSlice, Endpoint, EndpointHints), apps/v1/types.go
// (Deployment, StatefulSet), core/v1/well_known_labels.go and annotation_key_constants.go
// (label and annotation keys), discovery/v1/well_known_labels.go (service-name, managed-by).
//
// Plain-data shapes in the wire format (what `kubectl get -o json` prints), so a snapshot file
// and a live list produce the same values. Nothing here depends on a client library.

export interface ObjectMeta {
  name: string
  namespace?: string
  uid?: string
  resourceVersion?: string
  generation?: number
  labels?: Record<string, string>
  annotations?: Record<string, string>
  deletionTimestamp?: string
  creationTimestamp?: string
}

export interface NodeCondition {
  type: string
  status: string
  reason?: string
}

export interface Node {
  apiVersion?: string
  kind?: 'Node'
  metadata: ObjectMeta
  spec?: {unschedulable?: boolean}
  status?: {
    allocatable?: Record<string, string | number>
    capacity?: Record<string, string | number>
    conditions?: NodeCondition[]
  }
}

export interface ServicePort {
  name?: string
  port: number
  protocol?: string
  nodePort?: number
  targetPort?: number | string
}

export interface Service {
  apiVersion?: string
  kind?: 'Service'
  metadata: ObjectMeta
  spec?: {
    type?: string
    selector?: Record<string, string>
    ports?: ServicePort[]
    clusterIP?: string
    /** The ClusterIPs, one per entry of ipFamilies, in that order (the API server sets both). */
    clusterIPs?: string[]
    /** type ExternalName: the DNS name the Service aliases. */
    externalName?: string
    externalIPs?: string[]
    trafficDistribution?: string
    internalTrafficPolicy?: string
    externalTrafficPolicy?: string
    publishNotReadyAddresses?: boolean
    ipFamilies?: string[]
  }
  status?: {
    loadBalancer?: {ingress?: {ip?: string; hostname?: string}[]}
  }
}

export interface ForZone {
  name: string
}
export interface ForNode {
  name: string
}

export interface EndpointHints {
  forZones?: ForZone[] | null
  forNodes?: ForNode[] | null
}

export interface EndpointConditions {
  ready?: boolean | null
  serving?: boolean | null
  terminating?: boolean | null
}

export interface Endpoint {
  addresses: string[]
  conditions?: EndpointConditions
  hostname?: string
  nodeName?: string | null
  zone?: string | null
  hints?: EndpointHints | null
  targetRef?: {kind?: string; name?: string; namespace?: string; uid?: string}
}

export type AddressType = 'IPv4' | 'IPv6' | 'FQDN'

export interface EndpointPort {
  name?: string | null
  port?: number | null
  protocol?: string | null
  appProtocol?: string | null
}

export interface EndpointSlice {
  apiVersion?: string
  kind?: 'EndpointSlice'
  metadata: ObjectMeta
  addressType: AddressType
  endpoints?: Endpoint[] | null
  ports?: EndpointPort[] | null
}

export interface EventObject {
  metadata: ObjectMeta
  involvedObject?: {kind?: string; name?: string; namespace?: string; uid?: string}
  reason?: string
  message?: string
  type?: string
  count?: number
  /** Who recorded it, e.g. {component: 'endpoint-slice-controller'}. */
  source?: {component?: string; host?: string}
  reportingComponent?: string
  lastTimestamp?: string | null
  eventTime?: string | null
  firstTimestamp?: string | null
}

/** An int-or-string field such as maxSurge: 1 or "25%". */
export type IntOrString = number | string

export interface LabelSelectorRequirement {
  key: string
  operator: string
  values?: string[] | null
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null
  matchExpressions?: LabelSelectorRequirement[] | null
}

/** What simulate reads of a pod template: its labels (a Service's selector matches them). */
/** core/v1 TopologySpreadConstraint: the fields the scheduler's PodTopologySpread plugin reads. */
export interface TopologySpreadConstraint {
  maxSkew?: number | null
  topologyKey?: string | null
  whenUnsatisfiable?: string | null
  minDomains?: number | null
  labelSelector?: LabelSelector | null
}

export interface PodTemplateMeta {
  metadata?: {labels?: Record<string, string> | null} | null
  spec?: {topologySpreadConstraints?: TopologySpreadConstraint[] | null} | null
}

/** apps/v1 Deployment: the fields `simulate --rollout from-workload` reads. */
export interface Deployment {
  apiVersion?: string
  kind?: 'Deployment'
  metadata: ObjectMeta
  spec?: {
    replicas?: number | null
    selector?: LabelSelector | null
    template?: PodTemplateMeta | null
    strategy?: {
      type?: string | null
      rollingUpdate?: {maxSurge?: IntOrString | null; maxUnavailable?: IntOrString | null} | null
    } | null
    paused?: boolean | null
  }
}

/** apps/v1 StatefulSet: the fields `simulate --rollout from-workload` reads. */
export interface StatefulSet {
  apiVersion?: string
  kind?: 'StatefulSet'
  metadata: ObjectMeta
  spec?: {
    replicas?: number | null
    selector?: LabelSelector | null
    template?: PodTemplateMeta | null
    serviceName?: string | null
    podManagementPolicy?: string | null
    updateStrategy?: {
      type?: string | null
      rollingUpdate?: {partition?: number | null; maxUnavailable?: IntOrString | null} | null
    } | null
  }
}

// ---- Well-known names ---------------------------------------------------------------

export const LABEL_ZONE = 'topology.kubernetes.io/zone'
export const LABEL_HOSTNAME = 'kubernetes.io/hostname'
export const LABEL_CONTROL_PLANE = 'node-role.kubernetes.io/control-plane'
export const LABEL_MASTER = 'node-role.kubernetes.io/master'
export const LABEL_SERVICE_NAME = 'kubernetes.io/service-name'
export const LABEL_MANAGED_BY = 'endpointslice.kubernetes.io/managed-by'
export const CONTROLLER_NAME = 'endpointslice-controller.k8s.io'
export const ANNOTATION_TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode'
export const ANNOTATION_TOPOLOGY_AWARE_HINTS = 'service.kubernetes.io/topology-aware-hints'

/** core/v1 types.go `ServiceTrafficDistributionPreferClose` (the deprecated name of PreferSameZone). */
export const TD_PREFER_CLOSE = 'PreferClose'
/** core/v1 types.go `ServiceTrafficDistributionPreferSameZone`. */
export const TD_PREFER_SAME_ZONE = 'PreferSameZone'
/** core/v1 types.go `ServiceTrafficDistributionPreferSameNode`. */
export const TD_PREFER_SAME_NODE = 'PreferSameNode'

/** autoscaling/v2 HorizontalPodAutoscaler: only its spec's target and bounds are read. */
export interface HorizontalPodAutoscaler {
  apiVersion?: string
  kind?: 'HorizontalPodAutoscaler'
  metadata: ObjectMeta
  spec?: {
    scaleTargetRef?: {apiVersion?: string | null; kind?: string | null; name?: string | null} | null
    /** Default 1 (autoscaling/v2 defaulting). */
    minReplicas?: number | null
    maxReplicas?: number | null
  } | null
}

/** policy/v1 PodDisruptionBudget: the fields that bound voluntary disruptions. */
export interface PodDisruptionBudget {
  apiVersion?: string
  kind?: 'PodDisruptionBudget'
  metadata: ObjectMeta
  spec?: {
    selector?: LabelSelector | null
    minAvailable?: IntOrString | null
    maxUnavailable?: IntOrString | null
  } | null
}

/** A controller event, as recorded on the Service. `message` includes the ", addressType: X" suffix. */
export interface TopologyEvent {
  type: 'Normal' | 'Warning'
  reason: 'TopologyAwareHintsEnabled' | 'TopologyAwareHintsDisabled'
  message: string
}
