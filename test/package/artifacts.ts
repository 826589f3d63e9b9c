// Shared helpers for the release-artefact tests: where `npm run package` put the archives,
// the krew manifest, and running programs with a controlled PATH.
import {spawnSync} from 'node:child_process'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {createServer, type AddressInfo} from 'node:net'
import {join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {parse} from 'yaml'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  version: string
  bin: Record<string, string>
  files: string[]
  dependencies?: Record<string, string>
  devDependencies: Record<string, string>
}
const OUT_DIR = resolve(ROOT, process.env.PACKAGE_OUT_DIR ?? 'dist')
export const EXAMPLE = join(ROOT, 'examples', 'three-zones.yaml')

/** Go's GOOS/GOARCH of this machine (krew's selector values). */
export const HOST = {
  os: ({linux: 'linux', darwin: 'darwin', win32: 'windows'} as Record<string, string>)[process.platform] ?? process.platform,
  arch: ({x64: 'amd64', arm64: 'arm64'} as Record<string, string>)[process.arch] ?? process.arch,
}

export const archivePath = (os: string, arch: string) => join(OUT_DIR, `kubectl-topology_${PKG.version}_${os}_${arch}.tar.gz`)

export interface KrewPlatform {
  selector: {matchLabels?: Record<string, string>; matchExpressions?: unknown[]}
  uri: string
  sha256: string
  files?: {from: string; to: string}[]
  bin: string
}

export interface KrewManifest {
  apiVersion: string
  kind: string
  metadata: {name: string}
  spec: {
    version: string
    homepage?: string
    shortDescription: string
    description: string
    caveats?: string
    platforms: KrewPlatform[]
  }
}

export function readManifest(): KrewManifest {
  return parse(readFileSync(join(ROOT, 'krew-manifest.yaml'), 'utf8')) as KrewManifest
}

/** kubectl from PATH (or $KUBECTL): the plugin discovery under test is kubectl's own. */
export function kubectlPath(): string {
  if (process.env.KUBECTL) return process.env.KUBECTL
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const p = join(dir, 'kubectl')
    if (dir && existsSync(p)) return p
  }
  throw new Error('kubectl is not on PATH: install it (Debian: kubernetes-client) or set KUBECTL')
}

export interface Run {
  stdout: string
  stderr: string
  code: number | null
}

export function run(cmd: string, args: string[], opts: {env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number} = {}): Run {
  const r = spawnSync(cmd, args, {encoding: 'utf8', env: opts.env, cwd: opts.cwd ?? ROOT, timeout: opts.timeout ?? 60_000, maxBuffer: 64 << 20})
  if (r.error) throw r.error
  return {stdout: r.stdout, stderr: r.stderr, code: r.status}
}

/** Writes DIR/refused.kubeconfig: its server is a port on 127.0.0.1 that nothing listens on. */
export async function refusedKubeconfig(dir: string): Promise<string> {
  const port = await new Promise<number>((done) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const p = (srv.address() as AddressInfo).port
      srv.close(() => done(p))
    })
  })
  const kubeconfig = join(dir, 'refused.kubeconfig')
  writeFileSync(
    kubeconfig,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:${port}"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n`,
  )
  return kubeconfig
}

/** The environment in which the standalone executable says whether V8 accepted its code
 *  caches: Node's SEA debug output for the main module, src/entry/sea-assets.ts's debuglog for the
 *  app.cjs and k8s.cjs assets. */
export const CODE_CACHE_DEBUG = {NODE_DEBUG: 'kubectl-topology', NODE_DEBUG_NATIVE: 'SEA'}

/** What a run's stderr under CODE_CACHE_DEBUG says of each code cache: accepted, rejected or
 *  absent (Node prints nothing for a main module built without one). */
export function codeCacheVerdicts(stderr: string): Record<string, string> {
  const verdicts: Record<string, string> = {main: /^SEA module code cache (accepted|rejected)$/m.exec(stderr)?.[1] ?? 'absent'}
  for (const m of stderr.matchAll(/code cache (\S+)\.cache (accepted|rejected|absent)$/gm)) verdicts[m[1]!] = m[2]!
  return verdicts
}

/** util-linux `script`, which makes the pseudo-terminal of inTerminal, is there. */
export const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** Runs argv with stdout (and stderr) on an 80-column pseudo-terminal; LF line ends. */
export function inTerminal(argv: string[], env: Record<string, string> = {}, timeout = 60_000) {
  const base: NodeJS.ProcessEnv = {...process.env, TERM: 'xterm', NO_COLOR: '1', ...env}
  for (const k of ['FORCE_COLOR', 'CI']) delete base[k]
  const r = spawnSync('script', ['-qec', `stty cols 80 rows 200; exec ${argv.map(sh).join(' ')}`, '/dev/null'], {
    cwd: ROOT,
    env: base,
    encoding: 'utf8',
    input: '',
    timeout,
  })
  return {out: r.stdout.replace(/\r\n/g, '\n'), code: r.status}
}
