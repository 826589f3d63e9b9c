// Entry point of the standalone executable (Node single executable application, built by
// scripts/package.mjs): src/dispatch.ts, as in the npm install (src/main.ts), with the
// package.json fields and the oclif manifest embedded at build time (the virtual module
// below, made by scripts/package.mjs from the oclif.manifest.json that `npm run build`
// wrote) and the command classes from a lazy import: esbuild turns that `import()` into a
// lazily evaluated module inside the one-file bundle, so help, --version and completion never
// evaluate the commands or oclif. Nothing is read from disk: there is no package.json, no
// manifest and no dist/ beside the executable, and a SEA's import() loads only built-ins.
import {dirname} from 'node:path'
import type {Interfaces} from '@oclif/core'
import manifest from 'sea:oclif-manifest'
import pkg from '../package.json' with {type: 'json'}
import {dispatch, type Host, type Manifest} from './dispatch.js'

const seaHost: Host = {
  root: dirname(process.execPath),
  pjson: {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    type: 'module',
    oclif: pkg.oclif as Interfaces.PJSON['oclif'],
  },
  manifest: () => manifest as Manifest,
  commands: async () => (await import('./cli.js')).COMMANDS,
}

void dispatch(process.argv.slice(2), seaHost)
