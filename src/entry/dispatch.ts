// What runs for every `kubectl topology ...`, in the npm install (src/entry/main.ts) and in the
// standalone executable (src/entry/sea-entry.ts), which differ only in where the oclif manifest and
// the command classes come from (the Host).
//
// It dispatches by itself, from the manifest: completion (src/entry/complete.ts), `--version`,
// help (src/entry/help.ts: bare `kubectl topology`, `help [COMMAND]`, `-h`/`--help` anywhere before
// `--`), unknown commands and flags before the command. None of these loads oclif or a
// command class: only to run a command does it load src/entry/run.ts (dist/app.cjs, through the
// Host), which hands the command to oclif (docs/design.md "Startup").
//
// Errors end here (src/entry/report-error.ts): one line on stderr, a documented exit code, a stack
// trace only with --debug.
import type {Interfaces} from '@oclif/core'
import {CliError, ExitCode} from '../errors.js'
import {commandHelp, rootHelp, type HelpManifest, type HelpProgram} from './help.js'
import {reportError} from './report-error.js'

export type Manifest = Interfaces.Manifest & HelpManifest

export interface Host {
  /** The directory oclif's Config treats as the CLI's root (package root / beside the executable). */
  root: string
  /** package.json: name, version, description, oclif settings. */
  pjson: Interfaces.PJSON
  /** The oclif manifest (oclif.manifest.json). */
  manifest(): Manifest
  /** src/entry/run.ts (dist/app.cjs), which holds oclif and the commands, to run command `id`. */
  runner(id: string): Promise<Runner>
  /** src/entry/complete.ts's complete(), loaded only for `__complete` (a lazy chunk of dist/main.js, the
   *  standalone executable's complete.cjs asset: it holds the snapshot reader and the kubeconfig's YAML). */
  completer(): Promise<Complete>
}

export type Complete = (args: string[], commands: Manifest['commands']) => Promise<void>

export interface Runner {
  /** Runs the command and reports its error, if any (sets process.exitCode). */
  runCommand(id: string, argv: string[], host: Host, manifest: Manifest): Promise<void>
}

/** The package.json fields oclif and the help use (built into the bundles). */
export function pjsonOf(pkg: {name: string; version: string; description: string; oclif: unknown}): Interfaces.PJSON {
  return {name: pkg.name, version: pkg.version, description: pkg.description, type: 'module', oclif: pkg.oclif as Interfaces.PJSON['oclif']}
}

const HELP = new Set(['--help', '-h'])

export async function dispatch(argv: string[], host: Host): Promise<void> {
  const debug = argv.includes('--debug')
  try {
    await route(argv, host)
  } catch (error) {
    process.exitCode = reportError(error, debug)
  }
}

/** The top-level help page: what bare `kubectl topology`, `--help`, `-h` and `help` print. */
export function rootHelpText(host: Host): string {
  return rootHelp(host.manifest(), program(host))
}

function program(host: Host): HelpProgram {
  return {bin: host.pjson.oclif.bin ?? host.pjson.name, description: host.pjson.description ?? ''}
}

/** What oclif printed for --version, e.g. "kubectl-topology/0.1.0 linux-x64 node-v26.10.0". */
function versionLine(pjson: Interfaces.PJSON): string {
  return `${pjson.name}/${pjson.version} ${process.platform}-${process.arch} node-${process.version}`
}

/** Help, and where: undefined when argv does not ask for help. */
export function helpTarget(argv: string[]): {command?: string} | undefined {
  if (argv.length === 0) return {}
  const end = argv.indexOf('--')
  const before = end < 0 ? argv : argv.slice(0, end)
  if (argv[0] === 'help') return before[1] === undefined || before[1].startsWith('-') ? {} : {command: before[1]}
  if (!before.some((a) => HELP.has(a))) return undefined
  return argv[0] === undefined || argv[0].startsWith('-') ? {} : {command: argv[0]}
}

async function route(argv: string[], host: Host): Promise<void> {
  const manifest = host.manifest()
  if (argv[0] === '__complete') {
    // Shell completion (kubectl_complete-topology), from the manifest: see src/entry/complete.ts.
    const complete = await host.completer()
    return complete(argv.slice(1), manifest.commands)
  }
  if (argv[0] === '--version') return print(`${versionLine(host.pjson)}\n`)
  const help = helpTarget(argv)
  if (help) {
    if (help.command === undefined) return print(rootHelp(manifest, program(host)))
    return print(commandHelp(await findCommand(manifest, help.command, host), program(host)))
  }
  const [id = '', ...rest] = argv
  const command = await findCommand(manifest, id, host)
  const runner = await host.runner(command.id)
  await runner.runCommand(command.id, rest, host, manifest)
}

async function findCommand(manifest: Manifest, id: string, host: Host): Promise<Manifest['commands'][string]> {
  const found = manifest.commands[id] ?? Object.values(manifest.commands).find((c) => c.aliases?.includes(id))
  if (found) return found
  const bin = program(host).bin
  if (id.startsWith('-')) {
    throw new CliError(`flags go after the command (${bin} COMMAND [flags]), found "${id}" first: see ${bin} --help`, ExitCode.USAGE)
  }
  const {didYouMean} = await import('../cluster/suggest.js')
  const ids = Object.values(manifest.commands)
    .filter((c) => !c.hidden)
    .map((c) => c.id)
  throw new CliError(`unknown command "${id}" for "${bin}"${didYouMean(id, ids)}: see ${bin} --help`, ExitCode.USAGE)
}

/**
 * Writes `text` to stdout with write(2) (fs.writeSync), not through process.stdout, whose
 * first use evaluates Node's streams (a SyncWriteStream for a file, a socket for a pipe):
 * about 3 ms of a 40 ms `--help` (docs/design.md "Startup"). A pipe that would block takes
 * the rest through process.stdout.
 */
function print(text: string): void {
  // Not an import of node:fs: see src/entry/main.ts.
  const {writeSync} = process.getBuiltinModule('node:fs')
  const bytes = Buffer.from(text)
  let done = 0
  while (done < bytes.length) {
    try {
      done += writeSync(1, bytes, done)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // `--help | head`: the reader may be gone; that is not an error.
      if (code === 'EPIPE') return
      if (code !== 'EAGAIN') throw error
      process.stdout.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EPIPE') throw e
      })
      process.stdout.write(bytes.subarray(done))
      return
    }
  }
}
