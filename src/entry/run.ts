// Running one command: what src/entry/dispatch.ts loads only when the command line names a command
// (not for help, --version or completion). It is its own bundle, dist/app.cjs, which the
// npm install and the standalone executable load with a V8 code cache of what it ran
// (src/entry/app-loader.ts, docs/design.md "Startup"), so it holds everything a command needs but
// client-node (k8s.cjs) and the ink view (in the entry's own module).
//
// oclif gets the command class from COMMANDS and a root plugin made from the manifest
// (rootPlugin), so its Config neither searches the disk for package.json, plugins or command
// files, nor imports anything but the command.
import type {Interfaces} from '@oclif/core'
import type {Command} from '@oclif/core/command'
import {flush} from '@oclif/core/flush'
import {COMMANDS} from './commands.js'
import type {Host, Manifest} from './dispatch.js'
import {reportError} from './report-error.js'

export {COMMANDS}

export async function runCommand(id: string, argv: string[], host: Host, manifest: Manifest): Promise<void> {
  try {
    const commands = COMMANDS as unknown as Record<string, Command.Class>
    const command = commands[id]
    if (!command) throw new Error(`command ${id} is in the manifest but not in COMMANDS: rebuild (npm run build)`)
    const plugin = rootPlugin(host, manifest, commands)
    // What oclif's Plugin.findCommand sets on the class it returns.
    command.id = id
    command.plugin = plugin
    await command.run(argv, {root: host.root, pjson: host.pjson, plugins: new Map([[plugin.name, plugin]])})
    await flush()
  } catch (error) {
    process.exitCode = reportError(error, argv.includes('--debug'))
  }
}

/**
 * oclif's root plugin, made from the manifest: what oclif's Plugin.load() would make from
 * package.json and oclif.manifest.json, without reading either from disk and with
 * `load()` of each command returning its class.
 */
function rootPlugin(host: Host, manifest: Manifest, commands: Record<string, Command.Class>): Interfaces.Plugin {
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
