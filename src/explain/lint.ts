// The configuration findings of a Service: the mode's warnings (explain/mode.ts), then the
// rules that need more than the Service's own fields. One list, shown by explain, check
// (--lint), watch and plan.
import type {LintIssue} from './report-types.js'
import type {ServiceMode} from './mode.js'
import type {ZoneCapacity} from './node-verdicts.js'
import type {Service} from '../upstream/api/types.js'
import {formatVersion, type Features} from '../upstream/features.js'

/** The counted nodes' only zone when there is exactly one and no node disables hints, per capacity (memoised by identity: every Service of a cluster shares one). */
const onlyZones = new WeakMap<ZoneCapacity, string | undefined>()
function onlyZone(capacity: ZoneCapacity): string | undefined {
  if (onlyZones.has(capacity)) return onlyZones.get(capacity)
  const zones = new Set<string>()
  let disables = false
  for (const n of capacity.nodes) {
    if (n.status === 'counted' && n.zone) zones.add(n.zone)
    if (n.disablesHints) disables = true
  }
  const zone = zones.size === 1 && !disables ? [...zones][0] : undefined
  onlyZones.set(capacity, zone)
  return zone
}

/**
 * The Service's configuration findings: the mode's warnings (src/upstream/endpointslice/mode.ts),
 * then the rules that need more than the Service's own fields.
 */
export function lintIssues(service: Service, mode: ServiceMode, capacity: ZoneCapacity, nodesReadable: boolean, f: Features): LintIssue[] {
  const issues: LintIssue[] = mode.warnings.map((w) => ({rule: w.rule, severity: w.severity, message: w.message}))
  const topology = mode.path !== 'none'
  if (mode.path === 'none' && mode.annotationValue !== undefined && (mode.annotationValue === 'Auto' || mode.annotationValue === 'auto')) {
    // hintsEnabled but the controller's topology cache is off (feature gate) at this version.
    issues.push({
      rule: 'unsupported-at-version',
      severity: 'error',
      message: `${mode.annotationKey}=${JSON.stringify(mode.annotationValue)} has no effect at Kubernetes ${formatVersion(f.version)}: the controller's topology cache (TopologyAwareHints) is off`,
    })
  }
  if (topology && nodesReadable) {
    const zone = onlyZone(capacity)
    if (zone !== undefined) {
      issues.push({
        rule: 'single-zone',
        severity: 'error',
        message: `topology-aware routing is set but every counted node is in one zone (${zone})${mode.path === 'topology-mode-auto' ? ': the controller refuses hints ("Insufficient Node information") and records a Warning event at every sync' : ': hints keep all traffic where it already is, and a second zone falls back until it has endpoints'}`,
      })
    }
  }
  if (topology && service.spec?.internalTrafficPolicy === 'Local') {
    issues.push({
      rule: 'internal-traffic-policy-local',
      severity: 'error',
      message:
        'internalTrafficPolicy: Local is set together with topology-aware routing: kube-proxy sends in-cluster traffic only to endpoints on the same node and ignores the hints',
    })
  }
  return issues
}
