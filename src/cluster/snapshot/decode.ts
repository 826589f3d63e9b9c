// Documents -> ClusterState: recognises Nodes, Services, EndpointSlices, Events, Deployments,
// StatefulSets, HorizontalPodAutoscalers and PodDisruptionBudgets wherever they are (a document of their own, a kubectl v1 List or typed list, a
// JSON array, any document of a multi-document file, our Snapshot), checks the shape of the
// fields kubectl-topology reads and says where a wrong one is (file:line:col). Other kinds are
// ignored.

import {
  LABEL_HOSTNAME,
  type Deployment,
  type Endpoint,
  type EndpointSlice,
  type EventObject,
  type HorizontalPodAutoscaler,
  type Node,
  type ObjectMeta,
  type PodDisruptionBudget,
  type Service,
  type StatefulSet,
} from '../../upstream/api/types.js'
import type {ClusterState} from '../../state/cluster-state.js'
import {trimRoutes} from '../../dataplane/routes/trim.js'
import type {DataPlane, DataPlaneName} from '../../dataplane/types.js'
import type {ProxyNodeVersion} from '../../dataplane/proxy-nodes-types.js'
import {displayName, EXPECTED, inputError, isObj, type Obj, type Parsed, type Path} from './format.js'
import {validateSnapshot} from './validate.js'
import {validateObjectName} from '../../upstream/apimachinery/validation.js'
import {Collector, type Kind, type Located} from './collect.js'

function stringMap(c: Collector, at: Located, field: 'labels' | 'annotations', v: unknown): Record<string, string> | undefined {
  if (v === undefined || v === null) return undefined
  if (!isObj(v)) c.fail(at.doc, [...at.path, 'metadata', field], `${at.kind}: metadata.${field} must be a mapping`)
  const out: Record<string, string> = {}
  for (const [k, x] of Object.entries(v)) {
    // Hand-written YAML says `tier: 1`; the API server would have stored "1".
    out[k] = typeof x === 'string' ? x : x === null ? '' : typeof x === 'object' ? JSON.stringify(x) : String(x)
  }
  return out
}

function checkMeta(c: Collector, at: Located, namespaced: boolean): ObjectMeta {
  const m = at.obj.metadata
  if (!isObj(m)) c.fail(at.doc, at.path, `${at.kind}: missing required field "metadata"`)
  if (typeof m.name !== 'string' || m.name === '') {
    c.fail(at.doc, [...at.path, 'metadata'], `${at.kind}: missing required field "metadata.name"`)
  }
  const meta: ObjectMeta = {...(m as Obj), name: m.name} as ObjectMeta
  if (namespaced && (typeof m.namespace !== 'string' || m.namespace === '')) meta.namespace = 'default'
  const labels = stringMap(c, at, 'labels', m.labels)
  const annotations = stringMap(c, at, 'annotations', m.annotations)
  if (labels) meta.labels = labels
  if (annotations) meta.annotations = annotations
  return meta
}

const label = (at: Located, meta: ObjectMeta) => `${at.kind} "${meta.namespace ? `${meta.namespace}/` : ''}${meta.name}"`

function toNode(c: Collector, at: Located): Node {
  const meta = checkMeta(c, at, false)
  const status = at.obj.status
  if (status !== undefined && status !== null && !isObj(status)) c.fail(at.doc, [...at.path, 'status'], `${label(at, meta)}: status must be a mapping`)
  if (isObj(status)) {
    for (const f of ['allocatable', 'capacity'] as const) {
      const v = status[f]
      if (v !== undefined && v !== null && !isObj(v)) c.fail(at.doc, [...at.path, 'status', f], `${label(at, meta)}: status.${f} must be a mapping`)
    }
    if (status.conditions !== undefined && status.conditions !== null && !Array.isArray(status.conditions)) {
      c.fail(at.doc, [...at.path, 'status', 'conditions'], `${label(at, meta)}: status.conditions must be a list`)
    }
  }
  return {...at.obj, apiVersion: 'v1', kind: 'Node', metadata: meta} as Node
}

function toService(c: Collector, at: Located): Service {
  const meta = checkMeta(c, at, true)
  const spec = at.obj.spec
  if (spec !== undefined && spec !== null && !isObj(spec)) c.fail(at.doc, [...at.path, 'spec'], `${label(at, meta)}: spec must be a mapping`)
  if (isObj(spec)) {
    if (spec.ports !== undefined && spec.ports !== null && !Array.isArray(spec.ports)) {
      c.fail(at.doc, [...at.path, 'spec', 'ports'], `${label(at, meta)}: spec.ports must be a list`)
    }
    if (spec.selector !== undefined && spec.selector !== null && !isObj(spec.selector)) {
      c.fail(at.doc, [...at.path, 'spec', 'selector'], `${label(at, meta)}: spec.selector must be a mapping`)
    }
  }
  return {...at.obj, apiVersion: 'v1', kind: 'Service', metadata: meta} as Service
}

const isString = (v: unknown): v is string => typeof v === 'string'
const ENDPOINT_MAPPINGS = ['conditions', 'hints', 'targetRef'] as const

function toEndpointSlice(c: Collector, at: Located): EndpointSlice {
  const meta = checkMeta(c, at, true)
  const o = at.obj
  const name = label(at, meta)
  if (o.addressType === undefined || o.addressType === null) c.fail(at.doc, at.path, `${name}: missing required field "addressType"`)
  if (o.addressType !== 'IPv4' && o.addressType !== 'IPv6' && o.addressType !== 'FQDN') {
    c.fail(at.doc, [...at.path, 'addressType'], `${name}: invalid addressType ${JSON.stringify(o.addressType)} (expected IPv4, IPv6 or FQDN)`)
  }
  let endpoints: Endpoint[] | null | undefined = o.endpoints as undefined | null
  if (o.endpoints !== undefined && o.endpoints !== null) {
    if (!Array.isArray(o.endpoints)) c.fail(at.doc, [...at.path, 'endpoints'], `${name}: endpoints must be a list`)
    // A path only for a refusal: a valid endpoint allocates nothing here (issue 14: 50,000 of them).
    // Annotated, so that a call narrows like a `never` function's.
    const fail: (i: number, rest: Path, msg: string) => never = (i, rest, msg) => c.fail(at.doc, [...at.path, 'endpoints', i, ...rest], msg)
    const list: unknown[] = o.endpoints
    const rows: Endpoint[] = []
    for (let i = 0; i < list.length; i++) {
      const e = list[i]
      if (!isObj(e)) fail(i, [], `${name}: endpoints[${i}] must be a mapping`)
      const addresses = e.addresses
      if (addresses === undefined || addresses === null) fail(i, [], `${name}: endpoints[${i}]: missing required field "addresses"`)
      if (!Array.isArray(addresses) || !addresses.every(isString)) fail(i, ['addresses'], `${name}: endpoints[${i}].addresses must be a list of strings`)
      for (const f of ENDPOINT_MAPPINGS) {
        if (e[f] !== undefined && e[f] !== null && !isObj(e[f])) fail(i, [f], `${name}: endpoints[${i}].${f} must be a mapping`)
      }
      // discovery.k8s.io/v1beta1 kept zone and node in `topology`.
      let ep: Obj = e
      const topology = isObj(e.topology) ? e.topology : undefined
      if (topology && ep.zone === undefined && typeof topology['topology.kubernetes.io/zone'] === 'string') {
        ep = {...ep, zone: topology['topology.kubernetes.io/zone']}
      }
      if (topology && ep.nodeName === undefined && typeof topology[LABEL_HOSTNAME] === 'string') {
        ep = {...ep, nodeName: topology[LABEL_HOSTNAME]}
      }
      rows.push(ep as unknown as Endpoint)
    }
    endpoints = rows
  }
  if (o.ports !== undefined && o.ports !== null && !Array.isArray(o.ports)) c.fail(at.doc, [...at.path, 'ports'], `${name}: ports must be a list`)
  const out = {...o, apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: meta} as EndpointSlice
  if (endpoints !== undefined) out.endpoints = endpoints
  return out
}

function toEvent(c: Collector, at: Located): EventObject {
  const meta = checkMeta(c, at, true)
  const o = at.obj
  if (typeof o.apiVersion === 'string' && o.apiVersion.startsWith('events.k8s.io/')) {
    // events.k8s.io/v1 spells the core fields differently.
    const ev: EventObject = {metadata: meta}
    if (isObj(o.regarding)) ev.involvedObject = o.regarding as EventObject['involvedObject']
    if (typeof o.reason === 'string') ev.reason = o.reason
    if (typeof o.note === 'string') ev.message = o.note
    if (typeof o.type === 'string') ev.type = o.type
    const count = isObj(o.series) ? o.series.count : o.deprecatedCount
    if (typeof count === 'number') ev.count = count
    const last = isObj(o.series) ? o.series.lastObservedTime : o.deprecatedLastTimestamp
    if (typeof last === 'string') ev.lastTimestamp = last
    if (typeof o.eventTime === 'string') ev.eventTime = o.eventTime
    if (typeof o.deprecatedFirstTimestamp === 'string') ev.firstTimestamp = o.deprecatedFirstTimestamp
    return {apiVersion: 'v1', kind: 'Event', ...ev} as EventObject
  }
  if (o.involvedObject !== undefined && o.involvedObject !== null && !isObj(o.involvedObject)) {
    c.fail(at.doc, [...at.path, 'involvedObject'], `${label(at, meta)}: involvedObject must be a mapping`)
  }
  return {...o, apiVersion: 'v1', kind: 'Event', metadata: meta} as EventObject
}

/** The object's metadata, the name messages use, its spec (null when absent; a spec that is not a mapping is refused), and a refusal naming a spec field. */
function specOf(c: Collector, at: Located): {meta: ReturnType<typeof checkMeta>; name: string; spec: Obj | null; fail: (path: Path, msg: string) => never} {
  const meta = checkMeta(c, at, true)
  const name = label(at, meta)
  const fail = (path: Path, msg: string): never => c.fail(at.doc, [...at.path, 'spec', ...path], `${name}: spec${path.map((p) => `.${p}`).join('')} ${msg}`)
  const spec = at.obj.spec
  if (spec === undefined || spec === null) return {meta, name, spec: null, fail}
  if (!isObj(spec)) c.fail(at.doc, [...at.path, 'spec'], `${name}: spec must be a mapping`)
  return {meta, name, spec, fail}
}

/** A Deployment or StatefulSet: checks the shape of the fields simulate reads. */
function toWorkload(c: Collector, at: Located): Deployment | StatefulSet {
  const sp = specOf(c, at)
  const {meta, spec} = sp
  // Annotated, so that a call narrows like a `never` function's.
  const fail: (path: Path, msg: string) => never = sp.fail
  if (spec !== null) {
    if (spec.replicas !== undefined && spec.replicas !== null && !(Number.isInteger(spec.replicas) && (spec.replicas as number) >= 0))
      fail(['replicas'], 'must be a non-negative integer')
    const tpl = spec.template
    if (tpl !== undefined && tpl !== null) {
      if (!isObj(tpl)) fail(['template'], 'must be a mapping')
      if (tpl.metadata !== undefined && tpl.metadata !== null && !isObj(tpl.metadata)) fail(['template', 'metadata'], 'must be a mapping')
      const labels = isObj(tpl.metadata) ? tpl.metadata.labels : undefined
      if (labels !== undefined && labels !== null && !isObj(labels)) fail(['template', 'metadata', 'labels'], 'must be a mapping')
      const tspec = tpl.spec
      if (tspec !== undefined && tspec !== null && !isObj(tspec)) fail(['template', 'spec'], 'must be a mapping')
      const tsc = isObj(tspec) ? tspec.topologySpreadConstraints : undefined
      if (tsc !== undefined && tsc !== null && !(Array.isArray(tsc) && tsc.every(isObj))) fail(['template', 'spec', 'topologySpreadConstraints'], 'must be a list of mappings')
    }
    const strategyField = at.kind === 'Deployment' ? 'strategy' : 'updateStrategy'
    const strategy = spec[strategyField]
    if (strategy !== undefined && strategy !== null) {
      if (!isObj(strategy)) fail([strategyField], 'must be a mapping')
      if (strategy.type !== undefined && strategy.type !== null && typeof strategy.type !== 'string') fail([strategyField, 'type'], 'must be a string')
      const ru = strategy.rollingUpdate
      if (ru !== undefined && ru !== null) {
        if (!isObj(ru)) fail([strategyField, 'rollingUpdate'], 'must be a mapping')
        for (const f of ['maxSurge', 'maxUnavailable']) {
          const v = ru[f]
          if (v !== undefined && v !== null && typeof v !== 'number' && typeof v !== 'string') fail([strategyField, 'rollingUpdate', f], 'must be an integer or a percentage')
        }
        if (ru.partition !== undefined && ru.partition !== null && !Number.isInteger(ru.partition)) fail([strategyField, 'rollingUpdate', 'partition'], 'must be an integer')
      }
    }
  }
  return {...at.obj, kind: at.kind, metadata: meta} as Deployment | StatefulSet
}

/** An HPA: checks the shape of the fields plan reads (scaleTargetRef, minReplicas, maxReplicas). */
function toHpa(c: Collector, at: Located): HorizontalPodAutoscaler {
  const sp = specOf(c, at)
  const {meta, spec} = sp
  const _name = sp.name
  // Annotated, so that a call narrows like a `never` function's.
  const fail: (path: Path, msg: string) => never = sp.fail
  if (spec !== null) {
    const ref = spec.scaleTargetRef
    if (ref !== undefined && ref !== null) {
      if (!isObj(ref)) fail(['scaleTargetRef'], 'must be a mapping')
      for (const f of ['kind', 'name', 'apiVersion']) if (ref[f] !== undefined && ref[f] !== null && typeof ref[f] !== 'string') fail(['scaleTargetRef', f], 'must be a string')
    }
    for (const f of ['minReplicas', 'maxReplicas']) {
      const v = spec[f]
      if (v !== undefined && v !== null && !(Number.isInteger(v) && (v as number) >= 0)) fail([f], 'must be a non-negative integer')
    }
  }
  return {...at.obj, kind: 'HorizontalPodAutoscaler', metadata: meta} as HorizontalPodAutoscaler
}

/** A PDB: checks the shape of the fields plan reads (selector, minAvailable, maxUnavailable). */
function toPdb(c: Collector, at: Located): PodDisruptionBudget {
  const sp = specOf(c, at)
  const {meta, spec} = sp
  // Annotated, so that a call narrows like a `never` function's.
  const fail: (path: Path, msg: string) => never = sp.fail
  if (spec !== null) {
    if (spec.selector !== undefined && spec.selector !== null && !isObj(spec.selector)) fail(['selector'], 'must be a mapping')
    for (const f of ['minAvailable', 'maxUnavailable']) {
      const v = spec[f]
      if (v !== undefined && v !== null && typeof v !== 'number' && typeof v !== 'string') fail([f], 'must be an integer or a percentage')
    }
  }
  return {...at.obj, kind: 'PodDisruptionBudget', metadata: meta} as PodDisruptionBudget
}

/** A recorded data plane, with the list and record fields a hand-edited file may lack. */
function dataPlaneOf(o: Obj): DataPlane {
  const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])
  const tri = (v: unknown) => (v === true || v === false ? v : 'unknown')
  return {
    ...(o as unknown as DataPlane),
    settings: isObj(o.settings) ? (o.settings as Record<string, string>) : {},
    honoursZoneHints: tri(o.honoursZoneHints),
    honoursNodeHints: tri(o.honoursNodeHints),
    paths: Array.isArray(o.paths) ? (o.paths as DataPlane['paths']) : [],
    alsoFound: strs(o.alsoFound) as DataPlaneName[],
    evidence: strs(o.evidence),
    warnings: strs(o.warnings),
    source: 'snapshot',
    ...(typeof o.selection === 'string' && ['kube-proxy', 'cilium', 'calico-annotation', 'calico-tar-td', 'kube-ovn', 'all-endpoints'].includes(o.selection)
      ? {}
      : {selection: undefined}),
    ...(Array.isArray(o.proxyNodes) ? {proxyNodes: proxyNodesOf(o.proxyNodes)} : {proxyNodes: undefined}),
  }
}

/** DataPlane.proxyNodes as a snapshot holds them: entries of the wrong shape are dropped. */
function proxyNodesOf(list: unknown[]): ProxyNodeVersion[] {
  const str = (v: unknown) => (typeof v === 'string' ? v : null)
  const out: ProxyNodeVersion[] = []
  for (const e of list) {
    if (!isObj(e) || typeof e.node !== 'string' || e.node === '') continue
    const from = e.from === 'pod' || e.from === 'static-pod' || e.from === 'daemonset' ? e.from : 'pod'
    out.push({node: e.node, version: str(e.version), image: str(e.image), from, object: str(e.object) ?? ''})
  }
  return out
}

/**
 * What the reader needs: Services with their Nodes (explain, check, plan, simulate, apply), only
 * Nodes (nodes), or whatever objects the file holds (shell completion of names).
 */
export type SnapshotNeed = 'services' | 'nodes' | 'objects'

/** The state the documents hold; an invalid object is an INPUT error naming where it is, and so is a file without what `need` asks for. */
/**
 * Services whose name or namespace the API server would refuse (upstream/apimachinery/validation.ts:
 * a Service name is a DNS-1035 label, a namespace a DNS-1123 label) are refused, one line naming
 * the file and the object: no cluster holds them, and these two go into printed commands, URLs
 * and the apply journal's path (a shared snapshot's `x$(touch${IFS}/tmp/p)` was printed inside
 * `kubectl topology apply svc/...`, issue 20). Other names (Nodes, EndpointSlices) are only shown,
 * escaped (render/escape.ts).
 */
function checkServiceNames(c: Collector): void {
  for (const at of c.found) {
    if (at.kind !== 'Service') continue
    const m = at.obj.metadata as Obj
    const name = m.name as string
    const ns = typeof m.namespace === 'string' && m.namespace !== '' ? m.namespace : 'default'
    const nameErrs = validateObjectName('Service', name)
    if (nameErrs.length > 0) c.fail(at.doc, [...at.path, 'metadata', 'name'], `Service "${ns}/${name}": metadata.name is not a name the API server accepts: ${nameErrs[0]}`)
    const nsErrs = validateObjectName('Namespace', ns)
    if (nsErrs.length > 0) c.fail(at.doc, [...at.path, 'metadata', 'namespace'], `Service "${ns}/${name}": metadata.namespace is not a name the API server accepts: ${nsErrs[0]}`)
  }
}

export function decode(parsed: Parsed, source: string, need: SnapshotNeed = 'services'): ClusterState {
  const c = new Collector(parsed, source)
  parsed.docs.forEach((d, i) => c.document(d, i))

  // The same object twice (two files concatenated, a re-export): the later one wins. A Node,
  // Service or EndpointSlice given twice with different contents may be two objects under one
  // name (two clusters' files mixed): said (ClusterState.inputNotes, printed as a warning),
  // naming both places, rather than one taken silently.
  const notes: string[] = []
  const byKey = new Map<string, unknown>()
  const firstAt = new Map<string, Located>()
  const add = (kind: Kind, meta: ObjectMeta, v: unknown, at: Located) => {
    const key = `${kind}\u0000${meta.namespace ?? ''}\u0000${meta.name}`
    const before = firstAt.get(key)
    if (before !== undefined && (kind === 'Node' || kind === 'Service' || kind === 'EndpointSlice') && JSON.stringify(byKey.get(key)) !== JSON.stringify(v)) {
      const name = kind === 'Node' ? meta.name : `${meta.namespace ?? 'default'}/${meta.name}`
      notes.push(
        `${c.where(at.doc, at.path)}: ${kind} "${name}" is given twice with different contents (first at ${c.where(before.doc, before.path)}): the later one is used; if the file mixes two clusters, keep one`,
      )
    }
    if (before === undefined) firstAt.set(key, at)
    byKey.delete(key)
    byKey.set(key, v)
  }
  for (const at of c.found) {
    switch (at.kind) {
      case 'Node': {
        const n = toNode(c, at)
        add('Node', n.metadata, n, at)
        break
      }
      case 'Service': {
        const s = toService(c, at)
        add('Service', s.metadata, s, at)
        break
      }
      case 'EndpointSlice': {
        const s = toEndpointSlice(c, at)
        add('EndpointSlice', s.metadata, s, at)
        break
      }
      case 'Event': {
        const e = toEvent(c, at)
        add('Event', e.metadata, e, at)
        break
      }
      case 'Deployment':
      case 'StatefulSet': {
        const w = toWorkload(c, at)
        add(at.kind, w.metadata, w, at)
        break
      }
      case 'HorizontalPodAutoscaler': {
        const h = toHpa(c, at)
        add(at.kind, h.metadata, h, at)
        break
      }
      case 'PodDisruptionBudget': {
        const p = toPdb(c, at)
        add(at.kind, p.metadata, p, at)
        break
      }
    }
  }
  validateSnapshot({found: c.found, serverVersion: c.serverVersion, docs: parsed.docs}, (doc, path, msg) => c.fail(doc, path, msg))
  checkServiceNames(c)
  const state: ClusterState = {nodes: [], services: [], endpointSlices: []}
  const events: EventObject[] = []
  const deployments: Deployment[] = []
  const statefulSets: StatefulSet[] = []
  const hpas: HorizontalPodAutoscaler[] = []
  const pdbs: PodDisruptionBudget[] = []
  for (const [key, v] of byKey) {
    const kind = key.slice(0, key.indexOf('\u0000'))
    if (kind === 'Node') state.nodes.push(v as Node)
    else if (kind === 'Service') state.services.push(v as Service)
    else if (kind === 'EndpointSlice') state.endpointSlices.push(v as EndpointSlice)
    else if (kind === 'Deployment') deployments.push(v as Deployment)
    else if (kind === 'StatefulSet') statefulSets.push(v as StatefulSet)
    else if (kind === 'HorizontalPodAutoscaler') hpas.push(v as HorizontalPodAutoscaler)
    else if (kind === 'PodDisruptionBudget') pdbs.push(v as PodDisruptionBudget)
    else events.push(v as EventObject)
  }
  if (need === 'nodes' && state.nodes.length === 0) {
    throw inputError(`${displayName(source)}: no Nodes found (expected the output of \`kubectl get nodes -o yaml\` or of \`kubectl topology snapshot\`)`)
  }
  if (need === 'services' && state.services.length === 0 && state.endpointSlices.length === 0) {
    const only = state.nodes.length > 0 ? `; it holds only ${state.nodes.length} Node${state.nodes.length === 1 ? '' : 's'}, which \`kubectl topology nodes\` reads` : ''
    throw inputError(`${displayName(source)}: no Services or EndpointSlices found${only} (${EXPECTED})`)
  }
  // A file without Nodes is a file without Nodes, not a permission the reader lacks (issue 19,
  // finding 9): only a Snapshot that recorded the refusal (nodesReadable: false, written by
  // `kubectl topology snapshot` when it could not list them) or lists none (a cluster without
  // Nodes) reads as one without them.
  if (need === 'services' && state.nodes.length === 0 && c.nodesReadable === undefined && !c.nodesListed) {
    throw inputError(
      `${displayName(source)}: no Nodes found (the zones and CPU shares come from the Nodes): take the file with \`kubectl topology snapshot\`, or add nodes to \`kubectl get nodes,services,endpointslices -A -o yaml\``,
    )
  }
  if (events.length > 0) state.events = events
  if (notes.length > 0) state.inputNotes = notes
  // Present when the input lists them (our Snapshot, even empty) or holds any (kubectl get).
  if (c.workloadsListed || deployments.length > 0 || statefulSets.length > 0) {
    state.deployments = deployments
    state.statefulSets = statefulSets
  }
  if (c.hpasListed || hpas.length > 0) state.horizontalPodAutoscalers = hpas
  if (c.pdbsListed || pdbs.length > 0) state.podDisruptionBudgets = pdbs
  if (c.serverVersion !== undefined) state.serverVersion = c.serverVersion
  if (c.dataPlane !== undefined) state.dataPlane = dataPlaneOf(c.dataPlane)
  if (c.routes !== undefined) state.routes = trimRoutes(c.routes)
  state.nodesReadable = c.nodesReadable ?? (state.nodes.length > 0 || c.nodesListed)
  return state
}
