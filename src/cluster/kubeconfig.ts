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

import type {ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {parse as parseYaml, YAMLParseError} from 'yaml'
import {CliError, ExitCode} from '../errors.js'
import {describeFileError, readFileBounded, readTextBounded} from './files.js'
import {installTransport, type WatchFn} from './http.js'
import {proxyFromEnvironment} from './env-proxy.js'
import {checkProxyUrl} from './proxy.js'
import {inClusterTokenFile, rotateTokenFile, type TokenFile} from './token-file.js'
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
  /** The command has no --from-file (snapshot, watch): the no-kubeconfig line does not offer it. */
  liveOnly?: boolean
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
  /** The user's bearer token comes from this file, read again as it rotates (token-file.ts). */
  tokenFile?: TokenFile
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
 * The longest timeout: Node.js timers hold a signed 32-bit count of milliseconds (24.8 days);
 * longer ones fire at once after a TimeoutOverflowWarning, and AbortSignal.timeout refuses them.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/**
 * Parses a kubectl --request-timeout value into milliseconds: "0" (no timeout), a bare
 * integer (seconds, as kubectl does), or a Go duration such as "30s", "1m", "500ms",
 * "1h2m3.5s". Anything else is a USAGE error.
 */
export function parseDuration(value: string, flag = '--request-timeout'): number {
  const s = value.trim()
  const bad = () => new CliError(`invalid ${flag} value "${value}": use a duration such as 30s, 1m or 500ms (0 means no timeout)`, ExitCode.USAGE)
  if (s === '') throw bad()
  const tooLong = () =>
    new CliError(
      `invalid ${flag} value "${value}": at most ${formatDuration(MAX_TIMEOUT_MS)} (2^31-1 ms, the longest timer Node.js keeps; kubectl has no such limit, use 0 for no timeout)`,
      ExitCode.USAGE,
    )
  if (/^\d+$/.test(s)) {
    if (Number(s) * 1000 > MAX_TIMEOUT_MS) throw tooLong()
    return Number(s) * 1000
  }
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
  if (total > MAX_TIMEOUT_MS) throw tooLong()
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

/** What to do without a kubeconfig; --from-file only for the commands that have it (not snapshot, watch). */
const noKubeconfig = (opts: LoadKubeConfigOptions) =>
  `no kubeconfig found: set KUBECONFIG${opts.liveOnly ? ' or pass --kubeconfig' : ', pass --kubeconfig, or use --from-file to read a snapshot'}`

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
    text = readTextBounded(file, 'kubeconfig')
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
      tokenFile: resolveIn(dir, value.tokenFile),
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
    if (files.length === 0) throw kubeconfigError(`${noKubeconfig(opts)} (KUBECONFIG=${env} names no existing file)`)
    return [...new Set(files)]
  }
  const home = process.env.HOME || process.env.USERPROFILE || os.homedir()
  const dflt = path.join(home, '.kube', 'config')
  if (fileExists(dflt)) return [dflt]
  if (process.env.KUBERNETES_SERVICE_HOST && process.env.KUBERNETES_SERVICE_PORT && fileExists('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    return 'in-cluster'
  }
  throw kubeconfigError(noKubeconfig(opts))
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
    const tokenFile = inClusterTokenFile(kc)
    const transport = installTransport(k8s, kc, timeoutMs, undefined, tokenFile && ((authorization) => tokenFile.refused(authorization)))
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
      ...(tokenFile ? {tokenFile} : {}),
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
  // Without proxy-url, kubectl's proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY; env-proxy.ts).
  const fromEnv = rawProxy === undefined || rawProxy === null || rawProxy === '' ? proxyFromEnvironment(server, process.env) : undefined
  const proxyUrl =
    fromEnv !== undefined
      ? checkProxyUrl(fromEnv.url, clusterName, `the environment (${fromEnv.variable})`)
      : rawProxy === undefined || rawProxy === null || rawProxy === ''
        ? undefined
        : checkProxyUrl(rawProxy, clusterName, cluster.file)
  const clusterValue: Obj = {...cluster.value}
  // kubectl talks plain HTTP to http:// servers (e.g. `kubectl proxy`); client-node refuses
  // unless insecure-skip-tls-verify is set, which means nothing without TLS anyway.
  if (server.startsWith('http:')) clusterValue['insecure-skip-tls-verify'] = true
  inlineFiles(clusterValue, [['certificate-authority', 'certificate-authority-data']], `cluster "${clusterName}" (${cluster.file})`)
  const creds = user && userCredentials(user)
  const userValue: Obj | undefined = creds?.value
  const single = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': contextName,
    clusters: [{name: clusterName, cluster: clusterValue}],
    contexts: [{name: contextName, context: ctx.value}],
    users: user && userValue ? [{name: user.name, user: userValue}] : [],
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
  const tokenFile = creds?.tokenFile && rotateTokenFile(kc, creds.tokenFile.file, creds.tokenFile.token)
  const transport = installTransport(k8s, kc, timeoutMs, proxy, tokenFile && ((authorization) => tokenFile.refused(authorization)))
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
  if (tokenFile) result.tokenFile = tokenFile
  if (userName !== undefined) result.userName = userName
  if (execCommand !== undefined) {
    result.execCommand = execCommand
    guardExecCredentials(kc, execCommand, contextName, timeoutMs)
  }
  return result
}

/**
 * Certificate files read here, bounded (files.ts: type and size checked first, at most 16 MiB),
 * and handed to client-node as their `-data` keys: client-node would read /dev/zero whole. A
 * file that does not exist is left to client-node, which reports it when a request needs it.
 */
function inlineFiles(value: Obj, keys: [file: string, data: string][], owner: string): void {
  for (const [fileKey, dataKey] of keys) {
    const file = value[fileKey]
    if (typeof file !== 'string' || file === '' || (typeof value[dataKey] === 'string' && value[dataKey] !== '')) continue
    let bytes: Buffer
    try {
      bytes = readFileBounded(file, 'certificate')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw kubeconfigError(`cannot read ${fileKey} "${file}" of ${owner}: ${describeFileError(e)}`, e)
    }
    value[dataKey] = bytes.toString('base64')
    delete value[fileKey]
  }
}

/**
 * The user's credentials as client-node takes them. kubectl's key for a bearer token file is
 * `tokenFile` (client-go clientcmd/api/v1 AuthInfo, json:"tokenFile"), which client-node does
 * not know (it reads `token-file`): requests went out unauthenticated (issue 20). As client-go
 * (clientcmd client_config.go: `token` wins over `tokenFile`; transport/token_source.go
 * NewCachedFileTokenSource: the file's content with surrounding white space trimmed, an empty
 * one refused as "read empty token from file"), the token is read here, bounded (1 MiB), for
 * both spellings, and refused at start when empty or unreadable. Later requests read the file
 * again about once a minute and after a 401, as client-go does (token-file.ts,
 * rotateTokenFile): `watch` and `serve` outlive a projected token.
 */
function userCredentials(user: Named): {value: Obj; tokenFile?: {file: string; token: string}} {
  const value: Obj = {...user.value}
  inlineFiles(
    value,
    [
      ['client-certificate', 'client-certificate-data'],
      ['client-key', 'client-key-data'],
    ],
    `user "${user.name}" (${user.file})`,
  )
  const fileKey =
    typeof value.tokenFile === 'string' && value.tokenFile !== '' ? 'tokenFile' : typeof value['token-file'] === 'string' && value['token-file'] !== '' ? 'token-file' : null
  if (fileKey === null) return {value}
  const file = value[fileKey] as string
  delete value.tokenFile
  delete value['token-file']
  if (typeof value.token === 'string' && value.token !== '') return {value}
  let token: string
  try {
    token = readTextBounded(file, 'token').trim()
  } catch (e) {
    throw kubeconfigError(`cannot read ${fileKey} "${file}" of user "${user.name}" (${user.file}): ${describeFileError(e)}`, e)
  }
  if (token === '') throw kubeconfigError(`${fileKey} "${file}" of user "${user.name}" (${user.file}) is empty: it must hold the bearer token`)
  value.token = token
  return {value, tokenFile: {file, token}}
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

/**
 * An exec credential plugin that ran but printed something that is not an ExecCredential
 * (garbage, JSON without `status`), or a token no HTTP header can carry (CR, LF, NUL): one line,
 * exit 5, instead of client-node's SyntaxError or TypeError, or undici's refusal of the header,
 * reaching the user as an internal error. A plugin that does not finish within --request-timeout
 * is killed, exit 5 as well (client-node would wait for it forever). A plugin that cannot start
 * or exits non-zero is left to cluster/errors.ts, which words those.
 */
function guardExecCredentials(kc: KubeConfig, command: string, contextName: string, timeoutMs: number): void {
  const apply = kc.applySecurityAuthentication.bind(kc)
  const fail = (why: string, cause?: unknown) =>
    new CliError(`getting credentials for context "${contextName}": exec plugin "${command}" ${why}: fix the plugin or users[].user.exec in the kubeconfig`, ExitCode.KUBECONFIG, {
      cause,
    })
  // client-node's ExecAuth spawns through its execFn: keep the children, to end one that hangs.
  const children = new Set<ChildProcess>()
  const auths = (kc as unknown as {authenticators?: {execFn?: (...a: unknown[]) => ChildProcess}[]}).authenticators ?? []
  for (const a of auths) {
    const spawnFn = a.execFn
    if (typeof spawnFn !== 'function') continue
    a.execFn = (...args: unknown[]) => {
      const child = spawnFn(...args)
      children.add(child)
      child.once('close', () => children.delete(child))
      return child
    }
  }
  const bounded = (p: Promise<void>): Promise<void> => {
    if (timeoutMs <= 0) return p
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        for (const c of children) c.kill('SIGKILL')
        reject(fail(`did not finish within ${formatDuration(timeoutMs)} (--request-timeout); it was stopped`))
      }, timeoutMs)
      t.unref()
      p.then(
        (v) => (clearTimeout(t), resolve(v)),
        (e) => (clearTimeout(t), reject(e)),
      )
    })
  }
  kc.applySecurityAuthentication = async (rc) => {
    try {
      await bounded(apply(rc))
    } catch (e) {
      // Not the parser's message: it quotes the output, which may hold a credential.
      if (e instanceof SyntaxError) throw fail('printed something that is not ExecCredential JSON on stdout', e)
      if (e instanceof TypeError) throw fail('printed JSON that is not an ExecCredential (no "status" with a token or a client certificate)', e)
      throw e
    }
    const auth = rc.getHeaders().Authorization ?? rc.getHeaders().authorization
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters an HTTP header cannot carry
    if (auth !== undefined && /[\x00-\x08\x0a-\x1f\x7f]/.test(auth))
      throw fail('returned a token holding a line break or another control character, which no HTTP header can carry')
  }
}

/** The context names of the kubeconfig kubectl would use (shell completion of --context). */
export function listContextNames(opts: Pick<LoadKubeConfigOptions, 'kubeconfig'> = {}): string[] {
  const found = findFiles(opts)
  return found === 'in-cluster' ? [] : [...merge(found).contexts.keys()]
}
