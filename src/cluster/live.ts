// Reading the cluster state explain needs from a live API server, with a constant number
// of list calls whatever the number of Services (Services named on the command line are
// read with one GET each, as kubectl does).

import {CliError, ExitCode} from '../errors.js'
import type {Deployment, EndpointSlice, EventObject, Node, Service, StatefulSet} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {LABEL_SERVICE_NAME} from '../upstream/api/types.js'
import {selectsTemplate} from '../simulate/workload.js'
import {apiStatusCode, toCliError, type ErrorContext} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import {didYouMean} from './suggest.js'

/** Items per list page unless pageSize says otherwise (kubectl's chunk size). */
export const LIST_PAGE_SIZE = 500

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
  /** Also read Events on the selected Services (one list). */
  withEvents?: boolean
  /**
   * Also read the Deployments and StatefulSets behind the selected Services (two lists).
   * 'required': a refusal is the command's error; 'optional': a 403 becomes a warning and
   * the state carries no workloads.
   */
  withWorkloads?: 'required' | 'optional'
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

export const workloadsForbiddenWarning = (resources: string[], where: string) =>
  `cannot list ${resources.join(' and ')} ${where} (missing permission: list ${resources.map((r) => `${r}.apps`).join(', ')}); the snapshot holds no Deployments or StatefulSets (simulate --rollout from-workload needs them)`

export const NODES_FORBIDDEN_WARNING =
  'cannot list nodes (missing permission: list nodes, cluster-scoped); zone CPU shares and topology-mode Auto predictions are unavailable'

interface ListPage<T> {
  items: T[]
  metadata?: {_continue?: string}
}

type Obj = Record<string, unknown>

const WHOLE_SECOND = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.000Z$/

/**
 * Makes client-node's serialized model plain wire JSON: drops undefined fields and
 * managedFields (kubectl hides them too), and prints whole-second timestamps the way the
 * API server does ("…:05Z", not "…:05.000Z"). Label and annotation values are left alone.
 */
export function clean(v: unknown, key = ''): unknown {
  if (v === undefined || v === null) return v
  if (typeof v === 'string') return WHOLE_SECOND.test(v) ? v.replace(WHOLE_SECOND, '$1Z') : v
  if (Array.isArray(v)) return v.map((x) => clean(x))
  if (typeof v === 'object') {
    if (v instanceof Date) return clean(v.toISOString())
    if (key === 'labels' || key === 'annotations') return {...(v as Obj)}
    const out: Obj = {}
    for (const [k, x] of Object.entries(v as Obj)) {
      if (x === undefined || k === 'managedFields') continue
      out[k] = clean(x, k)
    }
    return out
  }
  return v
}

/** The server's version without the "v" and build suffixes: "v1.36.3+k3s1" -> "1.36.3". */
export function normalizeServerVersion(info: {gitVersion?: string; major?: string; minor?: string}): string | undefined {
  const m = /^v?(\d+\.\d+\.\d+)/.exec(info.gitVersion ?? '')
  if (m) return m[1]
  const major = (info.major ?? '').replace(/\D/g, '')
  const minor = (info.minor ?? '').replace(/\D/g, '')
  return major && minor ? `${major}.${minor}` : undefined
}

export async function readClusterState(ctx: KubeContext, opts: ReadOptions = {}): Promise<LiveClusterState> {
  const k8s = await import('./k8s.js')
  const core = ctx.kc.makeApiClient(k8s.CoreV1Api)
  const apps = ctx.kc.makeApiClient(k8s.AppsV1Api)
  const disc = ctx.kc.makeApiClient(k8s.DiscoveryV1Api)
  const version = ctx.kc.makeApiClient(k8s.VersionApi)
  const o = ctx.apiOptions
  const startRequests = ctx.stats.requests
  const ns = opts.namespace || ctx.namespace
  const all = opts.allNamespaces === true
  const limit = opts.pageSize ?? LIST_PAGE_SIZE
  const labelSelector = opts.labelSelector || undefined
  const names = [...new Set(opts.serviceNames ?? [])]
  const warnings: string[] = []
  const errCtx: ErrorContext = {
    server: ctx.server,
    contextName: ctx.contextName,
    requestTimeoutMs: ctx.requestTimeoutMs,
    ...(ctx.execCommand ? {execCommand: ctx.execCommand} : {}),
  }
  if (all && names.length > 0) {
    throw new CliError('a Service name cannot be combined with --all-namespaces: drop -A or the names', ExitCode.USAGE)
  }
  const where = all ? 'in all namespaces' : `in namespace "${ns}"`

  const serialize = <T>(obj: unknown, type: string, apiVersion: string, kind: string): T => {
    const wire = clean(k8s.ObjectSerializer.serialize(obj, type, '')) as Obj
    return {apiVersion, kind, ...wire} as T
  }

  async function listAll<T>(what: string, page: (cont: string | undefined) => Promise<ListPage<T>>): Promise<T[]> {
    const out: T[] = []
    let cont: string | undefined
    try {
      do {
        const res = await page(cont)
        out.push(...(res.items ?? []))
        cont = res.metadata?._continue || undefined
      } while (cont)
    } catch (e) {
      throw toCliError(e, what, errCtx)
    }
    return out
  }

  // ---- the calls ------------------------------------------------------------------------

  const readNodes = async (): Promise<{nodes: Node[]; readable: boolean}> => {
    try {
      const nodes = await listAll('list nodes', (c) =>
        core.listNode({limit, _continue: c}, o).then((res) => ({items: res.items.map((n) => serialize<Node>(n, 'V1Node', 'v1', 'Node')), metadata: res.metadata})),
      )
      return {nodes, readable: true}
    } catch (e) {
      if (e instanceof CliError && apiStatusCode(e.cause) === 403) {
        warnings.push(NODES_FORBIDDEN_WARNING)
        return {nodes: [], readable: false}
      }
      throw e
    }
  }

  const readVersion = async (): Promise<string | undefined> => {
    try {
      return normalizeServerVersion(await version.getCode({}, o))
    } catch (e) {
      const code = apiStatusCode(e)
      if (code === 403 || code === 404 || code === 401) {
        if (code === 401) throw toCliError(e, 'read the server version', errCtx)
        warnings.push(`cannot read the server version (HTTP ${code}); version-specific behaviour is assumed to be current`)
        return undefined
      }
      throw toCliError(e, 'read the server version', errCtx)
    }
  }

  const listServices = (selector: string | undefined) =>
    all
      ? listAll(`list services ${where}`, (c) =>
          core.listServiceForAllNamespaces({labelSelector: selector, limit, _continue: c}, o),
        )
      : listAll(`list services ${where}`, (c) =>
          core.listNamespacedService({namespace: ns, labelSelector: selector, limit, _continue: c}, o),
        )

  // Each page is turned into wire objects as it arrives, so client-node's typed objects of one
  // page at a time are alive, not those of every page (peak memory at scale: bench/scale.mjs).
  const wireSlices = (res: {items: unknown[]; metadata?: {_continue?: string}}): ListPage<EndpointSlice> => ({
    items: res.items.map((s) => serialize<EndpointSlice>(s, 'V1EndpointSlice', 'discovery.k8s.io/v1', 'EndpointSlice')),
    metadata: res.metadata,
  })
  const listSlices = (selector: string) =>
    all
      ? listAll(`list endpointslices ${where}`, (c) =>
          disc.listEndpointSliceForAllNamespaces({labelSelector: selector, limit, _continue: c}, o).then(wireSlices),
        )
      : listAll(`list endpointslices ${where}`, (c) =>
          disc.listNamespacedEndpointSlice({namespace: ns, labelSelector: selector, limit, _continue: c}, o).then(wireSlices),
        )

  const listEvents = () => {
    const fieldSelector = 'involvedObject.kind=Service'
    return all
      ? listAll(`list events ${where}`, (c) =>
          core.listEventForAllNamespaces({fieldSelector, limit, _continue: c}, o),
        )
      : listAll(`list events ${where}`, (c) =>
          core.listNamespacedEvent({namespace: ns, fieldSelector, limit, _continue: c}, o),
        )
  }

  // Deployments and StatefulSets: all of the namespace (or cluster with -A), page by page,
  // kept when their pod template is selected by a selected Service (below).
  const listWorkloads = async (): Promise<{deployments: Deployment[]; statefulSets: StatefulSet[]} | undefined> => {
    const wire = <T>(type: string, kind: string) => (res: {items: unknown[]; metadata?: {_continue?: string}}): ListPage<T> => ({
      items: res.items.map((x) => serialize<T>(x, type, 'apps/v1', kind)),
      metadata: res.metadata,
    })
    const both = await Promise.allSettled([
      listAll(`list deployments ${where}`, (c) =>
        (all ? apps.listDeploymentForAllNamespaces({limit, _continue: c}, o) : apps.listNamespacedDeployment({namespace: ns, limit, _continue: c}, o)).then(wire<Deployment>('V1Deployment', 'Deployment')),
      ),
      listAll(`list statefulsets ${where}`, (c) =>
        (all ? apps.listStatefulSetForAllNamespaces({limit, _continue: c}, o) : apps.listNamespacedStatefulSet({namespace: ns, limit, _continue: c}, o)).then(wire<StatefulSet>('V1StatefulSet', 'StatefulSet')),
      ),
    ])
    const [d, s] = both
    const forbidden = (r: PromiseSettledResult<unknown>) => r.status === 'rejected' && r.reason instanceof CliError && apiStatusCode(r.reason.cause) === 403
    if (opts.withWorkloads === 'optional' && (forbidden(d) || forbidden(s))) {
      for (const r of both) if (r.status === 'rejected' && !forbidden(r)) throw r.reason
      warnings.push(workloadsForbiddenWarning([forbidden(d) ? 'deployments' : '', forbidden(s) ? 'statefulsets' : ''].filter((x) => x !== ''), where))
      return undefined
    }
    if (d.status === 'rejected') throw d.reason
    if (s.status === 'rejected') throw s.reason
    return {deployments: d.value, statefulSets: s.value}
  }

  const sliceSelectorFor = (svcNames: string[]): string => {
    const unique = [...new Set(svcNames)].sort()
    return unique.length > 0 && unique.length <= MAX_NAMES_IN_SELECTOR
      ? `${LABEL_SERVICE_NAME} in (${unique.join(',')})`
      : LABEL_SERVICE_NAME
  }

  const getNamedServices = async (): Promise<Service[]> => {
    const results = await Promise.allSettled(
      names.map((name) => core.readNamespacedService({name, namespace: ns}, o)),
    )
    const missing: string[] = []
    const found: Service[] = []
    results.forEach((r, i) => {
      if (r.status === 'fulfilled') found.push(serialize<Service>(r.value, 'V1Service', 'v1', 'Service'))
      else if (apiStatusCode(r.reason) === 404) missing.push(names[i]!)
    })
    const failed = results.find((r) => r.status === 'rejected' && apiStatusCode(r.reason) !== 404)
    if (failed && failed.status === 'rejected') {
      const i = results.indexOf(failed)
      throw toCliError(failed.reason, `get services "${names[i]}" in namespace "${ns}"`, errCtx)
    }
    if (missing.length > 0) {
      const existing = (await listServices(undefined)).map((s) => s.metadata?.name ?? '')
      if (existing.length === 0) await assertNamespaceExists()
      const quoted = missing.map((n) => `"${n}"`).join(', ')
      const hint = missing.length === 1 ? didYouMean(missing[0]!, existing) : ''
      throw new CliError(`services ${quoted} not found in namespace "${ns}"${hint}`, ExitCode.NOT_FOUND)
    }
    return found
  }

  const assertNamespaceExists = async (): Promise<void> => {
    try {
      await core.readNamespace({name: ns}, o)
    } catch (e) {
      const code = apiStatusCode(e)
      if (code === 404) throw new CliError(`namespace "${ns}" not found`, ExitCode.NOT_FOUND, {cause: e})
      if (code === 403) return // cannot tell; an empty namespace is not an error
      throw toCliError(e, `get namespace "${ns}"`, errCtx)
    }
  }

  // ---- orchestration --------------------------------------------------------------------

  // Independent reads run concurrently; errors are reported in a fixed order (Services
  // first) so the message does not depend on which response arrived first.
  const settle = async <T>(p: Promise<T>): Promise<{ok: true; v: T} | {ok: false; e: unknown}> => {
    try {
      return {ok: true, v: await p}
    } catch (e) {
      return {ok: false, e}
    }
  }
  const unwrap = <T>(r: {ok: true; v: T} | {ok: false; e: unknown}): T => {
    if (!r.ok) throw r.e
    return r.v
  }

  const nodesP = settle(readNodes())
  const versionP = settle(readVersion())
  const workloadsP = opts.withWorkloads ? settle(listWorkloads()) : undefined

  let services: Service[]
  let rawSlices: EndpointSlice[]
  let rawEvents: unknown[] = []
  if (names.length > 0) {
    // Names are known: fetch the Services and their slices (one list) at the same time.
    const [svc, sl, ev] = await Promise.all([
      settle(getNamedServices()),
      settle(listSlices(sliceSelectorFor(names))),
      opts.withEvents ? settle(listEvents()) : Promise.resolve({ok: true as const, v: [] as unknown[]}),
    ])
    services = unwrap(svc)
    rawSlices = unwrap(sl)
    rawEvents = unwrap(ev)
  } else if (labelSelector === undefined) {
    // Every Service in scope: slices with the service-name label, grouped locally.
    const [svc, sl, ev] = await Promise.all([
      settle(listServices(undefined)),
      settle(listSlices(LABEL_SERVICE_NAME)),
      opts.withEvents ? settle(listEvents()) : Promise.resolve({ok: true as const, v: [] as unknown[]}),
    ])
    services = unwrap(svc).map((s) => serialize<Service>(s, 'V1Service', 'v1', 'Service'))
    rawSlices = unwrap(sl)
    rawEvents = unwrap(ev)
  } else {
    // -l: the selected Services decide which slices are needed.
    services = (await listServices(labelSelector)).map((s) => serialize<Service>(s, 'V1Service', 'v1', 'Service'))
    if (services.length > 0) {
      const ev = opts.withEvents ? settle(listEvents()) : Promise.resolve({ok: true as const, v: [] as unknown[]})
      const sl = await settle(listSlices(sliceSelectorFor(services.map((s) => s.metadata.name))))
      rawSlices = unwrap(sl)
      rawEvents = unwrap(await ev)
    } else {
      rawSlices = []
    }
  }

  if (services.length === 0 && !all) await assertNamespaceExists()

  const {nodes, readable} = unwrap(await nodesP)
  const serverVersion = unwrap(await versionP)

  const key = (namespace: string | undefined, name: string | undefined) => `${namespace ?? ''}/${name ?? ''}`
  const selected = new Set(services.map((s) => key(s.metadata.namespace, s.metadata.name)))
  const endpointSlices = rawSlices.filter((s) => selected.has(key(s.metadata.namespace, s.metadata.labels?.[LABEL_SERVICE_NAME])))
  const state: LiveClusterState = {
    nodes,
    services,
    endpointSlices,
    nodesReadable: readable,
    warnings,
    namespace: ns,
    requests: 0,
  }
  if (serverVersion !== undefined) state.serverVersion = serverVersion
  const workloads = workloadsP === undefined ? undefined : unwrap(await workloadsP)
  if (workloads !== undefined) {
    const behind = (w: Deployment | StatefulSet) =>
      services.some((s) => (s.metadata.namespace ?? '') === (w.metadata.namespace ?? '') && selectsTemplate(s, w.spec?.template?.metadata?.labels))
    state.deployments = workloads.deployments.filter(behind)
    state.statefulSets = workloads.statefulSets.filter(behind)
  }
  if (opts.withEvents) {
    state.events = rawEvents
      .map((e) => serialize<EventObject>(e, 'CoreV1Event', 'v1', 'Event'))
      .filter((e) => e.involvedObject?.kind === 'Service' && selected.has(key(e.involvedObject.namespace, e.involvedObject.name)))
  }
  state.requests = ctx.stats.requests - startRequests
  return state
}
