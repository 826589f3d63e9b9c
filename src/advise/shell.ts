// Commands the tool prints for a person to run: each argument quoted for POSIX shells
// (sh, bash, zsh, dash), so a printed command, pasted, runs exactly the argv it was built
// from and nothing else. A name that is not valid by the API server's own rules never
// reaches a command: the builders refuse it (`commandFor` returns null) and the caller
// says so instead of printing a command.
import {validateObjectName, type NamedKind} from '../upstream/apimachinery/validation.js'

/** Characters no POSIX shell treats specially in an unquoted word (nor as the first character). */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/

/**
 * One argument, quoted for a POSIX shell: left bare when it has only safe characters, else in
 * single quotes (inside which nothing is special), a single quote written as '\''.
 */
export function shellQuote(arg: string): string {
  if (arg !== '' && SAFE.test(arg) && !arg.startsWith('=')) return arg
  return `'${arg.replaceAll("'", `'\\''`)}'`
}

/** An argv as one command line for a POSIX shell. */
export function shellJoin(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ')
}

/** The names an argv needs, each with its kind, checked by the API server's rules. */
export interface NamedArg {
  kind: NamedKind
  name: string
}

/** Why a command cannot be printed: the first name the API server would refuse (null: all valid). */
export function invalidName(names: readonly NamedArg[]): string | null {
  for (const n of names) {
    const errs = validateObjectName(n.kind, n.name)
    if (errs.length > 0) return `${n.kind} name is not valid (${errs[0]})`
  }
  return null
}

/**
 * A printable command: the argv joined for a POSIX shell, or null when one of its names is
 * not valid for the API server (such a name cannot come from a real cluster; a command built
 * from it would do nothing useful and could do harm when pasted).
 */
export function commandFor(argv: readonly string[], names: readonly NamedArg[]): string | null {
  return invalidName(names) === null ? shellJoin(argv) : null
}
