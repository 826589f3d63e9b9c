// Where a command's objects come from: a snapshot file (--from-file) or the live cluster
// (--kubeconfig/--context/--request-timeout). The one place that checks the source rules and
// turns the source flags into a ClusterState, a KubeContext, or only the Nodes. The readers
// load on first use (docs/design.md "Startup"): this module itself imports nothing heavy.
import {CliError, ExitCode} from '../errors.js'
import {nameProblem} from '../state/select.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {DataPlane, DataPlaneName} from '../dataplane/types.js'
import type {KubeContext} from './kubeconfig.js'

export interface ConnectionFlagValues {
  kubeconfig?: string | undefined
  context?: string | undefined
  'request-timeout'?: string | undefined
}

export interface SourceFlagValues extends ConnectionFlagValues {
  namespace?: string | undefined
  'all-namespaces'?: boolean | undefined
  selector?: string | undefined
  'from-file'?: string | undefined
}

export interface SourceRequest {
  flags: SourceFlagValues
  serviceNames?: string[]
  /** Also read Events on the selected Services (live only; 'optional': see cluster/live.ts ReadOptions). */
  withEvents?: boolean | 'optional'
  /** Also read the Deployments and StatefulSets behind the Services (live only; see cluster/live.ts ReadOptions). */
  withWorkloads?: 'required' | 'optional' | undefined
  /** Also read the HorizontalPodAutoscalers and PodDisruptionBudgets (live only; see cluster/live.ts ReadOptions). */
  withScaling?: 'required' | 'optional' | undefined
  /** The command has no --from-file (snapshot): errors do not offer it. */
  liveOnly?: boolean
  /** Live only: use this connection instead of opening one from the flags. */
  ctx?: KubeContext
  /**
   * The data plane: 'detect' reads it (live: kube-system, calico-system and ovn-kubernetes
   * DaemonSets and their ConfigMaps, cluster/dataplane.ts; snapshot: what the file recorded, else "unknown"); a name
   * (--data-plane) is taken as given, nothing read. Undefined: not wanted.
   */
  dataPlane?: 'detect' | DataPlaneName | undefined
  /**
   * Live only: also read the meshes and gateways (cluster/routes.ts) into state.routes; their
   * warnings join `warnings`. A snapshot gives what it recorded, asked or not.
   */
  clientPaths?: boolean
}

export interface SourceResult {
  state: ClusterState
  /** Namespace the names refer to (flag, context, or "default"); undefined with -A. */
  namespace?: string
  source: 'live' | 'snapshot'
  warnings: string[]
  /** The connection used (live only). */
  ctx?: KubeContext
  /** When asked for (SourceRequest.dataPlane); its warnings are in `warnings` too. */
  dataPlane?: DataPlane
}

/** What `kubectl topology nodes` reads: only the Nodes (live: one list, nothing else). */
export type NodesResult = Pick<ClusterState, 'nodes' | 'nodesReadable' | 'inputNotes'>

/** The source rules, checked before any I/O: -A with names, --from-file with a connection flag. */
export function validateSource(flags: SourceFlagValues, serviceNames: readonly string[] = []): void {
  const bad = nameProblem({namespace: flags.namespace, names: serviceNames})
  if (bad !== null) throw new CliError(bad, ExitCode.USAGE)
  if (flags['all-namespaces'] && serviceNames.length > 0) {
    throw new CliError('a Service name cannot be combined with --all-namespaces: drop -A or the names', ExitCode.USAGE)
  }
  if (flags['from-file'] !== undefined && (flags.kubeconfig || flags.context)) {
    throw new CliError('--from-file reads a snapshot; --kubeconfig and --context apply only to a live cluster', ExitCode.USAGE)
  }
}

/**
 * The KubeContext of the connection flags. withNamespace: -n becomes the context's namespace
 * (the commands that write or watch one Service); the read commands leave it to the read.
 */
export async function connect(flags: ConnectionFlagValues & {namespace?: string | undefined}, opts: {withNamespace?: boolean; liveOnly?: boolean} = {}): Promise<KubeContext> {
  const flagProblem = nameProblem({namespace: flags.namespace})
  if (flagProblem !== null) throw new CliError(flagProblem, ExitCode.USAGE)
  const {loadKubeConfig, parseDuration} = await import('./kubeconfig.js')
  const ctx = await loadKubeConfig({
    kubeconfig: flags.kubeconfig,
    context: flags.context,
    ...(opts.liveOnly ? {liveOnly: true} : {}),
    ...(opts.withNamespace ? {namespace: flags.namespace} : {}),
    requestTimeoutMs: parseDuration(flags['request-timeout'] ?? '30s'),
  })
  // The context's own namespace goes into the same URLs and journal paths.
  const ctxProblem = nameProblem({namespace: ctx.namespace, namespaceFrom: `the namespace of context "${ctx.contextName}"`})
  if (ctxProblem !== null) throw new CliError(ctxProblem, ExitCode.KUBECONFIG)
  return ctx
}

/** Reads what the command needs, from a snapshot file or the live cluster; read: 'nodes' reads only the Nodes. */
export async function openSource(req: SourceRequest & {read: 'nodes'}): Promise<NodesResult>
export async function openSource(req: SourceRequest & {read?: 'state'}): Promise<SourceResult>
export async function openSource(req: SourceRequest & {read?: 'state' | 'nodes'}): Promise<SourceResult | NodesResult> {
  const {flags} = req
  const names = req.serviceNames ?? []
  validateSource(flags, names)
  if (flags['from-file'] !== undefined) {
    const {readSnapshotFile} = await import('./snapshot/snapshot.js')
    const state = await readSnapshotFile(flags['from-file'], req.read === 'nodes' ? 'nodes' : 'services')
    if (req.read === 'nodes') return state
    const result: SourceResult = {
      state,
      namespace: flags['all-namespaces'] ? undefined : await snapshotNamespace(flags.namespace),
      source: 'snapshot',
      warnings: [...(state.inputNotes ?? [])],
    }
    if (req.dataPlane !== undefined) result.dataPlane = await resolveDataPlane(req.dataPlane, state.dataPlane)
    return result
  }
  const ctx = req.ctx ?? (await connect(flags, {liveOnly: req.liveOnly === true}))
  if (req.read === 'nodes') {
    const {readNodes} = await import('./nodes.js')
    return readNodes(ctx)
  }
  // The data plane's and the meshes' reads go out with the state's lists, not after them (a
  // round trip or two less); each result is taken in the same order as before, the state's
  // first, so an error is the one it was.
  const planeP = req.dataPlane === 'detect' ? settle(import('./dataplane.js').then(({detectLiveDataPlane}) => detectLiveDataPlane(ctx))) : undefined
  const routesP = req.clientPaths ? settle(import('./routes.js').then(({readRoutesObjects}) => readRoutesObjects(ctx))) : undefined
  const {readClusterState} = await import('./live.js')
  const result = await readClusterState(ctx, {
    namespace: flags.namespace,
    allNamespaces: flags['all-namespaces'],
    labelSelector: flags.selector,
    serviceNames: names,
    withEvents: req.withEvents,
    withWorkloads: req.withWorkloads,
    withScaling: req.withScaling,
  })
  const out: SourceResult = {state: result, namespace: flags['all-namespaces'] ? undefined : result.namespace, source: 'live', warnings: result.warnings, ctx}
  if (planeP !== undefined) {
    // One more read path, only for the commands that ask: RBAC refusals become one warning.
    const plane = unwrap(await planeP)
    out.dataPlane = plane
    out.warnings = [...out.warnings, ...plane.warnings]
    result.dataPlane = plane
  } else if (req.dataPlane !== undefined) out.dataPlane = await resolveDataPlane(req.dataPlane, undefined)
  if (routesP !== undefined) {
    const {requests: _, ...routes} = unwrap(await routesP)
    result.routes = routes
    out.warnings = [...out.warnings, ...(routes.warnings ?? [])]
  }
  return out
}

/** A read started early, its failure kept (not an unhandled rejection) until the result is taken. */
type Settled<T> = {ok: true; v: T} | {ok: false; e: unknown}
const settle = <T>(p: Promise<T>): Promise<Settled<T>> =>
  p.then(
    (v) => ({ok: true, v}),
    (e: unknown) => ({ok: false, e}),
  )
function unwrap<T>(r: Settled<T>): T {
  if (!r.ok) throw r.e
  return r.v
}

/** -n, else the kubeconfig context's namespace (as for a live read, and as --help says), else "default". */
async function snapshotNamespace(flag: string | undefined): Promise<string> {
  if (flag !== undefined && flag !== '') return flag
  const {currentContextNamespace} = await import('./kubeconfig.js')
  return currentContextNamespace() ?? 'default'
}

/** A named data plane (--data-plane), or the one a snapshot recorded (source 'snapshot'), else "unknown". */
async function resolveDataPlane(want: 'detect' | DataPlaneName, recorded: DataPlane | undefined): Promise<DataPlane> {
  const [{dataPlaneFromFlag}, {unknownDataPlane, NOT_IN_SNAPSHOT}] = await Promise.all([import('../dataplane/detect.js'), import('../dataplane/describe.js')])
  if (want !== 'detect') return dataPlaneFromFlag(want)
  return recorded ? {...recorded, source: 'snapshot'} : unknownDataPlane(NOT_IN_SNAPSHOT)
}
