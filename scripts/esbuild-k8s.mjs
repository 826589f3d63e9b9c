// esbuild helpers shared by scripts/build.mjs and scripts/package.mjs: client-node
// (src/cluster/k8s.ts) is a CommonJS file of its own (dist/k8s.cjs, the k8s.cjs asset), which
// an ES module bundle imports by its export names through a stand-in module.
import path from 'node:path'
import {build} from 'esbuild'

/** The export names of src/cluster/k8s.ts (its CommonJS bundle has no list of them). */
export async function k8sExportNames(root) {
  const esm = await build({
    absWorkingDir: root,
    entryPoints: ['src/cluster/k8s.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    outdir: 'out',
    metafile: true,
    logLevel: 'warning',
  })
  const names = Object.values(esm.metafile.outputs).find((o) => o.entryPoint)?.exports ?? []
  if (!names.includes('KubeConfig')) throw new Error(`src/cluster/k8s.ts: unexpected exports ${names.join(', ')}`)
  return names
}

/** esbuild plugin: every import of src/cluster/k8s.ts loads `contents` instead, a module with the same exports. */
export function replaceK8s(root, namespace, contents) {
  const k8s = path.join(root, 'src', 'cluster', 'k8s.js')
  return {
    name: namespace,
    setup(b) {
      b.onResolve({filter: /(^|\/)k8s\.js$/}, (a) => (path.resolve(a.resolveDir, a.path) === k8s ? {path: 'k8s', namespace} : undefined))
      b.onLoad({filter: /.*/, namespace}, () => ({contents, loader: 'js', resolveDir: root}))
    },
  }
}

/**
 * esbuild plugin for dist/k8s.cjs: client-node's and src/cluster/k8s.ts's `undici` is
 * scripts/undici-slim.cjs (Agent, ProxyAgent and request() at once, fetch() and the rest of
 * undici on first use), not undici's index.js, which evaluates all of undici when it loads.
 */
export function slimUndici(root) {
  const shim = path.join(root, 'scripts', 'undici-slim.cjs')
  return {
    name: 'slim-undici',
    setup(b) {
      b.onResolve({filter: /^undici$/}, (a) => (a.importer === shim ? undefined : {path: shim}))
    },
  }
}

/**
 * The modules of client-node's index.js that src/cluster/k8s.ts uses nothing of: exec, attach,
 * port-forward and their WebSocket handler (ws), cp (tar-fs, tar-stream), log, metrics, top,
 * health, the informer and its cache, the generic object API, YAML helpers and the protobuf
 * client. client-node's package.json does not say its modules are free of side effects, so
 * esbuild kept and evaluated each of them (and the packages they import) in dist/k8s.cjs.
 * None has a side effect at load (each defines classes and functions); marked so here, they
 * are left out unless something imports a name of theirs.
 */
const CLIENT_NODE_UNUSED = /^\.\/(attach|cache|cp|exec|health|informer|log|metrics|object|portforward|proto-client|terminal-size-queue|top|web-socket-handler|yaml)\.js$/

/** esbuild plugin for dist/k8s.cjs: client-node's CLIENT_NODE_UNUSED modules marked free of side effects. */
export function clientNodeUnused() {
  const dir = `${path.sep}@kubernetes${path.sep}client-node${path.sep}dist${path.sep}`
  return {
    name: 'client-node-unused',
    setup(b) {
      b.onResolve({filter: CLIENT_NODE_UNUSED}, (a) =>
        path.dirname(a.importer).endsWith(dir.slice(0, -1)) ? {path: path.resolve(a.resolveDir, a.path), sideEffects: false} : undefined,
      )
    },
  }
}
