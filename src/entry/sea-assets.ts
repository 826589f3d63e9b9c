// Standalone executable only: the CommonJS bundles dist/app.cjs (src/entry/run.ts: oclif, the
// commands, the engine) and dist/k8s.cjs (client-node) are SEA assets, not part of the main
// module, so that help and --version do not load them, and each has a V8 code cache made
// at build time by the target's own Node after running them (assets app.cjs.cache,
// k8s.cjs.cache; natively, or under qemu for linux-arm64): scripts/package.mjs makes the caches with
// src/entry/app-loader.ts's cjsScript/runCjs and the same file names (src/entry/bundles.ts), so the wrapped source is
// the same byte for byte. A SEA's import() loads only built-in modules, hence node:vm.
// NODE_DEBUG=kubectl-topology prints whether V8 accepted each cache (a cache made by another
// platform's Node, or another V8 version or flags, is rejected and the code compiled again).
import {dirname} from 'node:path'
import {getAsset} from 'node:sea'
import {debuglog} from 'node:util'
import {builtinRequire, cjsScript, runCjs} from './app-loader.js'
import {BUNDLES, codeCacheAsset} from './bundles.js'

export const assetFilename = (name: string) => `kubectl-topology:${name}`

// Lazy: NODE_DEBUG is read on the first call, a no-op function from then on when not set.
const debug = debuglog('kubectl-topology')

/** The exports of CommonJS asset `name`, run with its code cache when there is one. */
export function loadAsset<T>(name: string, require: (id: string) => unknown): T {
  let cachedData: Buffer | undefined
  try {
    cachedData = Buffer.from(getAsset(codeCacheAsset(name)))
  } catch {
    // A target whose Node could not run on the building machine carries no code cache.
  }
  const script = cjsScript(getAsset(name, 'utf8'), assetFilename(name), cachedData)
  debug('code cache %s %s', codeCacheAsset(name), cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'absent')
  return runCjs<T>(script, require, assetFilename(name), dirname(process.execPath))
}

let k8s: Record<string, unknown> | undefined

/** client-node (the k8s.cjs asset), loaded once, for dist/app.cjs and for completion. */
export function seaK8s(): Record<string, unknown> {
  k8s ??= loadAsset<Record<string, unknown>>(BUNDLES.k8s.file, builtinRequire(process.execPath))
  return k8s
}
