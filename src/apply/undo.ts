// The undo record apply keeps (a write-ahead journal, stored by src/cluster/journal.ts) and
// the reset plan computed from it. Pure: the journal is plain data, times come from callers.
//
// Per object the journal holds `before` (the value right before kubectl-topology first
// changed it) and `after` (the value it last wrote). Reset puts `before` back only where the
// live value still equals `after`: a value someone else changed since is left alone (and
// reported) unless --force.

import {
  fieldChanges,
  hintNamesOf,
  sameHints,
  serviceMergePatch,
  sliceHintsPatch,
  TOPOLOGY_FIELDS,
  topologyFieldsOf,
  type ChangeSet,
  type JsonPatchOp,
  type SliceChange,
  type TopologyField,
  type TopologyFields,
  sliceChange,
  withFields,
} from './plan.js'
import type {EndpointHints, EndpointSlice, Service} from '../upstream/api/types.js'

export const JOURNAL_KIND = 'ApplyJournal'

export interface EndpointHintsRecord {
  addresses: string[]
  hints: EndpointHints | null
}

/**
 * pending: about to be written (a run killed before the answer leaves it so); written; failed;
 * unknown: sent, but the answer was lost, so the server may hold the change.
 */
export type ObjectState = 'pending' | 'written' | 'failed' | 'unknown'

export interface ServiceRecord {
  kind: 'Service'
  name: string
  uid: string | null
  state: ObjectState
  /** The value before kubectl-topology first changed the object (what reset restores). */
  before: TopologyFields
  /** The value when the latest apply read it (equal to `before` unless an earlier apply wrote it). */
  prior: TopologyFields
  /** The value the latest apply wrote (or was about to write). */
  after: TopologyFields
}

export interface SliceRecord {
  kind: 'EndpointSlice'
  name: string
  uid: string | null
  state: ObjectState
  before: EndpointHintsRecord[]
  prior: EndpointHintsRecord[]
  after: EndpointHintsRecord[]
}

export type ObjectRecord = ServiceRecord | SliceRecord

export interface Journal {
  apiVersion: 'kubectl-topology.io/v1'
  kind: typeof JOURNAL_KIND
  /** API server URL (no credentials), context, namespace and Service: the journal's key. */
  server: string
  context: string
  namespace: string
  service: string
  objects: ObjectRecord[]
  /** One line per apply/reset run: time, command line summary, outcome. */
  history: {time: string; action: string; outcome: string}[]
}

/**
 * What is wrong with a journal read from disk (null: nothing): every field reset reads, with
 * the type it reads it as. A file edited by hand, cut short by a full disk or written by
 * another program fails here with the first bad field named, instead of failing inside reset.
 */
export function journalProblem(x: unknown): string | null {
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
  const strOrNull = (v: unknown) => v === null || typeof v === 'string'
  if (!isObj(x)) return 'not a JSON object'
  if (x.kind !== JOURNAL_KIND) return `kind is not ${JOURNAL_KIND}`
  for (const k of ['server', 'namespace', 'service'] as const) if (typeof x[k] !== 'string') return `${k} is not a string`
  if (!Array.isArray(x.objects)) return 'objects is not a list'
  if (x.history !== undefined && !Array.isArray(x.history)) return 'history is not a list'
  const fields = (v: unknown) => isObj(v) && TOPOLOGY_FIELDS.every((f) => strOrNull(v[f]))
  const hints = (v: unknown) =>
    Array.isArray(v) && v.every((e) => isObj(e) && Array.isArray(e.addresses) && e.addresses.every((a) => typeof a === 'string') && (e.hints === null || isObj(e.hints)))
  for (const [i, o] of x.objects.entries()) {
    const at = `objects[${i}]`
    if (!isObj(o)) return `${at} is not an object`
    if (o.kind !== 'Service' && o.kind !== 'EndpointSlice') return `${at}.kind is not Service or EndpointSlice`
    if (typeof o.name !== 'string' || o.name === '') return `${at}.name is not a name`
    if (!strOrNull(o.uid ?? null)) return `${at}.uid is not a string`
    for (const k of ['before', 'prior', 'after'] as const) {
      if (!(o.kind === 'Service' ? fields(o[k]) : hints(o[k])))
        return `${at}.${k} is not ${o.kind === 'Service' ? 'the three topology fields (string or null)' : 'a list of endpoints with addresses and hints'}`
    }
  }
  return null
}

export function emptyJournal(key: {server: string; context: string; namespace: string; service: string}): Journal {
  return {apiVersion: 'kubectl-topology.io/v1', kind: JOURNAL_KIND, ...key, objects: [], history: []}
}

export const hintsRecord = (s: EndpointSlice): EndpointHintsRecord[] =>
  (s.endpoints ?? []).map((e) => ({addresses: [...e.addresses], hints: e.hints == null ? null : structuredClone(e.hints)}))

const sameFields = (a: TopologyFields, b: TopologyFields) => TOPOLOGY_FIELDS.every((f) => a[f] === b[f])
const sameRecord = (a: EndpointHintsRecord[], b: EndpointHintsRecord[]) =>
  a.length === b.length && a.every((e, i) => e.addresses.join(',') === b[i]!.addresses.join(',') && sameHints(e.hints, b[i]!.hints))

/**
 * Records an object about to be written (state pending); `rec.prior` and `rec.before` are
 * both the value read at plan time. For an object already in the journal, each field (each
 * endpoint's hints) keeps its original `before` when its current value is what
 * kubectl-topology last wrote there; a field someone else changed since gets the current
 * value as the one to restore.
 */
export function recordPending(j: Journal, rec: ObjectRecord): Journal {
  const objects = [...j.objects]
  const i = objects.findIndex((o) => o.kind === rec.kind && o.name === rec.name)
  if (i < 0) {
    objects.push(rec)
    return {...j, objects}
  }
  const old = objects[i]!
  if (old.uid !== rec.uid) {
    objects[i] = rec
  } else if (old.kind === 'Service' && rec.kind === 'Service') {
    const before = {...rec.before}
    // A write whose outcome was never known (pending, unknown) may not have happened: the value
    // it read then is as much ours as the value it meant to write.
    const unsure = old.state === 'pending' || old.state === 'unknown'
    for (const f of TOPOLOGY_FIELDS) if (old.after[f] === rec.before[f] || (unsure && old.prior[f] === rec.before[f])) before[f] = old.before[f]
    objects[i] = {...rec, before}
  } else if (old.kind === 'EndpointSlice' && rec.kind === 'EndpointSlice') {
    const unsure = old.state === 'pending' || old.state === 'unknown'
    const same = (x: EndpointHintsRecord | undefined, b: EndpointHintsRecord) => x !== undefined && x.addresses.join(',') === b.addresses.join(',') && sameHints(x.hints, b.hints)
    const before = rec.before.map((b, k) => {
      const o = old.before[k]
      return o && (same(old.after[k], b) || (unsure && same(old.prior[k], b))) ? o : b
    })
    objects[i] = {...rec, before}
  }
  return {...j, objects}
}

export function markState(j: Journal, kind: ObjectRecord['kind'], name: string, state: ObjectState): Journal {
  return {...j, objects: j.objects.map((o) => (o.kind === kind && o.name === name ? {...o, state} : o))}
}

/** Drops objects whose before and after are the same (nothing to undo). */
export function compactJournal(j: Journal): Journal {
  return {
    ...j,
    objects: j.objects.filter((o) => (o.kind === 'Service' ? !sameFields(o.before, o.after) : !sameRecord(o.before, o.after))),
  }
}

/**
 * What the server holds for an object whose write went unanswered, from a re-read: this run's
 * value (written), the value read before it (not written), or neither (someone else changed
 * it, or it is gone: unknown).
 */
export function heldByServer(rec: ObjectRecord, live: {service: Service | null; slices: readonly EndpointSlice[]}): 'written' | 'not-written' | 'unknown' {
  if (rec.kind === 'Service') {
    if (!live.service || (rec.uid && live.service.metadata.uid && rec.uid !== live.service.metadata.uid)) return 'unknown'
    const now = topologyFieldsOf(live.service)
    return sameFields(now, rec.after) ? 'written' : sameFields(now, rec.prior) ? 'not-written' : 'unknown'
  }
  const slice = live.slices.find((s) => s.metadata.name === rec.name)
  if (!slice || (rec.uid && slice.metadata.uid && rec.uid !== slice.metadata.uid)) return 'unknown'
  const now = hintsRecord(slice)
  return sameRecord(now, rec.after) ? 'written' : sameRecord(now, rec.prior) ? 'not-written' : 'unknown'
}

// ---- reset ----------------------------------------------------------------------------------

export interface ResetSkip {
  kind: ObjectRecord['kind']
  name: string
  reason: string
}

export interface ServiceRestore {
  name: string
  before: Service
  after: Service
  /** Merge patch with the resourceVersion read. */
  patch: Record<string, unknown>
}

export interface SliceRestore {
  name: string
  before: EndpointSlice
  after: EndpointSlice
  patch: JsonPatchOp[]
}

export interface ResetPlan {
  changes: ChangeSet
  service: ServiceRestore | null
  slices: SliceRestore[]
  skipped: ResetSkip[]
  /** Journal objects fully accounted for (restored by this plan, or already at their original value). */
  done: {kind: ObjectRecord['kind']; name: string}[]
}

const fmt = (v: string | null) => (v === null ? '<unset>' : JSON.stringify(v))
const hintText = (h: EndpointHints | null | undefined) => {
  const n = hintNamesOf(h)
  if (!n || (n.forZones.length === 0 && n.forNodes.length === 0)) return '<none>'
  return [n.forZones.length ? `zones=${n.forZones.join(',')}` : '', n.forNodes.length ? `nodes=${n.forNodes.join(',')}` : ''].filter(Boolean).join(' ')
}

/**
 * What reset writes: for each journal object, the recorded `before` value where the live
 * value is still what apply wrote (`after`). With force, `before` is restored whatever the
 * live value is. Endpoints are matched by index and addresses.
 */
export function planReset(j: Journal, live: {service: Service | null; slices: readonly EndpointSlice[]}, opts: {force?: boolean} = {}): ResetPlan {
  const skipped: ResetSkip[] = []
  const done: {kind: ObjectRecord['kind']; name: string}[] = []
  let service: ServiceRestore | null = null
  const slices: SliceRestore[] = []
  const changes: ChangeSet = {namespace: j.namespace, service: j.service, serviceChanges: [], sliceChanges: []}
  for (const rec of j.objects) {
    if (rec.kind === 'Service') {
      const svc = live.service
      if (!svc) {
        skipped.push({kind: 'Service', name: rec.name, reason: 'it no longer exists'})
        continue
      }
      if (rec.uid && svc.metadata.uid && rec.uid !== svc.metadata.uid) {
        skipped.push({kind: 'Service', name: rec.name, reason: 'it was deleted and created again since apply (different uid)'})
        continue
      }
      const now = topologyFieldsOf(svc)
      const target: TopologyFields = {...now}
      const restore: Partial<TopologyFields> = {}
      for (const f of TOPOLOGY_FIELDS) {
        if (now[f] === rec.before[f]) continue
        const ours = now[f] === rec.after[f] || now[f] === rec.prior[f]
        if (!ours && !opts.force) {
          skipped.push({
            kind: 'Service',
            name: rec.name,
            reason: `${fieldPath(f)} is ${fmt(now[f])}, changed by someone else since apply wrote ${fmt(rec.after[f])}; left as is (reset --force restores ${fmt(rec.before[f])})`,
          })
          continue
        }
        target[f] = rec.before[f]
        restore[f] = rec.before[f]
      }
      const fc = fieldChanges(now, target, Object.fromEntries(Object.keys(restore).map((f) => [f, 'value before apply'])))
      if (fc.length > 0) {
        changes.serviceChanges = fc
        service = {name: rec.name, before: svc, after: withFields(svc, target), patch: serviceMergePatch(restore, svc.metadata.resourceVersion)}
      }
      if (!skipped.some((s) => s.kind === 'Service')) done.push({kind: 'Service', name: rec.name})
      continue
    }
    const slice = live.slices.find((s) => s.metadata.name === rec.name)
    if (!slice) {
      skipped.push({kind: 'EndpointSlice', name: rec.name, reason: 'it no longer exists'})
      continue
    }
    if (rec.uid && slice.metadata.uid && rec.uid !== slice.metadata.uid) {
      skipped.push({kind: 'EndpointSlice', name: rec.name, reason: 'it was deleted and created again since apply (different uid)'})
      continue
    }
    const target = structuredClone(slice)
    let skippedHere = false
    ;(target.endpoints ?? []).forEach((e, i) => {
      const b = rec.before[i]
      const a = rec.after[i]
      if (!b || !a || b.addresses.join(',') !== e.addresses.join(',')) {
        if (b && !sameHints(b.hints, e.hints)) {
          skippedHere = true
          skipped.push({
            kind: 'EndpointSlice',
            name: rec.name,
            reason: `endpoint ${i} (${e.addresses.join(',')}) is not the endpoint apply wrote (${b.addresses.join(',')}); left as is`,
          })
        }
        return
      }
      const p = rec.prior[i]
      if (sameHints(e.hints, b.hints)) return
      const ours = sameHints(e.hints, a.hints) || (p !== undefined && p.addresses.join(',') === e.addresses.join(',') && sameHints(e.hints, p.hints))
      if (!ours && !opts.force) {
        skippedHere = true
        skipped.push({
          kind: 'EndpointSlice',
          name: rec.name,
          reason: `endpoint ${e.addresses.join(',')} has hints ${hintText(e.hints)}, changed by someone else since apply wrote ${hintText(a.hints)}; left as is (reset --force restores ${hintText(b.hints)})`,
        })
        return
      }
      if (b.hints == null) delete e.hints
      else e.hints = structuredClone(b.hints)
    })
    if (rec.before.length !== (slice.endpoints ?? []).length && !skippedHere) {
      // Endpoints added or removed since apply: restore what still matches, report the rest.
      if (rec.before.slice((slice.endpoints ?? []).length).some((b, k) => !sameHints(b.hints, rec.after[(slice.endpoints ?? []).length + k]?.hints))) {
        skipped.push({kind: 'EndpointSlice', name: rec.name, reason: 'some endpoints apply wrote are gone'})
        skippedHere = true
      }
    }
    const change: SliceChange = sliceChange(slice, target)
    if (change.endpoints.length > 0) {
      changes.sliceChanges.push(change)
      slices.push({name: rec.name, before: slice, after: target, patch: sliceHintsPatch(slice, target)})
    }
    if (!skippedHere) done.push({kind: 'EndpointSlice', name: rec.name})
  }
  return {changes, service, slices, skipped, done}
}

const fieldPath = (f: TopologyField) =>
  f === 'trafficDistribution'
    ? 'spec.trafficDistribution'
    : f === 'topologyMode'
      ? 'annotation service.kubernetes.io/topology-mode'
      : 'annotation service.kubernetes.io/topology-aware-hints'
