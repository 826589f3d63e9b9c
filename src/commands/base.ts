// What every command class shares: its styles, its two streams and the IO object it hands to
// the flows (commands/*-flow.ts) instead of itself, and the Service arguments. The shared flags
// are in flags.ts; the source (snapshot or live) is opened by cluster/source.ts.
import {Command} from '@oclif/core/command'
import {decideColorLevel, type ColorMode} from '../render/colors.js'
import {CliError, ExitCode} from '../errors.js'
import {makeStyle, type Style} from '../render/style.js'

export abstract class TopologyCommand extends Command {
  style(mode: ColorMode, stream: NodeJS.WriteStream = process.stdout): Style {
    return makeStyle(decideColorLevel(mode, process.env, Boolean(stream.isTTY)))
  }

  /** Data goes to stdout. */
  out(text: string): void {
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** Diagnostics go to stderr. */
  note(text: string): void {
    process.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** The command's effects as a plain object, for code that must not know the oclif class. */
  io(): CommandIO {
    return {out: (t) => this.out(t), err: (t) => this.note(t), exit: (code) => this.exit(code)}
  }
}

/** Output and exit, the way the flows see a command: data to out, diagnostics to err. */
export interface CommandIO {
  out(text: string): void
  err(text: string): void
  /** Ends the command with this exit code (oclif: throws; the caller returns after it). */
  exit(code: number): void
}

/** svc/NAME, service/NAME, services/NAME, `svc NAME`, or bare names -> Service names. */
export function parseServiceArgs(argv: string[]): string[] {
  const names: string[] = []
  let expectName = false
  for (const raw of argv) {
    const arg = raw.trim()
    if (arg === '') continue
    const lower = arg.toLowerCase()
    if (['svc', 'service', 'services'].includes(lower)) {
      expectName = true
      continue
    }
    const slash = arg.indexOf('/')
    if (slash >= 0) {
      const kind = arg.slice(0, slash).toLowerCase()
      const name = arg.slice(slash + 1)
      if (!['svc', 'service', 'services'].includes(kind)) {
        throw new CliError(`unsupported resource type "${arg.slice(0, slash)}": only Services are explained (use svc/NAME)`, ExitCode.USAGE)
      }
      if (!name) throw new CliError(`missing Service name in "${arg}": use svc/NAME`, ExitCode.USAGE)
      names.push(name)
      continue
    }
    names.push(arg)
    expectName = false
  }
  if (expectName && names.length === 0) throw new CliError('missing Service name after "svc": use svc/NAME or svc NAME', ExitCode.USAGE)
  for (const n of names) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n) || n.length > 63) {
      throw new CliError(`invalid Service name "${n}": a Service name is a DNS label (lowercase letters, digits and "-")`, ExitCode.USAGE)
    }
  }
  return [...new Set(names)]
}
