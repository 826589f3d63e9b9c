// kubectl topology reset: put back what apply changed, from apply's journal. Same safety
// model as apply: preview by default, --yes or a confirmation, SelfSubjectAccessReview,
// resourceVersion preconditions with re-read and retry, stop between writes on a signal.
import type {Interfaces} from '@oclif/core'
import * as Flags from '@oclif/core/flags'
import {CliError, ExitCode} from '../errors.js'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {commonFlags, connectionFlags, namespaceFlag} from './flags.js'
import type {ResetOptions} from './reset-flow.js'
import {writeFlags} from './write-flags.js'

export default class Reset extends TopologyCommand {
  static override summary = 'Undo kubectl topology apply: restore the Service fields and hints that were there before.'
  static override usage = 'reset svc/NAME [flags]'
  static override description =
    `Reads the journal apply keeps for the Service (under $XDG_STATE_HOME/kubectl-topology/journal/, default ~/.local/state/kubectl-topology/journal/) and restores, per object, the value from before the first apply. A value someone else changed since apply wrote it is left alone and reported, unless --force. See docs/apply.md.`

  static override examples = [
    {description: 'Preview what reset restores', command: '<%= config.bin %> reset svc/web -n shop'},
    {description: 'Restore', command: '<%= config.bin %> reset svc/web -n shop --yes'},
  ]

  static override strict = false

  static override flags = {
    ...connectionFlags,
    namespace: namespaceFlag(),
    force: Flags.boolean({description: 'Restore also values that someone else changed since apply wrote them.', default: false}),
    ...writeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Reset)
    const options = resetOptions(flags, argv as string[], this.style(flags.color))
    // The engine, renderers, journal and cluster writes load only now (docs/design.md "Startup").
    const [{runReset}, {liveDeps}] = await Promise.all([import('./reset-flow.js'), import('./write-flow.js')])
    await runReset(this.io(), options, await liveDeps())
  }
}

export type ResetFlags = Interfaces.InferredFlags<typeof Reset.flags>

/** Validation, before any I/O. */
export function resetOptions(flags: ResetFlags, argv: string[], style: ResetOptions['style']): ResetOptions {
  const names = parseServiceArgs(argv)
  if (names.length !== 1)
    throw new CliError(names.length === 0 ? 'name the Service to reset: reset svc/NAME' : 'reset restores one Service at a time: name exactly one', ExitCode.USAGE)
  return {name: names[0]!, dryRun: flags['dry-run'], force: flags.force, yes: flags.yes, json: flags.output === 'json', exitCode: flags['exit-code'], source: flags, style}
}
