// esbuild plugin of the standalone executable's main module (scripts/package.mjs): a static
// `import ... from 'node:fs'` becomes `process.getBuiltinModule('node:fs')` (Node 22.3+), of
// which only the exports the code imports are read (builtinModuleSource). Node's ES module
// loader makes a namespace of an imported built-in by reading every export, which runs the
// lazy getters (fs.promises, ReadStream, util.diff...): the main module's imports evaluated
// fs/promises, the streams, readline, crypto, net and child_process, 64 internal modules, on
// every start; `--help` took 58 ms CPU, 41 ms without them and 34 ms once its output no longer
// went through process.stdout (src/entry/dispatch.ts print; docs/design.md "Startup"). Not used
// for dist/main.js: there each built-in would become a chunk of its own (esbuild's code
// splitting), whose loads cost what the getters did (measured: no change).
import {createRequire, isBuiltin} from 'node:module'

const require = createRequire(import.meta.url)

/**
 * The module the plugin puts in place of built-in `id`: its default export is the built-in,
 * and each named export reads one property of it, in a call marked pure, so that esbuild
 * drops the ones nothing imports and only the used ones are read. (CommonJS interop, i.e.
 * `module.exports = process.getBuiltinModule(id)`, would copy every property descriptor into
 * a namespace object, and for node:util that evaluates its lazy exports: util.diff loads the
 * assert diff, the colours and process.stderr's stream.)
 */
export function builtinModuleSource(id) {
  const names = Object.keys(require(id)).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default')
  return [
    `const m = process.getBuiltinModule(${JSON.stringify(id)})`,
    'const get = (k) => m[k]',
    'export default m',
    ...names.map((k) => `export const ${k} = /* @__PURE__ */ get(${JSON.stringify(k)})`),
  ].join('\n')
}

export const builtinsByGetter = {
  name: 'builtins-by-getter',
  setup(b) {
    b.onResolve({filter: /^[a-z_:/]+$/}, (a) =>
      a.kind === 'import-statement' && isBuiltin(a.path) ? {path: a.path.startsWith('node:') ? a.path : `node:${a.path}`, namespace: 'builtin-getter'} : undefined,
    )
    b.onLoad({filter: /.*/, namespace: 'builtin-getter'}, (a) => ({contents: builtinModuleSource(a.path), loader: 'js'}))
  },
}
