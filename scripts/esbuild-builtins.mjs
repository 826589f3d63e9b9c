// esbuild plugin of the standalone executable's main module (scripts/package.mjs): a static
// `import ... from 'node:fs'` becomes `process.getBuiltinModule('node:fs')` (Node 22.3+),
// bundled as a CommonJS module. Node's ES module loader makes a namespace of an imported
// built-in by reading every export, which runs the lazy getters (fs.promises, ReadStream...):
// the main module's imports evaluated fs/promises, the streams, readline, crypto, net and
// child_process, 64 internal modules, on every start; `--help` took 58 ms CPU, 43 ms without
// them (docs/design.md "Startup"). The CommonJS interop reads an export only when the code
// uses it. Not used for dist/main.js: there each built-in would become a chunk of its own
// (esbuild's code splitting), whose loads cost what the getters did (measured: no change).
import {isBuiltin} from 'node:module'

export const builtinsByGetter = {
  name: 'builtins-by-getter',
  setup(b) {
    b.onResolve({filter: /^[a-z_:/]+$/}, (a) =>
      a.kind === 'import-statement' && isBuiltin(a.path) ? {path: a.path.startsWith('node:') ? a.path : `node:${a.path}`, namespace: 'builtin-getter'} : undefined,
    )
    b.onLoad({filter: /.*/, namespace: 'builtin-getter'}, (a) => ({contents: `module.exports = process.getBuiltinModule(${JSON.stringify(a.path)})`, loader: 'js'}))
  },
}
