// Kubernetes version parsing and the feature-gate defaults that change how the
// EndpointSlice controller (and kube-proxy) treat topology hints, per Kubernetes minor.
//
// Upstream: kubernetes/kubernetes pkg/features/kube_features.go (the gate names and their
// per-version defaults; read at v1.36.3, and at v1.35.4 for the two gates 1.36 removed, which
// it lists with their whole history), and the code each gate switches. Per field of `Features`:
//   topologyAwareHints            TopologyAwareHints (beta, on by default from 1.24; GA 1.33;
//                                 removed 1.36): the controller runs its topology cache
//                                 (k8s.io/endpointslice topologycache) and honours the annotation.
//   trafficDistributionField      ServiceTrafficDistribution (alpha, off, 1.30; beta, on, 1.31;
//                                 GA 1.33; removed 1.36): reconciler.go reads
//                                 spec.trafficDistribution.
//   preferSameTrafficDistribution PreferSameTrafficDistribution (alpha, off, 1.33; beta, on,
//                                 1.34; GA and locked on 1.35): PreferSameZone/PreferSameNode are
//                                 accepted (reconciler.go `validTrafficDistribution`) and
//                                 kube-proxy reads node hints (pkg/proxy/topology.go).
//   kubeProxyRequiresAnnotation   no gate of its own: kube-proxy's v1.30 topology.go
//                                 `canUseTopology` reads the annotation only while
//                                 ServiceTrafficDistribution is off, i.e. by default up to 1.30.
//   trafficDistEmptyZoneHint      no gate: k8s.io/endpointslice trafficdist/trafficdist.go up to
//                                 v0.32 hinted a ready endpoint without a zone for zone ""; from
//                                 v0.33 (Kubernetes 1.33) it gets no zone hint.
// Only the gates' *default* values are modelled: a cluster whose operator flipped an alpha
// gate on is not something we can see from the API server's version string.
// `parseVersion`, `compareVersions`, `atLeast` and `formatVersion` are ours (a MAJOR.MINOR
// reading of the server's gitVersion), not a port of k8s.io/apimachinery pkg/util/version.

export interface KubeVersion {
  major: number
  minor: number
}

/** The newest Kubernetes minor whose behaviour was read (1.37, k8s.io/endpointslice v0.37). */
export const NEWEST_KNOWN: KubeVersion = {major: 1, minor: 37}
/** The oldest minor we model (EndpointSlice reconciler moved to staging in 1.28). */
export const OLDEST_SUPPORTED: KubeVersion = {major: 1, minor: 28}

export interface Features {
  /** The version whose behaviour is modelled (after clamping into the known range). */
  version: KubeVersion
  /** The version that was asked for (before clamping); equal to `version` when in range. */
  requested: KubeVersion
  /**
   * The controller runs the topology cache, so the topology-mode annotation is honoured.
   * TopologyAwareHints gate default on since 1.24, GA 1.33, gate removed 1.36: true for
   * every supported version. Kept as a field so callers/tests can model a controller
   * started with the gate off (upstream TestReconcileTopology "topologyCache disabled").
   */
  topologyAwareHints: boolean
  /**
   * `spec.trafficDistribution` exists and is honoured by the controller: the
   * ServiceTrafficDistribution gate was alpha (default off) in 1.30, beta (on) in 1.31,
   * GA in 1.33 and removed in 1.36. False before 1.31.
   */
  trafficDistributionField: boolean
  /**
   * PreferSameZone / PreferSameNode are accepted by the controller and kube-proxy uses
   * node hints: PreferSameTrafficDistribution gate alpha (off) 1.33, beta (on) 1.34, GA 1.35.
   */
  preferSameTrafficDistribution: boolean
  /**
   * kube-proxy 1.28–1.30 only uses hints when the topology annotation has a value other than
   * "", "disabled" or "Disabled". From 1.31 (trafficDistribution on by default) it ignores
   * the annotation and uses hints whenever they are present.
   */
  kubeProxyRequiresAnnotation: boolean
  /**
   * Before 1.33 trafficdist wrote `forZones: [{name: ""}]` for ready endpoints without a
   * zone; from 1.33 (change of 2025-03-13) such endpoints get no zone hint.
   */
  trafficDistEmptyZoneHint: boolean
  /** Set when the requested version was outside the known range. */
  warning?: string
}

const VERSION_RE = /^v?(\d+)\.(\d+)(?:\.\d+)?\+?(?:[-+][0-9A-Za-z._+-]*)?$/

/**
 * Parses "1.36.3", "v1.31.0-eks-abc", "1.30+", "v1.29.4+k3s1", "1.33". Throws an Error
 * for anything else.
 */
export function parseVersion(input: string): KubeVersion {
  if (typeof input !== 'string') throw new Error(`invalid Kubernetes version: ${String(input)}`)
  const s = input.trim()
  const m = VERSION_RE.exec(s)
  if (!m) {
    throw new Error(`invalid Kubernetes version "${input}": expected MAJOR.MINOR[.PATCH], e.g. "1.36.3", "v1.31.0-eks-abc" or "1.30+"`)
  }
  const major = Number(m[1])
  const minor = Number(m[2])
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor)) {
    throw new Error(`invalid Kubernetes version "${input}": number out of range`)
  }
  return {major, minor}
}

/** Orders two versions by major, then minor (ours). */
export function compareVersions(a: KubeVersion, b: KubeVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor
}

/** `v` is major.minor or newer (ours). */
export function atLeast(v: KubeVersion, major: number, minor: number): boolean {
  return compareVersions(v, {major, minor}) >= 0
}

/** "MAJOR.MINOR" (ours). */
export function formatVersion(v: KubeVersion): string {
  return `${v.major}.${v.minor}`
}

/**
 * Feature-gate defaults for a Kubernetes version. `undefined` (e.g. a snapshot without a
 * server version) means the newest known behaviour. Versions older than 1.28 are clamped
 * to 1.28 behaviour and newer-than-known ones to the newest, both with a `warning`.
 */
export function features(version?: string | KubeVersion): Features {
  const requested = version === undefined ? {...NEWEST_KNOWN} : typeof version === 'string' ? parseVersion(version) : {...version}
  let v = requested
  let warning: string | undefined
  if (compareVersions(requested, OLDEST_SUPPORTED) < 0) {
    v = {...OLDEST_SUPPORTED}
    warning = `Kubernetes ${formatVersion(requested)} is older than the oldest modelled version ${formatVersion(OLDEST_SUPPORTED)}; predicting with ${formatVersion(OLDEST_SUPPORTED)} behaviour`
  } else if (compareVersions(requested, NEWEST_KNOWN) > 0) {
    v = {...NEWEST_KNOWN}
    warning = `Kubernetes ${formatVersion(requested)} is newer than the newest known version ${formatVersion(NEWEST_KNOWN)}; assuming ${formatVersion(NEWEST_KNOWN)} behaviour`
  }
  const f: Features = {
    version: v,
    requested,
    topologyAwareHints: true,
    trafficDistributionField: atLeast(v, 1, 31),
    preferSameTrafficDistribution: atLeast(v, 1, 34),
    kubeProxyRequiresAnnotation: !atLeast(v, 1, 31),
    trafficDistEmptyZoneHint: !atLeast(v, 1, 33),
  }
  if (warning !== undefined) f.warning = warning
  return f
}

/**
 * `features(version)` for a version string (or none), computed once per string and frozen
 * (ours): explain() runs once per Service and the advisor once per mode of each, and parsing the
 * version each time showed in whole-cluster runs. A version that does not parse throws each time.
 */
const FEATURES_BY_VERSION = new Map<string | undefined, Features>()
export function featuresCached(version?: string): Features {
  let f = FEATURES_BY_VERSION.get(version)
  if (f === undefined) {
    f = features(version)
    Object.freeze(f.version)
    Object.freeze(f.requested)
    FEATURES_BY_VERSION.set(version, Object.freeze(f))
  }
  return f
}

export type TrafficDistributionValue = 'PreferSameZone' | 'PreferSameNode' | 'PreferClose'

/**
 * The spec.trafficDistribution values this version's API server keeps: none before 1.31 (it
 * drops the field while ServiceTrafficDistribution is off: k/k
 * pkg/registry/core/service/strategy.go dropServiceDisabledFields), only PreferClose in
 * 1.31-1.33 (pkg/apis/core/validation validateServiceTrafficDistribution, until
 * PreferSameTrafficDistribution is on by default), all three from 1.34 (PreferClose as the
 * deprecated name of PreferSameZone). The newer names first.
 */
export function acceptedTrafficDistributions(f: Features): TrafficDistributionValue[] {
  if (!f.trafficDistributionField) return []
  return f.preferSameTrafficDistribution ? ['PreferSameZone', 'PreferSameNode', 'PreferClose'] : ['PreferClose']
}
