// Entry point of the standalone executable (Node single executable application, built by
// scripts/package.mjs): src/entry/dispatch.ts, as in the npm install (src/entry/main.ts), with the
// package.json fields and the oclif manifest built in (the virtual module below, made by
// scripts/package.mjs from the oclif.manifest.json that `npm run build` wrote). To run a
// command it loads the asset app.cjs (dist/app.cjs) and, for a live cluster, k8s.cjs, each
// with the V8 code cache made at build time (src/entry/sea-assets.ts). Nothing is read from disk:
// there is no package.json, no manifest and no dist/ beside the executable, and a SEA's
// import() loads only built-ins. The ink views (watch, simulate) are the asset views.cjs
// (src/entry/sea-views.ts), loaded when app.cjs first asks for one, and completion the asset
// complete.cjs (src/entry/complete.ts, with the snapshot reader and the kubeconfig's YAML): in
// this module, they made `--help` deserialise their code at every start (docs/design.md "Startup").
import {dirname} from 'node:path'
import manifest from 'sea:oclif-manifest'
import pkg from '../../package.json' with {type: 'json'}
import {appRequire, builtinRequire, type App} from './app-loader.js'
import {BUNDLES, SEA} from './bundles.js'
import {type Complete, dispatch, pjsonOf, type Host, type Manifest} from './dispatch.js'
import {loadAsset, seaK8s} from './sea-assets.js'

type Views = {seaLoadView: (name: string) => Promise<unknown>}
let views: Views | undefined
const loadView = async (name: string) => {
  views ??= loadAsset<Views>(SEA.views.file, builtinRequire(process.execPath))
  return views.seaLoadView(name)
}
const require = appRequire({k8s: seaK8s, view: loadView, fallback: builtinRequire(process.execPath)})

const seaHost: Host = {
  root: dirname(process.execPath),
  pjson: pjsonOf(pkg),
  manifest: () => manifest as Manifest,
  runner: async () => loadAsset<App>(BUNDLES.app.file, require),
  completer: async () => loadAsset<{complete: Complete}>(SEA.complete.file, builtinRequire(process.execPath)).complete,
}

void dispatch(process.argv.slice(2), seaHost)
