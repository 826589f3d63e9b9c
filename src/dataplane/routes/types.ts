// Who routes each request to a Service: the meshes and gateways that pick endpoints
// themselves, above the node data plane (src/dataplane/). Wire-format subsets of the objects
// the detection reads (what `kubectl get -o json` prints) and the answer. Plain data only.

import type {ObjectMeta} from '../../upstream/api/types.js'
import type {Container, DaemonSet, Tristate} from '../types.js'

/** apps/v1 Deployment, the fields detection reads (a control plane or a controller). */
export interface ControlPlaneDeployment {
  apiVersion?: string
  kind?: 'Deployment'
  metadata: ObjectMeta
  spec?: {template?: {metadata?: {labels?: Record<string, string>}; spec?: {containers?: Container[]}}}
}

/** v1 Namespace: injection and ambient labels and annotations. */
export interface NamespaceMeta {
  apiVersion?: string
  kind?: 'Namespace'
  metadata: ObjectMeta
}

/** v1 Pod, metadata only: the Pods that carry a mesh's proxy (read by label selector). */
export interface PodMeta {
  apiVersion?: string
  kind?: 'Pod'
  metadata: ObjectMeta
}

export interface IngressBackend {
  service?: {name: string; port?: {number?: number; name?: string}}
}

/** networking.k8s.io/v1 Ingress. */
export interface Ingress {
  apiVersion?: string
  kind?: 'Ingress'
  metadata: ObjectMeta
  spec?: {
    ingressClassName?: string
    defaultBackend?: IngressBackend
    rules?: {host?: string; http?: {paths?: {path?: string; backend?: IngressBackend}[]}}[]
  }
}

/** networking.k8s.io/v1 IngressClass. */
export interface IngressClass {
  apiVersion?: string
  kind?: 'IngressClass'
  metadata: ObjectMeta
  spec?: {controller?: string}
}

/** gateway.networking.k8s.io GatewayClass. */
export interface GatewayClass {
  apiVersion?: string
  kind?: 'GatewayClass'
  metadata: ObjectMeta
  spec?: {controllerName?: string}
}

/** gateway.networking.k8s.io Gateway. */
export interface Gateway {
  apiVersion?: string
  kind?: 'Gateway'
  metadata: ObjectMeta
  spec?: {gatewayClassName?: string}
}

export interface ParentRef {
  group?: string
  kind?: string
  namespace?: string
  name: string
}

export interface BackendRef {
  group?: string
  kind?: string
  namespace?: string
  name: string
  port?: number
}

/** gateway.networking.k8s.io HTTPRoute or GRPCRoute (the same fields). */
export interface Route {
  apiVersion?: string
  kind?: 'HTTPRoute' | 'GRPCRoute'
  metadata: ObjectMeta
  spec?: {parentRefs?: ParentRef[]; rules?: {backendRefs?: BackendRef[]}[]}
}

/**
 * What the detection reads, and what a snapshot records. A list that could not be read is
 * absent (undefined); an empty list was read and holds nothing.
 */
export interface RoutesObjects {
  /** Deployments of the control planes and controllers (istiod, linkerd-destination, ingress-nginx, envoy-gateway). */
  deployments?: ControlPlaneDeployment[]
  /** DaemonSets of the node proxies (ztunnel). */
  daemonSets?: DaemonSet[]
  namespaces?: NamespaceMeta[]
  /** Pods with a mesh's proxy: labels security.istio.io/tlsMode (Istio sidecar) or linkerd.io/control-plane-ns (Linkerd). */
  pods?: PodMeta[]
  ingresses?: Ingress[]
  ingressClasses?: IngressClass[]
  gatewayClasses?: GatewayClass[]
  gateways?: Gateway[]
  httpRoutes?: Route[]
  grpcRoutes?: Route[]
  /** What could not be read (RBAC, a missing API), one line each. */
  warnings?: string[]
}

// ---- the answer ----------------------------------------------------------------------------

export const PROXY_NAMES = ['istio-sidecar', 'istio-ztunnel', 'istio-waypoint', 'istio-gateway', 'linkerd', 'ingress-nginx', 'envoy-gateway', 'gateway-api'] as const
/** The proxy on one client path: each picks endpoints itself (or, for gateway-api, an implementation the tool does not model). */
export type ProxyName = (typeof PROXY_NAMES)[number]

/** A mesh or gateway found in the cluster, with the evidence. */
export interface ProxyFound {
  name: ProxyName
  /** From the image tag ("1.27.1", "2.14.10", "edge-24.11.8"); unset when not tagged. */
  version?: string
  /** Settings by their own names (enable-topology-aware-routing, revision). */
  settings: Record<string, string>
  evidence: string[]
}

/**
 * Does this path do what the Service's topology setting asks, as kube-proxy would?
 * - honours: it keeps traffic where the setting asks (its own rules may differ in detail);
 * - partial: part of it (PreferSameNode kept to the zone, or a zone left with no endpoint);
 * - ignores: it spreads over all endpoints whatever the setting;
 * - not-asked: the Service asks for no topology (then nothing is lost);
 * - unknown: the tool cannot tell (implementation or version not known).
 */
export type PathVerdict = 'honours' | 'partial' | 'ignores' | 'not-asked' | 'unknown'

/** One way clients reach the Service, and who picks the endpoint on it. */
export interface ClientPath {
  via: ProxyName | 'node'
  /** Who takes this path: "Pods with an Istio sidecar in namespaces a, b", "Ingress shop/web". */
  clients: string
  version?: string
  /** True when the proxy picks the endpoint itself (the node data plane's hints do not decide). */
  bypassesNode: boolean
  /** Reads `hints.forZones` of the EndpointSlices. */
  zoneHints: Tristate
  /** Reads `hints.forNodes`. */
  nodeHints: Tristate
  verdict: PathVerdict
  /** What it does with this Service's setting, in plain words. */
  does: string
  /** The upstream source line the rule comes from. */
  source: string
  evidence: string[]
}

export interface ServiceRoutes {
  /** The topology setting read: "trafficDistribution: PreferSameNode", "topology-mode: Auto", "none". */
  setting: string
  paths: ClientPath[]
  /** What the tool cannot know about this Service's clients, one line each. */
  unknown: string[]
}

/** The meshes and gateways found, for the report header and JSON. */
export interface RoutesFound {
  proxies: ProxyFound[]
  warnings: string[]
  source: 'detected' | 'snapshot'
}
