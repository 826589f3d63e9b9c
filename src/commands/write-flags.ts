// The flags apply and reset share for writing, apart from the write loop (write-flow.ts), so
// that loading the command classes does not load it (docs/design.md "Startup"). The flags
// every command shares are in flags.ts.
import * as Flags from '@oclif/core/flags'

export const writeFlags = {
  yes: Flags.boolean({char: 'y', description: 'Write without asking (needed when not on a terminal).', default: false}),
  'dry-run': Flags.option({
    options: ['none', 'client', 'server'] as const,
    default: 'none' as const,
    description: 'client: only show the plan; server: send the writes with dryRun=All (the API server validates and admits them, nothing is stored).',
  })(),
  output: Flags.option({
    char: 'o',
    options: ['text', 'json'] as const,
    default: 'text' as const,
    description: 'text: readable diff and outcome; json: the plan and result (schema/apply.v1.json).',
  })(),
  'exit-code': Flags.boolean({description: 'Exit 1 when changes would be (or were) made, like kubectl diff.', default: false}),
}
