// Bundles the CLI with esbuild (docs/design.md "Bundling" and "Startup"):
//
//   dist/main.js (+ dist/chunks/): src/entry/main.ts, what bin/kubectl-topology.js runs: dispatch,
//     help, --version, completion, and the ink view of `watch` as a lazy chunk. ES modules.
//   dist/app.cjs: src/entry/run.ts, what runs a command: oclif, the command classes (COMMANDS, oclif's
//     explicit target), the engine, the renderers. CommonJS in one file, which src/entry/main.ts
//     loads with a V8 code cache of what ran (src/entry/app-loader.ts).
//   dist/k8s.cjs: src/cluster/k8s.ts, client-node, required by app.cjs only to talk to a
//     cluster.
//
// Then it writes oclif.manifest.json, which help, completion and oclif's root plugin read
// instead of loading the commands, and dist/help.txt, the top-level help page. The
// standalone executable embeds the same app.cjs and k8s.cjs (scripts/package.mjs). The file
// names, sources and the names app.cjs requires from the entry come from src/entry/bundles.ts
// (which Node imports as it is), shared with the code that loads the bundles.
import {createHash} from 'node:crypto'
import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {isBuiltin} from 'node:module'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {build} from 'esbuild'
import {BUNDLES, HOST, ROOT_HELP_FILE, VIEWS} from '../src/entry/bundles.ts'
import {clientNodeUnused, k8sExportNames, replaceK8s, slimUndici} from './esbuild-k8s.mjs'
import {oclifEdits} from './esbuild-oclif.mjs'
import {inkWithoutDev} from './esbuild-views.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = path.join(root, 'dist')
// Built into a private folder, then moved into dist/ file by file (chunks first, the entry
// last; rename is atomic), so a CLI started during a rebuild never sees a half-empty dist/.
const tmp = path.join(root, `.dist-${process.pid}`)

/** What dist/app.cjs gets from the entry that loads it (src/entry/app-loader.ts), by these names. */
const hostModules = {
  name: 'host-modules',
  setup(b) {
    b.onResolve({filter: /(^|\/)(k8s|[\w-]+-view)\.js$/}, (a) => {
      const file = path.resolve(a.resolveDir, a.path).replace(/\.js$/, '')
      if (`${file}.ts` === path.join(root, BUNDLES.k8s.source)) return {path: HOST.k8s, namespace: 'host-module'}
      if (path.dirname(file) === path.join(root, 'src', 'render')) {
        const view = path.basename(file)
        if (!VIEWS.includes(view)) throw new Error(`src/render/${view}.tsx: an ink view must be listed in src/entry/bundles.ts VIEWS (and src/entry/views.ts)`)
        return {path: `${HOST.viewPrefix}${view}`, namespace: 'host-module'}
      }
      return undefined
    })
    // A CommonJS module that requires the name: `await import()` of it stays a require().
    b.onLoad({filter: /.*/, namespace: 'host-module'}, (a) => ({contents: `module.exports = require(${JSON.stringify(a.path)})`, loader: 'js'}))
    b.onResolve({filter: /^kubectl-topology:/}, (a) => ({path: a.path, external: true}))
    // A script run by node:vm has no import(): `await import('node:fs/promises')` too becomes a require().
    b.onResolve({filter: /^node:/}, (a) => (a.kind === 'dynamic-import' ? {path: a.path, namespace: 'host-module'} : undefined))
  },
}

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node22',
  // --no-minify: readable bundles for `node --cpu-prof` (each module starts with a `// path` line).
  minify: !process.argv.includes('--no-minify'),
  sourcemap: 'linked',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
}

/** dist/NAME.cjs: one CommonJS file from `entry`. */
const cjs = (name, entry, options) => build({...common, entryPoints: {[name]: entry}, outdir: tmp, outExtension: {'.js': '.cjs'}, format: 'cjs', ...options})
/** esbuild's entry name for a file of dist/: `app` for app.cjs. */
const stem = (file) => file.replace(/\.c?js$/, '')
// @oclif/core requires typescript inside a try/catch (only for ts-node setups); ws requires
// its optional native helpers the same way.
const app = await cjs(stem(BUNDLES.app.file), BUNDLES.app.source, {external: ['typescript'], plugins: [hostModules, oclifEdits]})
// undici and client-node: only what a live read evaluates at load (scripts/esbuild-k8s.mjs).
const k8s = await cjs(stem(BUNDLES.k8s.file), BUNDLES.k8s.source, {external: ['bufferutil', 'utf-8-validate'], plugins: [slimUndici(root), clientNodeUnused()]})
// The ES module side (completion from a live cluster) uses the same dist/k8s.cjs; a lazily
// imported module, so always in dist/chunks/ (chunkNames below).
const k8sNames = await k8sExportNames(root)
const k8sFromCjs = replaceK8s(
  root,
  'k8s-cjs',
  `import {createRequire} from 'node:module'\nexport const {${k8sNames.join(', ')}} = createRequire(import.meta.url)('../${BUNDLES.k8s.file}')\n`,
)
const sha256 = (file) =>
  createHash('sha256')
    .update(readFileSync(path.join(tmp, file)))
    .digest('hex')
const appHash = sha256(BUNDLES.app.file)
const main = await build({
  ...common,
  entryPoints: {[stem(BUNDLES.main.file)]: BUNDLES.main.source},
  outdir: tmp,
  splitting: true,
  format: 'esm',
  jsx: 'automatic',
  chunkNames: 'chunks/[name]-[hash]',
  define: {APP_HASH: JSON.stringify(appHash), K8S_HASH: JSON.stringify(sha256(BUNDLES.k8s.file))},
  // ink's DEV-only blocks (react-devtools-core, its package.json) are cut: scripts/esbuild-views.mjs.
  plugins: [k8sFromCjs, inkWithoutDev],
  // CommonJS dependencies of ink call require() for node built-ins.
  banner: {js: "import {createRequire as __topologyCreateRequire} from 'node:module';const require=__topologyCreateRequire(import.meta.url);"},
})

// What each part may hold (docs/design.md "Bundling"): help must not load oclif, a command
// must not load client-node or ink unless it needs them.
const inputs = (r) => Object.keys(r.metafile.inputs)
const forbidden = (r, what, re) => {
  const found = inputs(r).filter((f) => re.test(f))
  if (found.length) throw new Error(`${what} must not include ${found.slice(0, 3).join(', ')}${found.length > 3 ? ', ...' : ''}`)
}
// What dist/main.js loads before it decides what to do (its static imports).
const staticClosure = (r, entry) => {
  const outputs = r.metafile.outputs
  const seen = new Set()
  const visit = (o) => {
    if (seen.has(o)) return
    seen.add(o)
    for (const i of outputs[o]?.imports ?? []) if (i.kind === 'import-statement' && !i.external) visit(i.path)
  }
  visit(Object.keys(outputs).find((o) => outputs[o].entryPoint === entry))
  return {metafile: {inputs: Object.fromEntries([...seen].flatMap((o) => Object.keys(outputs[o].inputs)).map((i) => [i, true]))}}
}
forbidden(staticClosure(main, BUNDLES.main.source), 'dist/main.js (help, --version, completion)', /node_modules\//)
// An ES import of node:fs makes Node read all its exports, which evaluates fs/promises, the
// streams and readline at every start: the entry takes it from process.getBuiltinModule.
const fsImports = Object.entries(main.metafile.outputs).filter(
  ([, o]) => o.entryPoint === BUNDLES.main.source && o.imports.some((i) => i.path === 'node:fs' && i.kind === 'import-statement'),
)
if (fsImports.length) throw new Error('dist/main.js must not import node:fs (use process.getBuiltinModule: src/entry/main.ts)')
forbidden(main, 'dist/main.js and its chunks', /node_modules\/(@oclif|@kubernetes)\//)
forbidden(app, 'dist/app.cjs', /node_modules\/(@kubernetes|ink|react|yoga-layout)\/|src\/render\/[\w-]+-view\.tsx$/)
// @oclif/core's index evaluates all of oclif (and semver for an engine check): the code
// imports its parts ('@oclif/core/command', '/flags', ...) instead.
forbidden(app, 'dist/app.cjs', /node_modules\/@oclif\/core\/lib\/index\.js$/)
// (fdir's require.resolve('picomatch') only asks whether it is installed.)
const outside = Object.values(app.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.external && i.kind !== 'require-resolve' && !isBuiltin(i.path))
const unexpected = outside.filter((i) => !(i.path === HOST.k8s || i.path.startsWith(HOST.viewPrefix) || i.path === 'typescript'))
if (unexpected.length) throw new Error(`dist/app.cjs would load from disk: ${unexpected.map((i) => i.path).join(', ')}`)
const dynamicImports = Object.values(app.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.kind === 'dynamic-import')
if (dynamicImports.length) throw new Error(`dist/app.cjs runs in node:vm, which has no import(): ${dynamicImports.map((i) => i.path).join(', ')}`)

const files = [main, app, k8s].flatMap((r) => Object.keys(r.metafile.outputs)).map((f) => path.relative(tmp, path.resolve(root, f)))
const withMaps = files.flatMap((f) => (f.endsWith('.map') ? [f] : [f, `${f}.map`])).filter((f, i, a) => a.indexOf(f) === i)
mkdirSync(path.join(dist, 'chunks'), {recursive: true})
// The help page of the previous build goes first: it may list other commands or flags.
rmSync(path.join(dist, ROOT_HELP_FILE), {force: true})
const rank = (f) => (f === BUNDLES.main.file ? 2 : f.endsWith('.cjs') ? 1 : 0)
const order = withMaps.sort((a, b) => rank(a) - rank(b))
for (const f of order) {
  try {
    renameSync(path.join(tmp, f), path.join(dist, f))
  } catch (e) {
    if (e.code !== 'ENOENT') throw e
  }
}
rmSync(tmp, {recursive: true, force: true})
// Files of earlier builds that nothing loads any more.
const keep = new Set(order)
for (const f of readdirSync(path.join(dist, 'chunks'))) {
  if (!keep.has(`chunks/${f}`)) rmSync(path.join(dist, 'chunks', f), {force: true})
}
for (const f of readdirSync(dist)) {
  if (f !== 'chunks' && !keep.has(f) && /\.(c?js|map)$/.test(f)) rmSync(path.join(dist, f), {force: true})
}
// oclif.manifest.json: what `oclif manifest` writes (the commands' ids, flags, args, help
// text), made by oclif's own Plugin loader from the COMMANDS of dist/app.cjs (package.json
// oclif.commands). Written atomically.
{
  const {Plugin} = await import('@oclif/core')
  const plugin = new Plugin({root, isRoot: true, ignoreManifest: true, errorOnManifestCreate: true})
  await plugin.load()
  const manifestTmp = path.join(root, `.oclif.manifest.${process.pid}.json`)
  writeFileSync(manifestTmp, `${JSON.stringify(plugin.manifest)}\n`)
  renameSync(manifestTmp, path.join(root, 'oclif.manifest.json'))
}
// dist/help.txt: the top-level help page, rendered by the new dist/main.js from the new
// manifest, which bin/kubectl-topology.js prints for `--help` without loading dist/main.js.
{
  const {rootHelpPage} = await import(pathToFileURL(path.join(dist, BUNDLES.main.file)).href)
  const helpTmp = path.join(dist, `.${ROOT_HELP_FILE}.${process.pid}`)
  writeFileSync(helpTmp, rootHelpPage())
  renameSync(helpTmp, path.join(dist, ROOT_HELP_FILE))
}
if (process.argv.includes('--analyze')) {
  const {analyzeMetafile} = await import('esbuild')
  for (const r of [main, app, k8s]) console.log(await analyzeMetafile(r.metafile))
}
