// apply once its options are valid: read -> plan -> predict -> refusals -> permission check ->
// preview -> (question) -> journal + writes, re-planning on conflicts -> (--wait) check. The
// decisions are apply/'s (plan, predict, refusals, writes, protocol); this file sequences
// them with the effects, which come in as a CommandIO and WriteDeps (never the oclif class).
// It is a commands/ helper, not apply/flow.ts, because it throws CliErrors and drives the
// Writer, the journal file and the terminal, which a domain room may not touch.
import {CliError, ExitCode} from '../errors.js'
import {changesOf, predictionOf, type ApplyReport, type ObjectRef} from '../apply/report.js'
import type {ExplainReport} from '../explain/report.js'
import {hasChanges, planHints, planServiceMode, type HintStrategy, type ModeValue} from '../apply/plan.js'
import {expectedHints, predict, type Plan} from '../apply/predict.js'
import {hintsRefusal, modeRefusal, noSelectorWarning, shortLivedHintsWarning} from '../apply/refusals.js'
import {features} from '../upstream/features.js'
import {writesFor} from '../apply/writes.js'
import {MAX_CONFLICT_RETRIES, onConflict, refList, refText, willAttemptWrite, writeGate, type DryRun} from '../apply/protocol.js'
import {emptyJournal, heldByServer, type Journal} from '../apply/undo.js'
import type {EndpointSlice, Service} from '../upstream/api/types.js'
import {shellJoin} from '../advise/shell.js'
import type {SourceFlagValues} from '../cluster/source.js'
import type {KubeContext} from '../cluster/kubeconfig.js'
import type {Writer} from '../cluster/write.js'
import {renderApplyJson, renderChanges, renderDifferences} from '../render/apply.js'
import {renderExplain} from '../render/explain.js'
import type {Style} from '../render/style.js'
import {waitForController} from './apply-wait.js'
import type {CommandIO} from './base.js'
import {executeWrites, makeFinish, type Finish, type Interrupts, type Target, type WriteDeps, type WriteOutcome} from './write-flow.js'
import {escapeTerminal} from '../render/escape.js'

export interface ApplyOptions {
  name: string
  mode: ModeValue | undefined
  strategy: HintStrategy
  dryRun: DryRun
  /** --hints: also write controller-managed EndpointSlices. */
  force: boolean
  /** --mode: server-side apply force (take ownership of fields another manager set). */
  forceConflicts: boolean
  /** --mode: send a value this version's API server drops. */
  forceValue: boolean
  yes: boolean
  wait: boolean
  waitMs: number
  json: boolean
  exitCode: boolean
  kubeVersion: string | undefined
  source: SourceFlagValues
  style: Style
}

interface Planned {
  target: Target
  plan: Plan
  prediction: ExplainReport
}

export async function runApply(io: CommandIO, o: ApplyOptions, deps: WriteDeps): Promise<void> {
  const {name, style, json} = o
  const fromFile = o.source['from-file'] !== undefined
  const ctx = fromFile ? undefined : await deps.connect(o.source)
  const writer = ctx ? await deps.writer(ctx, o.source.namespace || ctx.namespace, o.dryRun === 'server') : undefined
  const readAndPlan = async (): Promise<Planned> => {
    const target = await deps.readTarget(o.source, name, ctx)
    const plan: Plan =
      o.mode !== undefined
        ? planServiceMode(target.service, o.mode, writer ? await writer.serviceManagedFields(name) : undefined)
        : planHints(target.state, target.service, target.slices, o.strategy)
    return {target, plan, prediction: predict(target, plan, o.kubeVersion)}
  }
  const p = await readAndPlan()
  for (const w of p.target.warnings) io.err(`Warning: ${escapeTerminal(w)}`)

  const report = newReport(o, p)
  const warn = (w: string) => {
    report.warnings.push(w)
    io.err(style.warn(`Warning: ${escapeTerminal(w)}`))
  }
  // Refusals: nothing written.
  if (p.plan.kind === 'hints') refuse(p, o.force, warn)
  else {
    const w = noSelectorWarning(p.target.service)
    if (w !== null) warn(w)
    if (hasChanges(p.plan.changes)) {
      const m = modeRefusal(p.plan.mode, features(o.kubeVersion ?? p.target.state.serverVersion), o.forceValue)
      if (m.warning !== null) warn(m.warning)
      if (m.refusal) throw new CliError(m.refusal.message, ExitCode.USAGE)
    }
  }
  const gate = {dryRun: o.dryRun, yes: o.yes, canPrompt: deps.canPrompt(), json}
  // Permissions: before anything is shown or asked, when a write will be attempted.
  if (willAttemptWrite(hasChanges(p.plan.changes), gate)) {
    const check =
      p.plan.kind === 'service'
        ? {verb: 'patch', group: '', resource: 'services', why: `write service ${name}`}
        : {verb: 'patch', group: 'discovery.k8s.io', resource: 'endpointslices', why: `write hints onto the EndpointSlices of service ${name}`}
    await writer!.checkAccess([check], p.plan.kind === 'service' ? name : '')
  }
  const show = (q: Planned, heading: string) => {
    if (json) return
    const diff = renderChanges(q.plan.changes, style)
    const already = q.plan.kind === 'service' ? `has --mode ${q.plan.mode}` : `carries the ${o.strategy} hints`
    io.out(diff === '' ? `No changes: service ${q.target.namespace}/${name} already ${already}.` : `${heading}\n${diff}`)
    if (diff !== '') {
      const what =
        q.plan.kind === 'service' ? 'Predicted outcome: what the EndpointSlice controller writes at its next sync after this change' : 'Predicted outcome: with these hints written'
      for (const w of q.prediction.warnings) io.err(style.warn(`Warning: ${escapeTerminal(w)}`))
      io.out(`\n${style.bold(what)}\n${renderExplain(q.prediction, {format: 'table', style})}`)
    }
  }
  show(p, style.bold('Planned changes:'))
  const finish = makeFinish(io, report, {json, exitCode: o.exitCode})

  if (!hasChanges(p.plan.changes)) {
    if (o.wait && writer && p.plan.kind === 'service') {
      const w = await waitFor(writer, name, p.prediction, o.waitMs, deps.interrupts(), undefined)
      report.wait = w
      if (!w.matched) return waitFailed(io, report, w, finish, json)
    }
    return finish('no-changes', json ? 'no changes' : '')
  }
  switch (writeGate(gate)) {
    case 'dry-run':
      return finish(
        'dry-run',
        fromFile ? 'Preview from a snapshot file (--dry-run=client): nothing was sent. Writing needs a live cluster.' : 'Dry run (client): nothing was sent to the API server.',
      )
    case 'preview':
      return finish('preview', 'Preview only: nothing was written. Run again with --yes to write (or --dry-run=server to have the API server validate the change).')
    case 'ask':
      if (!(await deps.confirm(`Apply these changes to service ${p.target.namespace}/${name}?`))) return finish('preview', 'Nothing was written.')
  }

  const done = await writeWithRetries(io, o, deps, {ctx: ctx!, writer: writer!, report, finish, show, readAndPlan}, p)
  if (done === null) return
  return afterWrites(io, o, {...done, report, finish, writer: writer!, warn})
}

interface Session {
  ctx: KubeContext
  writer: Writer
  report: ApplyReport
  finish: Finish
  show: (p: Planned, heading: string) => void
  readAndPlan: () => Promise<Planned>
}

/**
 * The journal and the writes, re-reading and re-planning on a conflict (apply/protocol.ts
 * onConflict). null: the user declined the new plan, and the command has finished.
 */
async function writeWithRetries(
  io: CommandIO,
  o: ApplyOptions,
  deps: WriteDeps,
  s: Session,
  planned: Planned,
): Promise<{outcome: WriteOutcome; written: ObjectRef[]; planned: Planned; interrupts: Interrupts} | null> {
  const {report, finish} = s
  const style = o.style
  let p = planned
  const key = {server: s.ctx.server, context: s.ctx.contextName, namespace: p.target.namespace, service: o.name}
  const file = deps.journal.path(key)
  let journal: Journal | null = o.dryRun === 'server' ? null : (deps.journal.read(file) ?? emptyJournal(key))
  const jio = o.dryRun === 'server' ? null : {file, write: deps.journal.write, remove: deps.journal.remove}
  const interrupts = deps.interrupts()
  const written: ObjectRef[] = []
  let outcome: WriteOutcome
  try {
    for (let attempt = 0; ; attempt++) {
      const modeFlags = `${o.forceConflicts ? ' --force-conflicts' : ''}${o.forceValue ? ' --force-value' : ''}`
      const action = o.mode !== undefined ? `apply --mode ${o.mode}${modeFlags}` : `apply --hints --strategy ${o.strategy}${o.force ? ' --force' : ''}`
      outcome = await executeWrites(writesFor(p.plan, p.plan.kind === 'service' ? o.forceConflicts : o.force), s.writer, {
        journal,
        io: jio,
        interrupts,
        history: {time: deps.now().toISOString(), action},
      })
      journal = outcome.journal
      written.push(...outcome.written)
      if (!outcome.conflict) break
      if (onConflict(attempt) === 'give-up') {
        Object.assign(report.result, {notWritten: outcome.notWritten, written, retries: attempt})
        throw new CliError(
          `${refText(outcome.conflict)} kept changing while apply wrote (${attempt + 1} conflicts); written: ${written.map(refText).join(', ') || 'nothing'}. Run apply again`,
          ExitCode.WRITE_FAILED,
        )
      }
      report.result.retries = attempt + 1
      io.err(style.warn(`Conflict: ${refText(outcome.conflict)} was modified since it was read; re-reading and re-planning (retry ${attempt + 1} of ${MAX_CONFLICT_RETRIES})`))
      p = await s.readAndPlan()
      if (p.plan.kind === 'hints') refuse(p, o.force, () => {})
      report.changes = changesOf(p.plan.changes)
      report.prediction = predictionOf(p.prediction)
      s.show(p, style.bold('New plan after re-reading:'))
      if (!hasChanges(p.plan.changes)) break
      if (o.dryRun === 'none' && !o.yes && !(await deps.confirm('The plan changed. Apply the new plan?'))) {
        report.result.written = written
        finish(
          'partial',
          `Stopped: nothing more was written. Written before the conflict: ${written.map(refText).join(', ') || 'nothing'}.`,
          written.length > 0 ? ExitCode.WRITE_FAILED : ExitCode.OK,
        )
        return null
      }
    }
  } finally {
    if (!o.wait) interrupts.dispose()
  }
  Object.assign(report.result, {written, failed: outcome.failed, notWritten: outcome.notWritten})
  return {outcome, written, planned: p, interrupts}
}

function newReport(o: ApplyOptions, p: Planned): ApplyReport {
  return {
    apiVersion: 'kubectl-topology.io/v1',
    kind: 'TopologyApply',
    namespace: p.target.namespace,
    service: o.name,
    mode: o.mode ?? null,
    strategy: o.mode === undefined ? o.strategy : null,
    dryRun: o.dryRun,
    changed: hasChanges(p.plan.changes),
    changes: changesOf(p.plan.changes),
    prediction: predictionOf(p.prediction),
    warnings: [],
    result: {status: 'preview', written: [], failed: [], notWritten: [], retries: 0, message: ''},
  }
}

/** Hints mode: print the warnings, stop at a refusal. */
function refuse(p: Planned, force: boolean, warn: (w: string) => void): void {
  if (p.plan.kind !== 'hints') return
  const {refusal, warnings} = hintsRefusal(p.plan, p.target.namespace, p.target.service.metadata.name, force)
  for (const w of warnings) warn(w)
  if (refusal) throw new CliError(refusal.message, refusal.kind === 'usage' ? ExitCode.USAGE : ExitCode.WRITE_FAILED)
}

/** The outcome of the writes: interrupted, failed, a server dry run, or applied (and, with --wait, checked). */
async function afterWrites(
  io: CommandIO,
  o: ApplyOptions,
  r: {report: ApplyReport; finish: Finish; outcome: WriteOutcome; written: ObjectRef[]; planned: Planned; writer: Writer; interrupts: Interrupts; warn: (w: string) => void},
): Promise<void> {
  const {report, finish, outcome, written, interrupts} = r
  const {target, plan, prediction} = r.planned
  const resetCommand = shellJoin(['kubectl', 'topology', 'reset', `svc/${o.name}`, '-n', target.namespace])
  const undo = `Undo with: ${resetCommand}`
  if (outcome.unknown.length > 0) {
    // The answer to a write was lost: a re-read tells whether the server holds the change.
    const settled = await settleUnknown(r.writer, o.name, outcome)
    written.push(...settled.written)
    outcome.notWritten.unshift(...settled.notWritten)
    const lost = outcome.error?.message ?? 'the outcome of a write is unknown'
    Object.assign(report.result, {written, notWritten: outcome.notWritten, ...(settled.unknown.length > 0 ? {unknown: settled.unknown} : {})})
    if (settled.unknown.length > 0) {
      interrupts.dispose()
      const check = settled.unknown.map((u) => checkCommand(u, o.name, target.namespace)).join('; ')
      const text = `${lost}: ${refList(settled.unknown)} may have been written (a re-read could not tell); written: ${refList(written)}; not written: ${refList(outcome.notWritten)}. Check with: ${check}. The journal keeps the earlier values; to undo, run ${resetCommand}`
      report.result.status = 'partial'
      report.result.message = text
      if (o.json) io.out(renderApplyJson(report))
      throw new CliError(text, ExitCode.WRITE_UNKNOWN)
    }
    // The re-read told: stored (the run goes on as a write that was answered), or not (a failure).
    if (settled.written.length > 0) r.warn(`${lost}; a re-read shows the server holds the change (${refList(settled.written)})`)
    const notStored = settled.notWritten.length > 0 ? `; a re-read shows ${refList(settled.notWritten)} was not stored` : ''
    const rest = outcome.notWritten.length > settled.notWritten.length ? '; the writes after it were not sent' : ''
    outcome.error = outcome.notWritten.length > 0 ? new CliError(`${lost}${notStored}${rest}`, ExitCode.WRITE_FAILED) : null
  }
  if (outcome.interrupted) {
    interrupts.dispose()
    return finish(
      'interrupted',
      `Interrupted by ${outcome.interrupted}: written: ${refList(written)}; not written: ${refList(outcome.notWritten)}. Each object is either as it was or fully changed. ${written.length ? undo : ''}`.trim(),
      ExitCode.INTERRUPTED,
    )
  }
  if (outcome.error) {
    interrupts.dispose()
    const partial = `written: ${refList(written)}; failed: ${refList(outcome.failed)}; not written: ${refList(outcome.notWritten)}`
    Object.assign(report.result, {written, notWritten: outcome.notWritten})
    report.result.status = written.length ? 'partial' : 'refused'
    report.result.message = `${outcome.error.message} (${partial})`
    if (o.json) io.out(renderApplyJson(report))
    throw new CliError(
      `${outcome.error.message}; ${partial}. Each object is either as it was or fully changed.${written.length ? ` ${undo}` : ''}`,
      outcome.error.exitCode === ExitCode.FORBIDDEN ? ExitCode.FORBIDDEN : ExitCode.WRITE_FAILED,
    )
  }
  if (o.dryRun === 'server') {
    interrupts.dispose()
    return finish('dry-run', `Dry run (server): the API server accepted ${written.length} write(s) (${refList(written)}); nothing was stored.`)
  }
  if (plan.kind === 'hints') {
    const w = shortLivedHintsWarning(plan, target.namespace, o.name)
    if (w !== null) r.warn(w)
  }
  const done = `Applied: ${refList(written)}. ${undo}`
  if (o.wait && plan.kind === 'service') {
    if (!o.json) io.out(done)
    const w = await waitFor(r.writer, o.name, prediction, o.waitMs, interrupts, target.slices)
    interrupts.dispose()
    report.wait = w
    if (!w.matched) return waitFailed(io, report, w, finish, o.json)
    return finish(
      'applied',
      o.json ? done : `The controller wrote the predicted hints${w.perZone ? ' (compared per zone: which endpoint a zone donates is random upstream)' : ''}.`,
    )
  }
  return finish('applied', done)
}

/** The command that shows what the server holds for an object (Service, or the Service's EndpointSlices). */
function checkCommand(ref: ObjectRef, service: string, namespace: string): string {
  return ref.kind === 'Service'
    ? shellJoin(['kubectl', 'get', 'service', ref.name, '-n', namespace, '-o', 'yaml'])
    : shellJoin(['kubectl', 'get', 'endpointslice', ref.name, '-n', namespace, '-o', 'yaml'])
}

/**
 * Re-reads the objects whose write went unanswered and sorts them by what the server holds
 * (apply/undo.ts heldByServer); a re-read that fails leaves them unknown. The journal keeps
 * their records either way: reset compares them with the server again.
 */
async function settleUnknown(writer: Writer, service: string, outcome: WriteOutcome): Promise<{written: ObjectRef[]; notWritten: ObjectRef[]; unknown: ObjectRef[]}> {
  const out = {written: [] as ObjectRef[], notWritten: [] as ObjectRef[], unknown: [] as ObjectRef[]}
  let live: {service: Service | null; slices: EndpointSlice[]} | null = null
  try {
    const needsService = outcome.unknown.some((u) => u.kind === 'Service')
    const needsSlices = outcome.unknown.some((u) => u.kind === 'EndpointSlice')
    live = {service: needsService ? await writer.getService(service) : null, slices: needsSlices ? await writer.listSlices(service) : []}
  } catch {
    // Still unreachable: unknown.
  }
  for (const ref of outcome.unknown) {
    const rec = outcome.journal?.objects.find((x) => x.kind === ref.kind && x.name === ref.name)
    const held = live && rec ? heldByServer(rec, live) : 'unknown'
    ;(held === 'written' ? out.written : held === 'not-written' ? out.notWritten : out.unknown).push(ref)
  }
  return out
}

function waitFailed(io: CommandIO, report: ApplyReport, w: NonNullable<ApplyReport['wait']>, finish: Finish, json: boolean): void {
  // Nothing to write, yet the live hints are not what the controller writes (issue 23: the JSON
  // said no-changes): hints-differ. After a write: applied, with wait.matched false.
  const status = report.result.status === 'preview' ? 'hints-differ' : 'applied'
  if (!json) io.err(`The live hints differ from the prediction${w.perZone ? ' (per zone)' : ''}:\n${renderDifferences(w.differences)}`)
  finish(status, json ? 'live hints differ from the prediction' : '', ExitCode.FINDING)
}

/** apply-wait.ts's loop on the Service's EndpointSlices. before: the slices as read before the write (undefined when nothing was written). */
function waitFor(writer: Writer, name: string, prediction: ExplainReport, timeoutMs: number, interrupts: Interrupts, before: readonly EndpointSlice[] | undefined) {
  const {predicted, perZone} = expectedHints(prediction)
  return waitForController({list: () => writer.listSlices(name), predicted, perZone, timeoutMs, before, interrupted: () => interrupts.signal !== null})
}
