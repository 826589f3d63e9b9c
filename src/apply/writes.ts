// The writes of a plan: for each object, its journal record and the requests that change it,
// sent through a WriteTarget (cluster/write.ts's Writer is one; tests pass a fake). Which
// requests, in which order and with which preconditions is decided here; sending them is not.
import type {EndpointSlice, Service} from '../upstream/api/types.js'
import {hasChanges, serviceMergePatch, topologyFieldsOf, TOPOLOGY_FIELDS, type JsonPatchOp, type TopologyField, type TopologyFields} from './plan.js'
import type {Plan} from './predict.js'
import type {ObjectRef} from './report.js'
import {hintsRecord, type ObjectRecord, type ResetPlan} from './undo.js'

/** The requests a write sends (the methods of cluster/write.ts's Writer it uses). */
export interface WriteTarget {
  /** Every request goes with dryRun=All. */
  readonly serverDryRun: boolean
  applyService(name: string, body: Record<string, unknown>, force: boolean): Promise<Service>
  mergePatchService(name: string, patch: Record<string, unknown>): Promise<Service>
  patchSlice(name: string, ops: JsonPatchOp[]): Promise<EndpointSlice>
}

export interface ObjectWrite {
  ref: ObjectRef
  /** The journal record (before/prior/after); null when the caller keeps the journal itself (reset). */
  record: ObjectRecord | null
  /** Sends the request(s); throws on failure (a conflict: cluster/write.ts's ConflictError). */
  run: (w: WriteTarget) => Promise<void>
}

/**
 * The fields a merge patch must still remove after the server-side apply (or, with no apply,
 * instead of it): the plan's removals that are still set, and the fields the plan removes that
 * the apply left because another field manager also owns them.
 */
export function fieldsLeftToRemove(after: TopologyFields, removeByMergePatch: readonly TopologyField[], current: TopologyFields): TopologyField[] {
  const left = TOPOLOGY_FIELDS.filter((f) => after[f] === null && current[f] !== null)
  return [...new Set([...removeByMergePatch.filter((f) => current[f] !== null), ...left])]
}

/** The writes of an apply plan, each with its journal record. force: server-side apply force. */
export function writesFor(plan: Plan, force: boolean): ObjectWrite[] {
  if (plan.kind === 'service') {
    if (!hasChanges(plan.changes)) return []
    const name = plan.before.metadata.name
    const apply = plan.write.apply
    const after = plan.afterFields
    return [
      {
        ref: {kind: 'Service', name},
        record: {kind: 'Service', name, uid: plan.before.metadata.uid ?? null, state: 'pending', before: plan.beforeFields, prior: plan.beforeFields, after},
        run: async (w) => {
          if (plan.write.single) {
            await w.mergePatchService(name, plan.write.single)
            return
          }
          let rv = plan.before.metadata.resourceVersion
          let current: TopologyFields = plan.beforeFields
          if (apply) {
            const res = await w.applyService(name, apply, force)
            rv = res.metadata.resourceVersion
            current = topologyFieldsOf(res)
          }
          // Server-side apply leaves fields that another manager also owns: remove those
          // with a merge patch carrying the resourceVersion just written.
          const toRemove = fieldsLeftToRemove(after, plan.write.removeByMergePatch, current)
          if (toRemove.length > 0) {
            await w.mergePatchService(name, serviceMergePatch(Object.fromEntries(toRemove.map((f) => [f, null])), w.serverDryRun && apply ? undefined : rv))
          }
        },
      },
    ]
  }
  return plan.writes.map((sw) => ({
    ref: {kind: 'EndpointSlice' as const, name: sw.name},
    record: {
      kind: 'EndpointSlice' as const,
      name: sw.name,
      uid: sw.before.metadata.uid ?? null,
      state: 'pending' as const,
      before: hintsRecord(sw.before),
      prior: hintsRecord(sw.before),
      after: hintsRecord(sw.after),
    },
    run: async (w) => {
      await w.patchSlice(sw.name, sw.patch)
    },
  }))
}

/** The writes of a reset plan: the Service first, then the slices; reset keeps its journal itself. */
export function resetWrites(plan: ResetPlan): ObjectWrite[] {
  const writes: ObjectWrite[] = []
  if (plan.service) {
    const s = plan.service
    writes.push({ref: {kind: 'Service', name: s.name}, record: null, run: async (w) => void (await w.mergePatchService(s.name, s.patch))})
  }
  for (const s of plan.slices) writes.push({ref: {kind: 'EndpointSlice', name: s.name}, record: null, run: async (w) => void (await w.patchSlice(s.name, s.patch))})
  return writes
}
