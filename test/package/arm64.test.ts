// The linux-arm64 standalone executable, run on this amd64 machine under qemu-aarch64
// (scripts/arm64-runner.mjs installs Debian's qemu-user and the arm64 libraries when they are
// missing): it must print what the npm build prints, exit codes and one-line errors included.
// On an arm64 machine it runs natively.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readFileSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/entry/commands.js'
import {archivePath, CODE_CACHE_DEBUG, codeCacheVerdicts, EXAMPLE, hasScript, inTerminal, PKG, refusedKubeconfig, ROOT, run, type Run} from './artifacts.js'

let dir: string
let scratch: string
let runner: string[]
const exe = () => join(dir, 'kubectl-topology')
// qemu emulates every instruction: a run takes seconds, not milliseconds.
const arm64 = (args: string[], env: NodeJS.ProcessEnv = {}): Run =>
  run(runner[0] ?? exe(), [...runner.slice(1), ...(runner.length ? [exe()] : []), ...args], {env: {PATH: '/usr/bin:/bin', HOME: dir, ...env}, timeout: 110_000})
const npm = (args: string[]): Run => run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), ...args])

beforeAll(() => {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'arm64-runner.mjs')], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']})
  if (r.status !== 0) throw new Error('scripts/arm64-runner.mjs could not provide an arm64 runner')
  runner = JSON.parse(r.stdout) as string[]
  dir = mkdtempSync(join(tmpdir(), 'arm64-'))
  scratch = mkdtempSync(join(tmpdir(), 'arm64-scratch-'))
  const tar = spawnSync('tar', ['-xzf', archivePath('linux', 'arm64'), '-C', dir], {encoding: 'utf8'})
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr} (run \`npm run package\` first)`)
})

afterAll(() => {
  if (dir) rmSync(dir, {recursive: true, force: true})
  if (scratch) rmSync(scratch, {recursive: true, force: true})
})

describe('archive linux/arm64', () => {
  it('holds an aarch64 ELF executable, the completion script and LICENSE', () => {
    expect(readdirSync(dir).sort()).toEqual(['LICENSE', 'kubectl-topology', 'kubectl_complete-topology'])
    const elf = readFileSync(exe()).subarray(0, 20)
    expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF')
    expect(elf.readUInt16LE(18)).toBe(183) // e_machine EM_AARCH64
  })

  it('prints the same explanation as the npm build', () => {
    const args = ['explain', '--from-file', EXAMPLE, '-n', 'shop', 'svc/checkout', '-o', 'json']
    const a = arm64(args)
    expect(a.stderr).toBe('')
    expect(a.code).toBe(0)
    expect(JSON.parse(a.stdout)).toEqual(JSON.parse(npm(args).stdout))
  })

  it("gives the npm build's exit code and one-line error for an unknown Service", () => {
    const args = ['explain', 'svc/nope', '-n', 'shop', '--from-file', EXAMPLE]
    const a = arm64(args)
    expect(a.code).toBe(4)
    expect(a.stderr).toBe(npm(args).stderr)
    expect(a.stderr.trim().split('\n')).toHaveLength(1)
  })

  it("starts with code caches the arm64 V8 accepts (made by the arm64 Node under the runner): the main module's, app.cjs's and k8s.cjs's", async () => {
    // A live command loads both assets; the refused connection ends it quickly. Caches made
    // by the amd64 Node would show as rejected here (and as absent if the build skipped them).
    const a = arm64(['nodes', '--kubeconfig', await refusedKubeconfig(scratch), '--request-timeout', '10s'], CODE_CACHE_DEBUG)
    expect(a.code).toBe(6)
    expect(codeCacheVerdicts(a.stderr)).toEqual({main: 'accepted', 'app.cjs': 'accepted', 'k8s.cjs': 'accepted'})
  })

  it('completes as the npm build does, from the complete.cjs asset with the arm64 code cache accepted', () => {
    const args = ['__complete', 'explain', '-n', 'shop', '--from-file', EXAMPLE, 'c']
    const a = arm64(args, CODE_CACHE_DEBUG)
    expect(a.code, a.stderr).toBe(0)
    expect(a.stdout).toBe(npm(args).stdout)
    expect(codeCacheVerdicts(a.stderr)['complete.cjs']).toBe('accepted')
  })

  it.skipIf(!hasScript)("draws simulate's view on a terminal as the npm build does, from the views.cjs asset with the arm64 code cache accepted", () => {
    const args = ['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE]
    const argv = runner.length ? [...runner, exe(), ...args] : [exe(), ...args]
    const npmView = inTerminal([process.execPath, join(ROOT, 'bin', 'kubectl-topology.js'), ...args])
    expect(npmView.out).toMatch(/█+/)
    const a = inTerminal(argv, CODE_CACHE_DEBUG, 110_000)
    expect(a.code, a.out).toBe(0)
    expect(codeCacheVerdicts(a.out)['views.cjs']).toBe('accepted')
    // NODE_DEBUG's lines share the terminal: the view is what is left without them.
    expect(inTerminal(argv, {}, 110_000).out).toBe(npmView.out)
  })

  it('lists every command in --help and reports its version', () => {
    const a = arm64(['--help'])
    expect(a.code).toBe(0)
    for (const [id, cmd] of Object.entries(COMMANDS)) {
      if ((cmd as {hidden?: boolean}).hidden) continue
      expect(a.stdout).toMatch(new RegExp(`^\\s+${id}\\s`, 'm'))
    }
    expect(arm64(['--version']).stdout).toContain(`kubectl-topology/${PKG.version}`)
  })
})
