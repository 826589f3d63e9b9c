// What apply and reset share once options are validated, where effects happen: reading the
// target Service, the y/N question, SIGINT/SIGTERM between writes, the loop that sends the
// writes and keeps the journal file, and the finish that prints the result and sets the exit
// code. The decisions they make are pure, in apply/protocol.ts; the requests and the journal
// file are cluster/write.ts's and cluster/journal.ts's.
//
// Why here and not in src/apply/: this code talks to the terminal (readline), to the process
// (signals), and to cluster/ (ConflictError, the Writer, the journal file, openSource), and a
// domain room may not import cluster/. It never sees the oclif class: output and exit come in
// as a CommandIO.
import {createInterface} from 'node:readline'
import {CliError, ExitCode} from '../errors.js'
import type {ApplyReport, ObjectRef} from '../apply/report.js'
import type {PlanTarget} from '../apply/predict.js'
import {pickTarget, slicesOf} from '../apply/target.js'
import {finish, journalAfterWrite, journalAfterWrites, journalBeforeWrites, journalFileAction, type HistoryEntry} from '../apply/protocol.js'
import type {ObjectWrite, WriteTarget} from '../apply/writes.js'
import type {Journal} from '../apply/undo.js'
import type {KubeContext} from '../cluster/kubeconfig.js'
import type {SourceFlagValues} from '../cluster/source.js'
import {ConflictError, UnknownOutcomeError, type Writer} from '../cluster/write.js'
import {renderApplyJson} from '../render/apply.js'
import type {CommandIO} from './base.js'

// ---- reading ------------------------------------------------------------------------------

export interface Target extends PlanTarget {
  namespace: string
  source: 'live' | 'snapshot'
  warnings: string[]
}

/** Reads the Service, its EndpointSlices (any manager), Nodes and the server version. */
export async function readTarget(flags: SourceFlagValues, name: string, ctx?: KubeContext): Promise<Target> {
  const {openSource} = await import('../cluster/source.js')
  const read = await openSource({flags, serviceNames: [name], ...(ctx ? {ctx} : {})})
  if (read.source === 'snapshot') {
    const namespace = read.namespace!
    const target = pickTarget(read.state, namespace, name)
    if (!target) throw new CliError(`services "${name}" not found in namespace "${namespace}" of the snapshot`, ExitCode.NOT_FOUND)
    return {...target, namespace, source: 'snapshot', warnings: []}
  }
  // Live: the read fails when the Service does not exist.
  const state = read.state
  const namespace = read.namespace!
  return {state, service: state.services[0]!, slices: slicesOf(state, namespace, name), namespace, source: 'live', warnings: read.warnings}
}

// ---- confirmation ---------------------------------------------------------------------------

export const canPrompt = (): boolean => Boolean(process.stdin.isTTY && process.stderr.isTTY)

/** Asks on the terminal; true only for "y" or "yes". */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({input: process.stdin, output: process.stderr})
  try {
    return await new Promise<boolean>((resolve) => {
      rl.on('SIGINT', () => {
        process.stderr.write('\n')
        resolve(false)
      })
      rl.on('close', () => resolve(false))
      rl.question(`${question} [y/N] `, (a) => resolve(/^\s*y(es)?\s*$/i.test(a)))
    })
  } finally {
    rl.close()
  }
}

// ---- interrupts -------------------------------------------------------------------------------

/** While installed, SIGINT/SIGTERM only set a flag: the write loop stops before the next write. */
export class Interrupts {
  signal: NodeJS.Signals | null = null
  private readonly handler = (s: NodeJS.Signals) => {
    if (this.signal !== null) {
      // A second signal: the user insists. The journal already records every finished write.
      process.stderr.write(`\n${s} again: exiting now\n`)
      process.exit(ExitCode.INTERRUPTED)
    }
    this.signal = s
    process.stderr.write(`\n${s} received: stopping before the next write\n`)
  }
  install(): this {
    process.on('SIGINT', this.handler)
    process.on('SIGTERM', this.handler)
    return this
  }
  dispose(): void {
    process.off('SIGINT', this.handler)
    process.off('SIGTERM', this.handler)
  }
}

// ---- the write loop -------------------------------------------------------------------------------

export interface WriteOutcome {
  written: ObjectRef[]
  /** Sent, but the answer was lost (error is then the UnknownOutcomeError): may have been written. */
  unknown: ObjectRef[]
  failed: (ObjectRef & {error: string})[]
  notWritten: ObjectRef[]
  /** Set when a precondition failed: re-read and re-plan. */
  conflict: ObjectRef | null
  interrupted: NodeJS.Signals | null
  /** The error that stopped the loop (not a conflict). */
  error: CliError | null
  journal: Journal | null
}

export interface JournalIO {
  file: string
  write: (file: string, j: Journal) => void
  remove: (file: string) => void
}

export interface WriteLoopOptions {
  journal: Journal | null
  io: JournalIO | null
  interrupts: Interrupts
  onWritten?: (ref: ObjectRef) => void
  history?: HistoryEntry
  /** The message of a failure that is not already a CliError (default: "write KIND NAME: MESSAGE"). */
  errorText?: (ref: ObjectRef, message: string) => string
}

/**
 * Writes the objects one by one, journal first (apply/protocol.ts): with a journal, the file
 * is saved before the first request and after each object. Stops at the first failure, at a
 * conflict, or when a signal arrived.
 */
export async function executeWrites(writes: ObjectWrite[], writer: WriteTarget, opts: WriteLoopOptions): Promise<WriteOutcome> {
  const preRun = opts.journal
  let journal = opts.journal
  const out: WriteOutcome = {written: [], unknown: [], failed: [], notWritten: [], conflict: null, interrupted: null, error: null, journal}
  const save = () => {
    if (journal && opts.io) opts.io.write(opts.io.file, journal)
  }
  if (journal) {
    journal = journalBeforeWrites(
      journal,
      writes.map((w) => w.record),
      opts.history,
    )
    save() // write-ahead: before the first request
  }
  const errorText = opts.errorText ?? ((ref, m) => `write ${ref.kind} ${ref.name}: ${m}`)
  for (const w of writes) {
    if (opts.interrupts.signal) {
      out.interrupted = opts.interrupts.signal
      break
    }
    try {
      await w.run(writer)
      out.written.push(w.ref)
      if (journal && w.record) {
        journal = journalAfterWrite(journal, w.ref)
        save()
      }
      opts.onWritten?.(w.ref)
    } catch (e) {
      if (e instanceof ConflictError) {
        out.conflict = w.ref
        break
      }
      if (e instanceof UnknownOutcomeError) {
        out.unknown.push(w.ref)
        out.error = e
        break
      }
      const err = e instanceof CliError ? e : new CliError(errorText(w.ref, (e as Error).message), ExitCode.WRITE_FAILED, {cause: e})
      out.failed.push({...w.ref, error: err.message})
      out.error = err
      break
    }
  }
  for (const w of writes.slice(out.written.length + out.unknown.length + out.failed.length)) out.notWritten.push(w.ref)
  if (journal) {
    journal = journalAfterWrites(journal, preRun, {...out, error: out.error?.message ?? null}, opts.history)
    out.journal = journal
    if (opts.io) {
      if (journalFileAction(journal) === 'remove') opts.io.remove(opts.io.file)
      else save()
    }
  }
  return out
}

// ---- the finish -----------------------------------------------------------------------------------

export type Finish = (status: ApplyReport['result']['status'], message: string, code?: number) => void

/**
 * apply's and reset's last step: the result goes into the report, the report (-o json) or the
 * message is printed, and a code other than 0 ends the command (apply/protocol.ts finish).
 */
export function makeFinish(io: CommandIO, report: ApplyReport, o: {json: boolean; exitCode: boolean}): Finish {
  return (status, message, code = ExitCode.OK) => {
    const done = finish(report, status, message, code, o.exitCode)
    report.result = done.report.result
    if (o.json) io.out(renderApplyJson(report))
    else if (message) io.out(message)
    if (done.exitCode !== ExitCode.OK) io.exit(done.exitCode)
  }
}

// ---- the effects, injected ------------------------------------------------------------------------

/** The cluster, journal file, terminal and clock effects of apply and reset; tests pass fakes. */
export interface WriteDeps {
  connect: (flags: SourceFlagValues) => Promise<KubeContext>
  writer: (ctx: KubeContext, namespace: string, serverDryRun: boolean) => Promise<Writer>
  readTarget: (flags: SourceFlagValues, name: string, ctx?: KubeContext) => Promise<Target>
  journal: {
    path: (key: {server: string; namespace: string; service: string}) => string
    read: (file: string) => Journal | null
    write: (file: string, j: Journal) => void
    remove: (file: string) => void
  }
  canPrompt: () => boolean
  confirm: (question: string) => Promise<boolean>
  interrupts: () => Interrupts
  now: () => Date
}

/** The real effects: cluster/source.ts's connection, cluster/write.ts's Writer, cluster/journal.ts's file. */
export async function liveDeps(): Promise<WriteDeps> {
  const [{connect}, {Writer}, journal] = await Promise.all([import('../cluster/source.js'), import('../cluster/write.js'), import('../cluster/journal.js')])
  return {
    connect: (flags) => connect(flags, {withNamespace: true}),
    writer: (ctx, namespace, serverDryRun) => Writer.create(ctx, namespace, serverDryRun),
    readTarget,
    journal: {path: (key) => journal.journalPath(key), read: journal.readJournal, write: journal.writeJournal, remove: journal.removeJournal},
    canPrompt,
    confirm,
    interrupts: () => new Interrupts().install(),
    now: () => new Date(),
  }
}
