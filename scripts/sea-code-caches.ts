// Run by scripts/package.mjs with the target's own Node binary: makes the V8 code caches of
// the standalone executable's assets dist/app.cjs, dist/k8s.cjs, views.cjs and complete.cjs the
// way src/entry/sea-assets.ts loads them (same wrapper, same file names), after running them:
// k8s.cjs's module code, the module code of every ink view for views.cjs, a completion of
// Service names from the example snapshot for complete.cjs, and commands on the example
// snapshot for app.cjs, so the caches hold the functions a command runs and not only the top
// level (docs/design.md "Startup").
//
//   node make-code-caches.mjs DIST LAZY_DIR OUT_DIR     (cwd: the repository; output goes nowhere;
//                                                      LAZY_DIR holds views.cjs and complete.cjs)
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {appRequire, builtinRequire, cjsScript, runCjs, type App} from '../src/entry/app-loader.js'
import {BUNDLES, codeCacheAsset, SEA, VIEWS} from '../src/entry/bundles.js'
import {type Complete, pjsonOf, type Host, type Manifest} from '../src/entry/dispatch.js'
import {assetFilename} from '../src/entry/sea-assets.js'

const [dist, lazyDir, out] = process.argv.slice(2) as [string, string, string]
const EXAMPLE = 'examples/three-zones.yaml'
/** What users run most without a cluster; a live command runs the same parser and engine. */
const WORKLOADS = [
  ['explain', '-A', '--from-file', EXAMPLE],
  ['explain', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE, '-o', 'wide', '--per-node'],
  ['explain', '-A', '--from-file', EXAMPLE, '-o', 'json'],
  ['nodes', '--from-file', EXAMPLE],
  ['check', '-A', '--from-file', EXAMPLE],
  ['simulate', 'svc/checkout', '-n', 'shop', '--from-file', EXAMPLE],
  ['apply', 'svc/checkout', '-n', 'shop', '--mode', 'PreferSameZone', '--from-file', EXAMPLE],
]

const load = (name: string, require: (id: string) => unknown, dir = dist) => {
  const script = cjsScript(readFileSync(join(dir, name), 'utf8'), assetFilename(name))
  return {script, exports: runCjs<unknown>(script, require, assetFilename(name), dir)}
}
const fallback = builtinRequire(process.execPath)
const k8s = load(BUNDLES.k8s.file, fallback)
const notHere = () => {
  throw new Error('not used to make the code cache')
}
const app = load(BUNDLES.app.file, appRequire({k8s: () => k8s.exports, view: notHere, fallback}))
const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
const manifest = JSON.parse(readFileSync('oclif.manifest.json', 'utf8')) as Manifest
const host: Host = {root: process.cwd(), pjson: pjsonOf(pkg), manifest: () => manifest, runner: notHere, completer: notHere}
for (const [id, ...argv] of WORKLOADS) await (app.exports as App).runCommand(id!, argv, host, manifest)
// Findings (exit 1) are expected; a usage or internal error would mean the list above is wrong.
if (Number(process.exitCode ?? 0) > 1) throw new Error(`a workload failed with exit code ${process.exitCode}`)
process.exitCode = 0
const views = load(SEA.views.file, fallback, lazyDir)
for (const name of VIEWS) await (views.exports as {seaLoadView: (name: string) => Promise<unknown>}).seaLoadView(name)
writeFileSync(join(out, codeCacheAsset(SEA.views.file)), views.script.createCachedData())
const completion = load(SEA.complete.file, fallback, lazyDir)
await (completion.exports as {complete: Complete}).complete(['explain', '-n', 'shop', '--from-file', EXAMPLE, ''], manifest.commands)
writeFileSync(join(out, codeCacheAsset(SEA.complete.file)), completion.script.createCachedData())
writeFileSync(join(out, codeCacheAsset(BUNDLES.app.file)), app.script.createCachedData())
writeFileSync(join(out, codeCacheAsset(BUNDLES.k8s.file)), k8s.script.createCachedData())
