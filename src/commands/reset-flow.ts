// reset once its options are valid: journal -> read -> plan (apply/undo.ts planReset) ->
// permission check -> preview -> (question) -> writes, re-planning on conflicts. Same protocol
// as apply (apply/protocol.ts), with one difference: reset keeps the journal itself, removing
// each object once it is restored. The effects come in as a CommandIO and WriteDeps; a
// commands/ helper for the reason given in apply-flow.ts.
import {CliError, ExitCode} from '../errors.js'
import {changesOf, type ApplyReport, type ObjectRef} from '../apply/report.js'
import {hasChanges} from '../apply/plan.js'
import {MAX_CONFLICT_RETRIES, forgetDone, journalFileAction, onConflict, refList, refText, willAttemptWrite, writeGate, type DryRun} from '../apply/protocol.js'
import {planReset, type Journal, type ResetPlan} from '../apply/undo.js'
import {resetWrites} from '../apply/writes.js'
import type {SourceFlagValues} from '../cluster/source.js'
import {renderApplyJson, renderChanges} from '../render/apply.js'
import type {Style} from '../render/style.js'
import type {CommandIO} from './base.js'
import {executeWrites, makeFinish, type WriteDeps} from './write-flow.js'

export interface ResetOptions {
  name: string
  dryRun: DryRun
  force: boolean
  yes: boolean
  json: boolean
  exitCode: boolean
  source: SourceFlagValues
  style: Style
}

export async function runReset(io: CommandIO, o: ResetOptions, deps: WriteDeps): Promise<void> {
  const {name, json, style, dryRun} = o
  const ctx = await deps.connect(o.source)
  const namespace = o.source.namespace || ctx.namespace
  const file = deps.journal.path({server: ctx.server, namespace, service: name})
  const journal0 = deps.journal.read(file)
  if (!journal0 || journal0.objects.length === 0) {
    throw new CliError(`nothing to reset: kubectl topology apply has no record of changes to service ${namespace}/${name} on ${ctx.server} (looked in ${file})`, ExitCode.NOT_FOUND)
  }
  let journal: Journal = journal0
  const writer = await deps.writer(ctx, namespace, dryRun === 'server')
  const readAndPlan = async (): Promise<ResetPlan> => {
    const needsService = journal.objects.some((obj) => obj.kind === 'Service')
    const [service, slices] = await Promise.all([needsService ? writer.getService(name) : Promise.resolve(null), writer.listSlices(name)])
    return planReset(journal, {service, slices}, {force: o.force})
  }
  let plan = await readAndPlan()

  const report = newReport(o, namespace, plan)
  const gate = {dryRun, yes: o.yes, canPrompt: deps.canPrompt(), json}
  // Permissions: before anything is shown or asked, when a write will be attempted.
  if (willAttemptWrite(hasChanges(plan.changes), gate)) {
    const checks = []
    if (plan.service) checks.push({verb: 'patch', group: '', resource: 'services', why: `restore service ${name}`})
    if (plan.slices.length > 0) checks.push({verb: 'patch', group: 'discovery.k8s.io', resource: 'endpointslices', why: `restore the hints of service ${name}'s EndpointSlices`})
    await writer.checkAccess(checks, '')
  }
  for (const w of report.warnings) io.err(style.warn(`Warning: left as is: ${w}`))
  const show = (p: ResetPlan, heading: string) => {
    if (json) return
    const diff = renderChanges(p.changes, style)
    io.out(diff === '' ? `No changes: service ${namespace}/${name} already has the values from before apply.` : `${heading}\n${diff}`)
  }
  show(plan, style.bold('Reset restores:'))
  const finish = makeFinish(io, report, {json, exitCode: o.exitCode})
  const save = () => (journalFileAction(journal) === 'remove' ? deps.journal.remove(file) : deps.journal.write(file, journal))
  // Objects already at their original value (or restored) leave the journal.
  const forget = (p: ResetPlan) => {
    journal = forgetDone(journal, p.done)
    save()
  }

  if (!hasChanges(plan.changes)) {
    if (dryRun === 'none') forget(plan)
    return finish('no-changes', '')
  }
  switch (writeGate(gate)) {
    case 'dry-run':
      return finish('dry-run', 'Dry run (client): nothing was sent to the API server.')
    case 'preview':
      return finish('preview', 'Preview only: nothing was written. Run again with --yes to restore.')
    case 'ask':
      if (!(await deps.confirm(`Restore these values on service ${namespace}/${name}?`))) return finish('preview', 'Nothing was written.')
  }

  const interrupts = deps.interrupts()
  const written: ObjectRef[] = []
  let notWritten: ObjectRef[] = []
  try {
    for (let attempt = 0; ; attempt++) {
      const p = plan
      // Record progress after each object: a restored object leaves the journal (an object
      // with a value left as is stays, for reset --force).
      const onWritten = (ref: ObjectRef) => {
        if (dryRun !== 'none') return
        if (p.done.some((d) => d.kind === ref.kind && d.name === ref.name)) journal = forgetDone(journal, [ref])
        save()
      }
      const outcome = await executeWrites(resetWrites(p), writer, {journal: null, io: null, interrupts, onWritten, errorText: (_, m) => m})
      written.push(...outcome.written)
      notWritten = outcome.notWritten
      if (outcome.error) {
        Object.assign(report.result, {failed: outcome.failed, written, notWritten})
        if (json) {
          Object.assign(report.result, {status: 'partial', message: outcome.error.message})
          io.out(renderApplyJson(report))
        }
        // A lost answer (exit 9): the journal keeps the object, and the next reset compares it with the server again.
        const exit = outcome.error.exitCode === ExitCode.FORBIDDEN || outcome.error.exitCode === ExitCode.WRITE_UNKNOWN ? outcome.error.exitCode : ExitCode.WRITE_FAILED
        const unsure = outcome.unknown.length > 0 ? `; may have been restored: ${refList(outcome.unknown)}` : ''
        throw new CliError(
          `${outcome.error.message}; restored: ${refList(written)}${unsure}; not restored: ${[...outcome.failed, ...notWritten].map(refText).join(', ') || 'none'}. Run reset again to finish.`,
          exit,
        )
      }
      if (interrupts.signal) break
      if (!outcome.conflict) {
        if (dryRun === 'none') forget(p)
        break
      }
      if (onConflict(attempt) === 'give-up')
        throw new CliError(
          `${refText(outcome.conflict)} kept changing while reset wrote; restored: ${written.map(refText).join(', ') || 'nothing'}. Run reset again`,
          ExitCode.WRITE_FAILED,
        )
      report.result.retries = attempt + 1
      io.err(style.warn(`Conflict: ${refText(outcome.conflict)} was modified since it was read; re-reading and re-planning (retry ${attempt + 1} of ${MAX_CONFLICT_RETRIES})`))
      plan = await readAndPlan()
      report.changes = changesOf(plan.changes)
      show(plan, style.bold('New plan after re-reading:'))
      if (!hasChanges(plan.changes)) {
        if (dryRun === 'none') forget(plan)
        break
      }
    }
  } finally {
    interrupts.dispose()
  }
  Object.assign(report.result, {written, notWritten})
  if (interrupts.signal)
    return finish(
      'interrupted',
      `Interrupted by ${interrupts.signal}: restored: ${refList(written)}; not restored: ${refList(notWritten)}. Run reset again to finish.`,
      ExitCode.INTERRUPTED,
    )
  if (dryRun === 'server') return finish('dry-run', `Dry run (server): the API server accepted ${written.length} write(s) (${refList(written)}); nothing was stored.`)
  const left =
    plan.skipped.length > 0
      ? ` Left as is: ${plan.skipped.map((s) => `${s.kind === 'Service' ? 'service' : 'endpointslice'}/${s.name}`).join(', ')} (reset --force restores them).`
      : ''
  return finish('applied', `Restored: ${refList(written)}.${left}`)
}

function newReport(o: ResetOptions, namespace: string, plan: ResetPlan): ApplyReport {
  return {
    apiVersion: 'kubectl-topology.io/v1',
    kind: 'TopologyReset',
    namespace,
    service: o.name,
    mode: null,
    strategy: null,
    dryRun: o.dryRun,
    changed: hasChanges(plan.changes),
    changes: changesOf(plan.changes),
    prediction: [],
    warnings: plan.skipped.map((s) => `${s.kind} ${s.name}: ${s.reason}`),
    result: {status: 'preview', written: [], failed: [], notWritten: [], retries: 0, message: ''},
  }
}
