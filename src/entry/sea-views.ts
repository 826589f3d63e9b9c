// The standalone executable's views asset (views.cjs, built by scripts/package.mjs): the ink
// views of `watch` and `simulate` (src/entry/views.ts) as one CommonJS file, which
// src/entry/sea-entry.ts loads with its code cache (src/entry/sea-assets.ts) when app.cjs
// first asks for a view, so that the executable's main module does not hold ink, React and
// yoga and `--help` does not deserialise their code (docs/design.md "Startup"). yoga-layout's
// WebAssembly is instantiated here first (scripts/esbuild-views.mjs puts `sea:yoga` in place of
// yoga-layout's top-level await); the views' modules are evaluated after it, on first use.
import {loadYogaOnce} from 'sea:yoga'
import {loadView} from './views.js'

/** The module of view `name` (e.g. `watch-view`), with yoga loaded first. */
export async function seaLoadView(name: string): Promise<unknown> {
  await loadYogaOnce()
  return loadView(name)
}
