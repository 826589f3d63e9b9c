// kubectl topology reset: put back what apply changed, from apply's journal. Same safety
// model as apply: preview by default, --yes or a confirmation, SelfSubjectAccessReview,
// resourceVersion preconditions with re-read and retry, stop between writes on a signal.
// The implementation, loaded by reset.ts's run(): the command class stays light.
import {CliError, ExitCode} from '../errors.js'
import {journalPath, readJournal, removeJournal, writeJournal} from '../cluster/journal.js'
import {ConflictError, Writer} from '../cluster/write.js'
import {changesOf, type ApplyReport, type ObjectRef} from '../apply/report.js'
import {hasChanges} from '../apply/plan.js'
import {planReset, type Journal, type ResetPlan} from '../apply/undo.js'
import {renderApplyJson, renderChanges} from '../render/apply.js'
import {parseServiceArgs} from './base.js'
import {canPrompt, confirm, Interrupts, loadContext, MAX_CONFLICT_RETRIES, refText, type ObjectWrite} from './write-flow.js'
import type Reset from './reset.js'
import type {ResetFlags} from './reset.js'

export async function runReset(cmd: Reset, flags: ResetFlags, argv: string[]): Promise<void> {
  const names = parseServiceArgs(argv as string[])
  if (names.length !== 1) throw new CliError(names.length === 0 ? 'name the Service to reset: reset svc/NAME' : 'reset restores one Service at a time: name exactly one', ExitCode.USAGE)
  const name = names[0]!
  const json = flags.output === 'json'
  const style = cmd.style(flags.color)
  const dryRun = flags['dry-run']

  const ctx = await loadContext(flags)
  const namespace = flags.namespace || ctx.namespace
  const file = journalPath({server: ctx.server, namespace, service: name})
  const journal0 = readJournal(file)
  if (!journal0 || journal0.objects.length === 0) {
    throw new CliError(`nothing to reset: kubectl topology apply has no record of changes to service ${namespace}/${name} on ${ctx.server} (looked in ${file})`, ExitCode.NOT_FOUND)
  }
  let journal: Journal = journal0
  const writer = await Writer.create(ctx, namespace, dryRun === 'server')

  const readAndPlan = async (): Promise<ResetPlan> => {
    const needsService = journal.objects.some((o) => o.kind === 'Service')
    const [service, slices] = await Promise.all([needsService ? writer.getService(name) : Promise.resolve(null), writer.listSlices(name)])
    return planReset(journal, {service, slices}, {force: flags.force})
  }
  let plan = await readAndPlan()

  const report: ApplyReport = {
    apiVersion: 'kubectl-topology.io/v1',
    kind: 'TopologyReset',
    namespace,
    service: name,
    mode: null,
    strategy: null,
    dryRun,
    changed: hasChanges(plan.changes),
    changes: changesOf(plan.changes),
    prediction: [],
    warnings: plan.skipped.map((s) => `${s.kind} ${s.name}: ${s.reason}`),
    result: {status: 'preview', written: [], failed: [], notWritten: [], retries: 0, message: ''},
  }
  // Permissions: before anything is shown or asked, when a write will be attempted.
  if (hasChanges(plan.changes) && (dryRun === 'server' || (dryRun === 'none' && (flags.yes || (canPrompt() && !json))))) {
    const checks = []
    if (plan.service) checks.push({verb: 'patch', group: '', resource: 'services', why: `restore service ${name}`})
    if (plan.slices.length > 0) checks.push({verb: 'patch', group: 'discovery.k8s.io', resource: 'endpointslices', why: `restore the hints of service ${name}'s EndpointSlices`})
    await writer.checkAccess(checks, '')
  }
  for (const w of report.warnings) cmd.note(style.warn(`Warning: left as is: ${w}`))
  const show = (p: ResetPlan, heading: string) => {
    if (json) return
    const diff = renderChanges(p.changes, style)
    cmd.out(diff === '' ? `No changes: service ${namespace}/${name} already has the values from before apply.` : `${heading}\n${diff}`)
  }
  show(plan, style.bold('Reset restores:'))

  const finish = (status: ApplyReport['result']['status'], message: string, code: number = ExitCode.OK): void => {
    report.result.status = status
    report.result.message = message
    if (json) cmd.out(renderApplyJson(report))
    else if (message) cmd.out(message)
    const exitCode = code !== ExitCode.OK ? code : flags['exit-code'] && report.changed ? ExitCode.FINDING : ExitCode.OK
    if (exitCode !== ExitCode.OK) cmd.exit(exitCode)
  }

  const forget = (p: ResetPlan) => {
    // Objects already at their original value (or restored) leave the journal.
    const done = new Set(p.done.map((d) => `${d.kind}/${d.name}`))
    journal = {...journal, objects: journal.objects.filter((o) => !done.has(`${o.kind}/${o.name}`))}
    if (journal.objects.length === 0) removeJournal(file)
    else writeJournal(file, journal)
  }

  if (!hasChanges(plan.changes)) {
    if (dryRun === 'none') forget(plan)
    return finish('no-changes', '')
  }
  if (dryRun === 'client') return finish('dry-run', 'Dry run (client): nothing was sent to the API server.')
  if (dryRun === 'none' && !flags.yes) {
    if (!canPrompt() || json) return finish('preview', 'Preview only: nothing was written. Run again with --yes to restore.')
    if (!(await confirm(`Restore these values on service ${namespace}/${name}?`))) return finish('preview', 'Nothing was written.')
  }

  const interrupts = new Interrupts().install()
  const written: ObjectRef[] = []
  let notWritten: ObjectRef[] = []
  try {
    for (let attempt = 0; ; attempt++) {
      const writes: ObjectWrite[] = []
      if (plan.service) {
        const s = plan.service
        writes.push({ref: {kind: 'Service', name: s.name}, record: null, run: async (w) => void (await w.mergePatchService(s.name, s.patch))})
      }
      for (const s of plan.slices) writes.push({ref: {kind: 'EndpointSlice', name: s.name}, record: null, run: async (w) => void (await w.patchSlice(s.name, s.patch))})
      let conflict: ObjectRef | null = null
      notWritten = []
      for (const [i, w] of writes.entries()) {
        if (interrupts.signal) {
          notWritten = writes.slice(i).map((x) => x.ref)
          break
        }
        try {
          await w.run(writer)
          written.push(w.ref)
          if (dryRun === 'none') {
            // Record progress after each object: a restored object leaves the journal.
            // (an object with a value left as is stays, for reset --force).
            const restored = plan.done.some((d) => d.kind === w.ref.kind && d.name === w.ref.name)
            if (restored) journal = {...journal, objects: journal.objects.filter((o) => !(o.kind === w.ref.kind && o.name === w.ref.name))}
            if (journal.objects.length === 0) removeJournal(file)
            else writeJournal(file, journal)
          }
        } catch (e) {
          if (e instanceof ConflictError) {
            conflict = w.ref
            notWritten = writes.slice(i).map((x) => x.ref)
            break
          }
          const err = e instanceof CliError ? e : new CliError((e as Error).message, ExitCode.WRITE_FAILED, {cause: e})
          report.result.failed = [{...w.ref, error: err.message}]
          report.result.written = written
          report.result.notWritten = writes.slice(i + 1).map((x) => x.ref)
          if (json) {
            report.result.status = 'partial'
            report.result.message = err.message
            cmd.out(renderApplyJson(report))
          }
          throw new CliError(`${err.message}\n  restored: ${written.map(refText).join(', ') || 'none'}; not restored: ${[w.ref, ...report.result.notWritten].map(refText).join(', ')}. Run reset again to finish.`, err.exitCode === ExitCode.FORBIDDEN ? ExitCode.FORBIDDEN : ExitCode.WRITE_FAILED)
        }
      }
      if (interrupts.signal) break
      if (!conflict) {
        if (dryRun === 'none') forget(plan)
        break
      }
      if (attempt >= MAX_CONFLICT_RETRIES) throw new CliError(`${refText(conflict)} kept changing while reset wrote; restored: ${written.map(refText).join(', ') || 'nothing'}. Run reset again`, ExitCode.WRITE_FAILED)
      report.result.retries = attempt + 1
      cmd.note(style.warn(`Conflict: ${refText(conflict)} was modified since it was read; re-reading and re-planning (retry ${attempt + 1} of ${MAX_CONFLICT_RETRIES})`))
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
  report.result.written = written
  report.result.notWritten = notWritten
  const list = (refs: ObjectRef[]) => refs.map(refText).join(', ') || 'none'
  if (interrupts.signal) return finish('interrupted', `Interrupted by ${interrupts.signal}: restored: ${list(written)}; not restored: ${list(notWritten)}. Run reset again to finish.`, ExitCode.INTERRUPTED)
  if (dryRun === 'server') return finish('dry-run', `Dry run (server): the API server accepted ${written.length} write(s) (${list(written)}); nothing was stored.`)
  const left = plan.skipped.length > 0 ? ` Left as is: ${plan.skipped.map((s) => `${s.kind === 'Service' ? 'service' : 'endpointslice'}/${s.name}`).join(', ')} (reset --force restores them).` : ''
  return finish('applied', `Restored: ${list(written)}.${left}`)
}
