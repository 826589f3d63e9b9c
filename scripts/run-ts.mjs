// Runs a TypeScript script of this repo (e.g. test/e2e/make-example.ts): esbuild bundles it
// to a temporary ESM file (dependencies stay external) and Node runs it.
// Usage: node scripts/run-ts.mjs FILE.ts [ARGS...]
import {build} from 'esbuild'
import {rmSync} from 'node:fs'
import {randomBytes} from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import {pathToFileURL} from 'node:url'

const [file, ...args] = process.argv.slice(2)
if (!file) {
  console.error('usage: node scripts/run-ts.mjs FILE.ts [ARGS...]')
  process.exit(2)
}
// Next to the entry file, so that import.meta.url-relative paths of modules in the entry's
// folder still resolve.
const out = path.join(path.dirname(path.resolve(file)), `.run-ts-${randomBytes(4).toString('hex')}.mjs`)
try {
  await build({entryPoints: [file], outfile: out, bundle: true, format: 'esm', platform: 'node', target: 'node22', packages: 'external', logLevel: 'warning'})
  process.argv = [process.argv[0], path.resolve(file), ...args]
  await import(pathToFileURL(out).href)
} finally {
  rmSync(out, {force: true})
}
