// The steps of a recommendation: each a command to paste (built from an argv by shell.ts) and
// the same change with plain kubectl. A mode change is what `kubectl topology apply --mode`
// writes (apply/plan.ts desiredFields): the plain-kubectl alternative is one merge patch that
// sets or clears exactly the fields apply changes, so both leave the same Service behind (an
// Auto annotation is removed when trafficDistribution is set: it wins over the field).
import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE} from '../upstream/api/types.js'
import {desiredFields, fieldOwnership, topologyFieldsOf, TOPOLOGY_FIELDS, type ManagedFieldsEntry} from '../apply/plan.js'
import type {Service} from '../upstream/api/types.js'
import type {WorkloadKind} from '../simulate/workload.js'
import {commandFor, type NamedArg} from './shell.js'
import {applyModeOf} from './evaluate.js'
import type {Step, StepExpectation, TopologyMode} from './types.js'

const names = (svc: Service): NamedArg[] => [
  {kind: 'Service', name: svc.metadata.name},
  {kind: 'Namespace', name: svc.metadata.namespace ?? 'default'},
]

/** The merge patch that makes the Service's topology fields what `apply --mode <mode>` makes them (null: nothing changes). */
export function modePatch(svc: Service, mode: TopologyMode): Record<string, unknown> | null {
  const before = topologyFieldsOf(svc)
  const after = desiredFields(before, applyModeOf(mode)).fields
  const annotations: Record<string, string | null> = {}
  if (before.topologyMode !== after.topologyMode) annotations[ANNOTATION_TOPOLOGY_MODE] = after.topologyMode
  if (before.topologyAwareHints !== after.topologyAwareHints) annotations[ANNOTATION_TOPOLOGY_AWARE_HINTS] = after.topologyAwareHints
  const patch: Record<string, unknown> = {}
  if (Object.keys(annotations).length > 0) patch.metadata = {annotations}
  if (before.trafficDistribution !== after.trafficDistribution) patch.spec = {trafficDistribution: after.trafficDistribution}
  return Object.keys(patch).length > 0 ? patch : null
}

/**
 * Whether `apply --mode <mode>` sets a field to a new value that another field manager owns
 * (metadata.managedFields, as apply/plan.ts fieldOwnership reads it): server-side apply then
 * refuses with a conflict unless forced (k8s.io/apimachinery's structured-merge-diff conflict
 * rules), so the printed command carries --force-conflicts, which takes the ownership of that field only.
 */
export function takesOwnership(svc: Service, mode: TopologyMode): boolean {
  const before = topologyFieldsOf(svc)
  const after = desiredFields(before, applyModeOf(mode)).fields
  const {others} = fieldOwnership((svc.metadata as {managedFields?: ManagedFieldsEntry[]}).managedFields)
  return TOPOLOGY_FIELDS.some((f) => after[f] !== null && after[f] !== before[f] && others.has(f))
}

/** The step that sets `mode` on the Service; null when a name is not valid for the API server or nothing changes. */
export function modeStep(svc: Service, mode: TopologyMode, expect: StepExpectation): Step | null {
  const name = svc.metadata.name
  const ns = svc.metadata.namespace ?? 'default'
  const patch = modePatch(svc, mode)
  if (patch === null) return null
  const force = takesOwnership(svc, mode) ? ['--force-conflicts'] : []
  const command = commandFor(['kubectl', 'topology', 'apply', `svc/${name}`, '-n', ns, '--mode', mode, '--yes', ...force], names(svc))
  const alternative = commandFor(['kubectl', 'patch', 'service', name, '-n', ns, '--type=merge', '-p', JSON.stringify(patch)], names(svc))
  if (command === null || alternative === null) return null
  return {command, alternative, expect}
}

/** The step that scales the workload behind the Service; null when a name is not valid. */
export function scaleStep(svc: Service, workload: {kind: WorkloadKind; name: string}, replicas: number, expect: StepExpectation): Step | null {
  const ns = svc.metadata.namespace ?? 'default'
  const command = commandFor(
    ['kubectl', 'scale', `${workload.kind.toLowerCase()}/${workload.name}`, '-n', ns, `--replicas=${replicas}`],
    [{kind: workload.kind, name: workload.name}, ...names(svc)],
  )
  return command === null ? null : {command, alternative: null, expect}
}
