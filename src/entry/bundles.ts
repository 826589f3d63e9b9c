// The names that tie the bundles together, in one place for the code that loads them
// (src/entry/main.ts, sea-entry.ts, app-loader.ts, views.ts, sea-assets.ts) and the scripts
// that make them (scripts/build.mjs, scripts/package.mjs, scripts/sea-code-caches.ts). The
// scripts are plain Node and import this file as it is (Node runs TypeScript that only needs
// its types erased), so it holds constants only and imports nothing. See README.md here.

/**
 * The bundles of dist/ (scripts/build.mjs), by role: `file` in dist/ (and, for the CommonJS
 * ones, the name of the standalone executable's asset, scripts/package.mjs), `source` the entry
 * point esbuild starts from.
 */
export const BUNDLES = {
  /** What bin/kubectl-topology.js imports: dispatch, help, --version, completion (ES module). */
  main: {file: 'main.js', source: 'src/entry/main.ts'},
  /** What runs a command: oclif, the command registry, the engine, the renderers (CommonJS). */
  app: {file: 'app.cjs', source: 'src/entry/run.ts'},
  /** client-node, required by app.cjs only to talk to a cluster (CommonJS). */
  k8s: {file: 'k8s.cjs', source: 'src/cluster/k8s.ts'},
} as const

/**
 * The top-level help page in dist/ (scripts/build.mjs renders it with dist/main.js's
 * rootHelpPage), which bin/kubectl-topology.js prints for `--help`, `-h`, `help` and no
 * arguments without loading dist/main.js (docs/design.md "Startup").
 */
export const ROOT_HELP_FILE = 'help.txt'

/** The standalone executable (scripts/package.mjs). */
export const SEA = {
  /** Its main module: dispatch as in dist/main.js, with app.cjs, k8s.cjs, views.cjs and complete.cjs as assets. */
  source: 'src/entry/sea-entry.ts',
  /** Where its main module gets client-node from: the k8s.cjs asset (seaK8s). */
  k8sSource: 'src/entry/sea-assets.ts',
  /** The ink views as a CommonJS asset, loaded on first use (src/entry/sea-views.ts). */
  views: {file: 'views.cjs', source: 'src/entry/sea-views.ts'},
  /** Shell completion as a CommonJS asset, loaded for `__complete` only (src/entry/complete.ts). */
  complete: {file: 'complete.cjs', source: 'src/entry/complete.ts'},
} as const

/** The asset holding the V8 code cache of CommonJS asset `file` (e.g. app.cjs.cache). */
export const codeCacheAsset = (file: string): string => `${file}.cache`

/** What dist/app.cjs requires from the entry that runs it (src/entry/app-loader.ts appRequire). */
export const HOST = {
  /** client-node: dist/k8s.cjs, or the k8s.cjs asset. */
  k8s: 'kubectl-topology:k8s',
  /** An ink view: `kubectl-topology:view:watch-view` is src/render/watch-view.tsx. */
  viewPrefix: 'kubectl-topology:view:',
} as const

/**
 * The ink views (src/render/NAME.tsx): ink has a top-level await, so they cannot be in the
 * CommonJS app.cjs and stay ES modules of the entry's (src/entry/views.ts), which app.cjs
 * requires by HOST.viewPrefix + NAME. scripts/build.mjs fails on a view missing here.
 */
export const VIEWS = ['watch-view', 'simulate-view'] as const
export type ViewName = (typeof VIEWS)[number]
