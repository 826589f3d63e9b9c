// Entry point of the npm install (bin/kubectl-topology.js). It does not import the commands:
// oclif reads oclif.manifest.json (written by scripts/build.mjs from COMMANDS) for help and
// command lookup, and imports the explicit target (dist/cli.js, src/cli.ts) only to run a
// command. So `--help` and `--version` never evaluate the commands' modules (docs/design.md
// "Startup"). Errors end here: one line on stderr, a documented exit code, a stack trace
// only with --debug.
import {Errors, flush, run} from '@oclif/core'
import {isCliError, ExitCode} from './errors.js'

const ROOT = new URL('..', import.meta.url)

export async function main(argv: string[]): Promise<void> {
  if (argv[0] === '__complete') {
    // Shell completion (kubectl_complete-topology): before oclif, see src/complete.ts.
    const [{complete}, {COMMANDS}] = await Promise.all([import('./complete.js'), import('./cli.js')])
    return complete(argv.slice(1), COMMANDS)
  }
  const debug = argv.includes('--debug')
  try {
    await run(argv, ROOT.href)
    await flush()
  } catch (error) {
    process.exitCode = reportError(error, debug)
  }
}

/** Prints one line for the error and returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  // oclif signals a normal exit (e.g. `this.exit(1)`) with an ExitError.
  if (error instanceof Errors.ExitError) return error.oclif.exit ?? 0
  if (isCliError(error)) {
    process.stderr.write(`error: ${error.message}\n`)
    if (debug && error.cause) process.stderr.write(`${formatStack(error.cause)}\n`)
    if (debug) process.stderr.write(`${error.stack}\n`)
    return error.exitCode
  }
  if (error instanceof Errors.CLIError) {
    // Parse errors (unknown flag, bad option value, missing argument): usage, exit 2.
    const first = String(error.message).split('\n').find((l) => l.trim() !== '') ?? 'invalid usage'
    process.stderr.write(`error: ${first.trim()} (see --help)\n`)
    if (debug) process.stderr.write(`${error.stack}\n`)
    const code = error.oclif?.exit
    return code === undefined || code === 1 ? ExitCode.USAGE : code
  }
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`error: internal error: ${message.split('\n')[0]} (run with --debug for details, and please report it)\n`)
  if (debug) process.stderr.write(`${formatStack(error)}\n`)
  return ExitCode.INTERNAL
}

function formatStack(e: unknown): string {
  return e instanceof Error ? (e.stack ?? e.message) : String(e)
}
