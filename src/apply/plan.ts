// Plans for `kubectl topology apply` and `reset`: what a change does to a Service or to
// its EndpointSlices, as a pure diff over plain data. Nothing here talks to an API server,
// reads a clock or draws a random number; src/cluster/write.ts turns a plan into requests.
//
// Two kinds of plan:
// * Service mode: the modified Service (pure function of the current one and --mode), the
//   field changes, and the server-side apply configuration + removals that produce it.
// * Hints mode: hints computed by the engine (upstream AddHints, or the trafficDistribution
//   "close" heuristic) for every endpoint, the per-endpoint changes, and the JSON patches
//   (RFC 6902) that write exactly the changed `hints` and nothing else.

import {hintsEnabled} from '../upstream/endpointslice/utils.js'
import {addHints, setNodes} from '../upstream/endpointslice/topologycache/topologycache.js'
import {reconcileHints} from '../upstream/endpointslice/trafficdist/trafficdist.js'
import {
  ANNOTATION_TOPOLOGY_AWARE_HINTS,
  ANNOTATION_TOPOLOGY_MODE,
  CONTROLLER_NAME,
  LABEL_MANAGED_BY,
  type AddressType,
  type EndpointHints,
  type EndpointSlice,
  type Service,
} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {validateSliceHints, type ValidationError} from './validate-hints.js'

export const APPLY_SCHEMA_VERSION = 'kubectl-topology.io/v1'
export const FIELD_MANAGER = 'kubectl-topology'
/** Upper bound of entries in hints.forZones and hints.forNodes (API documentation; validated by the API server). */

/** apply --mode: the Kubernetes names, and `none` for no topology-aware routing (the word plan and simulate use). */
export const MODES = ['Auto', 'PreferSameZone', 'PreferSameNode', 'PreferClose', 'none'] as const
export type ModeValue = (typeof MODES)[number]
/** apply --hints --strategy: the hints the named Service mode would give (the names simulate uses). */
export const STRATEGIES = ['Auto', 'PreferSameZone', 'PreferSameNode'] as const
export type HintStrategy = (typeof STRATEGIES)[number]

/** Conflicts answered by re-reading and re-planning before apply (or reset) gives up (exit 8). */
export const MAX_CONFLICT_RETRIES = 3

// ---- Service fields -----------------------------------------------------------------------

/** The only Service fields apply ever changes; null means absent. */
export interface TopologyFields {
  topologyMode: string | null
  topologyAwareHints: string | null
  trafficDistribution: string | null
}
export type TopologyField = keyof TopologyFields
export const TOPOLOGY_FIELDS: readonly TopologyField[] = ['topologyMode', 'topologyAwareHints', 'trafficDistribution']

/** The field paths as users read them (kubectl's JSONPath-like notation). */
const FIELD_PATHS: Record<TopologyField, string> = {
  topologyMode: `metadata.annotations[${ANNOTATION_TOPOLOGY_MODE}]`,
  topologyAwareHints: `metadata.annotations[${ANNOTATION_TOPOLOGY_AWARE_HINTS}]`,
  trafficDistribution: 'spec.trafficDistribution',
}

export interface FieldChange {
  field: TopologyField
  path: string
  old: string | null
  new: string | null
  /** Why this field changes (a sentence). */
  reason: string
}

export function topologyFieldsOf(svc: Service): TopologyFields {
  const a = svc.metadata.annotations ?? {}
  return {
    topologyMode: Object.hasOwn(a, ANNOTATION_TOPOLOGY_MODE) ? String(a[ANNOTATION_TOPOLOGY_MODE]) : null,
    topologyAwareHints: Object.hasOwn(a, ANNOTATION_TOPOLOGY_AWARE_HINTS) ? String(a[ANNOTATION_TOPOLOGY_AWARE_HINTS]) : null,
    trafficDistribution: svc.spec?.trafficDistribution ?? null,
  }
}

const annotationsOf = (f: TopologyFields): Record<string, string> => {
  const out: Record<string, string> = {}
  if (f.topologyMode !== null) out[ANNOTATION_TOPOLOGY_MODE] = f.topologyMode
  if (f.topologyAwareHints !== null) out[ANNOTATION_TOPOLOGY_AWARE_HINTS] = f.topologyAwareHints
  return out
}

/**
 * The fields a Service needs so that the controller takes the asked mode, changing as few as
 * possible:
 * - Auto sets topology-mode=Auto (kept when it is already "Auto" or "auto") and removes the
 *   deprecated topology-aware-hints annotation, which, when present, wins over topology-mode
 *   whatever its value. It also clears spec.trafficDistribution: the annotation wins over it
 *   (upstream's reconciler reads trafficDistribution only when the annotation does not enable
 *   hints), so keeping it changes nothing now, makes lint report
 *   annotation-overrides-traffic-distribution, and would silently switch that mode on the day
 *   the annotation is removed.
 * - PreferSameZone / PreferSameNode / PreferClose set spec.trafficDistribution and remove each
 *   annotation that would override it (an annotation the controller reads as Auto).
 * - none removes spec.trafficDistribution and each annotation that enables hints; an explicit
 *   "Disabled" annotation is kept.
 */
export function desiredFields(current: TopologyFields, mode: ModeValue): {fields: TopologyFields; reasons: Partial<Record<TopologyField, string>>} {
  const next: TopologyFields = {...current}
  const reasons: Partial<Record<TopologyField, string>> = {}
  if (mode === 'Auto') {
    if (next.topologyMode !== 'Auto' && next.topologyMode !== 'auto') {
      next.topologyMode = 'Auto'
      reasons.topologyMode = '--mode Auto'
    }
    if (next.topologyAwareHints !== null) {
      next.topologyAwareHints = null
      reasons.topologyAwareHints = `the deprecated ${ANNOTATION_TOPOLOGY_AWARE_HINTS} annotation wins over ${ANNOTATION_TOPOLOGY_MODE} whenever it is present`
    }
    if (next.trafficDistribution !== null) {
      next.trafficDistribution = null
      reasons.trafficDistribution = `topology-mode Auto overrides spec.trafficDistribution (--mode Auto)`
    }
    return {fields: next, reasons}
  }
  if (mode === 'none') {
    if (next.trafficDistribution !== null) {
      next.trafficDistribution = null
      reasons.trafficDistribution = '--mode none'
    }
  } else if (next.trafficDistribution !== mode) {
    next.trafficDistribution = mode
    reasons.trafficDistribution = `--mode ${mode}`
  }
  // Remove annotations the controller would read as Auto (the deprecated key first: it is
  // the one read while present), until neither enables hints.
  for (let i = 0; i < 2 && hintsEnabled(annotationsOf(next)); i++) {
    if (next.topologyAwareHints !== null) {
      next.topologyAwareHints = null
      reasons.topologyAwareHints =
        mode === 'none'
          ? `it enables topology-mode Auto (--mode none)`
          : `the deprecated annotation would override spec.trafficDistribution (the controller prefers an Auto annotation)`
    } else {
      next.topologyMode = null
      reasons.topologyMode = mode === 'none' ? `it enables topology-mode Auto (--mode none)` : `topology-mode Auto would override spec.trafficDistribution`
    }
  }
  return {fields: next, reasons}
}

/** A copy of the Service with the three topology fields set to `f` (absent when null). */
export function withFields(svc: Service, f: TopologyFields): Service {
  const out = structuredClone(svc)
  const ann = {...(out.metadata.annotations ?? {})}
  delete ann[ANNOTATION_TOPOLOGY_MODE]
  delete ann[ANNOTATION_TOPOLOGY_AWARE_HINTS]
  Object.assign(ann, annotationsOf(f))
  if (Object.keys(ann).length > 0) out.metadata.annotations = ann
  else delete out.metadata.annotations
  const spec = {...(out.spec ?? {})}
  if (f.trafficDistribution === null) delete spec.trafficDistribution
  else spec.trafficDistribution = f.trafficDistribution
  out.spec = spec
  return out
}

export function fieldChanges(before: TopologyFields, after: TopologyFields, reasons: Partial<Record<TopologyField, string>> = {}): FieldChange[] {
  return TOPOLOGY_FIELDS.filter((f) => before[f] !== after[f]).map((f) => ({
    field: f,
    path: FIELD_PATHS[f],
    old: before[f],
    new: after[f],
    reason: reasons[f] ?? '',
  }))
}

/** One entry of metadata.managedFields (wire format). */
export interface ManagedFieldsEntry {
  manager?: string
  operation?: string
  fieldsV1?: Record<string, unknown>
}

/** Which topology fields `manager` owns through server-side apply, and which any other manager owns. */
export function fieldOwnership(managedFields: readonly ManagedFieldsEntry[] | undefined, manager = FIELD_MANAGER): {ours: Set<TopologyField>; others: Set<TopologyField>} {
  const ours = new Set<TopologyField>()
  const others = new Set<TopologyField>()
  for (const e of managedFields ?? []) {
    const f = (e.fieldsV1 ?? {}) as Record<string, Record<string, Record<string, unknown>> | undefined>
    const ann = (f['f:metadata']?.['f:annotations'] ?? {}) as Record<string, unknown>
    const owned: TopologyField[] = []
    if (Object.hasOwn(ann, `f:${ANNOTATION_TOPOLOGY_MODE}`)) owned.push('topologyMode')
    if (Object.hasOwn(ann, `f:${ANNOTATION_TOPOLOGY_AWARE_HINTS}`)) owned.push('topologyAwareHints')
    if (Object.hasOwn(f['f:spec'] ?? {}, 'f:trafficDistribution')) owned.push('trafficDistribution')
    const mine = e.manager === manager && e.operation === 'Apply'
    for (const o of owned) (mine ? ours : others).add(o)
  }
  return {ours, others}
}

/** How the Service change is written. */
export interface ServiceWrite {
  /**
   * Server-side apply configuration (field manager kubectl-topology): every topology field
   * that should be set and either changes or is already ours (omitting a field we own would
   * remove it). null when nothing needs applying.
   */
  apply: Record<string, unknown> | null
  /**
   * Fields to remove with a JSON merge patch after the apply, because another field manager
   * also owns them (server-side apply only removes fields that the applier alone owns).
   */
  removeByMergePatch: TopologyField[]
  /**
   * Set instead of the two above when the change must be one request: the API server refuses
   * a Service whose topology-mode and deprecated topology-aware-hints annotations are both
   * present with different values, so replacing one by the other cannot go through an
   * intermediate state. One JSON merge patch with the resourceVersion read (field manager
   * kubectl-topology).
   */
  single: Record<string, unknown> | null
}

export function serviceWrite(svc: Service, before: TopologyFields, after: TopologyFields, managedFields?: readonly ManagedFieldsEntry[]): ServiceWrite {
  const {ours, others} = fieldOwnership(managedFields)
  const changed = TOPOLOGY_FIELDS.filter((f) => before[f] !== after[f])
  if (changed.length === 0) return {apply: null, removeByMergePatch: [], single: null}
  // After an apply (sets only), both annotations would be present with different values.
  const midMode = after.topologyMode !== null && (before.topologyMode !== after.topologyMode || ours.has('topologyMode')) ? after.topologyMode : before.topologyMode
  const midDeprecated = after.topologyAwareHints !== null ? after.topologyAwareHints : before.topologyAwareHints
  if (
    midMode !== null &&
    midDeprecated !== null &&
    midMode !== midDeprecated &&
    (before.topologyMode !== after.topologyMode || before.topologyAwareHints !== after.topologyAwareHints)
  ) {
    return {apply: null, removeByMergePatch: [], single: serviceMergePatch(Object.fromEntries(changed.map((f) => [f, after[f]])), svc.metadata.resourceVersion)}
  }
  const set = TOPOLOGY_FIELDS.filter((f) => after[f] !== null && (before[f] !== after[f] || ours.has(f)))
  const removals = changed.filter((f) => after[f] === null)
  // A removal by omission works when we are the only owner.
  const byOmission = removals.filter((f) => ours.has(f) && !others.has(f))
  const byMerge = removals.filter((f) => !byOmission.includes(f))
  let apply: Record<string, unknown> | null = null
  if (set.length > 0 || byOmission.length > 0) {
    const metadata: Record<string, unknown> = {name: svc.metadata.name}
    if (svc.metadata.namespace) metadata.namespace = svc.metadata.namespace
    // Optimistic concurrency: the API server refuses the apply (409) when the Service
    // changed since it was read, so the prediction shown is the one that gets written.
    if (svc.metadata.resourceVersion) metadata.resourceVersion = svc.metadata.resourceVersion
    const ann: Record<string, string> = {}
    if (set.includes('topologyMode')) ann[ANNOTATION_TOPOLOGY_MODE] = after.topologyMode!
    if (set.includes('topologyAwareHints')) ann[ANNOTATION_TOPOLOGY_AWARE_HINTS] = after.topologyAwareHints!
    if (Object.keys(ann).length > 0) metadata.annotations = ann
    apply = {apiVersion: 'v1', kind: 'Service', metadata}
    if (set.includes('trafficDistribution')) apply.spec = {trafficDistribution: after.trafficDistribution}
  }
  return {apply, removeByMergePatch: byMerge, single: null}
}

/** JSON merge patch (RFC 7386) setting or removing topology fields, with a resourceVersion precondition. */
export function serviceMergePatch(fields: Partial<TopologyFields>, resourceVersion: string | undefined): Record<string, unknown> {
  const metadata: Record<string, unknown> = {}
  if (resourceVersion) metadata.resourceVersion = resourceVersion
  const ann: Record<string, string | null> = {}
  if ('topologyMode' in fields) ann[ANNOTATION_TOPOLOGY_MODE] = fields.topologyMode ?? null
  if ('topologyAwareHints' in fields) ann[ANNOTATION_TOPOLOGY_AWARE_HINTS] = fields.topologyAwareHints ?? null
  if (Object.keys(ann).length > 0) metadata.annotations = ann
  const patch: Record<string, unknown> = {metadata}
  if ('trafficDistribution' in fields) patch.spec = {trafficDistribution: fields.trafficDistribution ?? null}
  return patch
}

// ---- hints ---------------------------------------------------------------------------------

export interface HintNames {
  forZones: string[]
  forNodes: string[]
}

export const hintNamesOf = (h: EndpointHints | null | undefined): HintNames | null =>
  h == null ? null : {forZones: (h.forZones ?? []).map((z) => z.name), forNodes: (h.forNodes ?? []).map((n) => n.name)}

/** Hints compare equal when they name the same zones and nodes in the same order; nil and empty lists are alike. */
export function sameHints(a: EndpointHints | null | undefined, b: EndpointHints | null | undefined): boolean {
  const x = hintNamesOf(a)
  const y = hintNamesOf(b)
  const norm = (h: HintNames | null) => (h === null || (h.forZones.length === 0 && h.forNodes.length === 0) ? '' : `${h.forZones.join(',')}|${h.forNodes.join(',')}`)
  return norm(x) === norm(y)
}

export interface EndpointHintChange {
  /** Index in the slice's endpoints list. */
  index: number
  addresses: string[]
  zone: string | null
  nodeName: string | null
  ready: boolean
  old: HintNames | null
  new: HintNames | null
}

export interface SliceChange {
  name: string
  uid: string | null
  resourceVersion: string | null
  addressType: AddressType
  /** endpointslice.kubernetes.io/managed-by, or null. */
  managedBy: string | null
  controllerManaged: boolean
  /** Endpoints whose hints change (only those). */
  endpoints: EndpointHintChange[]
  /** Number of endpoints in the slice. */
  endpointCount: number
}

const isControllerManaged = (s: EndpointSlice): boolean => s.metadata.labels?.[LABEL_MANAGED_BY] === CONTROLLER_NAME

/** Per-endpoint hint changes between two versions of the same slice (same endpoints, same order). */
export function sliceChange(before: EndpointSlice, after: EndpointSlice): SliceChange {
  const eb = before.endpoints ?? []
  const ea = after.endpoints ?? []
  if (eb.length !== ea.length) throw new Error(`sliceChange: ${before.metadata.name}: endpoint lists differ in length`)
  const endpoints: EndpointHintChange[] = []
  eb.forEach((e, i) => {
    const n = ea[i]!
    if (sameHints(e.hints, n.hints)) return
    endpoints.push({
      index: i,
      addresses: [...e.addresses],
      zone: e.zone ?? null,
      nodeName: e.nodeName ?? null,
      ready: e.conditions?.ready === true,
      old: emptyToNull(hintNamesOf(e.hints)),
      new: emptyToNull(hintNamesOf(n.hints)),
    })
  })
  return {
    name: before.metadata.name,
    uid: before.metadata.uid ?? null,
    resourceVersion: before.metadata.resourceVersion ?? null,
    addressType: before.addressType,
    managedBy: before.metadata.labels?.[LABEL_MANAGED_BY] ?? null,
    controllerManaged: isControllerManaged(before),
    endpoints,
    endpointCount: eb.length,
  }
}

/** null for no hints or empty lists (the API server's omitted field). */
export const emptyToNull = (h: HintNames | null): HintNames | null => (h === null || (h.forZones.length === 0 && h.forNodes.length === 0) ? null : h)

function clearHints(slice: EndpointSlice): EndpointSlice {
  const copy = structuredClone(slice)
  for (const ep of copy.endpoints ?? []) delete ep.hints
  return copy
}

export interface ComputedHints {
  /** Same slices, same order, with the computed hints. */
  slices: EndpointSlice[]
  /** Set when Auto refuses (upstream's event message, per address type). */
  refusals: string[]
  /** FQDN slices are left alone (kube-proxy does not route them). */
  skipped: string[]
}

/**
 * Hints for every endpoint of the given slices, as if each slice were written afresh:
 * Auto runs the topology cache's AddHints with the cluster's zone CPU ratios (the
 * hints topology-mode Auto would give); PreferSameZone / PreferSameNode run the trafficDistribution
 * "close" heuristic (PreferSameZone / PreferSameNode). Endpoints that are not ready get no hint.
 */
export function computeHints(state: Pick<ClusterState, 'nodes'>, slices: readonly EndpointSlice[], strategy: HintStrategy): ComputedHints {
  const out = new Map<string, EndpointSlice>()
  const refusals: string[] = []
  const skipped: string[] = []
  const byType = new Map<AddressType, EndpointSlice[]>()
  for (const s of slices) {
    if (s.addressType === 'FQDN') {
      skipped.push(s.metadata.name)
      out.set(s.metadata.name, s)
      continue
    }
    const list = byType.get(s.addressType) ?? []
    list.push(clearHints(s))
    byType.set(s.addressType, list)
  }
  const ratios = strategy === 'Auto' ? setNodes(state.nodes).cpuRatiosByZone : null
  for (const [addressType, list] of [...byType.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let result: EndpointSlice[]
    if (strategy === 'Auto') {
      const r = addHints(ratios, {addressType, toCreate: [], toUpdate: list, unchanged: [], populated: false})
      if (!r.hintsSet) refusals.push(r.events.find((e) => e.type === 'Warning')?.message ?? `${r.refusal?.message ?? 'hints refused'}, addressType: ${addressType}`)
      result = [...r.toCreate, ...r.toUpdate, ...r.unchanged]
    } else {
      const td = strategy
      const r = reconcileHints(td, {toCreate: [], toUpdate: list, unchanged: []})
      result = [...r.toCreate, ...r.toUpdate, ...r.unchanged]
    }
    for (const s of result) out.set(s.metadata.name, s)
  }
  return {slices: slices.map((s) => out.get(s.metadata.name) ?? s), refusals, skipped}
}

/** A copy of `slice` whose endpoint hints are replaced by those of `hinted` (same endpoints). */
function withHints(slice: EndpointSlice, hinted: EndpointSlice): EndpointSlice {
  const copy = structuredClone(slice)
  ;(copy.endpoints ?? []).forEach((e, i) => {
    const h = hinted.endpoints?.[i]?.hints
    if (h == null || (!h.forZones?.length && !h.forNodes?.length)) delete e.hints
    else e.hints = structuredClone(h)
  })
  return copy
}

// ---- JSON patch for a slice's hints -----------------------------------------------------------

export type JsonPatchOp = {op: 'add' | 'replace'; path: string; value: unknown} | {op: 'remove'; path: string} | {op: 'test'; path: string; value: unknown}

/**
 * RFC 6902 operations that write the changed endpoints' hints and nothing else. The first
 * operation puts the resourceVersion that was read back into the object: when the slice has
 * changed since, the API server's precondition check refuses the write with 409 Conflict.
 */
export function sliceHintsPatch(before: EndpointSlice, after: EndpointSlice): JsonPatchOp[] {
  const ops: JsonPatchOp[] = []
  if (before.metadata.resourceVersion) ops.push({op: 'replace', path: '/metadata/resourceVersion', value: before.metadata.resourceVersion})
  ;(before.endpoints ?? []).forEach((e, i) => {
    const n = after.endpoints?.[i]
    if (!n || sameHints(e.hints, n.hints)) return
    const path = `/endpoints/${i}/hints`
    const h = n.hints
    const empty = h == null || (!h.forZones?.length && !h.forNodes?.length)
    if (empty) {
      if (e.hints != null) ops.push({op: 'remove', path})
    } else {
      const value: EndpointHints = {}
      if (h.forZones?.length) value.forZones = h.forZones.map((z) => ({name: z.name}))
      if (h.forNodes?.length) value.forNodes = h.forNodes.map((z) => ({name: z.name}))
      ops.push({op: 'add', path, value})
    }
  })
  return ops
}

// ---- the change set --------------------------------------------------------------------------

export interface ChangeSet {
  namespace: string
  service: string
  serviceChanges: FieldChange[]
  sliceChanges: SliceChange[]
}

export const hasChanges = (c: ChangeSet): boolean => c.serviceChanges.length > 0 || c.sliceChanges.some((s) => s.endpoints.length > 0)

export interface ServicePlan {
  kind: 'service'
  mode: ModeValue
  changes: ChangeSet
  before: Service
  after: Service
  beforeFields: TopologyFields
  afterFields: TopologyFields
  write: ServiceWrite
}

export function planServiceMode(svc: Service, mode: ModeValue, managedFields?: readonly ManagedFieldsEntry[]): ServicePlan {
  const beforeFields = topologyFieldsOf(svc)
  const {fields: afterFields, reasons} = desiredFields(beforeFields, mode)
  const after = withFields(svc, afterFields)
  return {
    kind: 'service',
    mode,
    changes: {
      namespace: svc.metadata.namespace ?? 'default',
      service: svc.metadata.name,
      serviceChanges: fieldChanges(beforeFields, afterFields, reasons),
      sliceChanges: [],
    },
    before: svc,
    after,
    beforeFields,
    afterFields,
    write: serviceWrite(svc, beforeFields, afterFields, managedFields),
  }
}

export interface SliceWrite {
  name: string
  before: EndpointSlice
  after: EndpointSlice
  patch: JsonPatchOp[]
}

export interface HintsPlan {
  kind: 'hints'
  strategy: HintStrategy
  changes: ChangeSet
  /** Only slices whose hints change. */
  writes: SliceWrite[]
  /** Controller-managed slices that would change (refused without --force). */
  controllerManaged: string[]
  refusals: string[]
  skipped: string[]
  validation: {slice: string; errors: ValidationError[]}[]
}

/** Plans writing hints computed with `strategy` onto the Service's EndpointSlices. */
export function planHints(state: Pick<ClusterState, 'nodes'>, svc: Service, slices: readonly EndpointSlice[], strategy: HintStrategy): HintsPlan {
  const sorted = [...slices].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0))
  const computed = computeHints(state, sorted, strategy)
  const writes: SliceWrite[] = []
  const sliceChanges: SliceChange[] = []
  const validation: {slice: string; errors: ValidationError[]}[] = []
  sorted.forEach((s, i) => {
    const after = withHints(s, computed.slices[i]!)
    const change = sliceChange(s, after)
    sliceChanges.push(change)
    if (change.endpoints.length === 0) return
    const errors = validateSliceHints(after)
    if (errors.length > 0) validation.push({slice: s.metadata.name, errors})
    writes.push({name: s.metadata.name, before: s, after, patch: sliceHintsPatch(s, after)})
  })
  return {
    kind: 'hints',
    strategy,
    changes: {namespace: svc.metadata.namespace ?? 'default', service: svc.metadata.name, serviceChanges: [], sliceChanges},
    writes,
    controllerManaged: writes.filter((w) => isControllerManaged(w.before)).map((w) => w.name),
    refusals: computed.refusals,
    skipped: computed.skipped,
    validation,
  }
}

/** The Service mode that writes what a hints strategy computes (for refusal messages). */
export const MODE_FOR_STRATEGY: Record<HintStrategy, ModeValue> = {
  Auto: 'Auto',
  PreferSameZone: 'PreferSameZone',
  PreferSameNode: 'PreferSameNode',
}
