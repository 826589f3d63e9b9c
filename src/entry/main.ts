// Entry point of the npm install (bin/kubectl-topology.js, bin/kubectl_complete-topology.js):
// src/entry/dispatch.ts with the manifest read from oclif.manifest.json and the package.json
// fields built in. Only to run a command does it load dist/app.cjs (src/entry/run.ts), and for a
// live cluster dist/k8s.cjs (client-node), each with a V8 code cache of what that command ran the
// last time (src/entry/app-loader.ts): made after the first run of each command, next to Node's
// compile cache, which the bin scripts turn on (docs/design.md "Startup"). NODE_DISABLE_COMPILE_CACHE=1
// turns both off.
import {createRequire, getCompileCacheDir} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {Script} from 'node:vm'
import pkg from '../../package.json' with {type: 'json'}
import {appRequire, cjsScript, runCjs, type App} from './app-loader.js'
import {BUNDLES} from './bundles.js'
import {dispatch, pjsonOf, rootHelpText, type Host, type Manifest, type Runner} from './dispatch.js'
import {loadView} from './views.js'

// node:fs by process.getBuiltinModule, not an import: an ES import of it makes Node read all
// its exports, whose lazy getters evaluate fs/promises, the streams and readline (~5 ms of a
// 40 ms `explain --help`; docs/design.md "Startup"). scripts/build.mjs fails if dist/main.js
// imports it.
const {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} = process.getBuiltinModule('node:fs')

/** The sha256 of dist/app.cjs, set by scripts/build.mjs: the code cache is valid for it only. */
declare const APP_HASH: string
/** The sha256 of dist/k8s.cjs, set by scripts/build.mjs, as APP_HASH. */
declare const K8S_HASH: string

const DIST = fileURLToPath(new URL('.', import.meta.url))
const ROOT = join(DIST, '..')

const npmHost: Host = {
  root: ROOT,
  pjson: pjsonOf(pkg),
  manifest: () => JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest,
  runner: async (id) => appRunner(id),
  completer: async () => (await import('./complete.js')).complete,
}

export async function main(argv: string[]): Promise<void> {
  return dispatch(argv, npmHost)
}

/**
 * The top-level help page, which scripts/build.mjs writes to dist/help.txt: bin/kubectl-topology.js
 * prints that file for the four command lines that ask for it, without loading this bundle.
 */
export function rootHelpPage(): string {
  return rootHelpText(npmHost)
}

/** The name of every code cache of this build of dist/app.cjs (or dist/k8s.cjs) starts with it. */
const CACHE_PREFIX = {app: `app-${APP_HASH.slice(0, 16)}-`, k8s: `k8s-${K8S_HASH.slice(0, 16)}-`}
type Bundle = keyof typeof CACHE_PREFIX

/** Another build's code caches are removed when not written for this long (7 days). */
const STALE_MS = 7 * 24 * 3600 * 1000

/** Where the code cache of dist/app.cjs (or k8s.cjs) for command `id` lives, or undefined without a compile cache. */
function cacheFile(bundle: Bundle, id: string): string | undefined {
  const dir = getCompileCacheDir?.()
  return dir === undefined ? undefined : join(dir, 'kubectl-topology', `${CACHE_PREFIX[bundle]}${id}.cache`)
}

/** dist/FILE as a script with its code cache for command `id` (if made), and whether to save one after the command. */
function cachedScript(bundle: Bundle, file: string, id: string): {script: Script; save: () => void} {
  const cache = cacheFile(bundle, id)
  let cachedData: Buffer | undefined
  try {
    if (cache) cachedData = readFileSync(cache)
  } catch {
    // Not made yet.
  }
  const script = cjsScript(readFileSync(file, 'utf8'), file, cachedData)
  return {
    script,
    save: () => {
      if (cache && (cachedData === undefined || script.cachedDataRejected)) saveCache(bundle, cache, script)
    },
  }
}

function appRunner(id: string): Runner {
  const file = join(DIST, BUNDLES.app.file)
  const app = cachedScript('app', file, id)
  const nodeRequire = createRequire(file)
  // client-node, for a live cluster: as app.cjs, a script with a code cache of what the command
  // ran (undici's requests, TLS, the API clients), not only the top-level code Node's compile
  // cache holds (docs/design.md "Reading a whole cluster").
  let k8s: {exports: unknown; save: () => void} | undefined
  const loadK8s = () => {
    if (k8s === undefined) {
      const k8sFile = join(DIST, BUNDLES.k8s.file)
      const {script, save} = cachedScript('k8s', k8sFile, id)
      k8s = {exports: runCjs(script, createRequire(k8sFile), k8sFile, DIST), save}
    }
    return k8s.exports
  }
  const require = appRequire({k8s: loadK8s, view: loadView, fallback: nodeRequire})
  const exports = runCjs<App>(app.script, require, file, DIST)
  return {
    async runCommand(...args) {
      await exports.runCommand(...args)
      app.save()
      k8s?.save()
    },
  }
}

function saveCache(bundle: Bundle, file: string, script: Script): void {
  try {
    const dir = dirname(file)
    mkdirSync(dir, {recursive: true})
    const tmp = `${file}.${process.pid}`
    writeFileSync(tmp, script.createCachedData())
    renameSync(tmp, file)
    // The caches of other builds of dist/app.cjs: an upgrade leaves its old ones behind, but
    // two installs (two versions, npx beside a global install, two checkouts) share this
    // directory and each would remove the other's on every save. So only those not written
    // for STALE_MS go: a build still in use loses its cache at most once per STALE_MS.
    const now = Date.now()
    for (const f of readdirSync(dir)) {
      if (!f.startsWith(`${bundle}-`) || !f.endsWith('.cache') || f.startsWith(CACHE_PREFIX[bundle])) continue
      const path = join(dir, f)
      const stat = statSync(path, {throwIfNoEntry: false})
      if (stat && now - stat.mtimeMs > STALE_MS) rmSync(path, {force: true})
    }
  } catch {
    // A cache that cannot be written only costs the next start some time.
  }
}
