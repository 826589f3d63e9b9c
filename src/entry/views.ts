// The ink views (src/render/*-view.tsx) by the names dist/app.cjs requires them by
// (src/app-loader.ts), for both entries (src/main.ts, src/sea-entry.ts): ink has a top-level
// await, so the views stay ES modules of the entry's, imported on first use. One table, so
// that a new view cannot be missing from one of the two builds.

/** esbuild needs literal paths. */
const VIEWS: Record<string, () => Promise<unknown>> = {
  'watch-view': () => import('../render/watch-view.js'),
  'simulate-view': () => import('../render/simulate-view.js'),
}

/** The module of view `name` (e.g. `watch-view`), loaded then. */
export async function loadView(name: string): Promise<unknown> {
  const load = VIEWS[name]
  if (!load) throw new Error(`no view ${name} in this build`)
  return load()
}
