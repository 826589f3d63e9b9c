// What apply and reset share once a plan exists: reading the target Service, the y/N
// confirmation, SIGINT/SIGTERM between writes, and the write loop that keeps the journal
// (write-ahead: recorded before the first write, updated after each object).
import {createInterface} from 'node:readline'
import {CliError, ExitCode} from '../errors.js'
import type {ObjectRef} from '../apply/report.js'
import type {EndpointSlice, Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {LABEL_SERVICE_NAME} from '../upstream/api/types.js'
import {markState, recordPending, compactJournal, type Journal, type ObjectRecord} from '../apply/undo.js'
import type {KubeContext} from '../cluster/kubeconfig.js'
import {ConflictError, type Writer} from '../cluster/write.js'

export {MAX_CONFLICT_RETRIES, writeFlags} from './write-flags.js'

// ---- reading ------------------------------------------------------------------------------

export interface Target {
  state: ClusterState
  service: Service
  slices: EndpointSlice[]
  namespace: string
  source: 'live' | 'snapshot'
  warnings: string[]
  ctx?: KubeContext
}

export interface ConnectionFlagsIn {
  kubeconfig?: string | undefined
  context?: string | undefined
  'request-timeout'?: string | undefined
  namespace?: string | undefined
  'from-file'?: string | undefined
}

export async function loadContext(flags: ConnectionFlagsIn): Promise<KubeContext> {
  const {loadKubeConfig, parseDuration} = await import('../cluster/kubeconfig.js')
  return loadKubeConfig({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    namespace: flags.namespace,
    requestTimeoutMs: parseDuration(flags['request-timeout'] ?? '30s'),
  })
}

/** Reads the Service, its EndpointSlices (any manager), Nodes and the server version. */
export async function readTarget(flags: ConnectionFlagsIn, name: string, ctx?: KubeContext): Promise<Target> {
  if (flags['from-file'] !== undefined) {
    const {readSnapshotFile} = await import('../cluster/snapshot/snapshot.js')
    const state = await readSnapshotFile(flags['from-file'])
    const namespace = flags.namespace ?? 'default'
    const service = state.services.find((s) => s.metadata.name === name && (s.metadata.namespace ?? 'default') === namespace)
    if (!service) throw new CliError(`services "${name}" not found in namespace "${namespace}" of the snapshot`, ExitCode.NOT_FOUND)
    return {state, service, slices: slicesOf(state, namespace, name), namespace, source: 'snapshot', warnings: []}
  }
  const c = ctx ?? (await loadContext(flags))
  const {readClusterState} = await import('../cluster/live.js')
  const state = await readClusterState(c, {namespace: flags.namespace, serviceNames: [name]})
  const service = state.services[0]!
  return {state, service, slices: slicesOf(state, state.namespace, name), namespace: state.namespace, source: 'live', warnings: state.warnings, ctx: c}
}

function slicesOf(state: ClusterState, namespace: string, name: string): EndpointSlice[] {
  return state.endpointSlices
    .filter((s) => (s.metadata.namespace ?? 'default') === namespace && s.metadata.labels?.[LABEL_SERVICE_NAME] === name)
    .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1))
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

export interface ObjectWrite {
  ref: ObjectRef
  /** The journal record (before/prior/after); null when the caller keeps the journal itself (reset). */
  record: ObjectRecord | null
  /**
   * Sends the request(s). Returns false when the object was changed in part (a Service whose
   * apply succeeded but whose follow-up removal failed): it then counts as written.
   */
  run: (w: Writer) => Promise<void>
}

export interface WriteOutcome {
  written: ObjectRef[]
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

/**
 * Writes the objects one by one. With a journal: every planned object is recorded as
 * pending before the first request, then marked written or failed after each one; objects
 * not written in this run go back to their earlier record. Stops at the first failure, at a
 * conflict, or when a signal arrived.
 */
export async function executeWrites(
  writes: ObjectWrite[],
  writer: Writer,
  opts: {journal: Journal | null; io: JournalIO | null; interrupts: Interrupts; onWritten?: (ref: ObjectRef) => void; history?: {time: string; action: string}},
): Promise<WriteOutcome> {
  const preRun = opts.journal
  let journal = opts.journal
  const out: WriteOutcome = {written: [], failed: [], notWritten: [], conflict: null, interrupted: null, error: null, journal}
  const save = () => {
    if (journal && opts.io) opts.io.write(opts.io.file, journal)
  }
  if (journal) {
    for (const w of writes) if (w.record) journal = recordPending(journal, w.record)
    if (opts.history) journal = {...journal, history: [...journal.history, {...opts.history, outcome: 'started'}]}
    save() // write-ahead: before the first request
  }
  let i = 0
  for (; i < writes.length; i++) {
    const w = writes[i]!
    if (opts.interrupts.signal) {
      out.interrupted = opts.interrupts.signal
      break
    }
    try {
      await w.run(writer)
      out.written.push(w.ref)
      if (journal && w.record) {
        journal = markState(journal, w.ref.kind, w.ref.name, 'written')
        save()
      }
      opts.onWritten?.(w.ref)
    } catch (e) {
      if (e instanceof ConflictError) {
        out.conflict = w.ref
        break
      }
      const err = e instanceof CliError ? e : new CliError(`write ${w.ref.kind} ${w.ref.name}: ${(e as Error).message}`, ExitCode.WRITE_FAILED, {cause: e})
      out.failed.push({...w.ref, error: err.message})
      out.error = err
      i++
      break
    }
  }
  const failedOrSkipped = new Set<string>()
  for (const w of writes.slice(out.written.length + out.failed.length)) {
    out.notWritten.push(w.ref)
    failedOrSkipped.add(`${w.ref.kind}/${w.ref.name}`)
  }
  for (const f of out.failed) failedOrSkipped.add(`${f.kind}/${f.name}`)
  if (journal) {
    // Objects this run did not write keep the record they had before it (or none).
    const restored = journal.objects
      .map((o) => {
        if (!failedOrSkipped.has(`${o.kind}/${o.name}`)) return o
        return preRun?.objects.find((p) => p.kind === o.kind && p.name === o.name) ?? null
      })
      .filter((o): o is ObjectRecord => o !== null)
    journal = compactJournal({...journal, objects: restored})
    if (opts.history && journal.history.length > 0) {
      const outcome = out.interrupted ? `interrupted by ${out.interrupted}` : out.error ? `failed: ${out.error.message}` : out.conflict ? 'conflict: re-planning' : 'written'
      const last = journal.history[journal.history.length - 1]!
      journal = {...journal, history: [...journal.history.slice(0, -1), {...last, outcome: `${outcome} (${out.written.map(refText).join(', ') || 'nothing written'})`}]}
    }
    out.journal = journal
    if (opts.io) {
      if (journal.objects.length === 0) opts.io.remove(opts.io.file)
      else save()
    }
  }
  return out
}

export const refText = (r: ObjectRef) => `${r.kind === 'Service' ? 'service' : 'endpointslice'}/${r.name}`
