// Standalone executable only: @kubernetes/client-node (2 MB of code, needed only to talk to a
// cluster) lives outside the SEA's main module, in the asset k8s.cjs, so that every run does
// not parse it (docs/design.md "Startup": ~70 ms CPU of each start). A SEA's import() loads
// only built-in modules, so scripts/package.mjs bundles src/cluster/k8s.ts as CommonJS and
// the main bundle's `import('./k8s.js')` resolves to a module that calls loadK8s(), which
// compiles the asset with the V8 code cache made at build time (asset k8s.cjs.cache, host
// platform only) and runs it. scripts/package.mjs makes that cache with k8sScript/runK8s,
// so the wrapped source is the same byte for byte.
import {createRequire} from 'node:module'
import {dirname} from 'node:path'
import {getAsset} from 'node:sea'
import {Script} from 'node:vm'

const FILENAME = 'kubectl-topology:k8s.cjs'

export function k8sScript(code: string, cachedData?: Buffer): Script {
  return new Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, {filename: FILENAME, cachedData})
}

export function runK8s(script: Script): Record<string, unknown> {
  const module = {exports: {} as Record<string, unknown>}
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run(module.exports, createRequire(process.execPath), module, FILENAME, dirname(process.execPath))
  return module.exports
}

export function loadK8s(): Record<string, unknown> {
  let cachedData: Buffer | undefined
  try {
    cachedData = Buffer.from(getAsset('k8s.cjs.cache'))
  } catch {
    // Cross-built targets carry no code cache (it is valid only for the building platform).
  }
  return runK8s(k8sScript(getAsset('k8s.cjs', 'utf8'), cachedData))
}
