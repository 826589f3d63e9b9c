// The top-level help page is printed by bin/kubectl-topology.js from dist/help.txt, which the
// build renders with dist/main.js's own renderer (scripts/build.mjs), without loading any
// bundle (docs/design.md "Startup"); test/cli/help.test.ts checks the page itself for every
// form. Here: that those forms load nothing of dist/, that other command lines still do, and
// that without the file (a build in progress) dist/main.js prints the same page. And that
// dist/main.js itself does not evaluate node:fs's lazy exports (an ES import of node:fs would).
import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {BIN, ROOT, runCli} from './run-cli.js'

// Prints the URL of every module Node loads, on stderr.
const TRACE = `data:text/javascript,${encodeURIComponent(
  "import {registerHooks} from 'node:module'; registerHooks({load(url, context, next) { process.stderr.write('LOAD ' + url + '\\n'); return next(url, context) }})",
)}`

function loaded(bin: string, argv: string[]): {stdout: string; dist: string[]} {
  const r = spawnSync(process.execPath, ['--import', TRACE, bin, ...argv], {cwd: ROOT, encoding: 'utf8', timeout: 60_000})
  expect(r.status, r.stderr).toBe(0)
  const urls = r.stderr.split('\n').flatMap((l) => (l.startsWith('LOAD ') ? [l.slice(5)] : []))
  return {stdout: r.stdout, dist: urls.filter((u) => u.includes('/dist/'))}
}

const tmp = mkdtempSync(join(tmpdir(), 'root-help-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

describe('the top-level help page', () => {
  it('is dist/help.txt, printed without loading any bundle, for bare, --help, -h and help', () => {
    const page = readFileSync(join(ROOT, 'dist', 'help.txt'), 'utf8')
    for (const argv of [[], ['--help'], ['-h'], ['help']]) {
      const r = loaded(BIN, argv)
      expect(r.stdout, argv.join(' ')).toBe(page)
      expect(r.dist, argv.join(' ')).toEqual([])
    }
  })

  it('other command lines, help ones included, load dist/main.js', () => {
    for (const argv of [['--help', '--debug'], ['explain', '--help'], ['--version']]) {
      expect(loaded(BIN, argv).dist, argv.join(' ')).toContain(`file://${ROOT}dist/main.js`)
    }
    expect(loaded(BIN, ['--help', '--debug']).stdout).toBe(runCli(['--help']).stdout)
  })

  it('without dist/help.txt, dist/main.js prints the same page', () => {
    for (const f of ['bin', 'dist', 'oclif.manifest.json', 'package.json']) cpSync(join(ROOT, f), join(tmp, f), {recursive: true})
    rmSync(join(tmp, 'dist', 'help.txt'))
    const r = loaded(join(tmp, 'bin', 'kubectl-topology.js'), ['--help'])
    expect(r.dist).toContain(`file://${tmp}/dist/main.js`)
    expect(r.stdout).toBe(runCli(['--help']).stdout)
  })
})

describe('dist/main.js at start', () => {
  it("evaluates neither fs/promises nor readline for a command's help page or --version", () => {
    const dump = join(tmp, 'dump.cjs')
    writeFileSync(dump, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULE_LIST, process.moduleLoadList.join('\\n')))\n")
    for (const argv of [['explain', '--help'], ['--version']]) {
      const list = join(tmp, 'modules.txt')
      const r = spawnSync(process.execPath, ['--require', dump, BIN, ...argv], {cwd: ROOT, encoding: 'utf8', env: {...process.env, MODULE_LIST: list}})
      expect(r.status, r.stderr).toBe(0)
      const loaded = readFileSync(list, 'utf8').split('\n')
      expect(loaded, argv.join(' ')).toContain('NativeModule vm')
      for (const m of ['internal/fs/promises', 'internal/readline/interface']) expect(loaded, `${argv.join(' ')}: ${m}`).not.toContain(`NativeModule ${m}`)
    }
  })
})
