// The build-time edit of ink's reconciler for the standalone executable's views asset
// (scripts/esbuild-views.mjs): its two DEV-only top-level awaits go, the rest stays, and a
// reconciler of another shape fails the build instead of being bundled as it is.
import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {describe, expect, it} from 'vitest'
// @ts-expect-error: a build script in plain JavaScript, without types.
import {inkReconcilerSource} from '../../scripts/esbuild-views.mjs'

const edit = inkReconcilerSource as (text: string, path: string) => string
const inkDir = dirname(createRequire(import.meta.url).resolve('ink'))
const reconciler = readFileSync(join(inkDir, 'reconciler.js'), 'utf8')

describe("ink's reconciler for CommonJS", () => {
  it('loses both DEV blocks and their top-level awaits, and nothing else', () => {
    const out = edit(reconciler, 'reconciler.js')
    expect(reconciler).toMatch(/^ {8}await import\('\.\/devtools\.js'\);$/m)
    expect(out).not.toContain("process.env['DEV']")
    expect(out).not.toContain('import.meta')
    expect(out).not.toContain('loadPackageJson')
    expect(out).not.toMatch(/^\s*(const \w+ = )?await /m)
    // The renderer's metadata stays, at its non-DEV value.
    expect(out).toContain("let packageInfo = {\n    name: 'ink',\n    version: reactVersion,\n};")
    expect(out.length).toBeGreaterThan(reconciler.length - 2000)
  })
  it('fails on a reconciler of another shape', () => {
    expect(() => edit(reconciler.replace("await import('./devtools.js');", "await import('./devtools2.js');"), 'reconciler.js')).toThrow(/the devtools block not found/)
    expect(() => edit(reconciler.replace('const loaded = await loadPackageJson();', 'const loaded = await readPackage();'), 'reconciler.js')).toThrow(/package\.json not found/)
  })
})
