// Entry point of the npm install (bin/kubectl-topology.js, bin/kubectl_complete-topology.js):
// src/dispatch.ts with the manifest read from oclif.manifest.json (written by
// scripts/build.mjs) and the command classes imported from dist/cli.js (src/cli.ts) only to
// run a command. Help, --version and completion never load oclif or the commands
// (docs/design.md "Startup").
import {readFileSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import type {Interfaces} from '@oclif/core'
import pkg from '../package.json' with {type: 'json'}
import {dispatch, reportError, type Host, type Manifest} from './dispatch.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

export const npmHost: Host = {
  root: ROOT,
  pjson: {
    name: pkg.name,
    version: pkg.version,
    description: pkg.description,
    type: 'module',
    oclif: pkg.oclif as Interfaces.PJSON['oclif'],
  },
  manifest: () => JSON.parse(readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8')) as Manifest,
  commands: async () => (await import('./cli.js')).COMMANDS,
}

export async function main(argv: string[]): Promise<void> {
  return dispatch(argv, npmHost)
}

export {reportError}
