// Loading a kubeconfig the way kubectl does, and the per-request options (timeout,
// request counter) every API call in src/cluster uses.
//
// Why not just `kc.loadFromDefault()`: client-node 2.0.1 throws on names defined in two
// KUBECONFIG files (kubectl keeps the first), lets the last file's current-context win
// unless asked otherwise, silently targets http://localhost:8080 when there is no
// kubeconfig at all, reads every user's token-file eagerly (one broken, unrelated user
// breaks everything) and refuses http:// servers that kubectl accepts. So the files are
// read and merged here with kubectl's rules (first definition of a name wins, the first
// file that sets current-context wins, relative paths resolve against the file that
// holds them) and client-node gets a config holding only the selected context, its
// cluster and its user. Exec credential plugins stay client-node's job.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {parse as parseYaml, YAMLParseError} from 'yaml'
import {CliError, ExitCode} from '../errors.js'
import {describeFileError} from './files.js'
import {installTransport, type WatchFn} from './http.js'
import {checkProxyUrl} from './proxy.js'
import type {ConfigurationOptions, KubeConfig, RequestContext, ResponseContext} from './k8s.js'

export interface LoadKubeConfigOptions {
  /** --kubeconfig: use exactly this file (overrides KUBECONFIG). */
  kubeconfig?: string
  /** --context: use this context instead of current-context. */
  context?: string
  /** -n/--namespace. */
  namespace?: string
  /** --request-timeout in milliseconds; 0 or undefined = no timeout (kubectl's default). */
  requestTimeoutMs?: number
}

export interface RequestStats {
  /** HTTP requests sent to the API server through `apiOptions` so far. */
  requests: number
}

export interface KubeContext {
  kc: KubeConfig
  contextName: string
  /** flag ?? the context's namespace ?? 'default'. */
  namespace: string
  /** API server URL without credentials, for messages. */
  server: string
  /** The cluster's proxy-url without credentials, for messages; absent: no proxy. */
  proxy?: string
  clusterName: string
  /** Name of the kubeconfig user (never its credentials). */
  userName?: string
  /** The command of an exec credential plugin, if the user has one (for error messages). */
  execCommand?: string
  /** The kubeconfig files that were read ([] for in-cluster config). */
  files: string[]
  /** 0 = none. */
  requestTimeoutMs: number
  /** Pass as the 2nd argument of every client-node call: timeout, request counting, the transport (http.ts). */
  apiOptions: ConfigurationOptions
  stats: RequestStats
  /** Starts one watch request on the same transport (http.ts); absent: client-node's Watch. */
  watch?: WatchFn
}

// ---- --request-timeout ------------------------------------------------------------------

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/**
 * Parses a kubectl --request-timeout value into milliseconds: "0" (no timeout), a bare
 * integer (seconds, as kubectl does), or a Go duration such as "30s", "1m", "500ms",
 * "1h2m3.5s". Anything else is a USAGE error.
 */
export function parseDuration(value: string, flag = '--request-timeout'): number {
  const s = value.trim()
  const bad = () => new CliError(`invalid ${flag} value "${value}": use a duration such as 30s, 1m or 500ms (0 means no timeout)`, ExitCode.USAGE)
  if (s === '') throw bad()
  if (/^\d+$/.test(s)) return Number(s) * 1000
  if (s === '0') return 0
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y
  let pos = 0
  let total = 0
  while (pos < s.length) {
    re.lastIndex = pos
    const m = re.exec(s)
    if (!m) throw bad()
    total += Number(m[1]) * UNIT_MS[m[2]!]!
    pos = re.lastIndex
  }
  if (!Number.isFinite(total)) throw bad()
  // AbortSignal.timeout needs whole milliseconds; round sub-millisecond values up so a
  // non-zero duration never turns into "no timeout".
  return total > 0 ? Math.max(1, Math.round(total)) : 0
}

/** 30000 -> "30s", 300 -> "300ms", 90000 -> "1m30s" (Go-like, for messages). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = (ms % 60_000) / 1000
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || !(h || m) ? `${s}s` : ''}`
}

// ---- helpers ------------------------------------------------------------------------------

/** The server URL with any user:password removed. */
export function redactServer(server: string): string {
  try {
    const u = new URL(server)
    if (u.username || u.password) {
      u.username = ''
      u.password = ''
    }
    return u.toString().replace(/\/$/, '')
  } catch {
    return server.replace(/\/\/[^/@]*@/, '//')
  }
}

const kubeconfigError = (msg: string, cause?: unknown) => new CliError(msg, ExitCode.KUBECONFIG, cause === undefined ? undefined : {cause})

const NO_KUBECONFIG = 'no kubeconfig found: set KUBECONFIG, pass --kubeconfig, or use --from-file to read a snapshot'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

interface Named {
  name: string
  value: Obj
  file: string
}

interface Merged {
  currentContext?: string
  clusters: Map<string, Named>
  users: Map<string, Named>
  contexts: Map<string, Named>
}

function fileExists(p: string): boolean {
  try {
    return fs.statSync(p).isFile()
  } catch {
    return false
  }
}

function readKubeconfigFile(file: string): Obj | undefined {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    const why = describeFileError(e)
    throw kubeconfigError(`cannot read kubeconfig "${file}": ${why}`, e)
  }
  let doc: unknown
  try {
    doc = parseYaml(text, {prettyErrors: true, uniqueKeys: false})
  } catch (e) {
    if (e instanceof YAMLParseError) {
      const pos = e.linePos?.[0]
      const where = pos ? `:${pos.line}:${pos.col}` : ''
      const msg = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')
      throw kubeconfigError(`invalid kubeconfig ${file}${where}: ${msg}`, e)
    }
    throw kubeconfigError(`invalid kubeconfig ${file}: ${(e as Error).message}`, e)
  }
  if (doc === null || doc === undefined) return undefined // empty file: kubectl treats it as empty
  if (!isObj(doc)) {
    throw kubeconfigError(`invalid kubeconfig ${file}: expected a mapping with clusters, contexts and users, found ${Array.isArray(doc) ? 'a list' : `a ${typeof doc}`}`)
  }
  for (const key of ['clusters', 'users', 'contexts'] as const) {
    const v = doc[key]
    if (v !== undefined && v !== null && !Array.isArray(v)) {
      throw kubeconfigError(`invalid kubeconfig ${file}: "${key}" must be a list`)
    }
  }
  return doc
}

/** Makes a relative path absolute against the kubeconfig file's directory (kubectl's ResolvePaths). */
function resolveIn(dir: string, p: unknown): unknown {
  return typeof p === 'string' && p !== '' && !path.isAbsolute(p) ? path.resolve(dir, p) : p
}

function absolutize(kind: 'clusters' | 'users' | 'contexts', value: Obj, dir: string): Obj {
  if (kind === 'clusters') {
    return {...value, 'certificate-authority': resolveIn(dir, value['certificate-authority'])}
  }
  if (kind === 'users') {
    const out: Obj = {
      ...value,
      'client-certificate': resolveIn(dir, value['client-certificate']),
      'client-key': resolveIn(dir, value['client-key']),
      'token-file': resolveIn(dir, value['token-file']),
    }
    const exec = value.exec
    // kubectl resolves an exec command relative to the kubeconfig only when it contains a
    // path separator ("./bin/get-token"); a bare name is looked up on PATH.
    if (isObj(exec) && typeof exec.command === 'string' && exec.command.includes('/')) {
      out.exec = {...exec, command: resolveIn(dir, exec.command)}
    }
    return out
  }
  return value
}

function merge(files: string[]): Merged {
  const merged: Merged = {clusters: new Map(), users: new Map(), contexts: new Map()}
  for (const file of files) {
    const doc = readKubeconfigFile(file)
    if (!doc) continue
    const cur = doc['current-context']
    if (merged.currentContext === undefined && typeof cur === 'string' && cur !== '') {
      merged.currentContext = cur
    }
    const dir = path.dirname(path.resolve(file))
    for (const kind of ['clusters', 'users', 'contexts'] as const) {
      const list = (doc[kind] ?? []) as unknown[]
      const inner = kind.slice(0, -1) // cluster, user, context
      list.forEach((entry, i) => {
        if (!isObj(entry) || typeof entry.name !== 'string' || entry.name === '') {
          throw kubeconfigError(`invalid kubeconfig ${file}: ${kind}[${i}] has no name`)
        }
        if (merged[kind].has(entry.name)) return // first definition wins, as in kubectl
        const value = entry[inner]
        merged[kind].set(entry.name, {
          name: entry.name,
          value: absolutize(kind, isObj(value) ? value : {}, dir),
          file,
        })
      })
    }
  }
  return merged
}

function findFiles(opts: LoadKubeConfigOptions): string[] | 'in-cluster' {
  if (opts.kubeconfig !== undefined && opts.kubeconfig !== '') {
    const p = opts.kubeconfig
    let st: fs.Stats
    try {
      st = fs.statSync(p)
    } catch {
      throw kubeconfigError(`cannot read kubeconfig "${p}" (--kubeconfig): no such file`)
    }
    if (st.isDirectory()) throw kubeconfigError(`cannot read kubeconfig "${p}" (--kubeconfig): is a directory`)
    return [p]
  }
  const env = process.env.KUBECONFIG
  if (env !== undefined && env !== '') {
    // kubectl skips missing files in the KUBECONFIG list.
    const files = env.split(path.delimiter).filter((f) => f !== '' && fileExists(f))
    if (files.length === 0) throw kubeconfigError(`${NO_KUBECONFIG} (KUBECONFIG=${env} names no existing file)`)
    return [...new Set(files)]
  }
  const home = process.env.HOME || process.env.USERPROFILE || os.homedir()
  const dflt = path.join(home, '.kube', 'config')
  if (fileExists(dflt)) return [dflt]
  if (process.env.KUBERNETES_SERVICE_HOST && process.env.KUBERNETES_SERVICE_PORT && fileExists('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    return 'in-cluster'
  }
  throw kubeconfigError(NO_KUBECONFIG)
}

function listNames(names: Iterable<string>): string {
  const all = [...names].sort()
  if (all.length === 0) return 'none'
  const shown = all.slice(0, 10).join(', ')
  return all.length > 10 ? `${shown}, … (${all.length} in total)` : shown
}

function makeApiOptions(timeoutMs: number, stats: RequestStats, of: <T>(v: T) => unknown, httpApi: unknown): ConfigurationOptions {
  return {
    httpApi,
    middleware: [
      {
        pre: (rc: RequestContext) => {
          stats.requests++
          if (timeoutMs > 0) rc.setSignal(AbortSignal.timeout(timeoutMs))
          return of(rc)
        },
        post: (res: ResponseContext) => of(res),
      },
    ],
    middlewareMergeStrategy: 'append',
  } as unknown as ConfigurationOptions
}

/** Loads the kubeconfig (kubectl semantics) and selects the context. Loads client-node lazily. */
export async function loadKubeConfig(opts: LoadKubeConfigOptions = {}): Promise<KubeContext> {
  const timeoutMs = opts.requestTimeoutMs ?? 0
  const found = findFiles(opts)
  const k8s = await import('./k8s.js')
  const kc = new k8s.KubeConfig()
  const stats: RequestStats = {requests: 0}

  if (found === 'in-cluster') {
    try {
      kc.loadFromCluster()
    } catch (e) {
      throw kubeconfigError(`cannot use the in-cluster configuration: ${(e as Error).message}`, e)
    }
    const transport = installTransport(k8s, kc, timeoutMs)
    const ctxObj = kc.getContextObject(kc.getCurrentContext())
    const cluster = kc.getCurrentCluster()
    return {
      kc,
      contextName: kc.getCurrentContext(),
      namespace: opts.namespace || ctxObj?.namespace?.trim() || 'default',
      server: redactServer(cluster?.server ?? ''),
      clusterName: cluster?.name ?? 'inCluster',
      userName: 'inClusterUser',
      files: [],
      requestTimeoutMs: timeoutMs,
      apiOptions: makeApiOptions(timeoutMs, stats, k8s.of, transport.httpApi),
      stats,
      watch: transport.watch,
    }
  }

  const files = found
  const merged = merge(files)
  const where = files.length === 1 ? `kubeconfig ${files[0]}` : `kubeconfig files ${files.join(path.delimiter)}`
  const contextName = opts.context || merged.currentContext
  if (!contextName) {
    if (merged.contexts.size === 0) throw kubeconfigError(`no context found in ${where}: set KUBECONFIG, pass --kubeconfig, or use --from-file to read a snapshot`)
    throw kubeconfigError(`current-context is not set in ${where}: pass --context (available: ${listNames(merged.contexts.keys())})`)
  }
  const ctx = merged.contexts.get(contextName)
  if (!ctx) {
    const how = opts.context ? '--context' : `current-context of ${where}`
    throw kubeconfigError(`context "${contextName}" (${how}) does not exist: available contexts: ${listNames(merged.contexts.keys())}`)
  }
  const clusterName = ctx.value.cluster
  if (typeof clusterName !== 'string' || clusterName === '') {
    throw kubeconfigError(`context "${contextName}" in ${ctx.file} names no cluster`)
  }
  const cluster = merged.clusters.get(clusterName)
  if (!cluster) {
    throw kubeconfigError(`cluster "${clusterName}" of context "${contextName}" is not defined in ${where}`)
  }
  const server = cluster.value.server
  if (typeof server !== 'string' || server === '') {
    throw kubeconfigError(`cluster "${clusterName}" in ${cluster.file} has no server`)
  }
  const userName = typeof ctx.value.user === 'string' && ctx.value.user !== '' ? ctx.value.user : undefined
  const user = userName === undefined ? undefined : merged.users.get(userName)
  if (userName !== undefined && !user) {
    throw kubeconfigError(`user "${userName}" of context "${contextName}" is not defined in ${where}`)
  }

  const rawProxy = cluster.value['proxy-url']
  const proxyUrl = rawProxy === undefined || rawProxy === null || rawProxy === '' ? undefined : checkProxyUrl(rawProxy, clusterName, cluster.file)
  const clusterValue: Obj = {...cluster.value}
  // kubectl talks plain HTTP to http:// servers (e.g. `kubectl proxy`); client-node refuses
  // unless insecure-skip-tls-verify is set, which means nothing without TLS anyway.
  if (server.startsWith('http:')) clusterValue['insecure-skip-tls-verify'] = true
  const single = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': contextName,
    clusters: [{name: clusterName, cluster: clusterValue}],
    contexts: [{name: contextName, context: ctx.value}],
    users: user ? [{name: user.name, user: user.value}] : [],
  }
  try {
    kc.loadFromString(JSON.stringify(single))
  } catch (e) {
    const err = e as NodeJS.ErrnoException
    if (err.code === 'ENOENT' && user) {
      throw kubeconfigError(`cannot read token-file "${String(user.value['token-file'])}" of user "${user.name}" (${user.file}): no such file`, e)
    }
    throw kubeconfigError(`invalid ${where}: ${err.message}`, e)
  }
  const proxy = proxyUrl && {url: proxyUrl, insecure: cluster.value['insecure-skip-tls-verify'] === true}
  const transport = installTransport(k8s, kc, timeoutMs, proxy)
  const exec = user?.value.exec
  const execCommand = isObj(exec) && typeof exec.command === 'string' ? exec.command : undefined
  const ctxNs = typeof ctx.value.namespace === 'string' ? ctx.value.namespace : undefined
  const result: KubeContext = {
    kc,
    contextName,
    namespace: opts.namespace || ctxNs || 'default',
    server: redactServer(server.replace(/\/$/, '')),
    clusterName,
    files,
    requestTimeoutMs: timeoutMs,
    apiOptions: makeApiOptions(timeoutMs, stats, k8s.of, transport.httpApi),
    stats,
    watch: transport.watch,
  }
  if (proxyUrl) result.proxy = redactServer(proxyUrl.href)
  if (userName !== undefined) result.userName = userName
  if (execCommand !== undefined) result.execCommand = execCommand
  return result
}

/**
 * The namespace of the current context of the kubeconfig kubectl would use ($KUBECONFIG or
 * ~/.kube/config), without connecting: the default namespace of --from-file reads, as of live
 * ones. undefined when there is no kubeconfig, it cannot be read, or the context sets none (the
 * caller then uses "default"): a snapshot read needs no kubeconfig and must not fail on one.
 */
export function currentContextNamespace(): string | undefined {
  try {
    const found = findFiles({})
    if (found === 'in-cluster') return undefined
    const merged = merge(found)
    const ctx = merged.currentContext === undefined ? undefined : merged.contexts.get(merged.currentContext)
    const ns = ctx?.value.namespace
    return typeof ns === 'string' && ns.trim() !== '' ? ns.trim() : undefined
  } catch {
    return undefined
  }
}

/** The context names of the kubeconfig kubectl would use (shell completion of --context). */
export function listContextNames(opts: Pick<LoadKubeConfigOptions, 'kubeconfig'> = {}): string[] {
  const found = findFiles(opts)
  return found === 'in-cluster' ? [] : [...merge(found).contexts.keys()]
}
