// The one way an error ends the program: one line on stderr, a documented exit code
// (docs/exit-codes.md), a stack trace only with --debug. Used by src/entry/dispatch.ts for what it
// handles itself and by src/entry/run.ts for a command (a separate bundle: the check below does not
// rely on the error classes being the same objects). Messages embed cluster text (names,
// Event messages, API errors): every line is escaped for the terminal (render/escape.ts).
import {ExitCode, isCliError} from '../errors.js'
import {escapeLines, escapeTerminal} from '../render/escape.js'

/** An error oclif raised: its CLIError and ExitError carry an `oclif` field. */
interface OclifError extends Error {
  oclif: {exit?: number}
  code?: string
}
const isOclifError = (e: unknown): e is OclifError => e instanceof Error && typeof (e as Partial<OclifError>).oclif === 'object'

/**
 * The most characters of an error line: a server or plugin can make a message of megabytes (a
 * 10 MB line reached the terminal, issue 20); the rest is counted, and --debug prints it all.
 */
const MAX_LINE = 8192

/** The message escaped for the terminal, cut after MAX_LINE characters (all of it with --debug). */
function line(message: string, debug: boolean): string {
  if (debug || message.length <= MAX_LINE) return escapeTerminal(message)
  return `${escapeTerminal(message.slice(0, MAX_LINE))}… (${message.length - MAX_LINE} more characters; --debug prints them)`
}

/** Prints one line for the error and returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  if (isCliError(error)) {
    process.stderr.write(`error: ${line(error.message, debug)}\n`)
    if (debug && error.cause) process.stderr.write(`${formatStack(error.cause)}\n`)
    if (debug) process.stderr.write(`${escapeLines(error.stack ?? '')}\n`)
    return error.exitCode
  }
  if (isOclifError(error)) {
    // oclif signals a normal exit (e.g. `this.exit(1)`) with an ExitError.
    if (error.code === 'EEXIT') return error.oclif.exit ?? 0
    // Parse errors (unknown flag, bad option value, missing argument): usage, exit 2.
    const first =
      flagValueProblem(String(error.message)) ??
      String(error.message)
        .split('\n')
        .find((l) => l.trim() !== '') ??
      'invalid usage'
    process.stderr.write(`error: ${line(first.trim(), debug)} (see --help)\n`)
    if (debug) process.stderr.write(`${escapeLines(error.stack ?? '')}\n`)
    const code = error.oclif.exit
    return code === undefined || code === 1 ? ExitCode.USAGE : code
  }
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`error: internal error: ${line(message.split('\n')[0] ?? '', debug)} (run with --debug for details, and please report it)\n`)
  if (debug) process.stderr.write(`${formatStack(error)}\n`)
  return ExitCode.INTERNAL
}

/**
 * oclif words a bad flag value on two lines, "Parsing --replicas \n\tExpected an integer greater
 * than or equal to 0 but received: -3": one line with the flag, the value and what is accepted.
 */
function flagValueProblem(message: string): string | undefined {
  const m = /^Parsing (--[\w-]+)\s*\n\s*(.+)/.exec(message)
  if (!m) return undefined
  const reason = m[2]!.trim()
  const r = /^Expected (.+?) but received: (.*)$/.exec(reason)
  if (r) return `${m[1]}: invalid value "${r[2]}": expected ${r[1]}`
  return `${m[1]}: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`
}

function formatStack(e: unknown): string {
  return escapeLines(e instanceof Error ? (e.stack ?? e.message) : String(e))
}
