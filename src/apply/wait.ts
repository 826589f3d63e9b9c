// apply --wait: comparing the live hints, after a write, with the prediction, and the rule that
// decides when the comparison counts.
import type {EndpointSlice} from '../upstream/api/types.js'
import {emptyToNull, hintNamesOf, type HintNames} from './plan.js'

export interface HintDifference {
  /** An address, or a zone for per-zone comparisons. */
  subject: string
  expected: string
  actual: string
}

const hintText = (h: HintNames | null | undefined) => {
  if (!h || (h.forZones.length === 0 && h.forNodes.length === 0)) return '<none>'
  return [h.forZones.length ? `zones=${h.forZones.join(',')}` : '', h.forNodes.length ? `nodes=${h.forNodes.join(',')}` : ''].filter(Boolean).join(' ')
}

export interface PredictedEndpoint {
  address: string
  ready: boolean
  hints: HintNames | null
}

/**
 * apply --wait's rule for one poll of the slices after a write: the live hints `match` the
 * prediction or not; the slices `changedSinceWrite` (else they are exactly as read before the
 * write, and the controller may not have synced the change yet); `settled`: they have not
 * changed for the settle period; `over`: the timeout passed or the user interrupted.
 * A match counts once the controller has written, or once it has held for the settle period (a
 * controller that needs to write nothing writes nothing); a difference counts once the
 * controller's writes have settled. Until then, wait.
 */
export function waitVerdict(p: {match: boolean; changedSinceWrite: boolean; settled: boolean; over: boolean}): 'matched' | 'differs' | 'wait' {
  if (p.match) return p.changedSinceWrite || p.settled || p.over ? 'matched' : 'wait'
  // A difference on slices still as before the write: the controller has not answered yet
  // (a loaded machine); only the timeout ends that wait.
  return (p.settled && p.changedSinceWrite) || p.over ? 'differs' : 'wait'
}

/**
 * Compares live endpoint hints with a prediction. Exact per endpoint, except where upstream
 * is random (topology-mode Auto picks which endpoints a zone donates in Go map order): there
 * the number of ready endpoints hinted for each zone is compared, and every ready endpoint
 * must carry exactly one zone hint when the prediction has hints.
 */
export function compareHints(predicted: readonly PredictedEndpoint[], live: readonly EndpointSlice[], perZone: boolean): HintDifference[] {
  const liveBy = new Map<string, {ready: boolean; hints: HintNames | null}>()
  for (const s of live)
    for (const e of s.endpoints ?? []) for (const a of e.addresses) liveBy.set(a, {ready: e.conditions?.ready === true, hints: emptyToNull(hintNamesOf(e.hints))})
  const diffs: HintDifference[] = []
  if (!perZone) {
    for (const p of predicted) {
      const l = liveBy.get(p.address)
      if (!l) {
        diffs.push({subject: p.address, expected: hintText(p.hints), actual: '<endpoint gone>'})
        continue
      }
      if (hintText(p.hints) !== hintText(l.hints)) diffs.push({subject: p.address, expected: hintText(p.hints), actual: hintText(l.hints)})
    }
    return diffs
  }
  const count = (rows: Iterable<{ready: boolean; hints: HintNames | null}>) => {
    const m = new Map<string, number>()
    for (const r of rows) if (r.ready) for (const z of r.hints?.forZones ?? []) m.set(z, (m.get(z) ?? 0) + 1)
    return m
  }
  const exp = count(predicted.map((p) => ({ready: p.ready, hints: p.hints})))
  const act = count([...predicted].map((p) => liveBy.get(p.address) ?? {ready: false, hints: null}))
  for (const z of [...new Set([...exp.keys(), ...act.keys()])].sort()) {
    if ((exp.get(z) ?? 0) !== (act.get(z) ?? 0)) diffs.push({subject: `zone ${z}`, expected: `${exp.get(z) ?? 0} endpoints hinted`, actual: `${act.get(z) ?? 0} endpoints hinted`})
  }
  return diffs
}
