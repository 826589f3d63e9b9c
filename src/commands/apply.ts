// kubectl topology apply: options -> validation -> read -> plan (engine) -> preview (render)
// -> permission check -> journal -> writes -> (--wait) check. docs/apply.md is the guide.
import type {Interfaces} from '@oclif/core'
import * as Flags from '@oclif/core/flags'
import {MAX_CONFLICT_RETRIES, MODES, STRATEGIES} from '../apply/plan.js'
import {CliError, ExitCode} from '../errors.js'
import type {ApplyOptions} from './apply-flow.js'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {checkKubeVersion} from './flag-values.js'
import {commonFlags, connectionFlags, fromFileFlag, kubeVersionFlag, namespaceFlag} from './flags.js'
import {writeFlags} from './write-flags.js'

export default class Apply extends TopologyCommand {
  static override summary = 'Turn topology-aware routing on or off for a Service, or write hints onto its EndpointSlices, safely.'
  static override usage = 'apply svc/NAME (--mode MODE | --hints) [flags]'
  static override description =
    `Service mode (the supported way): --mode sets or removes the service.kubernetes.io/topology-mode annotation and/or spec.trafficDistribution with server-side apply (field manager kubectl-topology), and removes the deprecated topology-aware-hints annotation when it would override the choice. Before writing it shows the change and the predicted outcome: explain's table for the Service as it will be.

Hints mode: --hints computes hints (--strategy) and writes them onto the Service's EndpointSlices. The EndpointSlice controller rewrites hints on the slices it manages at its next sync, so those are refused unless --force.

Nothing is written without --yes or a confirmation on a terminal. Every write carries the resourceVersion it read; on a conflict the plan is re-read, shown again and retried (up to ${MAX_CONFLICT_RETRIES} times). What was there before is recorded in a local journal, and \`kubectl topology reset\` puts it back. See docs/apply.md.`

  static override examples = [
    {description: 'Preview turning on same-zone routing', command: '<%= config.bin %> apply svc/web -n shop --mode PreferSameZone'},
    {description: 'Write it, and wait until the controller has written the predicted hints', command: '<%= config.bin %> apply svc/web -n shop --mode PreferSameZone --yes --wait'},
    {
      description: 'CI: let the API server validate, print the plan as JSON, exit 1 when something would change',
      command: '<%= config.bin %> apply svc/web --mode Auto --dry-run=server -o json --exit-code',
    },
    {description: 'Hints on hand-made EndpointSlices of a Service without a selector', command: '<%= config.bin %> apply svc/db --hints --strategy PreferSameZone --yes'},
    {description: 'Preview against a snapshot file', command: '<%= config.bin %> apply svc/checkout -n shop --mode PreferSameZone --from-file examples/three-zones.yaml'},
    {description: 'Undo', command: '<%= config.bin %> reset svc/web -n shop --yes'},
  ]

  static override strict = false

  static override flags = {
    ...connectionFlags,
    namespace: namespaceFlag(),
    'from-file': fromFileFlag({description: 'Preview against a snapshot file (implies --dry-run=client; writing needs a live cluster).'}),
    'kube-version': kubeVersionFlag({description: "Predict as this Kubernetes version (default: the API server's)."}),
    mode: Flags.option({
      options: MODES,
      description: 'Service mode: Auto (topology-mode annotation), PreferSameZone, PreferSameNode, PreferClose (spec.trafficDistribution), or none (no topology-aware routing).',
    })(),
    hints: Flags.boolean({description: "Hints mode: write hints onto the Service's EndpointSlices.", default: false}),
    strategy: Flags.option({
      options: STRATEGIES,
      description:
        "With --hints: the hints this Service mode would give: Auto (topology-mode Auto's CPU-proportional allocation), PreferSameZone or PreferSameNode (the trafficDistribution heuristic). Default: PreferSameZone.",
    })(),
    force: Flags.boolean({
      description:
        "Hints mode: also write controller-managed EndpointSlices (until the controller's next sync). Service mode (kept for compatibility, with a warning): both --force-conflicts and --force-value.",
      default: false,
    }),
    'force-conflicts': Flags.boolean({
      description: 'Service mode: take ownership of the fields another field manager set (server-side apply force, as kubectl apply --server-side --force-conflicts).',
      default: false,
    }),
    'force-value': Flags.boolean({
      description: "Service mode: send a --mode value this Kubernetes version's API server drops (its feature gate is off by default), e.g. where the cluster turned the gate on.",
      default: false,
    }),
    ...writeFlags,
    wait: Flags.boolean({
      description: 'Service mode: after writing, wait for the controller and check that the live hints equal the prediction (exit 1 with the difference if not).',
      default: false,
    }),
    timeout: Flags.string({description: 'Bound for --wait.', default: '60s'}),
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {argv: args, warnings} = renameOldValues(this.argv)
    for (const w of warnings) this.note(w)
    const {flags, argv} = await this.parse(Apply, args)
    const options = await applyOptions(flags, argv as string[], this.style(flags.color))
    if (flags.force && flags.mode !== undefined)
      this.note(
        'Warning: --force with --mode means both --force-conflicts (take ownership of fields another manager set) and --force-value (send a value this version drops); say which: --force will keep only its --hints meaning',
      )
    // The engine, renderers, journal and cluster writes load only now (docs/design.md "Startup").
    const [{runApply}, {liveDeps}] = await Promise.all([import('./apply-flow.js'), import('./write-flow.js')])
    await runApply(this.io(), options, await liveDeps())
  }
}

export type ApplyFlags = Interfaces.InferredFlags<typeof Apply.flags>

/** The values --mode and --strategy had before issue 19 (one vocabulary with plan and simulate), and their names now. */
const OLD_VALUES: Record<string, Record<string, string>> = {
  '--mode': {off: 'none'},
  '--strategy': {'upstream-auto': 'Auto', 'same-zone': 'PreferSameZone', 'same-node': 'PreferSameNode'},
}
const WHY: Record<string, string> = {'--mode': 'the word plan and simulate use', '--strategy': 'the Service mode whose hints it computes'}

/**
 * `--mode off` and `--strategy upstream-auto|same-zone|same-node`, the names before issue 19, as
 * hidden aliases: rewritten before the flags are parsed, so that help, completion and errors list
 * only the new names, and the plan and the JSON say them; one warning line each. Arguments after
 * `--` are left alone.
 */
export function renameOldValues(argv: readonly string[]): {argv: string[]; warnings: string[]} {
  const out = [...argv]
  const warnings: string[] = []
  for (let i = 0; i < out.length; i++) {
    const arg = out[i] as string
    if (arg === '--') break
    const eq = arg.indexOf('=')
    const flag = eq > 0 ? arg.slice(0, eq) : arg
    const table = OLD_VALUES[flag]
    if (table === undefined) continue
    const at = eq > 0 ? i : i + 1
    const value = eq > 0 ? arg.slice(eq + 1) : out[at]
    const now = value === undefined ? undefined : table[value]
    if (now === undefined) continue
    out[at] = eq > 0 ? `${flag}=${now}` : now
    warnings.push(`Warning: ${flag} ${value} is now ${flag} ${now} (${WHY[flag]}); ${value} will be removed`)
    if (eq < 0) i++
  }
  return {argv: out, warnings}
}

/** Validation, before any I/O: what to write, and which combinations of flags can do it. */
export async function applyOptions(flags: ApplyFlags, argv: string[], style: ApplyOptions['style']): Promise<ApplyOptions> {
  const names = parseServiceArgs(argv)
  if (names.length !== 1)
    throw new CliError(
      names.length === 0 ? 'name the Service to change: apply svc/NAME --mode MODE (or --hints)' : 'apply changes one Service at a time: name exactly one',
      ExitCode.USAGE,
    )
  if (flags.mode === undefined && !flags.hints) throw new CliError('say what to apply: --mode Auto|PreferSameZone|PreferSameNode|PreferClose|none, or --hints', ExitCode.USAGE)
  if (flags.mode !== undefined && flags.hints) throw new CliError('--mode and --hints are two different ways to write: use one', ExitCode.USAGE)
  if (flags.strategy !== undefined && !flags.hints) throw new CliError('--strategy applies to --hints only', ExitCode.USAGE)
  if (flags.wait && flags.hints) throw new CliError("--wait checks the controller's work after a Service change: use it with --mode", ExitCode.USAGE)
  for (const f of ['force-conflicts', 'force-value'] as const) {
    if (flags[f] && flags.hints) throw new CliError(`--${f} applies to --mode (a Service change); with --hints, --force writes controller-managed EndpointSlices`, ExitCode.USAGE)
  }
  let dryRun = flags['dry-run']
  if (flags['from-file'] !== undefined) {
    if (dryRun === 'server' || flags.yes || flags.wait) {
      const live = dryRun === 'server' ? '--dry-run=server' : flags.yes ? '--yes' : '--wait'
      throw new CliError(`--from-file reads a snapshot, so apply can only preview (--dry-run=client); ${live} needs a live cluster: drop --from-file`, ExitCode.USAGE)
    }
    const {validateSource} = await import('../cluster/source.js')
    validateSource(flags, names)
    dryRun = 'client'
  }
  if (flags.wait && dryRun !== 'none') throw new CliError('--wait needs a real write: drop --dry-run', ExitCode.USAGE)
  checkKubeVersion(flags['kube-version'])
  const {parseDuration} = await import('../cluster/kubeconfig.js')
  const waitMs = parseDuration(flags.timeout, '--timeout')
  return {
    name: names[0]!,
    mode: flags.mode,
    strategy: flags.strategy ?? 'PreferSameZone',
    dryRun,
    force: flags.force,
    forceConflicts: flags['force-conflicts'] || (flags.force && flags.mode !== undefined),
    forceValue: flags['force-value'] || (flags.force && flags.mode !== undefined),
    yes: flags.yes,
    wait: flags.wait,
    waitMs,
    json: flags.output === 'json',
    exitCode: flags['exit-code'],
    kubeVersion: flags['kube-version'],
    source: flags,
    style,
  }
}
