// Reading the cluster state explain needs from a live API server, with a constant number
// of list calls whatever the number of Services (Services named on the command line are
// read with one GET each, as kubectl does). The calls of each resource are in resources.ts,
// paging and wire conversion in client.ts; this file decides which Services are wanted
// (namespace, -A, -l, names), runs the reads and keeps what belongs to those Services.

import {CliError, ExitCode} from '../errors.js'
import type {Deployment, EndpointSlice, EventObject, HorizontalPodAutoscaler, Node, PodDisruptionBudget, Service, StatefulSet} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {LABEL_SERVICE_NAME} from '../upstream/api/types.js'
import {selectsTemplate} from '../simulate/workload.js'
import {Client} from './client.js'
import {apiStatusCode} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {
  assertNamespaceExists,
  getServices,
  listDeployments,
  listEndpointSlices,
  listHorizontalPodAutoscalers,
  listNodes,
  listPodDisruptionBudgets,
  listServiceEvents,
  listServices,
  listStatefulSets,
  readServerVersion,
  whereOf,
  type Scope,
} from './resources.js'

export {LIST_PAGE_SIZE, clean, normalizeServerVersion} from './client.js'

export interface ReadOptions {
  /** Overrides the context's namespace. */
  namespace?: string
  allNamespaces?: boolean
  /** -l: selects Services. */
  labelSelector?: string
  /** Services named on the command line (in `namespace`). */
  serviceNames?: string[]
  /** Items per list page (kubectl's chunk size is 500). */
  pageSize?: number
  /**
   * Also read Events on the selected Services (one list). 'optional': a 403 becomes a warning
   * and the state carries no Events (explain then infers the controller's mark from the hints).
   */
  withEvents?: boolean | 'optional'
  /**
   * Also read the Deployments and StatefulSets behind the selected Services (two lists).
   * 'required': a refusal is the command's error; 'optional': a 403 becomes a warning and
   * the state carries no workloads.
   */
  withWorkloads?: 'required' | 'optional'
  /**
   * Also read the HorizontalPodAutoscalers and PodDisruptionBudgets (two lists; kept in the
   * selected Services' namespaces). 'optional': a 403 on either becomes a warning and the
   * state carries none of that resource.
   */
  withScaling?: 'required' | 'optional'
}

export interface LiveClusterState extends ClusterState {
  warnings: string[]
  /** The namespace that was read (with -A: the context's namespace, unused). */
  namespace: string
  /** HTTP requests this call sent to the API server. */
  requests: number
}

/** Above this many distinct names, slices are listed with an existence selector and filtered locally. */
const MAX_NAMES_IN_SELECTOR = 100

const workloadsForbiddenWarning = (resources: string[], where: string) =>
  `cannot list ${resources.join(' and ')} ${where} (missing permission: list ${resources.map((r) => `${r}.apps`).join(', ')}); the snapshot holds no Deployments or StatefulSets (simulate --rollout from-workload needs them)`

const scalingForbiddenWarning = (resources: string[], where: string) =>
  `cannot list ${resources.join(' and ')} ${where} (missing permission: list ${resources.map((r) => (r === 'horizontalpodautoscalers' ? `${r}.autoscaling` : `${r}.policy`)).join(', ')}); plan assumes no ${resources.map((r) => (r === 'horizontalpodautoscalers' ? 'HPA' : 'PodDisruptionBudget')).join(' and no ')}`

const eventsForbiddenWarning = (where: string) =>
  `cannot list events ${where} (missing permission: list events); the controller's "hints populated" mark is inferred from the live hints, so the predicted Event may be off`

/** The API server refused the read for lack of permission (RBAC): an optional read becomes a warning. */
const isForbidden = (e: unknown): boolean => e instanceof CliError && apiStatusCode(e.cause) === 403

export const NODES_FORBIDDEN_WARNING = 'cannot list nodes (missing permission: list nodes, cluster-scoped); zone CPU shares and topology-mode Auto predictions are unavailable'

// ---- which Services -------------------------------------------------------------------------

/** The Services a read wants: by name, by label selector, or every one in scope. */
interface Selection {
  scope: Scope
  /** Named on the command line (distinct, in the order given). */
  names: string[]
  labelSelector: string | undefined
}

function resolveSelection(ctx: KubeContext, opts: ReadOptions): Selection {
  const scope: Scope = {namespace: opts.namespace || ctx.namespace, all: opts.allNamespaces === true}
  const names = [...new Set(opts.serviceNames ?? [])]
  if (scope.all && names.length > 0) {
    throw new CliError('a Service name cannot be combined with --all-namespaces: drop -A or the names', ExitCode.USAGE)
  }
  return {scope, names, labelSelector: opts.labelSelector || undefined}
}

/** The EndpointSlice selector for these Services: their names, or (too many) the label's existence. */
function sliceSelectorFor(svcNames: string[]): string {
  const unique = [...new Set(svcNames)].sort()
  return unique.length > 0 && unique.length <= MAX_NAMES_IN_SELECTOR ? `${LABEL_SERVICE_NAME} in (${unique.join(',')})` : LABEL_SERVICE_NAME
}

const key = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ''}/${name ?? ''}`

/** namespace/name of each Service, to keep what belongs to them. */
const selectedKeys = (services: Service[]) => new Set(services.map((s) => key(s.metadata.namespace, s.metadata.name)))

const slicesOf = (selected: Set<string>, slices: EndpointSlice[]) => slices.filter((s) => selected.has(key(s.metadata.namespace, s.metadata.labels?.[LABEL_SERVICE_NAME])))

const eventsOn = (selected: Set<string>, events: EventObject[]) =>
  events.filter((e) => e.involvedObject?.kind === 'Service' && selected.has(key(e.involvedObject.namespace, e.involvedObject.name)))

/** The workloads whose pod template a Service selects (in the workload's namespace). */
const workloadsBehind = <W extends Deployment | StatefulSet>(services: Service[], workloads: W[]) =>
  workloads.filter((w) => services.some((s) => (s.metadata.namespace ?? '') === (w.metadata.namespace ?? '') && selectsTemplate(s, w.spec?.template?.metadata?.labels)))

// ---- reads with their warnings --------------------------------------------------------------

type Settled<T> = {ok: true; v: T} | {ok: false; e: unknown}

// Independent reads run concurrently; errors are reported in a fixed order (Services
// first) so the message does not depend on which response arrived first.
async function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  try {
    return {ok: true, v: await p}
  } catch (e) {
    return {ok: false, e}
  }
}
function unwrap<T>(r: Settled<T>): T {
  if (!r.ok) throw r.e
  return r.v
}
const none = <T>(): Promise<Settled<T[]>> => Promise.resolve({ok: true, v: []})

/** The Nodes; without permission to list them, none and a warning. */
async function readNodesOrWarn(c: Client, warnings: string[]): Promise<{nodes: Node[]; readable: boolean}> {
  try {
    return {nodes: await listNodes(c), readable: true}
  } catch (e) {
    if (isForbidden(e)) {
      warnings.push(NODES_FORBIDDEN_WARNING)
      return {nodes: [], readable: false}
    }
    throw e
  }
}

async function readVersionOrWarn(c: Client, warnings: string[]): Promise<string | undefined> {
  const {version, refused} = await readServerVersion(c)
  if (refused !== undefined) warnings.push(`cannot read the server version (HTTP ${refused}); version-specific behaviour is assumed to be current`)
  return version
}

/**
 * Deployments and StatefulSets: all of the scope, page by page (kept when a selected Service
 * selects their pod template, by the caller). 'optional': a 403 on either is a warning and
 * undefined.
 */
async function readWorkloads(
  c: Client,
  scope: Scope,
  mode: 'required' | 'optional',
  warnings: string[],
): Promise<{deployments: Deployment[]; statefulSets: StatefulSet[]} | undefined> {
  const both = await Promise.allSettled([listDeployments(c, scope), listStatefulSets(c, scope)])
  const [d, s] = both
  const forbidden = (r: PromiseSettledResult<unknown>) => r.status === 'rejected' && isForbidden(r.reason)
  if (mode === 'optional' && (forbidden(d) || forbidden(s))) {
    for (const r of both) if (r.status === 'rejected' && !forbidden(r)) throw r.reason
    warnings.push(
      workloadsForbiddenWarning(
        [forbidden(d) ? 'deployments' : '', forbidden(s) ? 'statefulsets' : ''].filter((x) => x !== ''),
        whereOf(scope),
      ),
    )
    return undefined
  }
  if (d.status === 'rejected') throw d.reason
  if (s.status === 'rejected') throw s.reason
  return {deployments: d.value, statefulSets: s.value}
}

/**
 * HorizontalPodAutoscalers and PodDisruptionBudgets of the scope, one list each. 'optional': a
 * 403 on one is a warning and that resource is left undefined (not read).
 */
async function readScaling(
  c: Client,
  scope: Scope,
  mode: 'required' | 'optional',
  warnings: string[],
): Promise<{hpas: HorizontalPodAutoscaler[] | undefined; pdbs: PodDisruptionBudget[] | undefined}> {
  const [h, p] = await Promise.allSettled([listHorizontalPodAutoscalers(c, scope), listPodDisruptionBudgets(c, scope)])
  const forbidden = (r: PromiseSettledResult<unknown>) => mode === 'optional' && r.status === 'rejected' && isForbidden(r.reason)
  for (const r of [h, p]) if (r.status === 'rejected' && !forbidden(r)) throw r.reason
  const refused = [forbidden(h) ? 'horizontalpodautoscalers' : '', forbidden(p) ? 'poddisruptionbudgets' : ''].filter((x) => x !== '')
  if (refused.length > 0) warnings.push(scalingForbiddenWarning(refused, whereOf(scope)))
  return {hpas: h.status === 'fulfilled' ? h.value : undefined, pdbs: p.status === 'fulfilled' ? p.value : undefined}
}

/**
 * The selected Services, the EndpointSlices that may belong to them and (withEvents) the
 * Service Events in scope, read concurrently where the selection allows.
 */
async function readServices(
  c: Client,
  sel: Selection,
  withEvents: boolean | 'optional',
  warnings: string[],
): Promise<{services: Service[]; slices: EndpointSlice[]; events: EventObject[] | null}> {
  const {scope, names, labelSelector} = sel
  // null: not readable ('optional' and a 403, with a warning).
  const listEvents = async (): Promise<EventObject[] | null> => {
    try {
      return await listServiceEvents(c, scope)
    } catch (e) {
      if (withEvents !== 'optional' || !isForbidden(e)) throw e
      warnings.push(eventsForbiddenWarning(whereOf(scope)))
      return null
    }
  }
  const events = () => (withEvents ? settle(listEvents()) : none<EventObject>())
  if (names.length > 0) {
    // Names are known: fetch the Services and their slices (one list) at the same time.
    const [svc, sl, ev] = await Promise.all([settle(getServices(c, scope.namespace, names)), settle(listEndpointSlices(c, scope, sliceSelectorFor(names))), events()])
    return {services: unwrap(svc), slices: unwrap(sl), events: unwrap(ev)}
  }
  if (labelSelector === undefined) {
    // Every Service in scope: slices with the service-name label, grouped locally.
    const [svc, sl, ev] = await Promise.all([settle(listServices(c, scope, undefined)), settle(listEndpointSlices(c, scope, LABEL_SERVICE_NAME)), events()])
    return {services: unwrap(svc), slices: unwrap(sl), events: unwrap(ev)}
  }
  // -l: the selected Services decide which slices are needed.
  const services = await listServices(c, scope, labelSelector)
  if (services.length === 0) return {services, slices: [], events: []}
  const ev = events()
  const sl = await settle(listEndpointSlices(c, scope, sliceSelectorFor(services.map((s) => s.metadata.name))))
  return {services, slices: unwrap(sl), events: unwrap(await ev)}
}

// ---- the entry point ------------------------------------------------------------------------

export async function readClusterState(ctx: KubeContext, opts: ReadOptions = {}): Promise<LiveClusterState> {
  const c = await Client.connect(ctx, {pageSize: opts.pageSize})
  const sel = resolveSelection(ctx, opts)
  const {scope} = sel
  const warnings: string[] = []

  const nodesP = settle(readNodesOrWarn(c, warnings))
  const versionP = settle(readVersionOrWarn(c, warnings))
  const workloadsP = opts.withWorkloads ? settle(readWorkloads(c, scope, opts.withWorkloads, warnings)) : undefined
  const scalingP = opts.withScaling ? settle(readScaling(c, scope, opts.withScaling, warnings)) : undefined

  const {services, slices, events} = await readServices(c, sel, opts.withEvents ?? false, warnings)
  if (services.length === 0 && !scope.all) await assertNamespaceExists(c, scope.namespace)

  const {nodes, readable} = unwrap(await nodesP)
  const serverVersion = unwrap(await versionP)

  const selected = selectedKeys(services)
  const state: LiveClusterState = {
    nodes,
    services,
    endpointSlices: slicesOf(selected, slices),
    nodesReadable: readable,
    warnings,
    namespace: scope.namespace,
    requests: 0,
  }
  if (serverVersion !== undefined) state.serverVersion = serverVersion
  const workloads = workloadsP === undefined ? undefined : unwrap(await workloadsP)
  if (workloads !== undefined) {
    state.deployments = workloadsBehind(services, workloads.deployments)
    state.statefulSets = workloadsBehind(services, workloads.statefulSets)
  }
  const scaling = scalingP === undefined ? undefined : unwrap(await scalingP)
  if (scaling !== undefined) {
    const namespaces = new Set(services.map((s) => s.metadata.namespace ?? ''))
    const inScope = <T extends {metadata: {namespace?: string}}>(xs: T[]) => xs.filter((x) => namespaces.has(x.metadata.namespace ?? ''))
    if (scaling.hpas !== undefined) state.horizontalPodAutoscalers = inScope(scaling.hpas)
    if (scaling.pdbs !== undefined) state.podDisruptionBudgets = inScope(scaling.pdbs)
  }
  if (opts.withEvents && events !== null) state.events = eventsOn(selected, events)
  state.requests = c.requests
  return state
}
