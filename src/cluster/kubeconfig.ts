// Loading a kubeconfig the way kubectl does, and the per-request options (timeout,
// request counter) every API call in src/cluster uses.
//
// Why not just `kc.loadFromDefault()`: client-node 2.0.1 throws on names defined in two
// KUBECONFIG files (kubectl keeps the first), lets the last file's current-context win
// unless asked otherwise, silently targets http://localhost:8080 when there is no
// kubeconfig at all, reads every user's token-file eagerly (one broken, unrelated user
// breaks everything) and refuses http:// servers that kubectl accepts. So the files are
// read and merged (kubeconfig-files.ts) with kubectl's rules (first definition of a name
// wins, the first file that sets current-context wins, relative paths resolve against the
// file that holds them) and client-node gets a config holding only the selected context,
// its cluster and its user. Exec credential plugins stay client-node's job. --request-timeout
// values are parsed in duration.ts, the options and the context's types are in
// kubeconfig-types.ts (all re-exported here).

import type {ChildProcess} from 'node:child_process'
import path from 'node:path'
import {CliError, ExitCode} from '../errors.js'
import {installTransport} from './http.js'
import {proxyFromEnvironment} from './env-proxy.js'
import {checkProxyUrl} from './proxy.js'
import {inClusterTokenFile, rotateTokenFile} from './token-file.js'
import type {ConfigurationOptions, KubeConfig, RequestContext, ResponseContext} from './k8s.js'
import {findFiles, inlineFiles, isObj, kubeconfigError, listNames, merge, redactServer, userCredentials, type Obj} from './kubeconfig-files.js'
import type {KubeContext, LoadKubeConfigOptions, RequestStats} from './kubeconfig-types.js'
import {formatDuration} from './duration.js'

export type {KubeContext, LoadKubeConfigOptions, RequestStats} from './kubeconfig-types.js'
export {formatDuration, parseDuration} from './duration.js'
export {redactServer} from './kubeconfig-files.js'

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
