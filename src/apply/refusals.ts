// What apply refuses to write, and what it writes with a warning, decided on the plan before
// anything is sent. The caller prints the warnings, then stops at the refusal (if any).
import {CONTROLLER_NAME, LABEL_MANAGED_BY, type Service} from '../upstream/api/types.js'
import {acceptedTrafficDistributions, formatVersion, type Features} from '../upstream/features.js'
import {commandFor} from '../advise/shell.js'
import {MODE_FOR_STRATEGY, type HintsPlan, type ModeValue} from './plan.js'

export interface Refusal {
  message: string
  /** usage: the request cannot be done as asked (exit 2); invalid: the planned hints are not valid (exit 8). */
  kind: 'usage' | 'invalid'
}

/**
 * `kubectl topology apply svc/NAME -n NS --mode MODE`, quoted for a POSIX shell (advise/shell.ts);
 * for a name the API server would refuse (only a hand-made snapshot holds one), the flags in
 * prose instead: a pasted command must run exactly what it says (issue 20, class 6).
 */
function applyModeCommand(namespace: string, service: string, mode: string): string {
  const cmd = commandFor(
    ['kubectl', 'topology', 'apply', `svc/${service}`, '-n', namespace, '--mode', mode],
    [
      {kind: 'Service', name: service},
      {kind: 'Namespace', name: namespace},
    ],
  )
  return cmd ?? `kubectl topology apply with --mode ${mode} (no command is printed: the Service or namespace name is not one the API server accepts)`
}

/** Hints mode: Auto refused, controller-managed slices without --force, invalid values. */
export function hintsRefusal(plan: HintsPlan, namespace: string, service: string, force: boolean): {refusal: Refusal | null; warnings: string[]} {
  if (plan.refusals.length > 0) {
    return {
      refusal: {
        kind: 'usage',
        message: `--strategy Auto: the topology cache refuses to allocate hints for service ${service}: ${plan.refusals.join('; ')}; nothing was written (try --strategy PreferSameZone)`,
      },
      warnings: [],
    }
  }
  if (plan.controllerManaged.length > 0 && !force) {
    return {
      refusal: {
        kind: 'usage',
        message: `refusing to write hints onto EndpointSlice(s) ${plan.controllerManaged.join(', ')}: they are managed by the EndpointSlice controller (${LABEL_MANAGED_BY}=${CONTROLLER_NAME}), which rewrites their hints at its next sync of the Service; set the Service's mode instead: ${applyModeCommand(namespace, service, MODE_FOR_STRATEGY[plan.strategy])} (or pass --force to write them anyway, until that sync)`,
      },
      warnings: [],
    }
  }
  const warnings: string[] = []
  for (const w of plan.writes) {
    const by = w.before.metadata.labels?.[LABEL_MANAGED_BY]
    if (by && by !== CONTROLLER_NAME && by.startsWith('endpointslicemirroring-controller')) {
      warnings.push(`EndpointSlice ${w.name} is managed by ${by}, which rewrites it when the Endpoints object changes; the hints last until then`)
    }
  }
  if (plan.controllerManaged.length > 0) {
    warnings.push(
      `--force: writing hints onto controller-managed EndpointSlice(s) ${plan.controllerManaged.join(', ')}; they last only until the EndpointSlice controller's next sync of service ${service}`,
    )
  }
  if (plan.validation.length > 0) {
    const first = plan.validation[0]!
    const errs = first.errors.map((e) => `${e.path}: ${e.message}`).join('; ')
    const more = plan.validation.length > 1 ? ` (and ${plan.validation.length - 1} more slice(s))` : ''
    return {refusal: {kind: 'invalid', message: `the planned hints for EndpointSlice ${first.slice} are not valid, so nothing was sent: ${errs}${more}`}, warnings}
  }
  return {refusal: null, warnings}
}

/** Service mode on a Service without a selector: the controller writes no hints for it. */
export function noSelectorWarning(service: Service): string | null {
  if (service.spec?.selector && Object.keys(service.spec.selector).length > 0) return null
  return `service ${service.metadata.name} has no selector: the EndpointSlice controller does not manage its EndpointSlices, so this change writes no hints; use --hints to write them directly`
}

/** After hints were written onto controller-managed slices (--force): how long they last. */
export function shortLivedHintsWarning(plan: HintsPlan, namespace: string, service: string): string | null {
  if (plan.controllerManaged.length === 0) return null
  return `the hints on ${plan.controllerManaged.join(', ')} last only until the EndpointSlice controller's next sync of service ${service}; to make them stick use: ${applyModeCommand(namespace, service, MODE_FOR_STRATEGY[plan.strategy])}`
}

/**
 * Service mode: a trafficDistribution value the target version's API server does not take.
 * 1.30 (ServiceTrafficDistribution off) drops spec.trafficDistribution silently
 * (pkg/registry/core/service/strategy.go dropServiceDisabledFields), so
 * the write would "succeed" and change nothing; 1.31-1.33 refuse PreferSameZone and
 * PreferSameNode (pkg/apis/core/validation validateServiceTrafficDistribution, until
 * PreferSameTrafficDistribution is on by default in 1.34). --force sends it anyway (a cluster
 * whose operator turned the gate on takes it), with a warning.
 */
export function modeRefusal(mode: ModeValue, f: Features, force: boolean): {refusal: Refusal | null; warning: string | null} {
  if (mode === 'Auto' || mode === 'none') return {refusal: null, warning: null}
  const accepted = acceptedTrafficDistributions(f)
  if (accepted.includes(mode)) return {refusal: null, warning: null}
  const v = formatVersion(f.version)
  let why: string
  let instead: string
  if (accepted.length === 0) {
    why = `at Kubernetes ${v} the API server drops spec.trafficDistribution (ServiceTrafficDistribution gate, off by default before 1.31), so --mode ${mode} would change nothing`
    instead = '--mode Auto'
  } else {
    why = `at Kubernetes ${v} the API server accepts only "PreferClose" for spec.trafficDistribution (${mode} needs the PreferSameTrafficDistribution gate, on by default from 1.34)`
    instead = mode === 'PreferSameZone' ? '--mode PreferClose (the same zone hints at this version)' : '--mode PreferClose (zone hints; node hints need 1.34)'
  }
  if (force) return {refusal: null, warning: `--force-value: ${why}; sending it anyway`}
  return {
    refusal: {
      kind: 'usage',
      message: `${why}; nothing was written: use ${instead}, or --force-value if this cluster turned the gate on (--kube-version X.Y predicts another version)`,
    },
    warning: null,
  }
}
