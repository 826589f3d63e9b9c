// On a Node.js older than 22.19 the CLI prints one line (the version it needs and the two ways to
// get it) and exits 10, before the bundle loads (issue 19 finding 12): it used to print a raw
// SyntaxError stack about enableCompileCache. Run with the machine's /usr/bin/node when it is an
// older Node.js (Node 20 on the development machines and in CI's image), and always with the
// project's Node made to report an old version, which takes the same branch.
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {BIN, EXAMPLE, ROOT} from './run-cli.js'

const COMPLETE = fileURLToPath(new URL('../../bin/kubectl_complete-topology.js', import.meta.url))
const LINE =
  /^error: kubectl-topology needs Node\.js 22\.19 or newer, and this is Node\.js (\d+\.\d+\.\d+): run it with the Node\.js the package pins, from npm \(npx -p node@26 -p kubectl-topology -- kubectl-topology \.\.\.\), or use the standalone executable, which carries its own Node\.js \(krew or the release archive: https:\/\/github\.com\/kubectl-topology\/kubectl-topology\/blob\/main\/docs\/install\.md\)\n$/

/** Makes process.versions.node read `version` before the entry script runs. */
const pretend = (version: string) => ['--import', `data:text/javascript,Object.defineProperty(process.versions,"node",{value:${JSON.stringify(version)}})`]

function run(node: string, args: string[]) {
  const r = spawnSync(node, args, {cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: {...process.env, NO_COLOR: '1'}})
  return {code: r.status, stdout: r.stdout, stderr: r.stderr}
}

const SYSTEM_NODE = '/usr/bin/node'
const systemVersion = existsSync(SYSTEM_NODE) ? run(SYSTEM_NODE, ['--version']).stdout.trim().replace(/^v/, '') : ''
const [major = 0, minor = 0] = systemVersion.split('.').map(Number)
const systemIsOld = systemVersion !== '' && (major < 22 || (major === 22 && minor < 19))

describe('an older Node.js: one line, exit 10', () => {
  it.runIf(systemIsOld)(`${SYSTEM_NODE} (${systemVersion || 'absent'})`, () => {
    const r = run(SYSTEM_NODE, [BIN, 'explain', '-n', 'shop', '--from-file', EXAMPLE])
    expect(r.stderr).toMatch(LINE)
    expect(r.stderr.match(LINE)![1]).toBe(systemVersion)
    expect(r.stdout).toBe('')
    expect(r.code).toBe(10)
    // Completion: no candidates on stdout (the shell would offer the error as one).
    const c = run(SYSTEM_NODE, [COMPLETE, 'explain', ''])
    expect(c.stdout).toBe('')
    expect(c.code).toBe(10)
  })

  for (const version of ['20.20.2', '22.18.0', '18.0.0']) {
    it(`Node.js reporting ${version}`, () => {
      const r = run(process.execPath, [...pretend(version), BIN, '--version'])
      expect(r.stderr).toMatch(LINE)
      expect(r.stderr.match(LINE)![1]).toBe(version)
      expect(r.stdout).toBe('')
      expect(r.code).toBe(10)
    })
  }

  for (const version of ['22.19.0', '23.0.0', '26.10.0']) {
    it(`Node.js reporting ${version} runs the CLI`, () => {
      const r = run(process.execPath, [...pretend(version), BIN, '--version'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(/^kubectl-topology\/\d/)
    })
  }
})
