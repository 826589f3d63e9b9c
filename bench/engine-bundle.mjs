// Bundles named exports of a checkout's TypeScript sources into one ESM file with esbuild, as
// scripts/build.mjs bundles the CLI (yaml, CommonJS, require()s node built-ins: a createRequire
// banner), for the benches that time the engine in-process on the working tree and on a git
// REF's sources (bench/explain.mjs, advise.mjs, plan-range.mjs), and REF's sources themselves.
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

/**
 * @param {{root: string, dir: string, name: string, exports: Record<string, string>, nodeModules: string}} o
 *   root: the checkout; dir: where the entry and bundle are written; exports: symbol -> source
 *   path relative to root; nodeModules: where the dependencies are resolved.
 */
export async function bundleExports({root, dir, name, exports, nodeModules}) {
  const {build} = await import('esbuild')
  const entry = join(dir, `${name}-entry.ts`)
  writeFileSync(
    entry,
    Object.entries(exports)
      .map(([symbol, file]) => `export {${symbol}} from ${JSON.stringify(join(root, file))}\n`)
      .join(''),
  )
  const outfile = join(dir, `${name}.mjs`)
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
    nodePaths: [nodeModules],
    banner: {js: "import {createRequire as __cr} from 'node:module';const require=__cr(import.meta.url);"},
  })
  return outfile
}

/** git REF's src/ extracted under dest (git archive | tar -x); returns REF's short commit. */
export function extractSrcAt(ref, root, dest) {
  const sha = spawnSync('git', ['rev-parse', '--short', ref], {cwd: root, encoding: 'utf8'})
  if (sha.status !== 0) throw new Error(`git rev-parse ${ref} failed: ${sha.stderr}`)
  const tar = spawnSync('git', ['archive', '--format=tar', ref, 'src'], {cwd: root, maxBuffer: 1 << 30})
  if (tar.status !== 0) throw new Error(`git archive ${ref} failed: ${tar.stderr}`)
  const x = spawnSync('tar', ['-x', '-C', dest], {input: tar.stdout})
  if (x.status !== 0) throw new Error(`tar -x into ${dest} failed: ${x.stderr}`)
  return sha.stdout.trim()
}
