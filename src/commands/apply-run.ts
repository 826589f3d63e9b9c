// kubectl topology apply: options -> validation -> read -> plan (engine) -> preview (render)
// -> permission check -> journal -> writes -> (--wait) check. docs/apply.md is the guide.
// The implementation, loaded by apply.ts's run(): the command class stays light.
import {CliError, ExitCode} from '../errors.js'
import {journalPath, readJournal, removeJournal, writeJournal} from '../cluster/journal.js'
import {Writer} from '../cluster/write.js'
import {waitForController as pollController, type WaitResult} from './apply-wait.js'
import {changesOf, predictionOf, type ApplyReport, type ObjectRef} from '../apply/report.js'
import {explain, type ExplainReport} from '../explain/report.js'
import {
  hasChanges,
  MODE_FOR_STRATEGY,
  planHints,
  planServiceMode,
  serviceMergePatch,
  type HintsPlan,
  type ModeValue,
  type HintStrategy,
  type ServicePlan,
  type TopologyFields,
  topologyFieldsOf,
} from '../apply/plan.js'
import {CONTROLLER_NAME, LABEL_MANAGED_BY, type EndpointSlice} from '../upstream/api/types.js'
import {emptyJournal, hintsRecord, type Journal} from '../apply/undo.js'
import {checkKubeVersion} from './flag-values.js'
import {renderChanges, renderDifferences, renderApplyJson} from '../render/apply.js'
import {renderExplain} from '../render/explain.js'
import type {Style} from '../render/style.js'
import {parseServiceArgs} from './base.js'
import {
  canPrompt,
  confirm,
  executeWrites,
  Interrupts,
  loadContext,
  MAX_CONFLICT_RETRIES,
  readTarget,
  refText,
  type ObjectWrite,
  type Target,
  type WriteOutcome,
} from './write-flow.js'

import type Apply from './apply.js'
import type {ApplyFlags} from './apply.js'

type Plan = ServicePlan | HintsPlan

export async function runApply(cmd: Apply, flags: ApplyFlags, argv: string[]): Promise<void> {
  // ---- validation, before any I/O --------------------------------------------------------
  const names = parseServiceArgs(argv as string[])
  if (names.length !== 1) throw new CliError(names.length === 0 ? 'name the Service to change: apply svc/NAME --mode MODE (or --hints)' : 'apply changes one Service at a time: name exactly one', ExitCode.USAGE)
  const name = names[0]!
  if (flags.mode === undefined && !flags.hints) throw new CliError('say what to apply: --mode Auto|PreferSameZone|PreferSameNode|PreferClose|off, or --hints', ExitCode.USAGE)
  if (flags.mode !== undefined && flags.hints) throw new CliError('--mode and --hints are two different ways to write: use one', ExitCode.USAGE)
  if (flags.strategy !== undefined && !flags.hints) throw new CliError('--strategy applies to --hints only', ExitCode.USAGE)
  if (flags.wait && flags.hints) throw new CliError('--wait checks the controller\'s work after a Service change: use it with --mode', ExitCode.USAGE)
  let dryRun = flags['dry-run']
  if (flags['from-file'] !== undefined) {
    if (dryRun === 'server' || flags.yes || flags.wait) {
      throw new CliError(`--from-file reads a snapshot, so apply can only preview (--dry-run=client); ${dryRun === 'server' ? '--dry-run=server' : flags.yes ? '--yes' : '--wait'} needs a live cluster: drop --from-file`, ExitCode.USAGE)
    }
    if (flags.kubeconfig || flags.context) throw new CliError('--from-file reads a snapshot; --kubeconfig and --context apply only to a live cluster', ExitCode.USAGE)
    dryRun = 'client'
  }
  if (flags.wait && dryRun !== 'none') throw new CliError('--wait needs a real write: drop --dry-run', ExitCode.USAGE)
  checkKubeVersion(flags['kube-version'])
  const {parseDuration} = await import('../cluster/kubeconfig.js')
  const waitMs = parseDuration(flags.timeout, '--timeout')
  const json = flags.output === 'json'
  const style = cmd.style(flags.color)
  const strategy: HintStrategy = flags.strategy ?? 'same-zone'
  const mode = flags.mode as ModeValue | undefined

  // ---- read + plan -----------------------------------------------------------------------
  const ctx = flags['from-file'] === undefined ? await loadContext(flags) : undefined
  const writer = ctx ? await Writer.create(ctx, flags.namespace || ctx.namespace, dryRun === 'server') : undefined

  const readAndPlan = async (): Promise<{target: Target; plan: Plan; prediction: ExplainReport}> => {
    const target = await readTarget(flags, name, ctx)
    let plan: Plan
    if (mode !== undefined) {
      const managedFields = writer ? await writer.serviceManagedFields(name) : undefined
      plan = planServiceMode(target.service, mode, managedFields)
    } else {
      plan = planHints(target.state, target.service, target.slices, strategy)
    }
    return {target, plan, prediction: predict(target, plan, flags['kube-version'])}
  }
  let {target, plan, prediction} = await readAndPlan()
  for (const w of target.warnings) cmd.note(`Warning: ${w}`)

  const report: ApplyReport = {
    apiVersion: 'kubectl-topology.io/v1',
    kind: 'TopologyApply',
    namespace: target.namespace,
    service: name,
    mode: mode ?? null,
    strategy: mode === undefined ? strategy : null,
    dryRun,
    changed: hasChanges(plan.changes),
    changes: changesOf(plan.changes),
    prediction: predictionOf(prediction),
    warnings: [],
    result: {status: 'preview', written: [], failed: [], notWritten: [], retries: 0, message: ''},
  }
  const warn = (w: string) => {
    report.warnings.push(w)
    cmd.note(style.warn(`Warning: ${w}`))
  }

  // ---- refusals (nothing written) ---------------------------------------------------------
  if (plan.kind === 'hints') refuseHints(plan, target, flags.force, warn)
  else if (!target.service.spec?.selector || Object.keys(target.service.spec.selector).length === 0) {
    warn(`service ${name} has no selector: the EndpointSlice controller does not manage its EndpointSlices, so this change writes no hints; use --hints to write them directly`)
  }

  // ---- permissions: before anything is shown or asked, when a write will be attempted ----------
  const willWrite = hasChanges(plan.changes) && (dryRun === 'server' || (dryRun === 'none' && (flags.yes || (canPrompt() && !json))))
  if (willWrite) {
    await writer!.checkAccess(
      plan.kind === 'service'
        ? [{verb: 'patch', group: '', resource: 'services', why: `write service ${name}`}]
        : [{verb: 'patch', group: 'discovery.k8s.io', resource: 'endpointslices', why: `write hints onto the EndpointSlices of service ${name}`}],
      plan.kind === 'service' ? name : '',
    )
  }

  // ---- preview -----------------------------------------------------------------------------
  const show = (p: Plan, pred: ExplainReport, heading: string) => {
    if (json) return
    const diff = renderChanges(p.changes, style)
    cmd.out(diff === '' ? `No changes: service ${target.namespace}/${name} already ${p.kind === 'service' ? `has --mode ${p.mode}` : `carries the ${strategy} hints`}.` : `${heading}\n${diff}`)
    if (diff !== '') {
      const what = p.kind === 'service' ? 'Predicted outcome: what the EndpointSlice controller writes at its next sync after this change' : 'Predicted outcome: with these hints written'
      cmd.out(`\n${style.bold(what)}\n${renderExplain(pred, {format: 'table', style})}`)
    }
  }
  show(plan, prediction, style.bold('Planned changes:'))

  const finish = (status: ApplyReport['result']['status'], message: string, code: number = ExitCode.OK): void => {
    report.result.status = status
    report.result.message = message
    if (json) cmd.out(renderApplyJson(report))
    else if (message) cmd.out(message)
    const exitCode = code !== ExitCode.OK ? code : flags['exit-code'] && report.changed ? ExitCode.FINDING : ExitCode.OK
    if (exitCode !== ExitCode.OK) cmd.exit(exitCode)
  }

  if (!hasChanges(plan.changes)) {
    if (flags.wait && writer && plan.kind === 'service') {
      const w = await waitForController(writer, name, prediction, waitMs, new Interrupts().install(), undefined)
      report.wait = w
      if (!w.matched) return waitFailed(cmd, report, w, finish, json)
    }
    return finish('no-changes', json ? 'no changes' : '')
  }

  // ---- decide whether to write ------------------------------------------------------------
  if (dryRun === 'client') return finish('dry-run', flags['from-file'] !== undefined ? 'Preview from a snapshot file (--dry-run=client): nothing was sent. Writing needs a live cluster.' : 'Dry run (client): nothing was sent to the API server.')
  if (dryRun === 'none' && !flags.yes) {
    if (!canPrompt() || json) {
      return finish('preview', 'Preview only: nothing was written. Run again with --yes to write (or --dry-run=server to have the API server validate the change).')
    }
    if (!(await confirm(`Apply these changes to service ${target.namespace}/${name}?`))) return finish('preview', 'Nothing was written.')
  }

  // ---- journal + writes ------------------------------------------------------------------------
  const key = {server: ctx!.server, context: ctx!.contextName, namespace: target.namespace, service: name}
  const file = journalPath(key)
  let journal: Journal | null = dryRun === 'server' ? null : (readJournal(file) ?? emptyJournal(key))
  const io = dryRun === 'server' ? null : {file, write: writeJournal, remove: removeJournal}
  const interrupts = new Interrupts().install()
  const written: ObjectRef[] = []
  let outcome: WriteOutcome
  try {
    for (let attempt = 0; ; attempt++) {
      const action = mode !== undefined ? `apply --mode ${mode}${flags.force ? ' --force' : ''}` : `apply --hints --strategy ${strategy}${flags.force ? ' --force' : ''}`
      outcome = await executeWrites(writesFor(plan, flags.force), writer!, {journal, io, interrupts, history: {time: new Date().toISOString(), action}})
      journal = outcome.journal
      written.push(...outcome.written)
      if (!outcome.conflict) break
      if (attempt >= MAX_CONFLICT_RETRIES) {
        report.result.notWritten = outcome.notWritten
        report.result.written = written
        report.result.retries = attempt
        throw new CliError(`${refText(outcome.conflict)} kept changing while apply wrote (${attempt + 1} conflicts); written: ${written.map(refText).join(', ') || 'nothing'}. Run apply again`, ExitCode.WRITE_FAILED)
      }
      report.result.retries = attempt + 1
      cmd.note(style.warn(`Conflict: ${refText(outcome.conflict)} was modified since it was read; re-reading and re-planning (retry ${attempt + 1} of ${MAX_CONFLICT_RETRIES})`))
      ;({target, plan, prediction} = await readAndPlan())
      if (plan.kind === 'hints') refuseHints(plan, target, flags.force, () => {})
      report.changes = changesOf(plan.changes)
      report.prediction = predictionOf(prediction)
      show(plan, prediction, style.bold('New plan after re-reading:'))
      if (!hasChanges(plan.changes)) break
      if (dryRun === 'none' && !flags.yes && !(await confirm('The plan changed. Apply the new plan?'))) {
        outcome = {...outcome, conflict: null, notWritten: [], written: []}
        report.result.written = written
        return finish('partial', `Stopped: nothing more was written. Written before the conflict: ${written.map(refText).join(', ') || 'nothing'}.`, written.length > 0 ? ExitCode.WRITE_FAILED : ExitCode.OK)
      }
    }
  } finally {
    if (!flags.wait) interrupts.dispose()
  }
  report.result.written = written
  report.result.failed = outcome.failed
  report.result.notWritten = outcome.notWritten
  const list = (refs: ObjectRef[]) => refs.map(refText).join(', ') || 'none'
  const undo = `Undo with: kubectl topology reset svc/${name} -n ${target.namespace}`
  if (outcome.interrupted) {
    interrupts.dispose()
    return finish('interrupted', `Interrupted by ${outcome.interrupted}: written: ${list(written)}; not written: ${list(outcome.notWritten)}. Each object is either as it was or fully changed. ${written.length ? undo : ''}`.trim(), ExitCode.INTERRUPTED)
  }
  if (outcome.error) {
    interrupts.dispose()
    const partial = `written: ${list(written)}; failed: ${list(outcome.failed)}; not written: ${list(outcome.notWritten)}`
    report.result.status = written.length ? 'partial' : 'refused'
    report.result.message = `${outcome.error.message} (${partial})`
    if (json) cmd.out(renderApplyJson(report))
    throw new CliError(`${outcome.error.message}\n  ${partial}. Each object is either as it was or fully changed.${written.length ? ` ${undo}` : ''}`, outcome.error.exitCode === ExitCode.FORBIDDEN ? ExitCode.FORBIDDEN : ExitCode.WRITE_FAILED)
  }
  if (dryRun === 'server') {
    interrupts.dispose()
    return finish('dry-run', `Dry run (server): the API server accepted ${written.length} write(s) (${list(written)}); nothing was stored.`)
  }
  if (plan.kind === 'hints' && plan.controllerManaged.length > 0) {
    warn(`the hints on ${plan.controllerManaged.join(', ')} last only until the EndpointSlice controller's next sync of service ${name}; to make them stick use: kubectl topology apply svc/${name} -n ${target.namespace} --mode ${MODE_FOR_STRATEGY[strategy]}`)
  }
  const done = `Applied: ${list(written)}. ${undo}`
  if (flags.wait && plan.kind === 'service') {
    if (!json) cmd.out(done)
    const w = await waitForController(writer!, name, prediction, waitMs, interrupts, target.slices)
    interrupts.dispose()
    report.wait = w
    if (!w.matched) return waitFailed(cmd, report, w, finish, json)
    return finish('applied', json ? done : `The controller wrote the predicted hints${w.perZone ? ' (compared per zone: which endpoint a zone donates is random upstream)' : ''}.`)
  }
  return finish('applied', done)
}

function waitFailed(cmd: Apply, report: ApplyReport, w: NonNullable<ApplyReport['wait']>, finish: (s: ApplyReport['result']['status'], m: string, c?: number) => void, json: boolean): void {
  const status = report.result.status === 'preview' ? 'no-changes' : 'applied'
  if (!json) cmd.note(`The live hints differ from the prediction${w.perZone ? ' (per zone)' : ''}:\n${renderDifferences(w.differences)}`)
  finish(status, json ? 'live hints differ from the prediction' : '', ExitCode.FINDING)
}

/** Hints mode refusals: upstream-auto refused, controller-managed slices, invalid values. */
function refuseHints(plan: HintsPlan, target: Target, force: boolean, warn: (w: string) => void): void {
  const ns = target.namespace
  const svc = target.service.metadata.name
  if (plan.refusals.length > 0) {
    throw new CliError(`--strategy upstream-auto: the topology cache refuses to allocate hints for service ${svc}: ${plan.refusals.join('; ')}; nothing was written (try --strategy same-zone)`, ExitCode.USAGE)
  }
  if (plan.controllerManaged.length > 0 && !force) {
    throw new CliError(
      `refusing to write hints onto EndpointSlice(s) ${plan.controllerManaged.join(', ')}: they are managed by the EndpointSlice controller (${LABEL_MANAGED_BY}=${CONTROLLER_NAME}), which rewrites their hints at its next sync of the Service; set the Service's mode instead: kubectl topology apply svc/${svc} -n ${ns} --mode ${MODE_FOR_STRATEGY[plan.strategy]} (or pass --force to write them anyway, until that sync)`,
      ExitCode.USAGE,
    )
  }
  for (const w of plan.writes) {
    const by = w.before.metadata.labels?.[LABEL_MANAGED_BY]
    if (by && by !== CONTROLLER_NAME && by.startsWith('endpointslicemirroring-controller')) {
      warn(`EndpointSlice ${w.name} is managed by ${by}, which rewrites it when the Endpoints object changes; the hints last until then`)
    }
  }
  if (plan.controllerManaged.length > 0) {
    warn(`--force: writing hints onto controller-managed EndpointSlice(s) ${plan.controllerManaged.join(', ')}; they last only until the EndpointSlice controller's next sync of service ${svc}`)
  }
  if (plan.validation.length > 0) {
    const first = plan.validation[0]!
    const errs = first.errors.map((e) => `${e.path}: ${e.message}`).join('; ')
    throw new CliError(`the planned hints for EndpointSlice ${first.slice} are not valid, so nothing was sent: ${errs}${plan.validation.length > 1 ? ` (and ${plan.validation.length - 1} more slice(s))` : ''}`, ExitCode.WRITE_FAILED)
  }
}

/** explain() for the state after the change: the Service as modified (next sync), or the slices with the new hints. */
function predict(target: Target, plan: Plan, kubeVersion: string | undefined): ExplainReport {
  const version = kubeVersion ?? target.state.serverVersion
  const opts = {kubeVersion: version, versionSource: kubeVersion ? ('flag' as const) : target.state.serverVersion ? ('server' as const) : ('default' as const), prediction: 'next-sync' as const}
  if (plan.kind === 'service') {
    const state = {...target.state, services: target.state.services.map((s) => (s === target.service ? plan.after : s))}
    return explain(state, [plan.after], opts)
  }
  const after = new Map<string, EndpointSlice>(plan.writes.map((w) => [w.name, w.after]))
  const state = {...target.state, endpointSlices: target.state.endpointSlices.map((s) => (target.slices.includes(s) ? (after.get(s.metadata.name) ?? s) : s))}
  return explain(state, [target.service], opts)
}

/** The writes of a plan, each with its journal record. */
function writesFor(plan: Plan, force: boolean): ObjectWrite[] {
  if (plan.kind === 'service') {
    if (!hasChanges(plan.changes)) return []
    const name = plan.before.metadata.name
    const apply = plan.write.apply
    const removals = plan.write.removeByMergePatch
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
          const left = (['topologyMode', 'topologyAwareHints', 'trafficDistribution'] as const).filter((f) => after[f] === null && current[f] !== null)
          const toRemove = [...new Set([...removals.filter((f) => current[f] !== null), ...left])]
          if (toRemove.length > 0) {
            await w.mergePatchService(name, serviceMergePatch(Object.fromEntries(toRemove.map((f) => [f, null])), w.serverDryRun && apply ? undefined : rv))
          }
        },
      },
    ]
  }
  return plan.writes.map((sw) => ({
    ref: {kind: 'EndpointSlice' as const, name: sw.name},
    record: {kind: 'EndpointSlice' as const, name: sw.name, uid: sw.before.metadata.uid ?? null, state: 'pending' as const, before: hintsRecord(sw.before), prior: hintsRecord(sw.before), after: hintsRecord(sw.after)},
    run: async (w) => {
      await w.patchSlice(sw.name, sw.patch)
    },
  }))
}

/**
 * apply-wait.ts's loop on the Service's EndpointSlices. before: the slices as read before the
 * write (undefined when nothing was written).
 */
async function waitForController(
  writer: Writer,
  name: string,
  prediction: ExplainReport,
  timeoutMs: number,
  interrupts: Interrupts,
  before: readonly EndpointSlice[] | undefined,
): Promise<WaitResult> {
  const perZone = prediction.services.some((s) => s.controller.path === 'topology-mode-auto')
  const predicted = prediction.services.flatMap((s) =>
    s.endpoints.map((e) => ({address: e.addresses[0] ?? '', ready: e.controllerReady, hints: e.predictedHints && (e.predictedHints.forZones.length || e.predictedHints.forNodes.length) ? e.predictedHints : null})),
  )
  return pollController({list: () => writer.listSlices(name), predicted, perZone, timeoutMs, before, interrupted: () => interrupts.signal !== null})
}
