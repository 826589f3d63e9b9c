// Pins the machine-readable outputs of the read-only commands on the bundled example
// snapshots, byte for byte, so a change of layout or of code structure cannot change what
// users and their scripts read. A deliberate change of output regenerates the files:
//   UPDATE_GOLDEN=1 npx vitest run test/cli/golden.test.ts
// and the diff of test/cli/golden/ shows the change for review. A missing file is written
// outside CI and fails the test in CI (golden-file.ts).
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {checkGolden} from './golden-file.js'
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
        const got = `${JSON.stringify({code: r.code, stdout: r.stdout}, null, 1)}\n`
        const file = path.join(ROOT, 'test/cli/golden', `${cmd.name}.${example}.json`)
        expect(got).toBe(checkGolden(file, got).expected)
      })
    }
  }
})

describe('a missing golden file', () => {
  it('fails in CI instead of being written', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'golden-'))
    try {
      const file = path.join(dir, 'new.json')
      expect(() => checkGolden(file, '{}\n', {CI: 'true'})).toThrow(/new\.json is missing: write it with UPDATE_GOLDEN=1/)
      expect(existsSync(file)).toBe(false)
      // Outside CI it is written, and with UPDATE_GOLDEN in CI too.
      expect(checkGolden(file, '{}\n', {}).expected).toBe('{}\n')
      expect(checkGolden(path.join(dir, 'b.json'), 'x', {CI: 'true', UPDATE_GOLDEN: '1'}).expected).toBe('x')
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
