// One error type for everything a user can cause or meet: a one-line message naming what
// is wrong and what to do, and a documented exit code (docs/exit-codes.md).

export const ExitCode = {
  OK: 0,
  /** --exit-code and a finding (hints dropped, fallback, drift), a failed check, or changes pending. */
  FINDING: 1,
  /** Bad flags, arguments or flag values. */
  USAGE: 2,
  /** A snapshot or input file that cannot be read or parsed. */
  INPUT: 3,
  /** The named Service or namespace does not exist. */
  NOT_FOUND: 4,
  /** No usable kubeconfig, unknown context. */
  KUBECONFIG: 5,
  /** API server unreachable or request timed out. */
  UNREACHABLE: 6,
  /** 401 Unauthorized or 403 Forbidden. */
  FORBIDDEN: 7,
  /** A write conflicted beyond the retry budget, or partially failed. */
  WRITE_FAILED: 8,
  /** A write was sent but its answer was lost: it may have been stored (the journal keeps it). */
  WRITE_UNKNOWN: 9,
  /** The Node.js that runs the npm package is older than 22.19: bin/kubectl-topology.js exits with it before anything loads (it cannot import this file). */
  NODE_TOO_OLD: 10,
  /** Interrupted by SIGINT/SIGTERM. */
  INTERRUPTED: 130,
  /** A bug: please report it (run with --debug for the stack trace). */
  INTERNAL: 70,
} as const

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode]

export class CliError extends Error {
  readonly exitCode: ExitCodeValue
  constructor(message: string, exitCode: ExitCodeValue, options?: {cause?: unknown}) {
    super(message, options)
    this.name = 'CliError'
    this.exitCode = exitCode
  }
}

export const isCliError = (e: unknown): e is CliError => e instanceof CliError
