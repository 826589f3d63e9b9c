// The first pass of reading a snapshot: the Collector walks every parsed document (a document of
// its own, a kubectl v1 List or typed list, a JSON array, our Snapshot) and records where each object
// of a kind kubectl-topology reads is (decode.ts then checks and converts each one).

import {DATA_PLANE_NAMES, type DataPlaneName} from '../../dataplane/types.js'
import {displayName, EXPECTED, inputError, isObj, SNAPSHOT_API_VERSION, SNAPSHOT_KIND, type Obj, type Parsed, type Path} from './format.js'

export type Kind = 'Node' | 'Service' | 'EndpointSlice' | 'Event' | 'Deployment' | 'StatefulSet' | 'HorizontalPodAutoscaler' | 'PodDisruptionBudget'

export interface Located {
  kind: Kind
  obj: Obj
  doc: number
  path: Path
}

const LIST_ITEM_KIND: Record<string, Kind> = {
  NodeList: 'Node',
  ServiceList: 'Service',
  EndpointSliceList: 'EndpointSlice',
  EventList: 'Event',
  DeploymentList: 'Deployment',
  StatefulSetList: 'StatefulSet',
  HorizontalPodAutoscalerList: 'HorizontalPodAutoscaler',
  PodDisruptionBudgetList: 'PodDisruptionBudget',
}

export class Collector {
  readonly found: Located[] = []
  serverVersion: string | undefined
  nodesReadable: boolean | undefined
  /** A Snapshot document listed nodes (possibly empty): they were read, whatever they hold. */
  nodesListed = false
  /** The data plane a Snapshot document recorded (checked for its name only). */
  dataPlane: Obj | undefined
  /** The meshes' and gateways' objects a Snapshot document recorded. */
  routes: Obj | undefined
  /** A Snapshot document listed deployments/statefulSets (possibly empty): they were read. */
  workloadsListed = false
  /** A Snapshot document listed horizontalPodAutoscalers / podDisruptionBudgets (possibly empty). */
  hpasListed = false
  pdbsListed = false
  constructor(
    private readonly parsed: Parsed,
    private readonly source: string,
  ) {}

  where(doc: number, path: Path): string {
    const pos = this.parsed.locate(doc, path)
    return `${displayName(this.source)}${pos ? `:${pos.line}:${pos.col}` : ''}`
  }

  fail(doc: number, path: Path, msg: string): never {
    throw inputError(`${this.where(doc, path)}: ${msg}`)
  }

  document(value: unknown, doc: number): void {
    if (value === null || value === undefined) return // empty document ("---" at the end)
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.object(v, doc, [i], true))
      return
    }
    if (!isObj(value)) {
      this.fail(doc, [], `expected a Kubernetes object or List, found ${typeof value === 'string' ? 'a string' : `a ${typeof value}`} (${EXPECTED})`)
    }
    this.object(value, doc, [], true)
  }

  object(value: unknown, doc: number, path: Path, allowList: boolean, impliedKind?: Kind): void {
    if (!isObj(value)) {
      this.fail(doc, path, `expected an object, found ${value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`}`)
    }
    const kind = typeof value.kind === 'string' ? value.kind : impliedKind
    const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : undefined
    if (kind === SNAPSHOT_KIND && (apiVersion ?? '').startsWith('kubectl-topology')) {
      if (apiVersion !== SNAPSHOT_API_VERSION) {
        this.fail(doc, path, `unsupported snapshot version "${apiVersion}" (this kubectl-topology reads ${SNAPSHOT_API_VERSION})`)
      }
      this.snapshot(value, doc, path)
      return
    }
    if (allowList && Array.isArray(value.items) && (kind === undefined || kind.endsWith('List'))) {
      const implied = kind ? LIST_ITEM_KIND[kind] : undefined
      value.items.forEach((item, i) => this.object(item, doc, [...path, 'items', i], true, implied))
      return
    }
    if (allowList && value.items !== undefined && kind?.endsWith('List')) {
      this.fail(doc, [...path, 'items'], `${kind}: "items" must be a list`)
    }
    // An object that does not say what it is would vanish without a word (issue 23): said.
    if (kind === undefined) this.fail(doc, path, 'an object without "kind": say what it is (kind: Node, Service, EndpointSlice, ...), as `kubectl get -o yaml` writes it')
    switch (kind) {
      case 'Node':
      case 'Service':
        if (apiVersion === undefined || apiVersion === 'v1') this.found.push({kind, obj: value, doc, path})
        // A version of the core group ("v2", "v1beta1") that does not exist: said, not skipped
        // (the Service was then "not found", issue 20). A kind of another group (Knative's
        // serving.knative.dev/v1 Service) is not ours and is skipped.
        else if (!apiVersion.includes('/')) this.fail(doc, [...path, 'apiVersion'], `${kind}: unknown apiVersion "${apiVersion}": the API server serves ${kind}s as "v1"`)
        return
      case 'EndpointSlice':
        if (apiVersion === undefined || apiVersion.startsWith('discovery.k8s.io/')) this.found.push({kind, obj: value, doc, path})
        return
      case 'Event':
        if (apiVersion === undefined || apiVersion === 'v1' || apiVersion.startsWith('events.k8s.io/')) {
          this.found.push({kind, obj: value, doc, path})
        }
        return
      case 'Deployment':
      case 'StatefulSet':
        if (apiVersion === undefined || apiVersion.startsWith('apps/') || (kind === 'Deployment' && apiVersion.startsWith('extensions/'))) {
          this.found.push({kind, obj: value, doc, path})
        }
        return
      case 'HorizontalPodAutoscaler':
        if (apiVersion === undefined || apiVersion.startsWith('autoscaling/')) this.found.push({kind, obj: value, doc, path})
        return
      case 'PodDisruptionBudget':
        if (apiVersion === undefined || apiVersion.startsWith('policy/')) this.found.push({kind, obj: value, doc, path})
        return
      default:
        return // Pods, Deployments, Endpoints, …: not ours
    }
  }

  snapshot(value: Obj, doc: number, path: Path): void {
    if (value.serverVersion !== undefined && value.serverVersion !== null) {
      if (typeof value.serverVersion !== 'string') this.fail(doc, [...path, 'serverVersion'], 'serverVersion must be a string such as "1.36.3"')
      this.serverVersion = value.serverVersion
    }
    if (typeof value.nodesReadable === 'boolean') this.nodesReadable = value.nodesReadable
    if (value.dataPlane !== undefined && value.dataPlane !== null) {
      const dp = value.dataPlane
      if (!isObj(dp) || typeof dp.name !== 'string' || !DATA_PLANE_NAMES.includes(dp.name as DataPlaneName)) {
        this.fail(doc, [...path, 'dataPlane'], `Snapshot: dataPlane must be a mapping whose name is one of ${DATA_PLANE_NAMES.join(', ')}`)
      }
      this.dataPlane = dp
    }
    if (value.routes !== undefined && value.routes !== null) {
      if (!isObj(value.routes)) this.fail(doc, [...path, 'routes'], 'Snapshot: routes must be a mapping of lists (deployments, namespaces, ingresses, gateways, httpRoutes, ...)')
      this.routes = value.routes
    }
    const fields: [string, Kind][] = [
      ['nodes', 'Node'],
      ['services', 'Service'],
      ['endpointSlices', 'EndpointSlice'],
      ['events', 'Event'],
      ['deployments', 'Deployment'],
      ['statefulSets', 'StatefulSet'],
      ['horizontalPodAutoscalers', 'HorizontalPodAutoscaler'],
      ['podDisruptionBudgets', 'PodDisruptionBudget'],
    ]
    for (const [field, kind] of fields) {
      const list = value[field]
      if (list === undefined || list === null) continue
      if (kind === 'Node') this.nodesListed = true
      if (kind === 'Deployment' || kind === 'StatefulSet') this.workloadsListed = true
      if (kind === 'HorizontalPodAutoscaler') this.hpasListed = true
      if (kind === 'PodDisruptionBudget') this.pdbsListed = true
      if (!Array.isArray(list)) this.fail(doc, [...path, field], `Snapshot: "${field}" must be a list`)
      list.forEach((item, i) => {
        const p = [...path, field, i]
        if (!isObj(item)) this.fail(doc, p, `Snapshot ${field}[${i}]: expected an object`)
        if (typeof item.kind === 'string' && item.kind !== kind) {
          this.fail(doc, p, `Snapshot ${field}[${i}]: kind "${item.kind}" found where a ${kind} belongs`)
        }
        this.found.push({kind, obj: item, doc, path: p})
      })
    }
  }
}
