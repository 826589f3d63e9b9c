// The reads of each resource, one function each, through the client layer (client.ts): the
// lists are paginated there, their objects are wire JSON and their errors name what was read.
// Which Services are wanted (namespace, -A, -l, names) is decided by the caller (live.ts).

import {CliError, ExitCode} from '../errors.js'
import type {Deployment, EndpointSlice, EventObject, HorizontalPodAutoscaler, Node, PodDisruptionBudget, Service, StatefulSet} from '../upstream/api/types.js'
import {DEPLOYMENT, ENDPOINT_SLICE, EVENT, HPA, NODE, normalizeServerVersion, PDB, SERVICE, STATEFUL_SET, type Client} from './client.js'
import {apiStatusCode} from './errors.js'
import {didYouMean} from './suggest.js'

/** Where a read looks: one namespace, or every namespace. */
export interface Scope {
  namespace: string
  all: boolean
}

/** "in namespace "shop"" or "in all namespaces", for messages. */
export const whereOf = (s: Scope): string => (s.all ? 'in all namespaces' : `in namespace "${s.namespace}"`)

/** Every Node, page by page. */
export function listNodes(c: Client): Promise<Node[]> {
  return c.list('list nodes', NODE, (q) => c.core.listNode(q, c.options))
}

/**
 * The server's version ("1.36.3"); `refused` carries the HTTP status when the server refused
 * to tell (403, 404: version-specific behaviour is then assumed to be current). Other failures
 * (401 too) are the caller's error.
 */
export async function readServerVersion(c: Client): Promise<{version?: string; refused?: number}> {
  try {
    const version = normalizeServerVersion(await c.version.getCode({}, c.options))
    return version === undefined ? {} : {version}
  } catch (e) {
    const code = apiStatusCode(e)
    if (code === 403 || code === 404) return {refused: code}
    throw c.fail(e, 'read the server version')
  }
}

/** The Services in scope (with a label selector: those it selects). */
export function listServices(c: Client, s: Scope, labelSelector: string | undefined): Promise<Service[]> {
  return c.list(`list services ${whereOf(s)}`, SERVICE, (q) =>
    s.all ? c.core.listServiceForAllNamespaces({labelSelector, ...q}, c.options) : c.core.listNamespacedService({namespace: s.namespace, labelSelector, ...q}, c.options),
  )
}

/**
 * The named Services of one namespace, one GET each (as kubectl does). Names that do not exist
 * are a NOT_FOUND error that suggests a near name; any other failure is reported for the
 * first name that failed.
 */
export async function getServices(c: Client, namespace: string, names: string[]): Promise<Service[]> {
  const results = await Promise.allSettled(names.map((name) => c.core.readNamespacedService({name, namespace}, c.options)))
  const missing: string[] = []
  const found: Service[] = []
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') found.push(c.wire(SERVICE, r.value))
    else if (apiStatusCode(r.reason) === 404) missing.push(names[i]!)
  })
  const failed = results.find((r) => r.status === 'rejected' && apiStatusCode(r.reason) !== 404)
  if (failed && failed.status === 'rejected') {
    const i = results.indexOf(failed)
    throw c.fail(failed.reason, `get services "${names[i]}" in namespace "${namespace}"`)
  }
  if (missing.length > 0) {
    const existing = (await listServices(c, {namespace, all: false}, undefined)).map((s) => s.metadata?.name ?? '')
    if (existing.length === 0) await assertNamespaceExists(c, namespace)
    const quoted = missing.map((n) => `"${n}"`).join(', ')
    const hint = missing.length === 1 ? didYouMean(missing[0]!, existing) : ''
    throw new CliError(`services ${quoted} not found in namespace "${namespace}"${hint}`, ExitCode.NOT_FOUND)
  }
  return found
}

/** The EndpointSlices in scope that the label selector selects. */
export function listEndpointSlices(c: Client, s: Scope, labelSelector: string): Promise<EndpointSlice[]> {
  return c.list(`list endpointslices ${whereOf(s)}`, ENDPOINT_SLICE, (q) =>
    s.all
      ? c.discovery.listEndpointSliceForAllNamespaces({labelSelector, ...q}, c.options)
      : c.discovery.listNamespacedEndpointSlice({namespace: s.namespace, labelSelector, ...q}, c.options),
  )
}

/** The Events in scope on any Service. */
export function listServiceEvents(c: Client, s: Scope): Promise<EventObject[]> {
  const fieldSelector = 'involvedObject.kind=Service'
  return c.list(`list events ${whereOf(s)}`, EVENT, (q) =>
    s.all ? c.core.listEventForAllNamespaces({fieldSelector, ...q}, c.options) : c.core.listNamespacedEvent({namespace: s.namespace, fieldSelector, ...q}, c.options),
  )
}

/** Every Deployment in scope. */
export function listDeployments(c: Client, s: Scope): Promise<Deployment[]> {
  return c.list(`list deployments ${whereOf(s)}`, DEPLOYMENT, (q) =>
    s.all ? c.apps.listDeploymentForAllNamespaces(q, c.options) : c.apps.listNamespacedDeployment({namespace: s.namespace, ...q}, c.options),
  )
}

/** Every StatefulSet in scope. */
export function listStatefulSets(c: Client, s: Scope): Promise<StatefulSet[]> {
  return c.list(`list statefulsets ${whereOf(s)}`, STATEFUL_SET, (q) =>
    s.all ? c.apps.listStatefulSetForAllNamespaces(q, c.options) : c.apps.listNamespacedStatefulSet({namespace: s.namespace, ...q}, c.options),
  )
}

/** Every HorizontalPodAutoscaler (autoscaling/v2) in scope. */
export function listHorizontalPodAutoscalers(c: Client, s: Scope): Promise<HorizontalPodAutoscaler[]> {
  return c.list(`list horizontalpodautoscalers ${whereOf(s)}`, HPA, (q) =>
    s.all
      ? c.autoscaling.listHorizontalPodAutoscalerForAllNamespaces(q, c.options)
      : c.autoscaling.listNamespacedHorizontalPodAutoscaler({namespace: s.namespace, ...q}, c.options),
  )
}

/** Every PodDisruptionBudget (policy/v1) in scope. */
export function listPodDisruptionBudgets(c: Client, s: Scope): Promise<PodDisruptionBudget[]> {
  return c.list(`list poddisruptionbudgets ${whereOf(s)}`, PDB, (q) =>
    s.all ? c.policy.listPodDisruptionBudgetForAllNamespaces(q, c.options) : c.policy.listNamespacedPodDisruptionBudget({namespace: s.namespace, ...q}, c.options),
  )
}

/** Throws NOT_FOUND when the namespace does not exist; a 403 (cannot tell) passes. */
export async function assertNamespaceExists(c: Client, namespace: string): Promise<void> {
  try {
    await c.core.readNamespace({name: namespace}, c.options)
  } catch (e) {
    const code = apiStatusCode(e)
    if (code === 404) throw new CliError(`namespace "${namespace}" not found`, ExitCode.NOT_FOUND, {cause: e})
    if (code === 403) return // cannot tell; an empty namespace is not an error
    throw c.fail(e, `get namespace "${namespace}"`)
  }
}
