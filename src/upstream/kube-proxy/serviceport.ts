// Port of kubernetes/kubernetes pkg/proxy/serviceport.go (Kubernetes v1.36.3): the
// `BaseServicePortInfo` flags topology reads (`ExternallyAccessible`, `UsesClusterEndpoints`,
// `UsesLocalEndpoints`, `InternalPolicyLocal`, `ExternalPolicyLocal`) as `newBaseServiceInfo`
// sets them, with pkg/api/v1/service/util.go `ExternalPolicyLocal` / `InternalPolicyLocal`
// and pkg/proxy/util/utils.go `IsVIPMode` inlined.
// For kube-proxy 1.28-1.30: the `hintsAnnotation` field that Kubernetes v1.30's serviceport.go
// `newBaseServiceInfo` read (`legacyHintsAnnotation`); it is gone from v1.31.

import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE, type Service} from '../api/types.js'

export interface ServiceTrafficFlags {
  /** nodePort != 0, or a VIP-mode load-balancer ingress IP, or an external IP. */
  externallyAccessible: boolean
  /** internalTrafficPolicy != Local, or externally accessible (short-circuit traffic). */
  usesClusterEndpoints: boolean
  /** internalTrafficPolicy == Local, or (externalTrafficPolicy == Local and externally accessible). */
  usesLocalEndpoints: boolean
  internalTrafficPolicyLocal: boolean
  /** apiservice.ExternalPolicyLocal: type LoadBalancer/NodePort, or ClusterIP with externalIPs, and eTP Local. */
  externalTrafficPolicyLocal: boolean
}

export interface ServiceTrafficFlagsOptions {
  /** Use this port's nodePort (unset name counts as ""). Unset: any port's nodePort counts. */
  portName?: string
  /** Count only external / load-balancer IPs of this family (a per-family proxier). Unset: all. */
  ipFamily?: 'IPv4' | 'IPv6'
}

/** The family of an IP, as newBaseServiceInfo filters external and load-balancer IPs by `ipFamily` (ours: a colon means IPv6). */
function ipFamilyOf(ip: string): 'IPv4' | 'IPv6' {
  return ip.includes(':') ? 'IPv6' : 'IPv4'
}

/** serviceport.go `newBaseServiceInfo`: the `BaseServicePortInfo` flags, computed from the Service wire object. */
export function serviceTrafficFlags(service: Service, opts: ServiceTrafficFlagsOptions = {}): ServiceTrafficFlags {
  const spec = service.spec ?? {}
  const type = spec.type || 'ClusterIP' // API default
  const familyOk = (ip: string) => opts.ipFamily === undefined || ipFamilyOf(ip) === opts.ipFamily

  const ports = spec.ports ?? []
  const nodePortSet = opts.portName === undefined ? ports.some((p) => (p.nodePort ?? 0) !== 0) : ports.some((p) => (p.name ?? '') === opts.portName && (p.nodePort ?? 0) !== 0)
  const externalIPs = (spec.externalIPs ?? []).filter((ip) => ip !== '' && familyOk(ip))
  // proxyutil.IsVIPMode: ipMode unset or "VIP". (`ipMode` is read loosely: types.ts does not model it.)
  const lbVIPs = (service.status?.loadBalancer?.ingress ?? []).filter((ing) => {
    const ipMode = (ing as {ipMode?: string | null}).ipMode
    return !!ing.ip && (ipMode == null || ipMode === 'VIP') && familyOk(ing.ip)
  })

  const externallyAccessible = nodePortSet || lbVIPs.length > 0 || externalIPs.length > 0
  const internalTrafficPolicyLocal = spec.internalTrafficPolicy === 'Local'
  const apiExternallyAccessible = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && (spec.externalIPs ?? []).length > 0)
  const externalTrafficPolicyLocal = apiExternallyAccessible && spec.externalTrafficPolicy === 'Local'
  return {
    externallyAccessible,
    usesClusterEndpoints: !internalTrafficPolicyLocal || externallyAccessible,
    usesLocalEndpoints: internalTrafficPolicyLocal || (externalTrafficPolicyLocal && externallyAccessible),
    internalTrafficPolicyLocal,
    externalTrafficPolicyLocal,
  }
}

/**
 * The annotation value kube-proxy 1.28-1.30 read (v1.30 serviceport.go `newBaseServiceInfo`,
 * field `hintsAnnotation`): the deprecated `service.kubernetes.io/topology-aware-hints` wins
 * whenever the key is present (even with value "" or "disabled"), otherwise
 * `service.kubernetes.io/topology-mode`, otherwise "".
 */
export function legacyHintsAnnotation(annotations: Record<string, string> | undefined): string {
  const a = annotations ?? {}
  if (Object.hasOwn(a, ANNOTATION_TOPOLOGY_AWARE_HINTS)) return a[ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? ''
  return a[ANNOTATION_TOPOLOGY_MODE] ?? ''
}

/**
 * pkg/proxy/util/utils.go `GetClusterIPByFamily`: the Service's ClusterIP of this family, ""
 * when it has none (then pkg/proxy/servicechangetracker.go `serviceToServiceMap` gives the
 * per-family proxier no service ports at all: the family is not proxied). Without
 * spec.ipFamilies ("allowing skew"): spec.clusterIP when it is of that family (not None).
 * (netutils.IsIPv6String is read loosely here: a colon means IPv6.)
 */
export function getClusterIPByFamily(ipFamily: 'IPv4' | 'IPv6', service: Service): string {
  const spec = service.spec ?? {}
  const families = spec.ipFamilies ?? []
  if (families.length === 0) {
    const ip = spec.clusterIP ?? ''
    if (ip === '' || ip === 'None') return ''
    return (ipFamily === 'IPv6') === ip.includes(':') ? ip : ''
  }
  const ips = spec.clusterIPs ?? []
  for (let i = 0; i < families.length; i++) {
    if (families[i] === ipFamily && i < ips.length) return ips[i]!
  }
  return ''
}
