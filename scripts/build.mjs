// Bundles the CLI with esbuild: two ESM entries with code splitting. dist/main.js (what
// bin/kubectl-topology.js runs: oclif + error reporting) and dist/cli.js (the COMMANDS
// registry, oclif's explicit target), so that `--help` never evaluates the commands, and
// client-node (live cluster access) and ink (watch) load only in the commands that use
// them. Then writes oclif.manifest.json, which lets oclif show help and find commands
// without importing dist/cli.js. See docs/design.md "Bundling" and "Startup".
import {build} from 'esbuild'
import {mkdirSync, readdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {oclifEdits} from './esbuild-oclif.mjs'

// Built into a private folder, then moved into dist/ file by file (chunks first, the entry
// last; rename is atomic), so a CLI started during a rebuild never sees a half-empty dist/.
const root = fileURLToPath(new URL('..', import.meta.url))
const dist = path.join(root, 'dist')
const tmp = path.join(root, `.dist-${process.pid}`)
const result = await build({
  entryPoints: {cli: 'src/cli.ts', main: 'src/main.ts'},
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  minify: true,
  sourcemap: 'linked',
  jsx: 'automatic',
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  metafile: true,
  // @oclif/core requires typescript inside a try/catch (only for ts-node setups); ink loads
  // react-devtools-core only when DEV=true.
  external: ['typescript', 'react-devtools-core'],
  plugins: [oclifEdits],
  // @oclif/core is CommonJS and calls require() for node built-ins.
  banner: {js: "import {createRequire as __topologyCreateRequire} from 'node:module';const require=__topologyCreateRequire(import.meta.url);"},
  logLevel: 'warning',
})
// @oclif/core's index evaluates all of oclif (and semver for an engine check): the code
// imports its parts ('@oclif/core/command', '/flags', ...) instead (docs/design.md "Startup").
if (result.metafile.inputs['node_modules/@oclif/core/lib/index.js']) {
  throw new Error("the bundle includes @oclif/core's index: import from '@oclif/core/command', '@oclif/core/flags', ... instead")
}
const files = Object.keys(result.metafile.outputs).map((f) => path.relative(tmp, path.resolve(root, f)))
const withMaps = files.flatMap((f) => (f.endsWith('.map') ? [f] : [f, `${f}.map`])).filter((f, i, a) => a.indexOf(f) === i)
mkdirSync(path.join(dist, 'chunks'), {recursive: true})
const rank = (f) => (f === 'main.js' ? 2 : f === 'cli.js' ? 1 : 0)
const order = withMaps.sort((a, b) => rank(a) - rank(b))
for (const f of order) {
  try {
    renameSync(path.join(tmp, f), path.join(dist, f))
  } catch (e) {
    if (e.code !== 'ENOENT') throw e
  }
}
rmSync(tmp, {recursive: true, force: true})
// Chunks of earlier builds that nothing imports any more.
const keep = new Set(order)
for (const f of readdirSync(path.join(dist, 'chunks'))) {
  if (!keep.has(`chunks/${f}`)) rmSync(path.join(dist, 'chunks', f), {force: true})
}
// oclif.manifest.json: what `oclif manifest` writes (the commands' ids, flags, args, help
// text), made by oclif's own Plugin loader from the COMMANDS just built. Written atomically.
{
  const {Plugin} = await import('@oclif/core')
  const plugin = new Plugin({root, isRoot: true, ignoreManifest: true, errorOnManifestCreate: true})
  await plugin.load()
  const manifestTmp = path.join(root, `.oclif.manifest.${process.pid}.json`)
  writeFileSync(manifestTmp, `${JSON.stringify(plugin.manifest)}\n`)
  renameSync(manifestTmp, path.join(root, 'oclif.manifest.json'))
}
if (process.argv.includes('--analyze')) {
  const {analyzeMetafile} = await import('esbuild')
  console.log(await analyzeMetafile(result.metafile))
}
