// Bundles the CLI with esbuild: one ESM entry (dist/cli.js) with code splitting, so that
// client-node (live cluster access) and ink (watch) load only in the commands that use
// them. See docs/design.md "Bundling".
import {build} from 'esbuild'
import {rmSync} from 'node:fs'

rmSync(new URL('../dist', import.meta.url), {recursive: true, force: true})
const result = await build({
  entryPoints: {cli: 'src/cli.ts'},
  outdir: 'dist',
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
  // @oclif/core is CommonJS and calls require() for node built-ins.
  banner: {js: "import {createRequire as __topologyCreateRequire} from 'node:module';const require=__topologyCreateRequire(import.meta.url);"},
  logLevel: 'warning',
})
if (process.argv.includes('--analyze')) {
  const {analyzeMetafile} = await import('esbuild')
  console.log(await analyzeMetafile(result.metafile))
}
