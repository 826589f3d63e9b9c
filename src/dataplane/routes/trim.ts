// The objects the routes model reads, cut down to the fields it uses: what a live read keeps
// and a snapshot records (no pod-spec environment, no status, no managedFields), and what a
// snapshot file's `routes` is read back as (malformed items are dropped). Pure.

import type {RoutesObjects} from './types.js'

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
const strMap = (v: unknown): Record<string, string> | undefined => {
  if (!isObj(v)) return undefined
  const out: Record<string, string> = {}
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x
  return Object.keys(out).length > 0 ? out : undefined
}
const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined)
const str = (v: unknown) => (typeof v === 'string' ? v : undefined)
const num = (v: unknown) => (typeof v === 'number' ? v : undefined)

/** Drops undefined values (so a round trip through YAML or JSON gives the same object). */
function defined<T extends Obj>(o: T): T {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k]
  return o
}

function meta(v: unknown): Obj | undefined {
  if (!isObj(v) || !isObj(v.metadata) || typeof v.metadata.name !== 'string') return undefined
  const m = v.metadata
  return defined({name: m.name, namespace: str(m.namespace), labels: strMap(m.labels), annotations: strMap(m.annotations)})
}

function containers(v: unknown): Obj[] | undefined {
  if (!Array.isArray(v)) return undefined
  return v.filter(isObj).map((c) => defined({name: str(c.name) ?? '', image: str(c.image), command: strs(c.command), args: strs(c.args)}))
}

/** apiVersion, kind, metadata and `rest` of each item with a metadata.name. */
function items(v: unknown, kind: string, rest: (o: Obj) => Obj = () => ({})): Obj[] | undefined {
  if (!Array.isArray(v)) return undefined
  const out: Obj[] = []
  for (const o of v) {
    const m = meta(o)
    if (!m || !isObj(o)) continue
    out.push(defined({apiVersion: str(o.apiVersion), kind, metadata: m, ...rest(o)}))
  }
  return out
}

const spec = (o: Obj) => (isObj(o.spec) ? o.spec : {})
const podTemplate = (o: Obj) => {
  const t = isObj(spec(o).template) ? (spec(o).template as Obj) : {}
  const ts = isObj(t.spec) ? t.spec : {}
  const tm = isObj(t.metadata) ? t.metadata : {}
  return {spec: {template: defined({metadata: defined({labels: strMap(tm.labels)}), spec: defined({containers: containers(ts.containers)})})}}
}
const backend = (b: unknown) => {
  if (!isObj(b) || !isObj(b.service) || typeof b.service.name !== 'string') return undefined
  const port = isObj(b.service.port) ? defined({number: num(b.service.port.number), name: str(b.service.port.name)}) : undefined
  return {service: defined({name: b.service.name, port})}
}
const refs = (v: unknown, withPort: boolean) =>
  Array.isArray(v)
    ? v
        .filter((r): r is Obj => isObj(r) && typeof r.name === 'string')
        .map((r) => defined({group: str(r.group), kind: str(r.kind), namespace: str(r.namespace), name: r.name as string, ...(withPort ? {port: num(r.port)} : {})}))
    : undefined
const route = (o: Obj) => {
  const s = spec(o)
  const rules = Array.isArray(s.rules) ? s.rules.filter(isObj).map((r) => defined({backendRefs: refs(r.backendRefs, true)})) : undefined
  return {spec: defined({parentRefs: refs(s.parentRefs, false), rules})}
}

/** The routes objects of `v` (a live read's or a snapshot's), trimmed. Lists absent in `v` stay absent. */
export function trimRoutes(v: unknown): RoutesObjects {
  if (!isObj(v)) return {}
  const out: Obj = {
    deployments: items(v.deployments, 'Deployment', podTemplate),
    daemonSets: items(v.daemonSets, 'DaemonSet', podTemplate),
    namespaces: items(v.namespaces, 'Namespace'),
    pods: items(v.pods, 'Pod'),
    ingresses: items(v.ingresses, 'Ingress', (o) => {
      const s = spec(o)
      const rules = Array.isArray(s.rules)
        ? s.rules.filter(isObj).map((r) => {
            const http =
              isObj(r.http) && Array.isArray(r.http.paths) ? {paths: r.http.paths.filter(isObj).map((p) => defined({path: str(p.path), backend: backend(p.backend)}))} : undefined
            return defined({host: str(r.host), http})
          })
        : undefined
      return {spec: defined({ingressClassName: str(s.ingressClassName), defaultBackend: backend(s.defaultBackend), rules})}
    }),
    ingressClasses: items(v.ingressClasses, 'IngressClass', (o) => ({spec: defined({controller: str(spec(o).controller)})})),
    gatewayClasses: items(v.gatewayClasses, 'GatewayClass', (o) => ({spec: defined({controllerName: str(spec(o).controllerName)})})),
    gateways: items(v.gateways, 'Gateway', (o) => ({spec: defined({gatewayClassName: str(spec(o).gatewayClassName)})})),
    httpRoutes: items(v.httpRoutes, 'HTTPRoute', route),
    grpcRoutes: items(v.grpcRoutes, 'GRPCRoute', route),
    warnings: strs(v.warnings),
  }
  return defined(out) as RoutesObjects
}
