// Entry point of the standalone executable (Node single executable application, built by
// scripts/package.mjs). Inside a SEA there is no package.json, no oclif.manifest.json and no
// dist/ on disk, and oclif's own command loader would `import()` the explicit target from
// disk, which a SEA cannot do. So the root plugin is built here from the package.json fields
// and the oclif manifest embedded at build time (the virtual module below, made by
// scripts/package.mjs from the oclif.manifest.json that `npm run build` wrote), and its
// command loader is replaced by a lazy import of the COMMANDS map: esbuild turns that
// `import()` into a lazily evaluated module inside the one-file bundle, so `--help` never
// evaluates the commands, exactly as with the npm install (src/main.ts).
//
// `_manifest` and `loadCommandsFromTarget` are internals of @oclif/core's Plugin (5.1.9,
// pinned exactly); test/package/krew-install.test.ts runs `--help` and a command on the
// built executable, so an oclif upgrade that renames them fails loudly.
import {dirname} from 'node:path'
import {Config, flush, Plugin, run} from '@oclif/core'
import type {Interfaces} from '@oclif/core'
import manifest from 'sea:oclif-manifest'
import pkg from '../package.json' with {type: 'json'}
import {reportError} from './main.js'

const loadCommands = async () => (await import('./cli.js')).COMMANDS

export async function seaMain(argv: string[]): Promise<void> {
  if (argv[0] === '__complete') {
    const {complete} = await import('./complete.js')
    return complete(argv.slice(1), await loadCommands())
  }
  const debug = argv.includes('--debug')
  try {
    const root = dirname(process.execPath)
    const pjson: Interfaces.PJSON = {
      name: pkg.name,
      version: pkg.version,
      description: pkg.description,
      type: 'module',
      // The target is never read from disk: loadCommandsFromTarget is replaced below.
      oclif: {...(pkg.oclif as Interfaces.PJSON['oclif']), commands: {strategy: 'explicit', target: './kubectl-topology', identifier: 'COMMANDS'}},
    }
    const plugin = new Plugin({isRoot: true, root, pjson})
    const internals = plugin as unknown as {_manifest: () => Promise<unknown>; loadCommandsFromTarget: () => Promise<unknown>}
    internals._manifest = async () => manifest
    internals.loadCommandsFromTarget = loadCommands
    await plugin.load()
    const config = await Config.load({root, pjson, plugins: new Map([[plugin.name, plugin]])})
    await run(argv, config)
    await flush()
  } catch (error) {
    process.exitCode = reportError(error, debug)
  }
}

void seaMain(process.argv.slice(2))
