// The ink views (src/render/*-view.tsx) by the names dist/app.cjs requires them by
// (src/entry/app-loader.ts), for both builds: lazy chunks of dist/main.js (src/entry/main.ts;
// ink has a top-level await, so the views stay ES modules of the entry's, imported on first
// use) and the standalone executable's views.cjs asset (src/entry/sea-views.ts, where the
// build edits ink's and yoga's top-level awaits away: scripts/esbuild-views.mjs).
// One table, so that a new view cannot be missing from one of the two builds; its keys are
// bundles.ts's VIEWS (the type checker holds them equal), which scripts/build.mjs checks too.
import type {ViewName} from './bundles.js'

/** esbuild needs literal paths. */
const VIEWS: Record<ViewName, () => Promise<unknown>> = {
  'watch-view': () => import('../render/watch-view.js'),
  'simulate-view': () => import('../render/simulate-view.js'),
}

/** The module of view `name` (e.g. `watch-view`), loaded then. */
export async function loadView(name: string): Promise<unknown> {
  const load = Object.hasOwn(VIEWS, name) ? VIEWS[name as ViewName] : undefined
  if (!load) throw new Error(`no view ${name} in this build`)
  return load()
}
