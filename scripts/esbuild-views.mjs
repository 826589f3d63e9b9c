// esbuild plugins of the standalone executable's views asset (scripts/package.mjs: views.cjs,
// src/entry/sea-views.ts): the ink views of `watch` and `simulate` as one CommonJS file, so
// that the executable's main module does not hold ink, React and yoga and `--help` does not
// deserialise their code (docs/design.md "Startup"). CommonJS cannot hold a top-level await,
// and two modules of the views have one:
//
// 1. ink's reconciler (build/reconciler.js) connects to React's devtools and reads ink's own
//    package.json, each inside `if (process.env['DEV'] === 'true') {...}` with an await at
//    the top level. Both blocks are cut out: the executable holds no react-devtools-core
//    (its main module had a stub of it, so DEV=true did nothing there either) and no
//    package.json of ink (the renderer's name and version then stay 'ink' and React's).
//    The build fails if either block is not found as it is, so an ink upgrade must look
//    at this again.
// 2. yoga-layout's index instantiates its WebAssembly at the top level
//    (`wrapAssembly(await loadYoga())`). The plugin puts a module in its place whose default
//    export is bound when `sea:yoga`'s loadYogaOnce() has run (an ES live binding, which
//    esbuild keeps in CommonJS output as a getter); sea-views.ts awaits it before it
//    evaluates a view, and ink reads `Yoga` only when it lays out, never at module load.

const DEVTOOLS = `if (process.env['DEV'] === 'true') {
    // Intentionally no warning when the package is missing.
    // DEV may be set for other reasons; devtools is opt-in via installing the package.
    let isDevtoolsInstalled = false;
    try {
        import.meta.resolve('react-devtools-core');
        isDevtoolsInstalled = true;
    }
    catch { }
    if (isDevtoolsInstalled) {
        await import('./devtools.js');
    }
}
`

const PACKAGE_JSON = /\nasync function loadPackageJson\(\) \{\n[\s\S]*?\n\}\n/
const PACKAGE_INFO = /\nif \(process\.env\['DEV'\] === 'true'\) \{\n {4}try \{\n {8}const loaded = await loadPackageJson\(\);\n[\s\S]*?\n {4}\}\n\}\n/

/** ink's reconciler without its two DEV-only top-level awaits (exported for the unit test). */
export function inkReconcilerSource(text, path) {
  const fail = (what) => {
    throw new Error(`${path}: ${what} not found as expected (scripts/esbuild-views.mjs): look at ink's DEV-only top-level awaits again`)
  }
  if (text.split(DEVTOOLS).length !== 2) fail('the devtools block')
  let out = text.replace(DEVTOOLS, '')
  if (!PACKAGE_JSON.test(out)) fail('loadPackageJson()')
  out = out.replace(PACKAGE_JSON, '\n')
  if (!PACKAGE_INFO.test(out)) fail("the DEV block that reads ink's package.json")
  out = out.replace(PACKAGE_INFO, '\n')
  return out
}

const YOGA_SHIM = `import {loadYoga} from 'yoga-layout/load'
export * from 'yoga-layout/load'
let Yoga
export {Yoga as default}
export async function loadYogaOnce() {
  Yoga ??= await loadYoga()
}
`

const INK_RECONCILER = /[\\/]node_modules[\\/]ink[\\/]build[\\/]reconciler\.js$/
const inkWithoutDevBlocks = async (a) => {
  const {readFile} = await import('node:fs/promises')
  return {contents: inkReconcilerSource(await readFile(a.path, 'utf8'), a.path), loader: 'js'}
}

/**
 * ink's reconciler without its DEV-only blocks, for the npm install's views chunk as well
 * (scripts/build.mjs): there, with DEV=true, ink read a package.json that a bundle does not
 * have and printed a warning with a stack trace on the view (docs/errors: no stack trace
 * unless --debug), and looked for react-devtools-core, which is not a dependency.
 */
export const inkWithoutDev = {
  name: 'ink-without-dev',
  setup(b) {
    b.onLoad({filter: INK_RECONCILER}, inkWithoutDevBlocks)
  },
}

export const viewsForCommonJs = {
  name: 'views-for-commonjs',
  setup(b) {
    b.onLoad({filter: INK_RECONCILER}, inkWithoutDevBlocks)
    // ink's `import Yoga from 'yoga-layout'` and sea-views.ts's `sea:yoga`: one module.
    b.onResolve({filter: /^(yoga-layout|sea:yoga)$/}, () => ({path: 'yoga', namespace: 'sea-yoga'}))
    b.onLoad({filter: /.*/, namespace: 'sea-yoga'}, () => ({contents: YOGA_SHIM, loader: 'js', resolveDir: import.meta.dirname}))
    // Emscripten's loader keeps import.meta.url as its script directory, which it needs only
    // to fetch a .wasm file: the binary is embedded (base64).
    b.onLoad({filter: /[\\/]node_modules[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/}, async (a) => {
      const {readFile} = await import('node:fs/promises')
      const text = await readFile(a.path, 'utf8')
      if (text.split('import.meta.url').length !== 2) throw new Error(`${a.path}: expected one import.meta.url (scripts/esbuild-views.mjs)`)
      return {contents: text.replace('import.meta.url', 'undefined'), loader: 'js'}
    })
  },
}
