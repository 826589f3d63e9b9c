// The document `apply -o json` and `reset -o json` print (schema/apply.v1.json): the planned
// change set, the predicted outcome, and what was written. Pure data built by the commands.
import type {ExplainReport} from '../explain/report.js'
import type {ChangeSet, FieldChange, HintStrategy, ModeValue, SliceChange} from './plan.js'
import type {HintDifference} from './wait.js'
import type {APPLY_SCHEMA_VERSION} from './plan.js'

export type ResultStatus = 'no-changes' | 'hints-differ' | 'preview' | 'dry-run' | 'applied' | 'partial' | 'interrupted' | 'refused'

export interface ObjectRef {
  kind: 'Service' | 'EndpointSlice'
  name: string
}

export interface ZonePrediction {
  name: string
  readyEndpoints: number
  /** Ready endpoints whose predicted hints name this zone. */
  hinted: number
  /** Ready endpoints whose live hints name this zone now. */
  liveHinted: number
  /** kube-proxy in this zone once the predicted hints are live: uses-hints, falls-back or no-hints. */
  kubeProxy: 'uses-hints' | 'falls-back' | 'no-hints'
  fallbackReason: string | null
}

export interface Prediction {
  addressType: string
  /** The path the controller takes: topology-mode-auto, traffic-distribution, none, not-managed. */
  path: string
  hintsSet: boolean
  reason: string
  message: string
  zones: ZonePrediction[]
}

export interface ApplyReport {
  apiVersion: typeof APPLY_SCHEMA_VERSION
  kind: 'TopologyApply' | 'TopologyReset'
  namespace: string
  service: string
  /** --mode (Service mode), null in hints mode and for reset. */
  mode: ModeValue | null
  /** --strategy (hints mode), null otherwise. */
  strategy: HintStrategy | null
  dryRun: 'none' | 'client' | 'server'
  /** True when the plan changes anything (--exit-code returns 1). */
  changed: boolean
  changes: {service: FieldChange[]; endpointSlices: SliceChange[]}
  prediction: Prediction[]
  warnings: string[]
  result: {
    status: ResultStatus
    written: ObjectRef[]
    /** Sent, but the answer was lost: may have been written (only when not empty; exit 9). */
    unknown?: ObjectRef[]
    failed: (ObjectRef & {error: string})[]
    notWritten: ObjectRef[]
    /** Conflicts answered by re-reading and re-planning. */
    retries: number
    message: string
  }
  wait?: {matched: boolean; perZone: boolean; differences: HintDifference[]}
}

export function predictionOf(report: ExplainReport): Prediction[] {
  return report.services.map((s) => ({
    addressType: s.addressType,
    path: s.controller.path,
    hintsSet: s.controller.hintsSet,
    reason: s.controller.reason,
    message: s.controller.message,
    zones: s.zones.map((z) => ({
      name: z.name,
      readyEndpoints: z.readyEndpoints,
      hinted: z.assigned,
      liveHinted: z.liveHints,
      kubeProxy: z.kubeProxyPredicted.fallback ? 'falls-back' : z.kubeProxyPredicted.mode === '' ? 'no-hints' : 'uses-hints',
      fallbackReason: z.kubeProxyPredicted.reason,
    })),
  }))
}

export function changesOf(c: ChangeSet): ApplyReport['changes'] {
  return {service: c.serviceChanges, endpointSlices: c.sliceChanges.filter((s) => s.endpoints.length > 0)}
}
