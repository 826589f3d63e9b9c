// Port of k8s.io/endpointslice utils.go (k8s.io/endpointslice v0.36.3, from Kubernetes
// v1.36.3): `hintsEnabled`, which decides whether a Service's annotation asks the topology
// cache for hints (topology-mode Auto).

import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE} from '../api/types.js'

/**
 * utils.go `hintsEnabled`, exactly: the deprecated `service.kubernetes.io/topology-aware-hints`
 * key wins whenever it is present (whatever its value); otherwise
 * `service.kubernetes.io/topology-mode` is read. Only "Auto" and "auto" enable hints.
 */
export function hintsEnabled(annotations: Record<string, string> | undefined): boolean {
  const val = effectiveAnnotation(annotations)
  if (val === undefined) return false
  return val.value === 'Auto' || val.value === 'auto'
}

/**
 * The lookup half of utils.go `hintsEnabled`: the annotation it reads (deprecated key first),
 * or undefined if neither is set.
 */
export function effectiveAnnotation(annotations: Record<string, string> | undefined): {key: string; value: string} | undefined {
  if (annotations == null) return undefined
  if (Object.hasOwn(annotations, ANNOTATION_TOPOLOGY_AWARE_HINTS)) {
    return {key: ANNOTATION_TOPOLOGY_AWARE_HINTS, value: String(annotations[ANNOTATION_TOPOLOGY_AWARE_HINTS])}
  }
  if (Object.hasOwn(annotations, ANNOTATION_TOPOLOGY_MODE)) {
    return {key: ANNOTATION_TOPOLOGY_MODE, value: String(annotations[ANNOTATION_TOPOLOGY_MODE])}
  }
  return undefined
}
