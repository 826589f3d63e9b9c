// The configuration findings of a Service: the mode's warnings (explain/mode.ts), then the
// rules that need more than the Service's own fields. One list, shown by explain, check
// (--lint), watch and plan.
import type {LintIssue} from './report.js'
import type {ServiceMode} from './mode.js'
import type {ZoneCapacity} from './node-verdicts.js'
import type {Service} from '../upstream/api/types.js'
import {formatVersion, type Features} from '../upstream/features.js'

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
    const zones = new Set(capacity.nodes.filter((n) => n.status === 'counted' && n.zone).map((n) => n.zone as string))
    if (zones.size === 1 && capacity.nodes.every((n) => !n.disablesHints)) {
      issues.push({
        rule: 'single-zone',
        severity: 'error',
        message: `topology-aware routing is set but every counted node is in one zone (${[...zones][0]})${mode.path === 'topology-mode-auto' ? ': the controller refuses hints ("Insufficient Node information") and records a Warning event at every sync' : ': hints keep all traffic where it already is, and a second zone falls back until it has endpoints'}`,
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
