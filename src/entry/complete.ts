// Shell completion for kubectl's plugin completion (kubectl >= 1.26): kubectl runs
// `kubectl_complete-topology ARGS... WORD`, which runs `kubectl-topology __complete ARGS... WORD`.
// The answer is cobra's protocol: one candidate per line ("value\tdescription"), then
// ":DIRECTIVE". Candidates come from the oclif manifest (subcommands, flags, option values)
// and, for Service names, namespaces and zones, from the cluster or the --from-file snapshot.
//
// Handled before help and oclif (src/entry/dispatch.ts): a `--help` already on the command line
// must not turn completion into help, and completion loads neither oclif nor the command
// classes. It never fails loudly: any error (no kubeconfig, cluster down, RBAC) means fewer
// candidates, exit 0, nothing on stderr; a short request timeout keeps TAB responsive.

import {LABEL_ZONE} from '../upstream/api/types.js'
import {STRATEGIES} from '../simulate/names.js'

/** cobra.ShellCompDirective bits. */
const Directive = {
  Default: 0,
  Error: 1,
  NoSpace: 2,
  NoFileComp: 4,
  FilterFileExt: 8,
  FilterDirs: 16,
  KeepOrder: 32,
} as const

/** The parts of an oclif flag definition completion reads. */
export interface FlagMeta {
  char?: string
  type: 'boolean' | 'option'
  description?: string
  summary?: string
  options?: readonly string[]
  hidden?: boolean
}

/** The parts of an oclif command class completion reads. */
export interface CommandMeta {
  summary?: string
  description?: string
  hidden?: boolean
  aliases?: string[]
  flags?: Record<string, FlagMeta>
}

export type Needed = 'services' | 'namespaces' | 'zones' | 'contexts' | 'traffic'

/** `word` is the word under the cursor: only candidates starting with it are printed. */
export type Plan = {kind: 'static'; items: string[]; directive: number; word?: string} | {kind: 'dynamic'; what: Needed; prefix: string; partial: string; directive: number}

/** What the command line says about where to read from (flags typed so far). */
export interface Source {
  kubeconfig?: string
  context?: string
  namespace?: string
  allNamespaces?: boolean
  fromFile?: string
}

const HELP_FLAG: FlagMeta = {type: 'boolean', char: 'h', description: 'Show help.'}
/** Flags whose value is a file: let the shell complete paths. */
const FILE_FLAGS = new Set(['kubeconfig', 'from-file', 'file', 'filename', 'output-file'])

const firstLine = (s: string | undefined) => (s ?? '').split('\n')[0]!.trim()
const describe = (value: string, text: string | undefined) => {
  const d = firstLine(text).replace(/\t/g, ' ')
  return d ? `${value}\t${d}` : value
}

/** Resolves a flag word (`--name`, `-n`) of a command to its name and definition. */
function findFlag(flags: Record<string, FlagMeta>, word: string): [string, FlagMeta] | undefined {
  if (word.startsWith('--')) {
    const name = word.slice(2)
    return flags[name] ? [name, flags[name]] : undefined
  }
  if (word.startsWith('-') && word.length === 2) {
    const entry = Object.entries(flags).find(([, f]) => f.char === word[1])
    return entry
  }
  return undefined
}

/**
 * Decides what to complete. `args` are the words after `kubectl topology`, the last one being
 * the word under the cursor ('' after a space). Pure: no I/O.
 */
function plan(args: string[], commands: Record<string, CommandMeta>): {plan: Plan; source: Source} {
  const words = args.length === 0 ? [''] : args
  const cur = words[words.length - 1]!
  const before = words.slice(0, -1)
  const source: Source = {}
  const result = (p: Plan) => ({plan: p.kind === 'static' ? {...p, word: cur} : p, source})

  if (before.length === 0) {
    if (cur.startsWith('-')) {
      return result({kind: 'static', items: ['--help\tShow help.', '--version\tShow the version.'], directive: Directive.NoFileComp})
    }
    const items = Object.entries(commands)
      .filter(([id, c]) => !c.hidden && !id.startsWith('_'))
      .map(([id, c]) => describe(id, c.summary ?? c.description))
      .sort()
    return result({kind: 'static', items, directive: Directive.NoFileComp})
  }

  const id = before[0]!
  const command = commands[id] ?? Object.values(commands).find((c) => c.aliases?.includes(id))
  if (!command) return result({kind: 'static', items: [], directive: Directive.NoFileComp})
  const flags: Record<string, FlagMeta> = {...command.flags, help: HELP_FLAG}

  // Read the flags typed so far; find whether `cur` is the value of the flag before it.
  let pending: [string, FlagMeta] | undefined
  const record = (name: string, value: string | true) => {
    if (name === 'kubeconfig' && typeof value === 'string') source.kubeconfig = value
    if (name === 'context' && typeof value === 'string') source.context = value
    if (name === 'namespace' && typeof value === 'string') source.namespace = value
    if (name === 'from-file' && typeof value === 'string') source.fromFile = value
    if (name === 'all-namespaces') source.allNamespaces = true
  }
  for (const w of before.slice(1)) {
    if (pending) {
      record(pending[0], w)
      pending = undefined
      continue
    }
    if (w === '--') break
    if (!w.startsWith('-') || w === '-') continue
    const eq = w.indexOf('=')
    if (w.startsWith('--') && eq > 0) {
      const f = findFlag(flags, w.slice(0, eq))
      if (f) record(f[0], w.slice(eq + 1))
      continue
    }
    if (!w.startsWith('--') && w.length > 2) {
      // -nshop (short flag with its value attached)
      const f = findFlag(flags, w.slice(0, 2))
      if (f) record(f[0], f[1].type === 'boolean' ? true : w.slice(2))
      continue
    }
    const f = findFlag(flags, w)
    if (!f) continue
    if (f[1].type === 'boolean') record(f[0], true)
    else pending = f
  }

  const valuePlan = (name: string, f: FlagMeta, prefix: string, partial: string): Plan => {
    if (f.options?.length) {
      return {kind: 'static', items: f.options.map((o) => `${prefix}${o}`), directive: Directive.NoFileComp}
    }
    if (FILE_FLAGS.has(name)) return {kind: 'static', items: [], directive: Directive.Default}
    if (name === 'namespace') return {kind: 'dynamic', what: 'namespaces', prefix, partial, directive: Directive.NoFileComp}
    if (name === 'context') return {kind: 'dynamic', what: 'contexts', prefix, partial, directive: Directive.NoFileComp}
    if (name === 'traffic') return {kind: 'dynamic', what: 'traffic', prefix, partial, directive: Directive.NoFileComp | Directive.NoSpace}
    if (name === 'strategies') {
      // simulate --strategies a,b,...: the names after the last comma (STRATEGY_ALIASES stay hidden).
      const head = partial.slice(0, partial.lastIndexOf(',') + 1)
      return {kind: 'static', items: STRATEGIES.map((s) => `${prefix}${head}${s}`), directive: Directive.NoFileComp | Directive.NoSpace}
    }
    if (/(^|-)zones?$/.test(name)) return {kind: 'dynamic', what: 'zones', prefix, partial, directive: Directive.NoFileComp}
    return {kind: 'static', items: [], directive: Directive.NoFileComp}
  }

  if (pending) return result(valuePlan(pending[0], pending[1], '', cur))

  if (cur.startsWith('--') && cur.includes('=')) {
    const eq = cur.indexOf('=')
    const f = findFlag(flags, cur.slice(0, eq))
    if (f && f[1].type === 'option') return result(valuePlan(f[0], f[1], cur.slice(0, eq + 1), cur.slice(eq + 1)))
    return result({kind: 'static', items: [], directive: Directive.NoFileComp})
  }

  if (cur.startsWith('-')) {
    const items: string[] = []
    for (const [name, f] of Object.entries(flags).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (f.hidden) continue
      items.push(describe(`--${name}`, f.summary ?? f.description))
      if (cur.length === 1 && f.char) items.push(describe(`-${f.char}`, f.summary ?? f.description))
    }
    return result({kind: 'static', items, directive: Directive.NoFileComp})
  }

  // A positional word: commands that select Services (they have -l/--selector) take Service names.
  if (flags.selector && !source.allNamespaces) {
    const slash = cur.indexOf('/')
    const prefix = slash >= 0 ? cur.slice(0, slash + 1) : ''
    if (slash >= 0 && !['svc/', 'service/', 'services/'].includes(prefix.toLowerCase())) {
      return result({kind: 'static', items: [], directive: Directive.NoFileComp})
    }
    return result({kind: 'dynamic', what: 'services', prefix, partial: cur.slice(prefix.length), directive: Directive.NoFileComp})
  }
  return result({kind: 'static', items: [], directive: Directive.NoFileComp})
}

const TIMEOUT_MS = 3000

async function readFacts(what: Needed, source: Source): Promise<string[]> {
  if (what === 'contexts') {
    const {listContextNames} = await import('../cluster/kubeconfig.js')
    return listContextNames({kubeconfig: source.kubeconfig})
  }
  if (source.fromFile !== undefined && source.fromFile !== '-') {
    const {readSnapshotFile} = await import('../cluster/snapshot/snapshot.js')
    const state = await readSnapshotFile(source.fromFile, 'objects')
    if (what === 'zones' || what === 'traffic') return state.nodes.map((n) => n.metadata.labels?.[LABEL_ZONE] ?? '').filter(Boolean)
    if (what === 'namespaces') return state.services.map((s) => s.metadata.namespace ?? 'default')
    // As the commands read --from-file: -n, else the kubeconfig context's namespace, else default.
    const ns = source.namespace ?? (await import('../cluster/kubeconfig.js')).currentContextNamespace() ?? 'default'
    return state.services.filter((s) => (s.metadata.namespace ?? 'default') === ns).map((s) => s.metadata.name)
  }
  const {loadKubeConfig} = await import('../cluster/kubeconfig.js')
  const ctx = await loadKubeConfig({kubeconfig: source.kubeconfig, context: source.context, namespace: source.namespace, requestTimeoutMs: TIMEOUT_MS})
  const k8s = await import('../cluster/k8s.js')
  const core = ctx.kc.makeApiClient(k8s.CoreV1Api)
  if (what === 'zones' || what === 'traffic') {
    const list = await core.listNode({labelSelector: LABEL_ZONE}, ctx.apiOptions)
    return list.items.map((n) => n.metadata?.labels?.[LABEL_ZONE] ?? '').filter(Boolean)
  }
  if (what === 'namespaces') {
    const list = await core.listNamespace({}, ctx.apiOptions)
    return list.items.map((n) => n.metadata?.name ?? '').filter(Boolean)
  }
  const list = await core.listNamespacedService({namespace: ctx.namespace}, ctx.apiOptions)
  return list.items.map((s) => s.metadata?.name ?? '').filter(Boolean)
}

/** Turns a plan and the names read into cobra's output lines. */
function formatCompletion(p: Plan, names: string[] = []): string {
  let items: string[]
  let word: string
  if (p.kind === 'static') {
    items = p.items
    word = p.word ?? ''
  } else if (p.what === 'traffic') {
    // --traffic zone-a=0.5,zone-b=0.3: complete the zone of the last entry, then "=".
    const comma = p.partial.lastIndexOf(',')
    const head = p.partial.slice(0, comma + 1)
    const taken = new Set(head.split(',').map((e) => e.split('=')[0]))
    items = [...new Set(names)]
      .filter((z) => !taken.has(z))
      .sort()
      .map((z) => `${p.prefix}${head}${z}=`)
    word = p.prefix + p.partial
  } else {
    items = [...new Set(names)].sort().map((n) => `${p.prefix}${n}`)
    word = p.prefix + p.partial
  }
  items = items.filter((i) => i.startsWith(word))
  return `${items.join('\n')}${items.length ? '\n' : ''}:${p.directive}\n`
}

/** Entry point: prints the completion for `args` and never throws. */
export async function complete(args: string[], commands: Record<string, CommandMeta>): Promise<void> {
  let out: string
  try {
    const {plan: p, source} = plan(args, commands)
    let names: string[] = []
    if (p.kind === 'dynamic') {
      try {
        names = await readFacts(p.what, source)
      } catch {
        names = []
      }
    }
    out = formatCompletion(p, names)
  } catch {
    out = `:${Directive.NoFileComp}\n`
  }
  process.stdout.write(out)
}
