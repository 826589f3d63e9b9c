// The standalone executable's ink views (watch, simulate on a terminal) are the asset views.cjs
// (src/entry/sea-views.ts, built by scripts/package.mjs as CommonJS with ink's DEV-only top-level
// awaits cut and yoga-layout's WebAssembly loaded before a view), and shell completion the
// asset complete.cjs (src/entry/complete.ts with the snapshot reader and the kubeconfig's YAML),
// not parts of its main module, so that `--help` does not deserialise their code at every
// start (docs/design.md "Startup"). Here: simulate's view on a pseudo-terminal (util-linux
// `script`) draws what the npm install draws, completion prints what the npm install prints,
// each from its asset with its code cache, and the main module holds neither.
import {spawnSync} from 'node:child_process'
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {archivePath, CODE_CACHE_DEBUG, codeCacheVerdicts, EXAMPLE, HOST, hasScript, inTerminal, ROOT, run} from './artifacts.js'

const tmp = mkdtempSync(join(tmpdir(), 'sea-views-'))
const sea = join(tmp, 'kubectl-topology')
afterAll(() => rmSync(tmp, {recursive: true, force: true}))

beforeAll(() => {
  const archive = archivePath(HOST.os, HOST.arch)
  if (!existsSync(archive)) throw new Error(`${archive} is missing: run \`npm run package\` first`)
  const untar = spawnSync('tar', ['-xzf', archive, '-C', tmp], {encoding: 'utf8'})
  if (untar.status !== 0) throw new Error(`tar: ${untar.stderr}`)
})

const ARGS = ['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE]

describe.skipIf(!hasScript)('the standalone executable on a terminal: the ink views', () => {
  it("draws simulate's view as the npm install does, from the views.cjs asset with its code cache", () => {
    const npm = inTerminal([process.execPath, join(ROOT, 'bin', 'kubectl-topology.js'), ...ARGS])
    expect(npm.code, npm.out).toBe(0)
    expect(npm.out).toContain('1  Auto            95.00    88.9%          0.0% / 0.0%       1  -\n')
    // The view's bars (not the plain table that a pipe gets).
    expect(npm.out).toMatch(/█+/)
    const standalone = inTerminal([sea, ...ARGS])
    expect(standalone.code, standalone.out).toBe(0)
    expect(standalone.out).toBe(npm.out)
    // NODE_DEBUG's lines go to the same terminal: which caches were used.
    const debug = inTerminal([sea, ...ARGS], CODE_CACHE_DEBUG)
    expect(debug.code, debug.out).toBe(0)
    expect(codeCacheVerdicts(debug.out)).toEqual({main: 'accepted', 'app.cjs': 'accepted', 'views.cjs': 'accepted'})
  })
  it("DEV=true changes nothing: ink's devtools and package.json reads are cut from the asset", () => {
    // (The main module's ink read a package.json that is not there and printed a warning with a stack trace.)
    const dev = inTerminal([sea, ...ARGS], {DEV: 'true'})
    expect(dev.code, dev.out).toBe(0)
    expect(dev.out).toBe(inTerminal([sea, ...ARGS]).out)
  })
})

describe('the standalone executable: completion', () => {
  it('prints what the npm install prints, from the complete.cjs asset with its code cache', () => {
    const args = ['__complete', 'explain', '-n', 'shop', '--from-file', EXAMPLE, 'c']
    const npm = run(process.execPath, [join(ROOT, 'bin', 'kubectl-topology.js'), ...args])
    expect(npm.stdout).toBe('cart\ncatalog\ncheckout\n:4\n')
    const standalone = run(sea, args, {env: {...process.env, ...CODE_CACHE_DEBUG}})
    expect(standalone.code, standalone.stderr).toBe(0)
    expect(standalone.stdout).toBe(npm.stdout)
    expect(codeCacheVerdicts(standalone.stderr)).toEqual({main: 'accepted', 'complete.cjs': 'accepted'})
  })
})

describe('the standalone executable main module', () => {
  it('holds neither ink, React, yoga, a view (the views.cjs asset) nor the snapshot reader and YAML (complete.cjs)', () => {
    // The esbuild metafile scripts/package.mjs writes beside the main module it embedded.
    const meta = join(ROOT, '.cache', 'sea-build', 'kubectl-topology.mjs.meta.json')
    expect(existsSync(meta), `${meta}: run \`npm run package\` first`).toBe(true)
    const inputs = Object.keys((JSON.parse(readFileSync(meta, 'utf8')) as {inputs: Record<string, unknown>}).inputs)
    expect(inputs.some((f) => f.startsWith('src/entry/dispatch.ts'))).toBe(true)
    expect(inputs.filter((f) => /node_modules\/(ink|react|react-reconciler|yoga-layout)\/|src\/render\/[\w-]+-view\.tsx$/.test(f))).toEqual([])
    expect(inputs.filter((f) => /node_modules\/(yaml|js-yaml)\/|src\/cluster\/snapshot\/|src\/entry\/complete\.ts$/.test(f))).toEqual([])
  })
})
