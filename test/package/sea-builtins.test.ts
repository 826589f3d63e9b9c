// The standalone executable's main module gets Node's built-in modules through
// process.getBuiltinModule (scripts/esbuild-builtins.mjs), not through ES module imports: Node's
// loader makes a namespace of an imported built-in by reading all its exports, which evaluated
// fs/promises, the streams, readline, crypto, net and child_process on every start, about a
// quarter of `--help`'s CPU time (docs/design.md "Startup"); process.stdout's stream cost
// more. Here: `--version` and `--help` of this machine's executable load none of them (the
// list Node keeps, read at exit by a preload).
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {archivePath, HOST} from './artifacts.js'

const tmp = mkdtempSync(join(tmpdir(), 'sea-builtins-'))
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

describe('the standalone executable at start', () => {
  it('loads neither fs/promises, readline, crypto, child_process, the streams nor util.diff for --version and --help', () => {
    const archive = archivePath(HOST.os, HOST.arch)
    expect(existsSync(archive), `${archive}: run \`npm run package\` first`).toBe(true)
    const untar = spawnSync('tar', ['-xzf', archive, '-C', tmp])
    expect(untar.status, untar.stderr?.toString()).toBe(0)
    const dump = join(tmp, 'dump.cjs')
    writeFileSync(dump, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULE_LIST, process.moduleLoadList.join('\\n')))\n")
    for (const argv of [['--version'], ['--help']]) {
      const list = join(tmp, 'modules.txt')
      const r = spawnSync(join(tmp, 'kubectl-topology'), argv, {encoding: 'utf8', env: {...process.env, NODE_OPTIONS: `--require ${dump}`, MODULE_LIST: list}})
      expect(r.status, r.stderr).toBe(0)
      const loaded = readFileSync(list, 'utf8').split('\n')
      expect(loaded, argv.join(' ')).toContain('NativeModule vm')
      // stream and net: stdout (a pipe here) is written with write(2), not through process.stdout;
      // util/diff: a namespace copy of node:util would evaluate its lazy exports.
      for (const m of ['internal/fs/promises', 'internal/readline/interface', 'crypto', 'child_process', 'net', 'stream', 'internal/util/diff']) {
        expect(loaded, `${argv.join(' ')}: ${m}`).not.toContain(`NativeModule ${m}`)
      }
    }
  })
})
