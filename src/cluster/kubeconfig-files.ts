// Reading and merging kubeconfig files with kubectl's rules (kubeconfig.ts says why): which files,
// the first definition of a name wins, relative paths resolve against the file that holds them,
// certificate and token files read bounded (files.ts).

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {parse as parseYaml, YAMLParseError} from 'yaml'
import {CliError, ExitCode} from '../errors.js'
import {describeFileError, readFileBounded, readTextBounded} from './files.js'
import type {LoadKubeConfigOptions} from './kubeconfig-types.js'

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

export const kubeconfigError = (msg: string, cause?: unknown) => new CliError(msg, ExitCode.KUBECONFIG, cause === undefined ? undefined : {cause})

/** What to do without a kubeconfig; --from-file only for the commands that have it (not snapshot, watch). */
const noKubeconfig = (opts: LoadKubeConfigOptions) =>
  `no kubeconfig found: set KUBECONFIG${opts.liveOnly ? ' or pass --kubeconfig' : ', pass --kubeconfig, or use --from-file to read a snapshot'}`

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface Named {
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

export function merge(files: string[]): Merged {
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

export function findFiles(opts: LoadKubeConfigOptions): string[] | 'in-cluster' {
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

export function listNames(names: Iterable<string>): string {
  const all = [...names].sort()
  if (all.length === 0) return 'none'
  const shown = all.slice(0, 10).join(', ')
  return all.length > 10 ? `${shown}, … (${all.length} in total)` : shown
}

/**
 * Certificate files read here, bounded (files.ts: type and size checked first, at most 16 MiB),
 * and handed to client-node as their `-data` keys: client-node would read /dev/zero whole. A
 * file that does not exist is left to client-node, which reports it when a request needs it.
 */
export function inlineFiles(value: Obj, keys: [file: string, data: string][], owner: string): void {
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
export function userCredentials(user: Named): {value: Obj; tokenFile?: {file: string; token: string}} {
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
