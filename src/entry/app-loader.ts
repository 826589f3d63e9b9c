// Loading dist/app.cjs (src/entry/run.ts bundled as CommonJS: oclif, the commands, the engine, the
// renderers) and dist/k8s.cjs (client-node) as V8 scripts with a code cache made after the
// code ran, so that a start does not compile again every function the command runs.
//
// Node's own compile cache (module.enableCompileCache(), on in the bin scripts) is written
// right after a module is compiled, before it runs: it holds the top-level code only, and
// every function a command calls is compiled again on every start (an esbuild bundle is
// almost all functions). `script.createCachedData()` after the run holds them too
// (docs/design.md "Startup" has the measurements). The standalone executable carries such
// caches made at build time (scripts/package.mjs); the npm install makes one per command on
// first use, next to Node's compile cache (src/entry/main.ts).
//
// dist/app.cjs requires modules by the names of HOST (src/entry/bundles.ts), which the entry
// provides: client-node, and the ink views (src/render/*-view.tsx: ink has a top-level await,
// so they stay ES modules of the entry's). A view comes as a thenable, so app.cjs's `await import()` of it (a require()
// in the bundle) resolves to the view's module, loaded then.
import {createRequire, isBuiltin} from 'node:module'
import {Script} from 'node:vm'
import {HOST} from './bundles.js'
import type {Runner} from './dispatch.js'

/** dist/app.cjs's exports. */
export type App = Runner & {COMMANDS: Record<string, unknown>}

/** A CommonJS module's code as a V8 script (the same wrapper when the cache is made and used). */
export function cjsScript(code: string, filename: string, cachedData?: Buffer): Script {
  return new Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, {filename, cachedData})
}

/** Runs a script made by cjsScript as a module and returns its exports. */
export function runCjs<T>(script: Script, require: (id: string) => unknown, filename: string, dirname: string): T {
  const module = {exports: {}}
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void
  wrapper(module.exports, require, module, filename, dirname)
  return module.exports as T
}

/**
 * The `require` dist/app.cjs runs with: the entry's client-node and views by their names,
 * anything else (node built-ins) from `fallback`.
 */
export function appRequire(opts: {k8s: () => unknown; view: (name: string) => Promise<unknown>; fallback: (id: string) => unknown}): (id: string) => unknown {
  return (id) => {
    if (id === HOST.k8s) return opts.k8s()
    if (id.startsWith(HOST.viewPrefix)) {
      const name = id.slice(HOST.viewPrefix.length)
      // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, so that app.cjs's `await import()` (a require()) gets the view's module
      return {then: (resolve: (m: unknown) => void, reject: (e: unknown) => void) => opts.view(name).then(resolve, reject)}
    }
    return opts.fallback(id)
  }
}

/** A require that loads node built-ins only (the standalone executable has nothing on disk). */
export function builtinRequire(path: string): (id: string) => unknown {
  const require = createRequire(path)
  return (id) => {
    if (isBuiltin(id)) return require(id)
    throw Object.assign(new Error(`Cannot find module '${id}'`), {code: 'MODULE_NOT_FOUND'})
  }
}
