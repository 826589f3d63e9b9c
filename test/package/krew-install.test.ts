// Installs this machine's archive the way `kubectl krew install --manifest --archive` does
// (krew itself cannot be had from the registries reachable here: the Go module proxy serves
// no sigs.k8s.io/krew version): the manifest's `files` are copied into
// $KREW_ROOT/store/topology/<version>/ and $KREW_ROOT/bin/kubectl-topology links to `bin`.
// Then kubectl's own plugin discovery runs it from a PATH without Node.
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/entry/commands.js'
import {archivePath, CODE_CACHE_DEBUG, codeCacheVerdicts, EXAMPLE, HOST, kubectlPath, PKG, readManifest, refusedKubeconfig, ROOT, run} from './artifacts.js'

const manifest = readManifest()
const platform = manifest.spec.platforms.find((p) => p.selector.matchLabels?.os === HOST.os && p.selector.matchLabels?.arch === HOST.arch)
const archive = archivePath(HOST.os, HOST.arch)

let krewRoot: string
let env: NodeJS.ProcessEnv
let kubectl: string

beforeAll(() => {
  if (!platform) throw new Error(`krew-manifest.yaml has no platform for ${HOST.os}/${HOST.arch}`)
  if (!existsSync(archive)) throw new Error(`${archive} is missing: run \`npm run package\` first`)
  kubectl = kubectlPath()
  krewRoot = mkdtempSync(join(tmpdir(), 'krew-root-'))
  const unpacked = join(krewRoot, 'download')
  mkdirSync(unpacked)
  const tar = spawnSync('tar', ['-xzf', archive, '-C', unpacked], {encoding: 'utf8'})
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr}`)
  const store = join(krewRoot, 'store', manifest.metadata.name, manifest.spec.version)
  mkdirSync(store, {recursive: true})
  for (const f of platform.files!) cpSync(join(unpacked, f.from), join(store, f.to, f.from), {recursive: true})
  mkdirSync(join(krewRoot, 'bin'))
  // krew: symlink name = "kubectl-" + plugin name with dashes as underscores.
  symlinkSync(join(store, platform.bin), join(krewRoot, 'bin', `kubectl-${manifest.metadata.name.replace(/-/g, '_')}`))
  // No node on PATH: the executable must be standalone. kubectl's own directory is kept.
  env = {PATH: `${join(krewRoot, 'bin')}:/usr/bin:/bin`, HOME: krewRoot, KUBECONFIG: join(krewRoot, 'no-kubeconfig')}
  // The completion script, linked by running the shell lines the caveats tell users to run.
  const link = spawnSync('sh', ['-ec', caveatsCommands(manifest.spec.caveats ?? '')], {encoding: 'utf8', env: {...env, KREW_ROOT: krewRoot}})
  if (link.status !== 0) throw new Error(`the caveats' completion commands failed: ${link.stderr}`)
})

/** The indented lines of the caveats: the shell commands users are told to run. */
function caveatsCommands(caveats: string): string {
  const lines = caveats.split('\n').filter((l) => l.startsWith('  '))
  if (lines.length === 0) throw new Error('the caveats hold no indented shell commands')
  return lines.map((l) => l.trim()).join('\n')
}

afterAll(() => {
  if (krewRoot) rmSync(krewRoot, {recursive: true, force: true})
})

describe(`archive ${HOST.os}/${HOST.arch}`, () => {
  it('holds exactly the executable, the completion script and LICENSE, executable bits set', () => {
    const list = spawnSync('tar', ['-tzvf', archive], {encoding: 'utf8'}).stdout.trim().split('\n')
    const entries = list.map((l) => ({mode: l.split(/\s+/)[0]!, name: l.split(/\s+/).pop()!}))
    expect(entries.map((e) => e.name).sort()).toEqual(['LICENSE', 'kubectl-topology', 'kubectl_complete-topology'])
    for (const e of entries) expect(e.mode, e.name).toMatch(e.name === 'LICENSE' ? /^-rw-r--r--/ : /^-rwxr-xr-x/)
    const store = join(krewRoot, 'store', manifest.metadata.name, manifest.spec.version)
    expect(readdirSync(store).sort()).toEqual(['LICENSE', 'kubectl-topology', 'kubectl_complete-topology'])
    expect(statSync(join(store, 'kubectl-topology')).size).toBeGreaterThan(50e6)
  })

  it('is found by kubectl plugin list', () => {
    const r = run(kubectl, ['plugin', 'list'], {env})
    expect(r.stdout).toContain(join(krewRoot, 'bin', 'kubectl-topology'))
    expect(r.stderr).not.toMatch(/warning/i)
  })

  it('runs `kubectl topology explain --from-file <example>` without Node on PATH', () => {
    const r = run(kubectl, ['topology', 'explain', '--from-file', EXAMPLE, '-A'], {env})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Service shop\/checkout \(IPv4\)$/m)
    expect(r.stdout).toMatch(/^ZONE\s+NODES\s+IGNORED\s+CPU\s+CPU SHARE/m)
    expect(r.stdout).toMatch(/^eu-west-1a\s/m)
  })

  it('prints the same explanation as the npm build', () => {
    const args = ['explain', '--from-file', EXAMPLE, '-n', 'shop', 'svc/checkout', '-o', 'json']
    const sea = run(kubectl, ['topology', ...args], {env})
    const npm = run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), ...args])
    expect(sea.code).toBe(0)
    expect(JSON.parse(sea.stdout)).toEqual(JSON.parse(npm.stdout))
  })

  it('loads client-node (the k8s.cjs asset, outside the main module) for a live cluster: the same one-line error as the npm build', async () => {
    // A port on 127.0.0.1 that nothing listens on: the connection is refused.
    const kubeconfig = await refusedKubeconfig(krewRoot)
    const args = ['nodes', '--kubeconfig', kubeconfig, '--request-timeout', '10s']
    const sea = run(kubectl, ['topology', ...args], {env})
    const npm = run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), ...args])
    expect(npm.code).toBe(6)
    expect(sea.code).toBe(6)
    expect(sea.stderr).toBe(npm.stderr)
    expect(sea.stderr).toMatch(/^error: The connection to the server https:\/\/127\.0\.0\.1:\d+ was refused/)
    expect(sea.stderr.trim().split('\n')).toHaveLength(1)
  })

  it("starts with code caches the V8 in it accepts: the main module's, app.cjs's and k8s.cjs's", async () => {
    // A live command loads both assets; the refused connection ends it quickly.
    const kubeconfig = await refusedKubeconfig(krewRoot)
    const sea = run(kubectl, ['topology', 'nodes', '--kubeconfig', kubeconfig, '--request-timeout', '10s'], {env: {...env, ...CODE_CACHE_DEBUG}})
    expect(sea.code).toBe(6)
    expect(codeCacheVerdicts(sea.stderr)).toEqual({main: 'accepted', 'app.cjs': 'accepted', 'k8s.cjs': 'accepted'})
  })

  it('prints the same help as the npm install (the embedded manifest), listing every command, usage as `kubectl topology`', () => {
    const r = run(kubectl, ['topology', '--help'], {env})
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Usage:\n  kubectl topology [command]\n')
    expect(r.stdout).toBe(run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), '--help']).stdout)
    const explain = run(kubectl, ['topology', 'explain', '--help'], {env})
    expect(explain.code).toBe(0)
    expect(explain.stdout).toBe(run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), 'explain', '--help']).stdout)
    for (const [id, cmd] of Object.entries(COMMANDS)) {
      if ((cmd as {hidden?: boolean}).hidden) continue
      expect(r.stdout).toMatch(new RegExp(`^  ${id}\\s`, 'm'))
    }
    expect(run(kubectl, ['topology', '--version'], {env}).stdout).toContain(`kubectl-topology/${PKG.version}`)
  })

  it('passes exit codes and one-line errors through kubectl', () => {
    const missing = run(kubectl, ['topology', 'explain', 'svc/nope', '-n', 'shop', '--from-file', EXAMPLE], {env})
    expect(missing.code).toBe(4)
    expect(missing.stderr.trim().split('\n')).toHaveLength(1)
    expect(missing.stderr).toMatch(/^error: services "nope" not found in namespace "shop"/)
    const usage = run(kubectl, ['topology', 'explain', '--no-such-flag'], {env})
    expect(usage.code).toBe(2)
    expect(usage.stderr.trim().split('\n')).toHaveLength(1)
    expect(usage.stdout).toBe('')
  })

  it('completes through kubectl (kubectl_complete-topology): subcommands, flags, Services from the snapshot', () => {
    const sub = run(kubectl, ['__complete', 'topology', 'ex'], {env})
    expect(sub.stdout.split('\n')[0]).toMatch(/^explain\t/)
    expect(sub.stdout).toMatch(/^:4$/m)
    const flags = run(kubectl, ['__complete', 'topology', 'explain', '--out'], {env})
    expect(flags.stdout).toMatch(/^--output\t/m)
    const svcs = run(kubectl, ['__complete', 'topology', 'explain', '--from-file', EXAMPLE, '-n', 'shop', 'c'], {env})
    expect(svcs.stdout.split('\n').filter((l) => l && !l.startsWith(':'))).toEqual(['cart', 'catalog', 'checkout'])
  })
})
