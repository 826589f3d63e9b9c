// What runs for every `kubectl topology ...`, in the npm install (src/main.ts) and in the
// standalone executable (src/sea-entry.ts), which differ only in where the oclif manifest and
// the command classes come from (the Host).
//
// It dispatches by itself, from the manifest: completion (src/complete.ts), `--version`,
// help (src/help.ts: bare `kubectl topology`, `help [COMMAND]`, `-h`/`--help` anywhere before
// `--`), unknown commands and flags before the command. None of these loads oclif or a
// command class. Only to run a command does it import the command classes and hand the command
// to oclif (`Command.run`), with a root plugin made here from the manifest (rootPlugin), so
// oclif's Config neither searches the disk for package.json, plugins or command files, nor
// imports anything but the command (docs/design.md "Startup").
//
// Errors end here: one line on stderr, a documented exit code, a stack trace only with --debug.
import type {Command} from '@oclif/core/command'
import type {Interfaces} from '@oclif/core'
import {ExitCode, isCliError, CliError} from './errors.js'
import {commandHelp, rootHelp, type HelpManifest, type HelpProgram} from './help.js'

export type Manifest = Interfaces.Manifest & HelpManifest

export interface Host {
  /** The directory oclif's Config treats as the CLI's root (package root / beside the executable). */
  root: string
  /** package.json: name, version, description, oclif settings. */
  pjson: Interfaces.PJSON
  /** The oclif manifest (oclif.manifest.json). */
  manifest(): Manifest
  /** The command classes by id (src/cli.ts COMMANDS), imported only to run a command. */
  commands(): Promise<Record<string, Command.Class>>
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

function program(host: Host): HelpProgram {
  return {bin: host.pjson.oclif.bin ?? host.pjson.name, description: host.pjson.description ?? ''}
}

/** What oclif printed for --version, e.g. "kubectl-topology/0.1.0 linux-x64 node-v26.10.0". */
export function versionLine(pjson: Interfaces.PJSON): string {
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
    // Shell completion (kubectl_complete-topology), from the manifest: see src/complete.ts.
    const {complete} = await import('./complete.js')
    return complete(argv.slice(1), manifest.commands)
  }
  if (argv[0] === '--version') return print(`${versionLine(host.pjson)}\n`)
  const help = helpTarget(argv)
  if (help) {
    if (help.command === undefined) return print(rootHelp(manifest, program(host)))
    return print(commandHelp(await findCommand(manifest, help.command, host), program(host)))
  }
  const [id = '', ...rest] = argv
  const cached = await findCommand(manifest, id, host)
  // oclif is CommonJS: a dynamic import() of it gives module.exports as `default`.
  const [commands, {default: oclifFlush}] = await Promise.all([host.commands(), import('@oclif/core/flush')])
  const command = commands[cached.id]
  if (!command) throw new Error(`command ${cached.id} is in the manifest but not in COMMANDS: rebuild (npm run build)`)
  // What oclif's Plugin.findCommand sets on the class it returns.
  command.id = cached.id
  const plugin = rootPlugin(host, manifest, commands)
  command.plugin = plugin
  await command.run(rest, {root: host.root, pjson: host.pjson, plugins: new Map([[plugin.name, plugin]])})
  await oclifFlush.flush()
}

async function findCommand(manifest: Manifest, id: string, host: Host): Promise<Manifest['commands'][string]> {
  const found = manifest.commands[id] ?? Object.values(manifest.commands).find((c) => c.aliases?.includes(id))
  if (found) return found
  const bin = program(host).bin
  if (id.startsWith('-')) {
    throw new CliError(`flags go after the command (${bin} COMMAND [flags]), found "${id}" first: see ${bin} --help`, ExitCode.USAGE)
  }
  const {didYouMean} = await import('./cluster/suggest.js')
  const ids = Object.values(manifest.commands).filter((c) => !c.hidden).map((c) => c.id)
  throw new CliError(`unknown command "${id}" for "${bin}"${didYouMean(id, ids)}: see ${bin} --help`, ExitCode.USAGE)
}

/**
 * oclif's root plugin, made from the manifest: what oclif's Plugin.load() would make from
 * package.json and oclif.manifest.json, without reading either from disk and with
 * `load()` of each command returning the class from COMMANDS.
 */
export function rootPlugin(host: Host, manifest: Manifest, commands: Record<string, Command.Class>): Interfaces.Plugin {
  const {pjson, root} = host
  const find = async (id: string, opts?: {must: boolean}): Promise<Command.Class> => {
    const c = commands[id]
    if (!c && opts?.must) throw new Error(`command ${id} not found`)
    return c!
  }
  return {
    _base: `${pjson.name}@${pjson.version}`,
    alias: pjson.name,
    commandIDs: Object.keys(manifest.commands),
    commands: Object.values(manifest.commands).map((c) => ({...c, load: () => find(c.id, {must: true}), pluginAlias: pjson.name, pluginType: 'core'})),
    commandsDir: undefined,
    findCommand: find as Interfaces.Plugin['findCommand'],
    hasManifest: true,
    hooks: {},
    isRoot: true,
    load: async () => {},
    moduleType: 'module',
    name: pjson.name,
    options: {root, pjson, isRoot: true},
    pjson,
    root,
    topics: [],
    type: 'core',
    valid: true,
    version: pjson.version,
  }
}

function print(text: string): void {
  // `--help | head`: the reader may be gone; that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e
  })
  process.stdout.write(text)
}

/** An error oclif raised: its CLIError and ExitError carry an `oclif` field. */
interface OclifError extends Error {
  oclif: {exit?: number}
  code?: string
}
const isOclifError = (e: unknown): e is OclifError => e instanceof Error && typeof (e as Partial<OclifError>).oclif === 'object'

/** Prints one line for the error and returns the exit code. */
export function reportError(error: unknown, debug: boolean): number {
  if (isCliError(error)) {
    process.stderr.write(`error: ${error.message}\n`)
    if (debug && error.cause) process.stderr.write(`${formatStack(error.cause)}\n`)
    if (debug) process.stderr.write(`${error.stack}\n`)
    return error.exitCode
  }
  if (isOclifError(error)) {
    // oclif signals a normal exit (e.g. `this.exit(1)`) with an ExitError.
    if (error.code === 'EEXIT') return error.oclif.exit ?? 0
    // Parse errors (unknown flag, bad option value, missing argument): usage, exit 2.
    const first = String(error.message).split('\n').find((l) => l.trim() !== '') ?? 'invalid usage'
    process.stderr.write(`error: ${first.trim()} (see --help)\n`)
    if (debug) process.stderr.write(`${error.stack}\n`)
    const code = error.oclif.exit
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
