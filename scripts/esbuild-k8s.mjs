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
