// The client layer every reader and writer of src/cluster/ goes through: the one place that
// pages a list (continue tokens, LIST_PAGE_SIZE items a page, like kubectl's --chunk-size),
// turns client-node's model objects into plain wire JSON, counts the requests a read sent and
// turns client-node's errors into one-line CliErrors that name what was being done.
//
// Requests are counted by the middleware loadKubeConfig puts into ctx.apiOptions (kubeconfig.ts);
// a Client reports how many were sent since it was made.

import {createHash} from 'node:crypto'
import {clip, toCliError, type ErrorContext} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import type {Deployment, EndpointSlice, EventObject, HorizontalPodAutoscaler, Node, PodDisruptionBudget, Service, StatefulSet} from '../upstream/api/types.js'
import {CliError, ExitCode} from '../errors.js'
import {PageAhead} from './page-ahead.js'

type K8s = typeof import('./k8s.js')
type Obj = Record<string, unknown>

/** Items per list page unless pageSize says otherwise (kubectl's chunk size). */
export const LIST_PAGE_SIZE = 500

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

/** A kind as client-node models it: the model's type name and the object's apiVersion and kind. */
export interface Model<T> {
  type: string
  apiVersion: string
  kind: string
  /** Only carries T. */
  readonly _t?: T
}

export const NODE: Model<Node> = {type: 'V1Node', apiVersion: 'v1', kind: 'Node'}
export const SERVICE: Model<Service> = {type: 'V1Service', apiVersion: 'v1', kind: 'Service'}
export const ENDPOINT_SLICE: Model<EndpointSlice> = {type: 'V1EndpointSlice', apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice'}
export const EVENT: Model<EventObject> = {type: 'CoreV1Event', apiVersion: 'v1', kind: 'Event'}
export const DEPLOYMENT: Model<Deployment> = {type: 'V1Deployment', apiVersion: 'apps/v1', kind: 'Deployment'}
export const STATEFUL_SET: Model<StatefulSet> = {type: 'V1StatefulSet', apiVersion: 'apps/v1', kind: 'StatefulSet'}
export const HPA: Model<HorizontalPodAutoscaler> = {type: 'V2HorizontalPodAutoscaler', apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler'}
export const PDB: Model<PodDisruptionBudget> = {type: 'V1PodDisruptionBudget', apiVersion: 'policy/v1', kind: 'PodDisruptionBudget'}

/** One page of a list, as wire objects. */
export interface Page<T> {
  items: T[]
  resourceVersion: string
  continue?: string
}

/** What client-node's list calls resolve with. */
export interface ModelList {
  items?: unknown[]
  metadata?: {resourceVersion?: string; _continue?: string}
}

/**
 * The lists a Client's list calls answered with the API server's own JSON (rawLists below):
 * their items are wire objects already, and their continue token is `metadata.continue`.
 */
const RAW_LISTS = new WeakSet<object>()

/** A raw list as the API server sends it. */
interface WireList {
  items?: Obj[]
  metadata?: {resourceVersion?: string; continue?: string}
}

/**
 * Makes every list call of a client-node API client answer a 2xx with the API server's JSON as
 * it came (parsed, nothing else), instead of client-node's model objects, which Client.wire
 * then serialized back into wire JSON. That round trip (ObjectSerializer.deserialize and
 * serialize of every object, and the copies and garbage between) was about a fifth of the
 * CPU time of `explain -A` on 2,000 Services (docs/design.md, "Reading a whole cluster"). The
 * request is sent as before (client-node's request factory, the middleware that counts requests
 * and sets --request-timeout, the transport of http.ts); any answer other than a 2xx goes to
 * client-node's own response processor, so errors are exactly what they were.
 *
 * The processor is the ObservableAPI's `responseProcessor` (client-node 2.0.1,
 * dist/gen/types/ObjectParamAPI.js: the object API's `api`), whose `list*WithHttpInfo` methods
 * are replaced on this instance only. If that shape ever changes, the client is left as it is
 * and lists take the model path (Client.page handles both).
 */
function rawLists(k8s: K8s, api: unknown): void {
  const observable = (api as {api?: {responseProcessor?: Record<string, unknown>}}).api
  const processor = observable?.responseProcessor
  if (observable === undefined || processor === undefined || processor === null) return
  const raw = Object.create(processor) as Record<string, unknown>
  for (let proto: object | null = processor; proto !== null && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const base = processor[name]
      if (!/^list\w*WithHttpInfo$/.test(name) || typeof base !== 'function' || Object.hasOwn(raw, name)) continue
      raw[name] = async (response: InstanceType<K8s['ResponseContext']>) => {
        if (response.httpStatusCode < 200 || response.httpStatusCode > 299) return (base as (r: unknown) => unknown).call(processor, response)
        const data = JSON.parse(await response.body.text()) as object
        if (data !== null && typeof data === 'object') RAW_LISTS.add(data)
        return new k8s.HttpInfo(response.httpStatusCode, response.headers, response.body, data)
      }
    }
  }
  observable.responseProcessor = raw
}

/** The list call of one resource: one page from the continue token (undefined: the first page). */
export type PageCall = (query: {limit: number; _continue: string | undefined}) => Promise<ModelList>

/**
 * The most pages one list may take: 10,000 pages of LIST_PAGE_SIZE (500) are 5 million objects,
 * well beyond the largest cluster Kubernetes' scalability thresholds describe (5,000 Nodes,
 * 150,000 Pods, 10,000 Services; sig-scalability configs-and-limits/thresholds.md). Pages can be
 * empty with a continue token (a field selector filters after paging), so the bound counts pages.
 */
export const MAX_LIST_PAGES = 10_000

/** A list that would never end: a continue token came back, or MAX_LIST_PAGES were read. */
function endlessList(what: string, why: string): CliError {
  return new CliError(`${what}: ${why}; the API server's list does not end (stopped paging): check the server, or the proxy in front of it`, ExitCode.UNREACHABLE)
}

/**
 * The continue-token loop: fetches pages until the server sends no continue token, handing
 * each to onPage as it arrives (so only one page of client-node's typed objects is alive at a
 * time), or until stopped() says so. A continue token that comes back (the server would send
 * the same pages forever: 20,700 requests in 60 s before) or more than MAX_LIST_PAGES pages end
 * it with an UNREACHABLE CliError naming `what`. Tokens are remembered by their hash.
 */
export async function forEachPage<T>(
  fetch: (cont: string | undefined) => Promise<Page<T>>,
  onPage: (page: Page<T>) => void,
  stopped: () => boolean = () => false,
  what = 'list',
): Promise<void> {
  const seen = new Set<string>()
  let cont: string | undefined
  for (let pages = 1; ; pages++) {
    const page = await fetch(cont)
    onPage(page)
    cont = page.continue || undefined
    if (!cont || stopped()) return
    const h = createHash('sha256').update(cont).digest('base64')
    if (seen.has(h)) throw endlessList(what, `page ${pages} came with the continue token "${clip(cont, 40)}" of an earlier page`)
    seen.add(h)
    if (pages >= MAX_LIST_PAGES) throw endlessList(what, `more than ${MAX_LIST_PAGES} pages`)
  }
}

/** The parts of a KubeContext error messages name. */
export function errorContext(ctx: KubeContext): ErrorContext {
  return {
    server: ctx.server,
    contextName: ctx.contextName,
    requestTimeoutMs: ctx.requestTimeoutMs,
    ...(ctx.execCommand ? {execCommand: ctx.execCommand} : {}),
    ...(ctx.proxy ? {proxy: ctx.proxy} : {}),
  }
}

/** The server's version without the "v" and build suffixes: "v1.36.3+k3s1" -> "1.36.3". */
export function normalizeServerVersion(info: {gitVersion?: string; major?: string; minor?: string}): string | undefined {
  // Each number at most four digits: a /version with more (1.99999999999999999999) is not a
  // Kubernetes release, and the version is then unknown (assumed current) rather than an error.
  const sane = (v: string) => (/^\d{1,4}(\.\d{1,4}){1,2}$/.test(v) ? v : undefined)
  const gitVersion = typeof info.gitVersion === 'string' ? info.gitVersion.slice(0, 64) : ''
  const m = /^v?(\d+\.\d+\.\d+)/.exec(gitVersion)
  if (m) return sane(m[1]!)
  // Digits with an optional "+" (GKE and EKS say minor "27+"); anything else is not a version.
  // Leading zeros are dropped as Go's strconv.Atoi drops them ("033" is minor 33, not 1.033).
  const num = (v: unknown) => {
    const d = typeof v === 'string' ? /^(\d{1,4})\+?$/.exec(v)?.[1] : undefined
    return d === undefined ? undefined : String(Number(d))
  }
  const major = num(info.major)
  const minor = num(info.minor)
  return major && minor ? sane(`${Number(major)}.${Number(minor)}`) : undefined
}

/** The API clients of one context, with the page size, error context and request count of one read. */
export class Client {
  readonly errCtx: ErrorContext
  private readonly startRequests: number
  private apis = new Map<unknown, unknown>()

  private constructor(
    readonly k8s: K8s,
    readonly ctx: KubeContext,
    /** Items per list page. */
    readonly limit: number,
  ) {
    this.errCtx = errorContext(ctx)
    this.startRequests = ctx.stats.requests
  }

  /** Loads client-node (lazily: only live code paths pay for it). */
  static async connect(ctx: KubeContext, opts: {pageSize?: number} = {}): Promise<Client> {
    return new Client(await import('./k8s.js'), ctx, opts.pageSize ?? LIST_PAGE_SIZE)
  }

  /** The request options (timeout, request counting) every call passes. */
  get options(): KubeContext['apiOptions'] {
    return this.ctx.apiOptions
  }

  /** HTTP requests sent to the API server since this client was made. */
  get requests(): number {
    return this.ctx.stats.requests - this.startRequests
  }

  private api<T>(ctor: new (...args: never[]) => T): T {
    let a = this.apis.get(ctor) as T | undefined
    if (a === undefined) {
      a = this.ctx.kc.makeApiClient(ctor as never) as T
      rawLists(this.k8s, a)
      this.apis.set(ctor, a)
    }
    return a
  }
  get core(): InstanceType<K8s['CoreV1Api']> {
    return this.api(this.k8s.CoreV1Api)
  }
  get apps(): InstanceType<K8s['AppsV1Api']> {
    return this.api(this.k8s.AppsV1Api)
  }
  get autoscaling(): InstanceType<K8s['AutoscalingV2Api']> {
    return this.api(this.k8s.AutoscalingV2Api)
  }
  get policy(): InstanceType<K8s['PolicyV1Api']> {
    return this.api(this.k8s.PolicyV1Api)
  }
  get discovery(): InstanceType<K8s['DiscoveryV1Api']> {
    return this.api(this.k8s.DiscoveryV1Api)
  }
  get authorization(): InstanceType<K8s['AuthorizationV1Api']> {
    return this.api(this.k8s.AuthorizationV1Api)
  }
  get version(): InstanceType<K8s['VersionApi']> {
    return this.api(this.k8s.VersionApi)
  }

  /** A client-node model object as plain wire JSON, with its apiVersion and kind. */
  wire<T>(model: Model<T>, obj: unknown): T {
    const serialized = this.k8s.ObjectSerializer.serialize(obj, model.type, '') as {metadata?: {managedFields?: unknown}} | undefined
    const out = {apiVersion: model.apiVersion, kind: model.kind, ...(clean(serialized) as object)} as {metadata?: Obj}
    // A Service keeps its managedFields: who owns its topology fields decides whether the
    // advice's `apply --mode` needs --force (advise/commands.ts takesOwnership); a snapshot
    // never records them (snapshot/write.ts).
    const managed = serialized?.metadata?.managedFields
    if (model.kind === 'Service' && Array.isArray(managed) && out.metadata) out.metadata.managedFields = managed.map((m) => clean(m))
    return out as T
  }

  /**
   * An item of a raw list (rawLists) as a wire object: its apiVersion and kind first (a list's
   * items carry neither), then its fields as the server sent them, without managedFields except
   * on a Service (as wire()).
   */
  wireItem<T>(model: Model<T>, item: Obj): T {
    const meta = item.metadata as Obj | undefined
    if (model.kind !== 'Service' && meta !== undefined && meta !== null && 'managedFields' in meta) {
      const {managedFields: _, ...rest} = meta
      return {apiVersion: model.apiVersion, kind: model.kind, ...item, metadata: rest} as T
    }
    return {apiVersion: model.apiVersion, kind: model.kind, ...item} as T
  }

  /** One list response as a page of wire objects. */
  page<T>(model: Model<T>, res: ModelList): Page<T> {
    if (RAW_LISTS.has(res)) {
      const w = res as WireList
      const items = w.items ?? []
      const out: Page<T> = {items: new Array<T>(items.length), resourceVersion: w.metadata?.resourceVersion ?? ''}
      for (let i = 0; i < items.length; i++) out.items[i] = this.wireItem(model, items[i]!)
      if (w.metadata?.continue) out.continue = w.metadata.continue
      return out
    }
    const out: Page<T> = {items: (res.items ?? []).map((i) => this.wire(model, i)), resourceVersion: res.metadata?.resourceVersion ?? ''}
    if (res.metadata?._continue) out.continue = res.metadata._continue
    return out
  }

  /** The page from a continue token, as wire objects (a reflector pages with it; list() too). */
  pager<T>(model: Model<T>, call: PageCall): (cont: string | undefined) => Promise<Page<T>> {
    return async (cont) => this.page(model, await call({limit: this.limit, _continue: cont}))
  }

  /**
   * Every item of a list, page by page, each page asked for as soon as the one before names it
   * (page-ahead.ts); a failure is a CliError naming `what` ("list nodes").
   */
  async list<T>(what: string, model: Model<T>, call: PageCall): Promise<T[]> {
    const out: T[] = []
    const pages = new PageAhead((cont) => call({limit: this.limit, _continue: cont}), MAX_LIST_PAGES)
    try {
      await forEachPage(
        async (cont) => this.page(model, await pages.fetch(cont)),
        (p) => {
          for (const item of p.items) out.push(item)
        },
        undefined,
        what,
      )
    } catch (e) {
      throw this.fail(e, what)
    } finally {
      pages.close()
    }
    return out
  }

  /** The error of a call as a CliError naming `what` ('get services "web" in namespace "shop"'). */
  fail(e: unknown, what: string): CliError {
    return toCliError(e, what, this.errCtx)
  }
}
