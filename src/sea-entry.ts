// Entry point of the standalone executable (Node single executable application, built by
// scripts/package.mjs). Inside a SEA there is no package.json and no dist/ on disk, and
// oclif's own command loader would `import()` the explicit target from disk, which a SEA
// cannot do. So the root plugin is built here from the package.json fields embedded at
// build time, its command cache is pre-seeded with the COMMANDS map (the same one
// src/cli.ts registers for the npm install), and oclif gets the ready Config.
//
// `commandCache` is a private field of @oclif/core's Plugin (5.1.9, pinned exactly);
// test/package/sea.test.ts runs `--help` on the built executable and checks that every
// command is listed, so an oclif upgrade that renames it fails loudly.
import {dirname} from 'node:path'
import {Config, flush, Plugin, run} from '@oclif/core'
import type {Interfaces} from '@oclif/core'
import {COMMANDS, reportError} from './cli.js'
import pkg from '../package.json' with {type: 'json'}

export async function seaMain(argv: string[]): Promise<void> {
  if (argv[0] === '__complete') {
    const {complete} = await import('./complete.js')
    return complete(argv.slice(1), COMMANDS)
  }
  const debug = argv.includes('--debug')
  try {
    const root = dirname(process.execPath)
    const pjson: Interfaces.PJSON = {
      name: pkg.name,
      version: pkg.version,
      description: pkg.description,
      type: 'module',
      // The target is never read: the cache below is filled before load().
      oclif: {...(pkg.oclif as Interfaces.PJSON['oclif']), commands: {strategy: 'explicit' as const, target: './kubectl-topology', identifier: 'COMMANDS'}},
    }
    // ignoreManifest: never read an oclif.manifest.json lying beside the executable.
    const plugin = new Plugin({isRoot: true, root, pjson, ignoreManifest: true})
    ;(plugin as unknown as {commandCache: typeof COMMANDS}).commandCache = COMMANDS
    await plugin.load()
    const config = await Config.load({root, pjson, plugins: new Map([[plugin.name, plugin]]), ignoreManifest: true})
    await run(argv, config)
    await flush()
  } catch (error) {
    process.exitCode = reportError(error, debug)
  }
}

void seaMain(process.argv.slice(2))
