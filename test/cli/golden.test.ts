// Pins the machine-readable outputs of the read-only commands on the bundled example
// snapshots, byte for byte, so a change of layout or of code structure cannot change what
// users and their scripts read. A deliberate change of output regenerates the files:
//   UPDATE_GOLDEN=1 npx vitest run test/cli/golden.test.ts
// and the diff of test/cli/golden/ shows the change for review.
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, runCli} from './run-cli.js'

const EXAMPLES = ['three-zones', 'unlabeled-node', 'rollouts', 'autoscaling']
const COMMANDS: {name: string; args: (file: string) => string[]}[] = [
  {name: 'explain', args: (f) => ['explain', '-A', '--from-file', f, '-o', 'json']},
  {name: 'explain-per-node', args: (f) => ['explain', '-A', '--from-file', f, '--per-node', '-o', 'json']},
  {name: 'explain-yaml', args: (f) => ['explain', '-A', '--from-file', f, '-o', 'yaml']},
  {name: 'simulate', args: (f) => ['simulate', '-A', '--from-file', f, '-o', 'json']},
  {name: 'check', args: (f) => ['check', '-A', '--from-file', f, '--lint', '-o', 'json']},
  {name: 'explain-table', args: (f) => ['explain', '-A', '--from-file', f]},
  {name: 'explain-wide', args: (f) => ['explain', '-A', '--from-file', f, '-o', 'wide']},
  {name: 'nodes', args: (f) => ['nodes', '--from-file', f, '-o', 'json']},
  {name: 'plan', args: (f) => ['plan', '-A', '--from-file', f, '-o', 'json']},
]

describe('machine-readable outputs on the bundled examples are unchanged', () => {
  for (const example of EXAMPLES) {
    for (const cmd of COMMANDS) {
      it(`${cmd.name} ${example}`, () => {
        const r = runCli(cmd.args(path.join(ROOT, 'examples', `${example}.yaml`)))
        const got = JSON.stringify({code: r.code, stdout: r.stdout}, null, 1)
        const file = path.join(ROOT, 'test/cli/golden', `${cmd.name}.${example}.json`)
        if (process.env.UPDATE_GOLDEN || !existsSync(file)) writeFileSync(file, got + '\n')
        expect(got + '\n').toBe(readFileSync(file, 'utf8'))
      })
    }
  }
})
