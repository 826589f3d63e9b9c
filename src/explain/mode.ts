// Our model of a Service's topology configuration, for explain and check: which path the
// EndpointSlice controller takes (upstream's decision, from upstream/endpointslice/reconciler.ts
// `topologyPath`), the reasons in words, and lint findings (rule + severity) on configurations
// that do not do what they say. Not an upstream port: the rules it reads are k8s.io/endpointslice
// utils.go `hintsEnabled` and reconciler.go `validTrafficDistribution` / `reconcileByAddressType`.

import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE, TD_PREFER_CLOSE, TD_PREFER_SAME_NODE, TD_PREFER_SAME_ZONE, type Service} from '../upstream/api/types.js'
import {topologyPath, type TopologyPath} from '../upstream/endpointslice/reconciler.js'
import {effectiveAnnotation, hintsEnabled} from '../upstream/endpointslice/utils.js'
import {formatVersion, type Features} from '../upstream/features.js'

export interface ServiceMode {
  path: TopologyPath
  /** The annotation key the controller reads (the deprecated key wins when present). */
  annotationKey?: string
  annotationValue?: string
  /** `spec.trafficDistribution` as set on the Service (even when it is not usable). */
  trafficDistribution?: string
  /** Human sentences explaining why this path was chosen. */
  why: string[]
  /**
   * Lint-style findings: both annotations set, ignored values like AUTO, annotation
   * overriding trafficDistribution, value unsupported at this version, deprecations. Each
   * has a rule code (what `check`'s lint policy reports) and a severity: `error` when the
   * configuration does not do what it says, `warning` when it works but should change.
   */
  warnings: ModeWarning[]
}

export type ModeWarningRule =
  | 'both-annotations'
  | 'deprecated-annotation'
  | 'ignored-value'
  | 'annotation-overrides-traffic-distribution'
  | 'unsupported-at-version'
  | 'deprecated-value'

export interface ModeWarning {
  rule: ModeWarningRule
  severity: 'error' | 'warning'
  message: string
}

const OFF_VALUES = new Set(['', 'Disabled', 'disabled'])

function q(s: string): string {
  return JSON.stringify(s)
}

/** The lint rule of tdUnusableReason's finding: a known value this version lacks, or a value no version knows. */
function tdUnusableRule(td: string, f: Features): ModeWarningRule {
  const known = td === TD_PREFER_CLOSE || td === TD_PREFER_SAME_ZONE || td === TD_PREFER_SAME_NODE
  return !f.trafficDistributionField || known ? 'unsupported-at-version' : 'ignored-value'
}

/** Why a set trafficDistribution value is not usable at this version (undefined if it is usable). */
function tdUnusableReason(td: string, f: Features): string | undefined {
  const v = formatVersion(f.version)
  if (!f.trafficDistributionField) {
    return `spec.trafficDistribution is not honoured at Kubernetes ${v}: the field is beta and on by default from 1.31 (1.30 alpha gate ServiceTrafficDistribution is off by default, and older API servers drop the field)`
  }
  if (td === TD_PREFER_CLOSE) return undefined
  if (td === TD_PREFER_SAME_ZONE || td === TD_PREFER_SAME_NODE) {
    if (f.preferSameTrafficDistribution) return undefined
    return `spec.trafficDistribution ${q(td)} is not accepted by the controller at Kubernetes ${v}: it needs the PreferSameTrafficDistribution gate (alpha and off by default in 1.33, on by default from 1.34); the controller removes all hints instead`
  }
  const known = f.preferSameTrafficDistribution ? `${q(TD_PREFER_SAME_ZONE)}, ${q(TD_PREFER_SAME_NODE)} or ${q(TD_PREFER_CLOSE)}` : q(TD_PREFER_CLOSE)
  const caseHint = [TD_PREFER_CLOSE, TD_PREFER_SAME_ZONE, TD_PREFER_SAME_NODE].find((k) => k.toLowerCase() === td.toLowerCase() && k !== td)
  return (
    `spec.trafficDistribution ${q(td)} is not a value the controller recognises at Kubernetes ${v} (exact, case-sensitive match on ${known}); the controller removes all hints` +
    (caseHint !== undefined ? `; did you mean ${q(caseHint)}?` : '')
  )
}

/**
 * serviceMode without its sentences (`why` and `warnings` empty): the path and the values read,
 * for explain's figuresOnly evaluations, which read only the path (the advisor's four or five
 * per Service built and dropped every sentence).
 */
export function serviceModePath(service: Service, f: Features): ServiceMode {
  const ann = effectiveAnnotation(service.metadata?.annotations)
  const td = service.spec?.trafficDistribution ?? undefined
  const mode: ServiceMode = {path: topologyPath(service, f), why: [], warnings: []}
  if (ann !== undefined) {
    mode.annotationKey = ann.key
    mode.annotationValue = ann.value
  }
  if (td !== undefined) mode.trafficDistribution = td
  return mode
}

/**
 * Which topology path the EndpointSlice controller takes for this Service (upstream's
 * `topologyPath`), with reasons and lint findings.
 */
export function serviceMode(service: Service, f: Features): ServiceMode {
  const annotations = service.metadata?.annotations
  const ann = effectiveAnnotation(annotations)
  const td = service.spec?.trafficDistribution ?? undefined
  const why: string[] = []
  const warnings: ModeWarning[] = []
  const warn = (rule: ModeWarningRule, severity: ModeWarning['severity'], message: string) => warnings.push({rule, severity, message})

  const bothSet = annotations != null && Object.hasOwn(annotations, ANNOTATION_TOPOLOGY_AWARE_HINTS) && Object.hasOwn(annotations, ANNOTATION_TOPOLOGY_MODE)

  const annotationAuto = hintsEnabled(annotations)

  // ---- annotation findings -------------------------------------------------------------
  if (bothSet) {
    const dep = String(annotations![ANNOTATION_TOPOLOGY_AWARE_HINTS])
    const cur = String(annotations![ANNOTATION_TOPOLOGY_MODE])
    why.push(`the deprecated annotation ${ANNOTATION_TOPOLOGY_AWARE_HINTS} is present and wins over ${ANNOTATION_TOPOLOGY_MODE}`)
    warn(
      'both-annotations',
      dep === cur ? 'warning' : 'error',
      dep === cur
        ? `both ${ANNOTATION_TOPOLOGY_AWARE_HINTS} and ${ANNOTATION_TOPOLOGY_MODE} are set (both ${q(dep)}); remove the deprecated ${ANNOTATION_TOPOLOGY_AWARE_HINTS}`
        : `both ${ANNOTATION_TOPOLOGY_AWARE_HINTS}=${q(dep)} and ${ANNOTATION_TOPOLOGY_MODE}=${q(cur)} are set; the controller uses only the deprecated ${ANNOTATION_TOPOLOGY_AWARE_HINTS}=${q(dep)} and ignores ${ANNOTATION_TOPOLOGY_MODE}`,
    )
  } else if (ann?.key === ANNOTATION_TOPOLOGY_AWARE_HINTS) {
    warn('deprecated-annotation', 'warning', `${ANNOTATION_TOPOLOGY_AWARE_HINTS} is deprecated; use ${ANNOTATION_TOPOLOGY_MODE} (or spec.trafficDistribution) instead`)
  }

  if (ann !== undefined) {
    if (annotationAuto) {
      why.push(`${ann.key}=${q(ann.value)} enables Topology Aware Routing (CPU-proportional zone hints)`)
    } else {
      why.push(`${ann.key}=${q(ann.value)} does not enable hints (only "Auto" or "auto" do)`)
      if (OFF_VALUES.has(ann.value)) {
        // An explicit "off": nothing to lint.
      } else if (ann.value.toLowerCase() === 'auto') {
        warn('ignored-value', 'error', `${ann.key}=${q(ann.value)} is ignored: the controller only accepts exactly "Auto" or "auto" (case-sensitive); did you mean "Auto"?`)
      } else if (ann.value.includes('/')) {
        warn('ignored-value', 'error', `${ann.key}=${q(ann.value)} is an implementation-specific value; the in-tree EndpointSlice controller treats it as disabled`)
      } else {
        warn(
          'ignored-value',
          'error',
          `${ann.key}=${q(ann.value)} is not a recognised value and is treated as disabled; use "Auto" to enable Topology Aware Routing or "Disabled" to make the intent explicit`,
        )
      }
    }
    if (annotationAuto && !f.topologyAwareHints) {
      why.push(`the controller's topology cache is disabled (TopologyAwareHints feature gate off), so the annotation has no effect`)
    }
  }

  // ---- trafficDistribution findings ----------------------------------------------------
  if (td !== undefined) {
    const reason = tdUnusableReason(td, f)
    if (reason !== undefined) {
      why.push(reason)
      warn(tdUnusableRule(td, f), 'error', reason)
    } else if (annotationAuto) {
      why.push(`${ann!.key}=${q(ann!.value)} takes precedence over spec.trafficDistribution=${q(td)}, which the controller ignores`)
      warn(
        'annotation-overrides-traffic-distribution',
        'error',
        `${ann!.key}=${q(ann!.value)} overrides spec.trafficDistribution=${q(td)}: the controller writes CPU-proportional annotation-mode zone hints` +
          (td === TD_PREFER_SAME_NODE ? ' and no node hints' : '') +
          `; remove the annotation to use trafficDistribution`,
      )
    } else {
      why.push(
        td === TD_PREFER_SAME_NODE
          ? `spec.trafficDistribution=${q(td)}: every ready endpoint is hinted for its own zone and its own node`
          : `spec.trafficDistribution=${q(td)}: every ready endpoint is hinted for its own zone`,
      )
    }
    if (td === TD_PREFER_CLOSE && f.preferSameTrafficDistribution) {
      warn('deprecated-value', 'warning', `spec.trafficDistribution "PreferClose" is the deprecated name of "PreferSameZone" (same behaviour); prefer "PreferSameZone"`)
    }
  }

  // reconcileByAddressType's branch: the annotation beats a usable trafficDistribution.
  const path: TopologyPath = topologyPath(service, f)
  // A Service without a selector: its EndpointSlices are someone else's, and "the controller
  // removes any hints" would contradict what follows (issue 19 finding 11): say that one thing.
  const selectorless = service.spec?.type !== 'ExternalName' && Object.keys(service.spec?.selector ?? {}).length === 0
  if (path === 'none' && selectorless) {
    why.push("the Service has no selector: its EndpointSlices are not the controller's, so no topology setting changes their hints")
  } else if (path === 'none') {
    if (ann === undefined && td === undefined) {
      why.push(`neither ${ANNOTATION_TOPOLOGY_MODE} nor spec.trafficDistribution is set, so the controller removes any hints`)
    } else {
      why.push(`no topology path applies, so the controller removes any hints`)
    }
  }

  const mode: ServiceMode = {path, why, warnings}
  if (ann !== undefined) {
    mode.annotationKey = ann.key
    mode.annotationValue = ann.value
  }
  if (td !== undefined) mode.trafficDistribution = td
  return mode
}
