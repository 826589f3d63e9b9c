// Flags every command shares, in kubectl's words, and the one place that turns flags into
// a ClusterState (live cluster or snapshot file). Commands stay thin: parse -> read -> engine -> render.
import {Command} from '@oclif/core/command'
import * as Flags from '@oclif/core/flags'
import {decideColorLevel, type ColorMode} from '../render/colors.js'
import {CliError, ExitCode} from '../errors.js'
import type {ClusterState} from '../state/cluster-state.js'
import {makeStyle, type Style} from '../render/style.js'

export const connectionFlags = {
  kubeconfig: Flags.string({description: 'Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config).', helpGroup: 'CLUSTER'}),
  context: Flags.string({description: 'The name of the kubeconfig context to use.', helpGroup: 'CLUSTER'}),
  'request-timeout': Flags.string({
    description: 'How long to wait for each API request ("30s", "1m", "0" = no limit).',
    default: '30s',
    helpGroup: 'CLUSTER',
  }),
}

export const readFlags = {
  ...connectionFlags,
  namespace: Flags.string({char: 'n', description: 'Namespace (default: the context\'s namespace, else "default").', helpGroup: 'CLUSTER'}),
  'all-namespaces': Flags.boolean({char: 'A', description: 'All Services in all namespaces.', default: false}),
  selector: Flags.string({char: 'l', description: 'Label selector for Services (=, ==, !=, in, notin).'}),
  'from-file': Flags.string({
    char: 'f',
    description: 'Read a snapshot file instead of a live cluster ("-" for stdin): `kubectl get nodes,services,endpointslices -A -o yaml` output, or `kubectl topology snapshot` output.',
  }),
  'kube-version': Flags.string({
    description: 'Behave as this Kubernetes version (e.g. 1.33). Default: the API server\'s version; the newest known for snapshots.',
  }),
}

export const commonFlags = {
  color: Flags.option({options: ['auto', 'always', 'never'] as const, default: 'auto' as const, description: 'When to colour the output. NO_COLOR is honoured in auto mode.'})(),
  debug: Flags.boolean({description: 'Print stack traces and request details on errors.', default: false, hidden: false}),
}

export abstract class TopologyCommand extends Command {
  style(mode: ColorMode, stream: NodeJS.WriteStream = process.stdout): Style {
    return makeStyle(decideColorLevel(mode, process.env, Boolean(stream.isTTY)))
  }

  /** Data goes to stdout. */
  out(text: string): void {
    process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** Diagnostics go to stderr. */
  note(text: string): void {
    process.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
  }
}

/** svc/NAME, service/NAME, services/NAME, `svc NAME`, or bare names -> Service names. */
export function parseServiceArgs(argv: string[]): string[] {
  const names: string[] = []
  let expectName = false
  for (const raw of argv) {
    const arg = raw.trim()
    if (arg === '') continue
    const lower = arg.toLowerCase()
    if (['svc', 'service', 'services'].includes(lower)) {
      expectName = true
      continue
    }
    const slash = arg.indexOf('/')
    if (slash >= 0) {
      const kind = arg.slice(0, slash).toLowerCase()
      const name = arg.slice(slash + 1)
      if (!['svc', 'service', 'services'].includes(kind)) {
        throw new CliError(`unsupported resource type "${arg.slice(0, slash)}": only Services are explained (use svc/NAME)`, ExitCode.USAGE)
      }
      if (!name) throw new CliError(`missing Service name in "${arg}": use svc/NAME`, ExitCode.USAGE)
      names.push(name)
      continue
    }
    names.push(arg)
    expectName = false
  }
  if (expectName && names.length === 0) throw new CliError('missing Service name after "svc": use svc/NAME or svc NAME', ExitCode.USAGE)
  for (const n of names) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n) || n.length > 63) {
      throw new CliError(`invalid Service name "${n}": a Service name is a DNS label (lowercase letters, digits and "-")`, ExitCode.USAGE)
    }
  }
  return [...new Set(names)]
}

export interface ReadRequest {
  flags: {
    kubeconfig?: string
    context?: string
    'request-timeout'?: string
    namespace?: string
    'all-namespaces'?: boolean
    selector?: string
    'from-file'?: string
  }
  serviceNames: string[]
  withEvents?: boolean
  /** Also read the Deployments and StatefulSets behind the Services (live only; see ReadOptions). */
  withWorkloads?: 'required' | 'optional'
}

export interface ReadResult {
  state: ClusterState
  /** Namespace the names refer to (flag, context, or "default"); undefined with -A. */
  namespace?: string
  source: 'live' | 'snapshot'
  warnings: string[]
}

/** Reads what the command needs, from a snapshot file or the live cluster. */
export async function readState(req: ReadRequest): Promise<ReadResult> {
  const {flags} = req
  if (flags['all-namespaces'] && req.serviceNames.length > 0) {
    throw new CliError('a Service name cannot be combined with --all-namespaces: drop -A or the names', ExitCode.USAGE)
  }
  if (flags['from-file'] !== undefined) {
    if (flags.kubeconfig || flags.context) {
      throw new CliError('--from-file reads a snapshot; --kubeconfig and --context apply only to a live cluster', ExitCode.USAGE)
    }
    const {readSnapshotFile} = await import('../cluster/snapshot/snapshot.js')
    const state = await readSnapshotFile(flags['from-file'])
    return {state, namespace: flags['all-namespaces'] ? undefined : (flags.namespace ?? 'default'), source: 'snapshot', warnings: []}
  }
  const [{loadKubeConfig, parseDuration}, {readClusterState}] = await Promise.all([
    import('../cluster/kubeconfig.js'),
    import('../cluster/live.js'),
  ])
  const ctx = await loadKubeConfig({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    requestTimeoutMs: parseDuration(flags['request-timeout'] ?? '30s'),
  })
  const result = await readClusterState(ctx, {
    namespace: flags.namespace,
    allNamespaces: flags['all-namespaces'],
    labelSelector: flags.selector,
    serviceNames: req.serviceNames,
    withEvents: req.withEvents,
    withWorkloads: req.withWorkloads,
  })
  return {
    state: result,
    namespace: flags['all-namespaces'] ? undefined : result.namespace,
    source: 'live',
    warnings: result.warnings,
  }
}
