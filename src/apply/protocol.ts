// The decisions of the write protocol apply and reset share, apart from the requests and the
// journal file (cluster/write.ts, cluster/journal.ts) and the loop that sends them
// (commands/write-flow.ts):
// - whether a write will be attempted, and what happens instead (preview, dry run, a question);
// - journal first: every planned object is recorded as pending before the first request, then
//   marked written after each one; objects a run did not write go back to their earlier record;
// - conflicts: re-read and re-plan up to MAX_CONFLICT_RETRIES times, then give up;
// - the finish: the result status and message in the report, and the exit code.
import {MAX_CONFLICT_RETRIES} from './plan.js'
import type {ApplyReport, ObjectRef} from './report.js'
import {compactJournal, markState, recordPending, type Journal, type ObjectRecord} from './undo.js'

export type DryRun = 'none' | 'client' | 'server'

export {MAX_CONFLICT_RETRIES}

/** Exit codes the finish decides between (src/errors.ts ExitCode's values). */
const OK = 0
const FINDING = 1

export const refText = (r: ObjectRef): string => `${r.kind === 'Service' ? 'service' : 'endpointslice'}/${r.name}`
export const refList = (refs: readonly ObjectRef[]): string => refs.map(refText).join(', ') || 'none'

// ---- whether to write ---------------------------------------------------------------------------

export interface GateInput {
  dryRun: DryRun
  /** --yes */
  yes: boolean
  /** stdin and stderr are terminals: a y/N question can be asked. */
  canPrompt: boolean
  /** -o json: never ask. */
  json: boolean
}

/** A write will be attempted (so the permissions are checked before anything is shown). */
export function willAttemptWrite(changed: boolean, g: GateInput): boolean {
  return changed && (g.dryRun === 'server' || (g.dryRun === 'none' && (g.yes || (g.canPrompt && !g.json))))
}

/** With changes planned: stop at a client dry run, stop at a preview, ask, or write. */
export function writeGate(g: GateInput): 'dry-run' | 'preview' | 'ask' | 'write' {
  if (g.dryRun === 'client') return 'dry-run'
  if (g.dryRun === 'none' && !g.yes) return !g.canPrompt || g.json ? 'preview' : 'ask'
  return 'write'
}

// ---- conflicts ----------------------------------------------------------------------------------

/** After the conflict of attempt `attempt` (0-based): re-read and re-plan, or give up. */
export const onConflict = (attempt: number, max = MAX_CONFLICT_RETRIES): 'retry' | 'give-up' => (attempt >= max ? 'give-up' : 'retry')

// ---- journal first ------------------------------------------------------------------------------

export interface HistoryEntry {
  time: string
  action: string
}

/** The journal to save before the first request: every record pending, the action started. */
export function journalBeforeWrites(journal: Journal, records: readonly (ObjectRecord | null)[], history: HistoryEntry | undefined): Journal {
  let j = journal
  for (const r of records) if (r) j = recordPending(j, r)
  if (history) j = {...j, history: [...j.history, {...history, outcome: 'started'}]}
  return j
}

/** After an object was written: its record is marked written. */
export const journalAfterWrite = (journal: Journal, ref: ObjectRef): Journal => markState(journal, ref.kind, ref.name, 'written')

export interface RunOutcome {
  written: ObjectRef[]
  /** Sent, but the answer was lost: the server may hold the change. */
  unknown: ObjectRef[]
  failed: ObjectRef[]
  notWritten: ObjectRef[]
  conflict: ObjectRef | null
  interrupted: string | null
  /** The message of the error that stopped the run (not a conflict). */
  error: string | null
}

/** How the run ended, for the journal's history. */
export function outcomeText(o: RunOutcome): string {
  const how = o.interrupted ? `interrupted by ${o.interrupted}` : o.error !== null ? `failed: ${o.error}` : o.conflict ? 'conflict: re-planning' : 'written'
  const unknown = o.unknown.length > 0 ? `; may have been written: ${o.unknown.map(refText).join(', ')}` : ''
  return `${how} (${o.written.map(refText).join(', ') || 'nothing written'}${unknown})`
}

/**
 * The journal once the run is over: objects it failed on or did not reach keep the record they
 * had before the run (preRun; none if they had none), objects whose answer was lost keep this
 * run's record marked unknown (reset compares it with what the server holds), records equal to
 * what was there before go, and the started history entry gets the outcome.
 */
export function journalAfterWrites(journal: Journal, preRun: Journal | null, o: RunOutcome, history: HistoryEntry | undefined): Journal {
  const notDone = new Set([...o.notWritten, ...o.failed].map((r) => `${r.kind}/${r.name}`))
  for (const r of o.unknown) journal = markState(journal, r.kind, r.name, 'unknown')
  const restored = journal.objects
    .map((obj) => (notDone.has(`${obj.kind}/${obj.name}`) ? (preRun?.objects.find((p) => p.kind === obj.kind && p.name === obj.name) ?? null) : obj))
    .filter((obj): obj is ObjectRecord => obj !== null)
  let j = compactJournal({...journal, objects: restored})
  if (history && j.history.length > 0) {
    const last = j.history[j.history.length - 1]!
    j = {...j, history: [...j.history.slice(0, -1), {...last, outcome: outcomeText(o)}]}
  }
  return j
}

/** What becomes of the journal file: an empty journal is removed. */
export const journalFileAction = (j: Journal): 'write' | 'remove' => (j.objects.length === 0 ? 'remove' : 'write')

/** reset: objects restored (or already at their original value) leave the journal. */
export function forgetDone(journal: Journal, done: readonly {kind: ObjectRecord['kind']; name: string}[]): Journal {
  const keys = new Set(done.map((d) => `${d.kind}/${d.name}`))
  return {...journal, objects: journal.objects.filter((o) => !keys.has(`${o.kind}/${o.name}`))}
}

// ---- the finish ---------------------------------------------------------------------------------

/**
 * The report with its result status and message, and the exit code: `code` when it is an
 * error or a finding; otherwise 1 with --exit-code when changes would be (or were) made, else 0.
 */
export function finish(
  report: ApplyReport,
  status: ApplyReport['result']['status'],
  message: string,
  code: number,
  exitCodeFlag: boolean,
): {report: ApplyReport; exitCode: number} {
  const exitCode = code !== OK ? code : exitCodeFlag && report.changed ? FINDING : OK
  return {report: {...report, result: {...report.result, status, message}}, exitCode}
}
