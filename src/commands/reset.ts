// kubectl topology reset: put back what apply changed, from apply's journal. Same safety
// model as apply: preview by default, --yes or a confirmation, SelfSubjectAccessReview,
// resourceVersion preconditions with re-read and retry, stop between writes on a signal.
import type {Interfaces} from '@oclif/core'
import * as Flags from '@oclif/core/flags'
import {commonFlags, connectionFlags, TopologyCommand} from './base.js'
import {writeFlags} from './write-flags.js'

export default class Reset extends TopologyCommand {
  static override summary = 'Undo kubectl topology apply: restore the Service fields and hints that were there before.'
  static override usage = 'reset svc/NAME [flags]'
  static override description = `Reads the journal apply keeps for the Service (under $XDG_STATE_HOME/kubectl-topology/journal/, default ~/.local/state/kubectl-topology/journal/) and restores, per object, the value from before the first apply. A value someone else changed since apply wrote it is left alone and reported, unless --force. See docs/apply.md.`

  static override examples = [
    {description: 'Preview what reset restores', command: '<%= config.bin %> reset svc/web -n shop'},
    {description: 'Restore', command: '<%= config.bin %> reset svc/web -n shop --yes'},
  ]

  static override strict = false

  static override flags = {
    ...connectionFlags,
    namespace: Flags.string({char: 'n', description: 'Namespace (default: the context\'s namespace, else "default").', helpGroup: 'CLUSTER'}),
    force: Flags.boolean({description: 'Restore also values that someone else changed since apply wrote them.', default: false}),
    ...writeFlags,
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Reset)
    // The engine, renderers, journal and cluster writes load only now (docs/design.md "Startup").
    const {runReset} = await import('./reset-run.js')
    await runReset(this, flags, argv as string[])
  }
}

export type ResetFlags = Interfaces.InferredFlags<typeof Reset.flags>
