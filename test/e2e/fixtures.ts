// Fixtures for the end-to-end tests: objects in the real control plane started by
// scripts/cluster.mjs (KUBECONFIG points at it), and a wait for the real EndpointSlice
// controller's output.
//
// There is no kubelet, scheduler, namespace or garbage-collection controller: Nodes and
// Pods are plain API objects whose status the fixtures write themselves, Namespaces never
// finish deleting (use fresh names: createNamespace()), and Nodes are cluster-scoped and
// shared by every test file (files run one at a time; call deleteAllNodes() first).
//
// Everything returned is plain wire-format JSON (timestamps are strings), typed with the
// engine's types.

import {
  ApiException,
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  DiscoveryV1Api,
  KubeConfig,
  PatchStrategy,
  PolicyV1Api,
  Watch,
  setHeaderOptions,
  type V1Pod,
  type V1Service,
} from '@kubernetes/client-node'
import {randomBytes} from 'node:crypto'
import {LIST_PAGE_SIZE} from '../../src/cluster/live.js'
import {
  CONTROLLER_NAME,
  LABEL_HOSTNAME,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_ZONE,
  type EndpointHints,
  type EndpointSlice,
  type EventObject,
  type Node,
  type Service,
  type ServicePort,
} from '../../src/upstream/api/types.js'

/** The component name the EndpointSlice controller records its Events with. */
export const EVENT_SOURCE = 'endpoint-slice-controller'

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// ---- connection ---------------------------------------------------------------------------

/**
 * KubeConfig from $KUBECONFIG with the given context ('admin' or 'readonly', as written by
 * scripts/cluster.mjs). Refuses anything but a loopback server: deleteAllNodes() must never
 * reach a real cluster.
 */
export function kubeConfig(context = 'admin'): KubeConfig {
  if (!process.env.KUBECONFIG) {
    throw new Error('KUBECONFIG is not set: run `npm run cluster:up` and `eval "$(npm run -s cluster:env)"`, or `npm run test:e2e`')
  }
  const kc = new KubeConfig()
  kc.loadFromDefault()
  if (!kc.getContexts().some((c) => c.name === context)) {
    throw new Error(
      `context ${context} not in ${process.env.KUBECONFIG} (have: ${kc
        .getContexts()
        .map((c) => c.name)
        .join(', ')})`,
    )
  }
  kc.setCurrentContext(context)
  const server = kc.getCurrentCluster()?.server ?? ''
  if (!/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(server)) {
    throw new Error(`refusing to run e2e fixtures against ${server}: only the local control plane (127.0.0.1) is allowed`)
  }
  return kc
}

/** Recursively turns client-node's Date objects into RFC 3339 strings and drops undefined. */
export function plain<T>(v: unknown): T {
  const walk = (x: unknown): unknown => {
    if (x instanceof Date) return x.toISOString()
    if (Array.isArray(x)) return x.map(walk)
    if (x && typeof x === 'object') {
      const out: Record<string, unknown> = {}
      for (const [k, val] of Object.entries(x)) if (val !== undefined) out[k] = walk(val)
      return out
    }
    return x
  }
  return walk(v) as T
}

/** HTTP status of a client-node error (ApiException), or undefined. */
export function statusOf(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined
}

// ---- fixtures -----------------------------------------------------------------------------

export interface NodeOptions {
  name: string
  /** topology.kubernetes.io/zone; omitted when undefined. */
  zone?: string
  /** status.allocatable.cpu (and capacity); default '4'. */
  cpu?: string | number
  /** Ready condition True (default) / False; null: no Ready condition at all. */
  ready?: boolean | null
  labels?: Record<string, string>
  /**
   * status.addresses InternalIP; default nodeAddress(name), in TEST-NET-1. Only ever written
   * into the API object, never contacted: kube-proxy waits (30 s) for its Node to have an IP
   * before it starts, and takes its primary IP family from it.
   */
  internalIP?: string
}

/**
 * A documentation address (TEST-NET-1, 192.0.2.0/24, RFC 5737) for a Node name: stable per
 * name, only written into Node objects, never contacted.
 */
function nodeAddress(name: string): string {
  let h = 0
  for (const ch of name) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0
  return `192.0.2.${(h % 254) + 1}`
}

export interface PodOptions {
  namespace: string
  name: string
  labels: Record<string, string>
  nodeName: string
  ip: string
  ready: boolean
  /** Delete with a long grace period: deletionTimestamp is set and (no kubelet) the Pod stays. */
  terminating?: boolean
  /** Container ports, for Services with named targetPorts. */
  ports?: {name?: string; containerPort: number; protocol?: string}[]
}

export interface ServiceOptions {
  namespace: string
  name: string
  selector?: Record<string, string>
  labels?: Record<string, string>
  annotations?: Record<string, string>
  trafficDistribution?: string
  publishNotReadyAddresses?: boolean
  /** Default: one TCP port `http` 80 -> 8080. */
  ports?: ServicePort[]
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer' | 'ExternalName'
  internalTrafficPolicy?: 'Cluster' | 'Local'
  externalTrafficPolicy?: 'Cluster' | 'Local'
  clusterIP?: string
  externalName?: string
  ipFamilyPolicy?: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack'
  ipFamilies?: ('IPv4' | 'IPv6')[]
}

export interface ExpectedEndpoint {
  ip: string
  ready: boolean
  /** Compared only when given. */
  serving?: boolean
  terminating?: boolean
}

/** One address of an EndpointSlice endpoint, flattened. */
export interface SeenEndpoint {
  ip: string
  ready: boolean
  serving: boolean
  terminating: boolean
  zone: string | null
  nodeName: string | null
  hints: EndpointHints | null
}

export interface Reconciled {
  /** The controller's EndpointSlices for the Service, by name. */
  slices: EndpointSlice[]
  /** All their endpoints, one entry per address, sorted by address. */
  endpoints: SeenEndpoint[]
  /** Events on the Service, sorted as listEvents() does. */
  events: EventObject[]
}

export interface WaitOptions {
  namespace: string
  service: string
  /** Exactly these endpoints (by address; ready and, when given, serving/terminating). */
  expectedEndpoints: ExpectedEndpoint[]
  /** true: some Event from the EndpointSlice controller on the Service; a string: one with that reason. */
  expectEvent?: boolean | string
  /** An extra condition on what was seen (e.g. hints present). */
  until?: (r: Reconciled) => boolean
  /** Overall bound; default 90 s (a loaded CI machine; it only costs time when failing). */
  timeoutMs?: number
}

export class Cluster {
  readonly kc: KubeConfig
  readonly core: CoreV1Api
  readonly discovery: DiscoveryV1Api

  constructor(readonly context = 'admin') {
    this.kc = kubeConfig(context)
    this.core = this.kc.makeApiClient(CoreV1Api)
    this.discovery = this.kc.makeApiClient(DiscoveryV1Api)
  }

  /** Creates a fresh namespace `<prefix>-<random>` and returns its name. */
  async createNamespace(prefix = 'e2e'): Promise<string> {
    const name = `${prefix
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-')
      .slice(0, 40)}-${randomBytes(4).toString('hex')}`
    await this.core.createNamespace({body: {metadata: {name}}})
    return name
  }

  /**
   * Creates a Node with its status (allocatable CPU, Ready condition, InternalIP) in one request: the API
   * server keeps a Node's status on create (a kubelet registers that way), so no watcher (the
   * controller, `watch`) ever sees it without its status first. Should a server drop the
   * status on create, it is written in a second request.
   */
  async createNode(o: NodeOptions): Promise<Node> {
    const labels: Record<string, string> = {[LABEL_HOSTNAME]: o.name, ...(o.zone !== undefined ? {[LABEL_ZONE]: o.zone} : {}), ...o.labels}
    const cpu = String(o.cpu ?? '4')
    const resources = {cpu, memory: '16Gi', pods: '110'}
    const now = new Date().toISOString()
    const ready = o.ready === undefined ? true : o.ready
    const conditions =
      ready === null
        ? []
        : [
            {
              type: 'Ready',
              status: ready ? 'True' : 'False',
              reason: ready ? 'KubeletReady' : 'KubeletNotReady',
              message: 'set by the e2e fixtures',
              lastHeartbeatTime: now,
              lastTransitionTime: now,
            },
          ]
    const addresses = [
      {type: 'InternalIP', address: o.internalIP ?? nodeAddress(o.name)},
      {type: 'Hostname', address: o.name},
    ]
    const status = {capacity: resources, allocatable: resources, conditions, addresses}
    // client-node serializes a V1Node's times from Date objects.
    const typed = {...status, conditions: conditions.map((c) => ({...c, lastHeartbeatTime: new Date(now), lastTransitionTime: new Date(now)}))}
    const created = await this.core.createNode({body: {metadata: {name: o.name, labels}, status: typed}})
    if (
      created.status?.allocatable?.cpu !== undefined &&
      (created.status.conditions?.length ?? 0) === conditions.length &&
      (created.status.addresses?.length ?? 0) === addresses.length
    )
      return plain<Node>(created)
    const node = await this.core.patchNodeStatus({name: o.name, body: {status}}, mergePatch)
    return plain<Node>(node)
  }

  /** Deletes every Node and waits (bounded) until none is left. */
  async deleteAllNodes(timeoutMs = 60_000): Promise<void> {
    await this.core.deleteCollectionNode({})
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const left = await this.core.listNode({})
      if (left.items.length === 0) return
      if (Date.now() > deadline) throw new Error(`Nodes still present after ${timeoutMs} ms: ${left.items.map((n) => n.metadata?.name).join(', ')}`)
      await sleep(100)
    }
  }

  /**
   * Creates a Pod bound to nodeName, then writes its status (Running, podIP/podIPs, Ready
   * condition): the API server resets status on create. With terminating, the Pod is then
   * deleted with a one-hour grace period, so it keeps a deletionTimestamp.
   */
  async createPod(o: PodOptions): Promise<V1Pod> {
    const container = {name: 'app', image: 'registry.invalid/e2e/app:1', ...(o.ports ? {ports: o.ports} : {})}
    await this.core.createNamespacedPod({
      namespace: o.namespace,
      body: {metadata: {name: o.name, labels: o.labels}, spec: {nodeName: o.nodeName, containers: [container]}},
    })
    const now = new Date().toISOString()
    const cond = (type: string, ok: boolean) => ({type, status: ok ? 'True' : 'False', lastTransitionTime: now})
    let pod = await this.core.patchNamespacedPodStatus(
      {
        name: o.name,
        namespace: o.namespace,
        body: {
          status: {
            phase: 'Running',
            podIP: o.ip,
            podIPs: [{ip: o.ip}],
            startTime: now,
            conditions: [cond('PodScheduled', true), cond('Initialized', true), cond('ContainersReady', o.ready), cond('Ready', o.ready)],
          },
        },
      },
      mergePatch,
    )
    if (o.terminating) {
      pod = await this.core.deleteNamespacedPod({name: o.name, namespace: o.namespace, gracePeriodSeconds: 3600})
      if (!pod.metadata?.deletionTimestamp) throw new Error(`Pod ${o.namespace}/${o.name} was deleted at once instead of terminating`)
    }
    return plain<V1Pod>(pod)
  }

  async createService(o: ServiceOptions): Promise<Service> {
    const spec: Record<string, unknown> = {
      type: o.type ?? 'ClusterIP',
      ports: o.ports ?? [{name: 'http', port: 80, targetPort: 8080, protocol: 'TCP'}],
    }
    if (o.selector) spec.selector = o.selector
    if (o.trafficDistribution !== undefined) spec.trafficDistribution = o.trafficDistribution
    if (o.publishNotReadyAddresses !== undefined) spec.publishNotReadyAddresses = o.publishNotReadyAddresses
    if (o.internalTrafficPolicy !== undefined) spec.internalTrafficPolicy = o.internalTrafficPolicy
    if (o.externalTrafficPolicy !== undefined) spec.externalTrafficPolicy = o.externalTrafficPolicy
    if (o.clusterIP !== undefined) spec.clusterIP = o.clusterIP
    if (o.externalName !== undefined) spec.externalName = o.externalName
    if (o.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = o.ipFamilyPolicy
    if (o.ipFamilies !== undefined) spec.ipFamilies = o.ipFamilies
    if (o.type === 'ExternalName') delete spec.ports
    const body = {metadata: {name: o.name, labels: o.labels, annotations: o.annotations}, spec} as V1Service
    return plain<Service>(await this.core.createNamespacedService({namespace: o.namespace, body}))
  }

  /**
   * Events whose involvedObject is the Service, sorted by (lastTimestamp, resourceVersion).
   * Not only the EndpointSlice controller's: the API server's ClusterIP repair loop, for one,
   * may record ClusterIPNotAllocated on a new Service. Pass {source: EVENT_SOURCE} for the
   * controller's alone.
   */
  async listEvents(namespace: string, service: string, opts: {source?: string} = {}): Promise<EventObject[]> {
    const list = await this.core.listNamespacedEvent({namespace, fieldSelector: serviceEventSelector(service)})
    const events = list.items.map((e) => plain<EventObject>(e))
    return sortEvents(opts.source === undefined ? events : events.filter((e) => eventSource(e) === opts.source))
  }

  /** The EndpointSlice controller's slices for a Service. */
  async listEndpointSlices(namespace: string, service: string): Promise<EndpointSlice[]> {
    const list = await this.discovery.listNamespacedEndpointSlice({namespace, labelSelector: sliceSelector(service)})
    return list.items.map((s) => plain<EndpointSlice>(s)).sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
  }

  /**
   * Waits until the controller's EndpointSlices for the Service hold exactly the expected
   * endpoints (and, with expectEvent, the controller has recorded an Event on the Service).
   * List+watch on both; bounded by timeoutMs; on timeout the error shows what was seen.
   */
  async waitForReconciled(o: WaitOptions): Promise<Reconciled> {
    const timeoutMs = o.timeoutMs ?? 90_000
    const slices = new ListWatcher<EndpointSlice>(
      this.kc,
      `/apis/discovery.k8s.io/v1/namespaces/${o.namespace}/endpointslices`,
      {labelSelector: sliceSelector(o.service)},
      async () => {
        const l = await this.discovery.listNamespacedEndpointSlice({namespace: o.namespace, labelSelector: sliceSelector(o.service)})
        return {items: l.items.map((s) => plain<EndpointSlice>(s)), resourceVersion: l.metadata?.resourceVersion}
      },
    )
    const events = new ListWatcher<EventObject>(this.kc, `/api/v1/namespaces/${o.namespace}/events`, {fieldSelector: serviceEventSelector(o.service)}, async () => {
      const l = await this.core.listNamespacedEvent({namespace: o.namespace, fieldSelector: serviceEventSelector(o.service)})
      return {items: l.items.map((e) => plain<EventObject>(e)), resourceVersion: l.metadata?.resourceVersion}
    })
    const snapshot = (): Reconciled => {
      const s = [...slices.items.values()].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      return {slices: s, endpoints: endpointsOf(s), events: sortEvents([...events.items.values()])}
    }
    const done = (r: Reconciled): boolean => {
      if (!slices.synced || (o.expectEvent && !events.synced)) return false
      if (!sameEndpoints(o.expectedEndpoints, r.endpoints)) return false
      if (o.expectEvent) {
        const fromController = r.events.filter((e) => eventSource(e) === EVENT_SOURCE)
        if (!fromController.some((e) => o.expectEvent === true || e.reason === o.expectEvent)) return false
      }
      return o.until ? o.until(r) : true
    }
    try {
      return await new Promise<Reconciled>((resolve, reject) => {
        const timer = setTimeout(() => {
          const r = snapshot()
          reject(
            new Error(
              `waitForReconciled ${o.namespace}/${o.service}: not reconciled within ${timeoutMs} ms\n` +
                `expected endpoints: ${JSON.stringify(sortEndpoints(o.expectedEndpoints))}\n` +
                `expected event: ${JSON.stringify(o.expectEvent ?? false)}${o.until ? ' (and an until() condition)' : ''}\n` +
                `seen endpoints: ${JSON.stringify(r.endpoints)}\n` +
                `seen slices: ${JSON.stringify(r.slices.map((s) => ({name: s.metadata.name, resourceVersion: s.metadata.resourceVersion, addressType: s.addressType, endpoints: s.endpoints})))}\n` +
                `seen events: ${JSON.stringify(r.events.map((e) => ({reason: e.reason, message: e.message, count: e.count, source: eventSource(e), lastTimestamp: e.lastTimestamp})))}\n` +
                `watch errors: ${JSON.stringify([...slices.errors, ...events.errors].slice(-5))}`,
            ),
          )
        }, timeoutMs)
        const check = () => {
          const r = snapshot()
          if (done(r)) {
            clearTimeout(timer)
            resolve(r)
          }
        }
        slices.onChange = check
        events.onChange = check
        slices.start()
        events.start() // also when not expected: a timeout shows them
      })
    } finally {
      slices.stop()
      events.stop()
    }
  }
}

// ---- cluster-wide reads ---------------------------------------------------------------------

/**
 * The list requests a cluster-wide read by the product makes now (src/cluster/live.ts): one
 * per page of Nodes, Services and EndpointSlices (with a kubernetes.io/service-name label), as
 * many pages as the whole control plane holds, and /version; sorted. Other test files, and
 * earlier runs on a reused control plane, leave their Services and slices behind (there is no
 * garbage collector), so the number of pages is not a constant.
 */
export async function clusterWideListCalls(opts: {events?: boolean} = {}): Promise<string[]> {
  const c = cluster()
  const [nodes, services, slices, events] = await Promise.all([
    c.core.listNode({}),
    c.core.listServiceForAllNamespaces({}),
    c.discovery.listEndpointSliceForAllNamespaces({labelSelector: LABEL_SERVICE_NAME}),
    opts.events ? c.core.listEventForAllNamespaces({fieldSelector: 'involvedObject.kind=Service'}) : undefined,
  ])
  const pages = (n: number) => Math.max(1, Math.ceil(n / LIST_PAGE_SIZE))
  return [
    ...Array<string>(pages(nodes.items.length)).fill('/api/v1/nodes'),
    ...Array<string>(pages(services.items.length)).fill('/api/v1/services'),
    ...Array<string>(pages(slices.items.length)).fill('/apis/discovery.k8s.io/v1/endpointslices'),
    // explain also reads the Services' Events (one list, as many pages as there are).
    ...(events ? Array<string>(pages(events.items.length)).fill('/api/v1/events') : []),
    '/version',
  ].sort()
}

// ---- list+watch ---------------------------------------------------------------------------

/** Keeps a map of objects current: list, then watch from the list's resourceVersion; relists on any watch end. */
class ListWatcher<T extends {metadata: {name: string; uid?: string; resourceVersion?: string}}> {
  readonly items = new Map<string, T>()
  readonly errors: string[] = []
  synced = false
  onChange: () => void = () => {}
  private stopped = false
  private abort: AbortController | undefined
  private retry: NodeJS.Timeout | undefined

  constructor(
    private readonly kc: KubeConfig,
    private readonly path: string,
    private readonly query: Record<string, string>,
    private readonly list: () => Promise<{items: T[]; resourceVersion: string | undefined}>,
  ) {}

  start(): void {
    void this.relist()
  }

  stop(): void {
    this.stopped = true
    clearTimeout(this.retry)
    this.abort?.abort()
  }

  private again(err: unknown): void {
    if (this.stopped) return
    if (err) this.errors.push(err instanceof Error ? err.message : JSON.stringify(err))
    this.abort?.abort()
    this.abort = undefined
    clearTimeout(this.retry)
    this.retry = setTimeout(() => void this.relist(), 100)
  }

  private async relist(): Promise<void> {
    if (this.stopped) return
    try {
      const l = await this.list()
      if (this.stopped) return
      this.items.clear()
      for (const item of l.items) this.items.set(item.metadata.name, item)
      this.synced = true
      this.onChange()
      const watch = new Watch(this.kc)
      const abort = await watch.watch(
        this.path,
        {...this.query, resourceVersion: l.resourceVersion, allowWatchBookmarks: true},
        (phase: string, obj: T) => {
          if (this.stopped) return
          if (phase === 'ERROR') return this.again(obj) // e.g. 410 Gone: relist
          if (phase === 'BOOKMARK') return
          if (phase === 'DELETED') this.items.delete(obj.metadata.name)
          else this.items.set(obj.metadata.name, obj)
          this.onChange()
        },
        (err: unknown) => this.again(err),
      )
      if (this.stopped) abort.abort()
      else this.abort = abort
    } catch (err) {
      this.again(err)
    }
  }
}

// ---- helpers ------------------------------------------------------------------------------

function sliceSelector(service: string): string {
  return `${LABEL_SERVICE_NAME}=${service},${LABEL_MANAGED_BY}=${CONTROLLER_NAME}`
}

function serviceEventSelector(service: string): string {
  return `involvedObject.kind=Service,involvedObject.name=${service}`
}

/** Who recorded an Event: source.component (core/v1 recorders) or reportingComponent (events.k8s.io). */
function eventSource(e: EventObject): string | undefined {
  const x = e as EventObject & {source?: {component?: string}; reportingComponent?: string}
  return x.source?.component || x.reportingComponent || undefined
}

function eventTime(e: EventObject): number {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp
  return t ? Date.parse(t) : 0
}

/** Sorts by (lastTimestamp, resourceVersion as an integer). */
export function sortEvents(events: EventObject[]): EventObject[] {
  const rv = (e: EventObject) => BigInt(e.metadata.resourceVersion ?? '0')
  return [...events].sort((a, b) => eventTime(a) - eventTime(b) || (rv(a) < rv(b) ? -1 : rv(a) > rv(b) ? 1 : 0))
}

/** One entry per address across slices, sorted by address. */
function endpointsOf(slices: EndpointSlice[]): SeenEndpoint[] {
  const out: SeenEndpoint[] = []
  for (const s of slices) {
    for (const e of s.endpoints ?? []) {
      for (const ip of e.addresses) {
        out.push({
          ip,
          ready: e.conditions?.ready === true,
          serving: e.conditions?.serving === true,
          terminating: e.conditions?.terminating === true,
          zone: e.zone ?? null,
          nodeName: e.nodeName ?? null,
          hints: e.hints ?? null,
        })
      }
    }
  }
  return sortEndpoints(out)
}

function sortEndpoints<E extends {ip: string}>(eps: E[]): E[] {
  return [...eps].sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0))
}

function sameEndpoints(expected: ExpectedEndpoint[], actual: SeenEndpoint[]): boolean {
  const exp = sortEndpoints(expected)
  if (exp.length !== actual.length) return false
  return exp.every((e, i) => {
    const a = actual[i]!
    return a.ip === e.ip && a.ready === e.ready && (e.serving === undefined || a.serving === e.serving) && (e.terminating === undefined || a.terminating === e.terminating)
  })
}

// ---- module-level shortcuts (admin context) -----------------------------------------------

const clusters = new Map<string, Cluster>()

/** A cached Cluster for a kubeconfig context ('admin' by default, or 'readonly'). */
export function cluster(context = 'admin'): Cluster {
  let c = clusters.get(context)
  if (!c) clusters.set(context, (c = new Cluster(context)))
  return c
}

export const createNamespace = (prefix?: string) => cluster().createNamespace(prefix)
export const createNode = (o: NodeOptions) => cluster().createNode(o)
export const deleteAllNodes = (timeoutMs?: number) => cluster().deleteAllNodes(timeoutMs)
export const createPod = (o: PodOptions) => cluster().createPod(o)
export const createService = (o: ServiceOptions) => cluster().createService(o)
export const listEvents = (namespace: string, service: string, opts?: {source?: string}) => cluster().listEvents(namespace, service, opts)
const listEndpointSlices = (namespace: string, service: string) => cluster().listEndpointSlices(namespace, service)
export const waitForReconciled = (o: WaitOptions) => cluster().waitForReconciled(o)

// ---- workloads, autoscalers and budgets (plan): only their specs; no controller runs them ----

export interface DeploymentOptions {
  namespace: string
  name: string
  replicas: number
  labels: Record<string, string>
  /** A zone spread constraint on the pod template (maxSkew 1). */
  zoneSpread?: 'DoNotSchedule' | 'ScheduleAnyway'
  maxSurge?: number | string
  maxUnavailable?: number | string
}

export async function createDeployment(o: DeploymentOptions): Promise<void> {
  const apps = cluster().kc.makeApiClient(AppsV1Api)
  const spread = o.zoneSpread ? [{maxSkew: 1, topologyKey: LABEL_ZONE, whenUnsatisfiable: o.zoneSpread, labelSelector: {matchLabels: o.labels}}] : undefined
  await apps.createNamespacedDeployment({
    namespace: o.namespace,
    body: {
      metadata: {name: o.name},
      spec: {
        replicas: o.replicas,
        selector: {matchLabels: o.labels},
        strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: o.maxSurge ?? '25%', maxUnavailable: o.maxUnavailable ?? '25%'}},
        template: {metadata: {labels: o.labels}, spec: {containers: [{name: 'app', image: 'registry.invalid/e2e/app:1'}], ...(spread ? {topologySpreadConstraints: spread} : {})}},
      },
    },
  })
}

export async function createHpa(o: {namespace: string; name: string; deployment: string; min: number; max: number}): Promise<void> {
  const api = cluster().kc.makeApiClient(AutoscalingV2Api)
  await api.createNamespacedHorizontalPodAutoscaler({
    namespace: o.namespace,
    body: {
      metadata: {name: o.name},
      spec: {
        scaleTargetRef: {apiVersion: 'apps/v1', kind: 'Deployment', name: o.deployment},
        minReplicas: o.min,
        maxReplicas: o.max,
        metrics: [{type: 'Resource', resource: {name: 'cpu', target: {type: 'Utilization', averageUtilization: 70}}}],
      },
    },
  })
}

export async function createPdb(o: {
  namespace: string
  name: string
  labels: Record<string, string>
  maxUnavailable?: number | string
  minAvailable?: number | string
}): Promise<void> {
  const api = cluster().kc.makeApiClient(PolicyV1Api)
  const budget = o.maxUnavailable !== undefined ? {maxUnavailable: o.maxUnavailable} : {minAvailable: o.minAvailable ?? 1}
  await api.createNamespacedPodDisruptionBudget({namespace: o.namespace, body: {metadata: {name: o.name}, spec: {selector: {matchLabels: o.labels}, ...budget}}})
}
