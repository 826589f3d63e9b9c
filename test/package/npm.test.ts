// The npm package: `npm pack` ships only what users need, installs with no dependency
// (dist/ is a self-contained bundle), and `npm install -g` and `npx` give the same CLI,
// found by kubectl as `kubectl topology`.
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EXAMPLE, kubectlPath, PKG, ROOT, run} from './artifacts.js'

const NODE_DIR = dirname(process.execPath)
let tmp: string
let tarball: string

interface PackResult {
  filename: string
  files: {path: string; mode: number}[]
}

function npm(args: string[], env: NodeJS.ProcessEnv = {}) {
  // npm from the pinned Node's PATH; its cache in the temp dir so nothing leaks between runs.
  return run('npm', args, {
    env: {...process.env, PATH: `${NODE_DIR}:${process.env.PATH}`, npm_config_cache: join(tmp, 'cache'), npm_config_update_notifier: 'false', ...env},
    timeout: 120_000,
  })
}

beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'app.cjs'))) throw new Error('dist/app.cjs is missing: run `npm run build` first')
  tmp = mkdtempSync(join(tmpdir(), 'npm-pkg-'))
  // dist/ is already built: skip prepack's rebuild (the same `npm run build`).
  const r = npm(['pack', '--ignore-scripts', '--json', '--pack-destination', tmp])
  expect(r.code, r.stderr).toBe(0)
  const [res] = JSON.parse(r.stdout) as PackResult[]
  tarball = join(tmp, res!.filename)
})

afterAll(() => {
  if (tmp) rmSync(tmp, {recursive: true, force: true})
})

describe('npm package', () => {
  it('lists only what users need', () => {
    const r = npm(['pack', '--dry-run', '--ignore-scripts', '--json'])
    const [res] = JSON.parse(r.stdout) as PackResult[]
    const paths = res!.files.map((f) => f.path).sort()
    const allowed = [
      /^package\.json$/,
      /^README\.md$/,
      /^LICENSE$/,
      /^bin\/kubectl-topology\.js$/,
      /^bin\/kubectl_complete-topology\.js$/,
      /^dist\/main\.js$/,
      /^dist\/help\.txt$/,
      /^dist\/(app|k8s)\.cjs$/,
      /^oclif\.manifest\.json$/,
      /^dist\/chunks\/[\w-]+\.js$/,
      /^examples\/[\w-]+\.(yaml|md)$/,
      /^schema\/[\w.-]+\.json$/,
    ]
    const unexpected = paths.filter((p) => !allowed.some((re) => re.test(p)))
    expect(unexpected, 'files npm would publish that users do not need').toEqual([])
    for (const must of [
      'package.json',
      'LICENSE',
      'bin/kubectl-topology.js',
      'bin/kubectl_complete-topology.js',
      'dist/main.js',
      'dist/app.cjs',
      'dist/k8s.cjs',
      'oclif.manifest.json',
      'examples/three-zones.yaml',
    ]) {
      expect(paths).toContain(must)
    }
    // No sources, tests, source maps, release archives or SEA intermediates.
    expect(paths.filter((p) => /\.(map|ts|tar\.gz|mjs)$/.test(p))).toEqual([])
    // bin scripts are executable.
    for (const f of res!.files.filter((f) => f.path.startsWith('bin/'))) expect(f.mode & 0o111, f.path).not.toBe(0)
  })

  it('has no runtime dependencies: everything is in the bundle', () => {
    expect(PKG.dependencies ?? {}, 'dist/ bundles every library; add new ones as devDependencies (docs/design.md "Shipping")').toEqual({})
    expect(PKG.bin).toEqual({'kubectl-topology': 'bin/kubectl-topology.js', 'kubectl_complete-topology': 'bin/kubectl_complete-topology.js'})
  })

  it('npm install -g puts kubectl-topology on PATH, and kubectl runs it as `kubectl topology`', () => {
    const prefix = join(tmp, 'global')
    const inst = npm(['install', '-g', '--offline', '--ignore-scripts', '--prefix', prefix, tarball])
    expect(inst.code, inst.stderr).toBe(0)
    const env = {PATH: `${join(prefix, 'bin')}:${NODE_DIR}:/usr/bin:/bin`, HOME: tmp, KUBECONFIG: join(tmp, 'none')}
    const kubectl = kubectlPath()
    const list = run(kubectl, ['plugin', 'list'], {env})
    expect(list.stdout).toContain(join(prefix, 'bin', 'kubectl-topology'))
    const r = run(kubectl, ['topology', 'explain', '--from-file', EXAMPLE, '-n', 'shop', 'svc/checkout'], {env})
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^Service shop\/checkout \(IPv4\)$/m)
    const comp = run(kubectl, ['__complete', 'topology', 'explain', '--from-file', EXAMPLE, '-n', 'shop', 'ch'], {env})
    expect(comp.stdout).toBe('checkout\n:4\n')
  })

  it('npx runs the same CLI', () => {
    const r = npm(['exec', '--yes', '--offline', '--package', tarball, '--', 'kubectl-topology', 'explain', '--from-file', EXAMPLE, '-n', 'shop', 'svc/checkout', '-o', 'json'], {
      PATH: `${NODE_DIR}:/usr/bin:/bin`,
    })
    expect(r.code, r.stderr).toBe(0)
    const direct = run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), 'explain', '--from-file', EXAMPLE, '-n', 'shop', 'svc/checkout', '-o', 'json'])
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(direct.stdout))
  })
})
