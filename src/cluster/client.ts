// The client layer every reader and writer of src/cluster/ goes through: the one place that
// pages a list (continue tokens, LIST_PAGE_SIZE items a page, like kubectl's --chunk-size),
// turns client-node's model objects into plain wire JSON, counts the requests a read sent and
// turns client-node's errors into one-line CliErrors that name what was being done.
//
// Requests are counted by the middleware loadKubeConfig puts into ctx.apiOptions (kubeconfig.ts);
// a Client reports how many were sent since it was made.

import {toCliError, type ErrorContext} from './errors.js'
import type {KubeContext} from './kubeconfig.js'
import type {Deployment, EndpointSlice, EventObject, HorizontalPodAutoscaler, Node, PodDisruptionBudget, Service, StatefulSet} from '../upstream/api/types.js'
import type {CliError} from '../errors.js'

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

/** The list call of one resource: one page from the continue token (undefined: the first page). */
export type PageCall = (query: {limit: number; _continue: string | undefined}) => Promise<ModelList>

/**
 * The continue-token loop: fetches pages until the server sends no continue token, handing
 * each to onPage as it arrives (so only one page of client-node's typed objects is alive at a
 * time), or until stopped() says so.
 */
export async function forEachPage<T>(fetch: (cont: string | undefined) => Promise<Page<T>>, onPage: (page: Page<T>) => void, stopped: () => boolean = () => false): Promise<void> {
  let cont: string | undefined
  do {
    const page = await fetch(cont)
    onPage(page)
    cont = page.continue || undefined
  } while (cont && !stopped())
}

/** The parts of a KubeContext error messages name. */
function errorContext(ctx: KubeContext): ErrorContext {
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
  const m = /^v?(\d+\.\d+\.\d+)/.exec(info.gitVersion ?? '')
  if (m) return m[1]
  // Strictly digits, with the "+" some providers add ("33+" on GKE and EKS): a minor of
  // "33\e[2J" lost its non-digits and read as 1.332 (issue 20). As apimachinery's
  // version.ParseGeneric, anything else is no version.
  const major = /^(\d{1,4})$/.exec(info.major ?? '')?.[1]
  const minor = /^(\d{1,4})\+?$/.exec(info.minor ?? '')?.[1]
  return major !== undefined && minor !== undefined ? `${Number(major)}.${Number(minor)}` : undefined
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
    return {apiVersion: model.apiVersion, kind: model.kind, ...(clean(this.k8s.ObjectSerializer.serialize(obj, model.type, '')) as object)} as T
  }

  /** One list response as a page of wire objects. */
  page<T>(model: Model<T>, res: ModelList): Page<T> {
    const out: Page<T> = {items: (res.items ?? []).map((i) => this.wire(model, i)), resourceVersion: res.metadata?.resourceVersion ?? ''}
    if (res.metadata?._continue) out.continue = res.metadata._continue
    return out
  }

  /** The page from a continue token, as wire objects (a reflector pages with it; list() too). */
  pager<T>(model: Model<T>, call: PageCall): (cont: string | undefined) => Promise<Page<T>> {
    return async (cont) => this.page(model, await call({limit: this.limit, _continue: cont}))
  }

  /** Every item of a list, page by page; a failure is a CliError naming `what` ("list nodes"). */
  async list<T>(what: string, model: Model<T>, call: PageCall): Promise<T[]> {
    const out: T[] = []
    try {
      await forEachPage(this.pager(model, call), (p) => {
        for (const item of p.items) out.push(item)
      })
    } catch (e) {
      throw this.fail(e, what)
    }
    return out
  }

  /** The error of a call as a CliError naming `what` ('get services "web" in namespace "shop"'). */
  fail(e: unknown, what: string): CliError {
    return toCliError(e, what, this.errCtx)
  }
}
