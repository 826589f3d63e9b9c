// `kubectl topology snapshot --redact`: only what explain needs, with addresses, node, pod and
// host names replaced by stable pseudonyms (the same input always gives the same output) and
// free text (Event messages) scrubbed of them and of any IP address. Deployments and
// StatefulSets are kept as every snapshot keeps them (write.ts).

import {
  ANNOTATION_TOPOLOGY_AWARE_HINTS,
  ANNOTATION_TOPOLOGY_MODE,
  LABEL_HOSTNAME,
  type Endpoint,
  type EndpointSlice,
  type EventObject,
  type Node,
  type ObjectMeta,
  type Service,
} from '../../upstream/api/types.js'
import type {ClusterState} from '../../state/cluster-state.js'
import type {Obj} from './format.js'

/** The redacted objects (the rest of a Snapshot is written as without --redact). */
export type RedactedState = Pick<ClusterState, 'nodes' | 'services' | 'endpointSlices' | 'events'>

const TOPOLOGY_ANNOTATIONS = new Set([ANNOTATION_TOPOLOGY_MODE, ANNOTATION_TOPOLOGY_AWARE_HINTS])
const isTopologyAnnotation = (k: string) => TOPOLOGY_ANNOTATIONS.has(k) || k.startsWith('service.kubernetes.io/topology')

/** Node labels that survive --redact (the hostname one with its value pseudonymised). */
const KEPT_NODE_LABEL = (k: string) =>
  k.startsWith('topology.kubernetes.io/') ||
  k.startsWith('failure-domain.beta.kubernetes.io/') ||
  k.startsWith('node-role.kubernetes.io/') ||
  k === LABEL_HOSTNAME ||
  k === 'kubernetes.io/os' ||
  k === 'kubernetes.io/arch' ||
  k === 'node.kubernetes.io/instance-type' ||
  k === 'node.kubernetes.io/exclude-from-external-load-balancers'

const IPV4 = /\b(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\b/g
// Loose IPv6: at least two colons and hex groups (good enough to catch addresses in free text).
const IPV6 = /(?<![\w:.])(?:[0-9a-fA-F]{1,4}:){2,7}(?::|[0-9a-fA-F]{1,4})(?::[0-9a-fA-F]{1,4})*(?![\w:])|(?<![\w:])::(?:[0-9a-fA-F]{1,4}:){0,6}[0-9a-fA-F]{1,4}(?![\w:])/g

function pseudoIPv4(n: number): string {
  // 198.18.0.0/15 (benchmarking), then 240.0.0.0/4 (reserved): never a real pod IP.
  const v = n < 131_070 ? 0xc6120000 + n + 1 : 0xf0000000 + n
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.')
}
function pseudoIPv6(n: number): string {
  const v = n + 1
  const hi = Math.floor(v / 0x10000)
  return `2001:db8::${hi ? `${hi.toString(16)}:` : ''}${(v % 0x10000).toString(16)}` // documentation prefix
}

class Pseudonyms {
  private readonly ipv4 = new Set<string>()
  private readonly ipv6 = new Set<string>()
  private readonly fqdn = new Set<string>()
  private readonly nodes = new Set<string>()
  private readonly pods = new Set<string>()
  private readonly hosts = new Set<string>()
  private map = new Map<string, string>()

  ip(v: unknown): void {
    if (typeof v !== 'string' || v === '' || v === 'None') return
    if (v.includes(':')) this.ipv6.add(v)
    else if (/^[\d.]+$/.test(v)) this.ipv4.add(v)
    else this.fqdn.add(v)
  }
  node(v: unknown): void {
    if (typeof v === 'string' && v !== '') this.nodes.add(v)
  }
  pod(v: unknown): void {
    if (typeof v === 'string' && v !== '') this.pods.add(v)
  }
  host(v: unknown): void {
    if (typeof v === 'string' && v !== '') this.hosts.add(v)
  }
  text(v: unknown): void {
    if (typeof v !== 'string') return
    for (const m of v.matchAll(IPV4)) this.ipv4.add(m[0])
    for (const m of v.matchAll(IPV6)) this.ipv6.add(m[0])
  }

  /** Assigns pseudonyms in sorted order, so the same input always gives the same output. */
  freeze(): void {
    const sorted = (s: Set<string>) => [...s].sort()
    const originals = new Set([...this.ipv4, ...this.ipv6, ...this.fqdn, ...this.nodes, ...this.pods, ...this.hosts])
    const assign = (values: Set<string>, make: (n: number) => string, prefix: string) => {
      let n = 0
      for (const v of sorted(values)) {
        const key = `${prefix}\u0000${v}`
        if (this.map.has(key)) continue
        let p = make(n++)
        while (originals.has(p)) p = make(n++)
        this.map.set(key, p)
      }
    }
    assign(this.ipv4, pseudoIPv4, 'ip')
    assign(this.ipv6, pseudoIPv6, 'ip')
    assign(this.fqdn, (n) => `endpoint-${n + 1}.redacted.invalid`, 'ip')
    assign(this.nodes, (n) => `node-${n + 1}`, 'node')
    assign(this.pods, (n) => `pod-${n + 1}`, 'pod')
    assign(this.hosts, (n) => `lb-${n + 1}.redacted.invalid`, 'host')
  }

  get(kind: 'ip' | 'node' | 'pod' | 'host', v: string): string {
    return this.map.get(`${kind}\u0000${v}`) ?? (kind === 'node' ? 'node-redacted' : kind === 'pod' ? 'pod-redacted' : 'redacted')
  }

  /** Replaces every known original value (and any IP) in free text, in one pass. */
  scrubText(s: string): string {
    const byOriginal = new Map<string, string>()
    for (const [key, p] of this.map) {
      const orig = key.slice(key.indexOf('\u0000') + 1)
      if (orig.length >= 3 && !byOriginal.has(orig)) byOriginal.set(orig, p)
    }
    const esc = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    const alternatives = [...byOriginal.keys()].sort((a, b) => b.length - a.length).map(esc)
    const re = new RegExp([...alternatives, IPV4.source, IPV6.source].join('|'), 'g')
    return s.replace(re, (m) => byOriginal.get(m) ?? this.get('ip', m))
  }
}

const EVENT_FIELDS = ['reason', 'message', 'type', 'count', 'lastTimestamp', 'eventTime', 'firstTimestamp'] as const

function redactMeta(meta: ObjectMeta, name: string): ObjectMeta {
  const out: ObjectMeta = {name}
  if (meta.namespace !== undefined) out.namespace = meta.namespace
  if (meta.generation !== undefined) out.generation = meta.generation
  if (meta.creationTimestamp !== undefined) out.creationTimestamp = meta.creationTimestamp
  if (meta.deletionTimestamp !== undefined) out.deletionTimestamp = meta.deletionTimestamp
  if (meta.labels) out.labels = {...meta.labels}
  const ann = Object.entries(meta.annotations ?? {}).filter(([k]) => isTopologyAnnotation(k))
  if (ann.length > 0) out.annotations = Object.fromEntries(ann)
  return out
}

/** Pseudonymises the state in two passes: collect every value to replace, then rebuild. */
export function redactState(state: ClusterState): RedactedState {
  const p = new Pseudonyms()
  // Pass 1: collect every value to replace.
  for (const n of state.nodes) {
    p.node(n.metadata.name)
    p.node(n.metadata.labels?.[LABEL_HOSTNAME])
  }
  for (const s of state.services) {
    const spec = (s.spec ?? {}) as Obj
    p.ip(spec.clusterIP)
    for (const ip of (spec.clusterIPs as unknown[] | undefined) ?? []) p.ip(ip)
    for (const ip of (spec.externalIPs as unknown[] | undefined) ?? []) p.ip(ip)
    p.ip(spec.loadBalancerIP)
    p.host(spec.externalName)
    for (const ing of s.status?.loadBalancer?.ingress ?? []) {
      p.ip(ing.ip)
      p.host(ing.hostname)
    }
  }
  for (const sl of state.endpointSlices) {
    for (const e of sl.endpoints ?? []) {
      for (const a of e.addresses ?? []) p.ip(a)
      p.node(e.nodeName)
      for (const fn of e.hints?.forNodes ?? []) p.node(fn.name)
      if (e.targetRef?.kind === 'Node') p.node(e.targetRef.name)
      else p.pod(e.targetRef?.name)
      p.pod(e.hostname)
    }
  }
  for (const ev of state.events ?? []) p.text(ev.message)
  p.freeze()

  // Pass 2: rebuild with only what explain needs.
  const nodes: Node[] = state.nodes.map((n) => {
    const labels = Object.fromEntries(
      Object.entries(n.metadata.labels ?? {})
        .filter(([k]) => KEPT_NODE_LABEL(k))
        .map(([k, v]) => [k, k === LABEL_HOSTNAME ? p.get('node', v) : v]),
    )
    const meta = redactMeta({...n.metadata, labels, annotations: {}}, p.get('node', n.metadata.name))
    delete meta.namespace
    const out: Node = {apiVersion: 'v1', kind: 'Node', metadata: meta}
    const spec = n.spec as (Obj & {unschedulable?: boolean; taints?: unknown}) | undefined
    if (spec && (spec.unschedulable !== undefined || spec.taints !== undefined)) {
      out.spec = {} as Node['spec'] & Obj
      if (spec.unschedulable !== undefined) out.spec!.unschedulable = spec.unschedulable
      if (spec.taints !== undefined) (out.spec as Obj).taints = spec.taints
    }
    if (n.status) {
      const st: NonNullable<Node['status']> = {}
      if (n.status.allocatable) st.allocatable = {...n.status.allocatable}
      if (n.status.capacity) st.capacity = {...n.status.capacity}
      if (n.status.conditions) {
        st.conditions = n.status.conditions.map((c) => ({type: c.type, status: c.status, ...(c.reason ? {reason: c.reason} : {})}))
      }
      out.status = st
    }
    return out
  })

  const services: Service[] = state.services.map((s) => {
    const out: Service = {apiVersion: 'v1', kind: 'Service', metadata: redactMeta(s.metadata, s.metadata.name)}
    if (s.spec) {
      const spec = {...s.spec} as Obj
      const ip = (v: unknown) => (typeof v === 'string' && v !== 'None' && v !== '' ? p.get('ip', v) : v)
      if (spec.clusterIP !== undefined) spec.clusterIP = ip(spec.clusterIP)
      if (Array.isArray(spec.clusterIPs)) spec.clusterIPs = spec.clusterIPs.map(ip)
      if (Array.isArray(spec.externalIPs)) spec.externalIPs = spec.externalIPs.map(ip)
      if (spec.loadBalancerIP !== undefined) spec.loadBalancerIP = ip(spec.loadBalancerIP)
      if (typeof spec.externalName === 'string') spec.externalName = p.get('host', spec.externalName)
      delete spec.loadBalancerSourceRanges
      out.spec = spec as Service['spec']
    }
    const ingress = s.status?.loadBalancer?.ingress
    if (ingress) {
      out.status = {
        loadBalancer: {
          ingress: ingress.map((i) => ({
            ...(i.ip ? {ip: p.get('ip', i.ip)} : {}),
            ...(i.hostname ? {hostname: p.get('host', i.hostname)} : {}),
          })),
        },
      }
    }
    return out
  })

  const endpointSlices: EndpointSlice[] = state.endpointSlices.map((sl) => {
    const out: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: redactMeta(sl.metadata, sl.metadata.name),
      addressType: sl.addressType,
    }
    if (sl.endpoints !== undefined) {
      out.endpoints =
        sl.endpoints === null
          ? null
          : sl.endpoints.map((e) => {
              const r: Endpoint = {addresses: (e.addresses ?? []).map((a) => p.get('ip', a))}
              if (e.conditions !== undefined) r.conditions = {...e.conditions}
              if (e.hostname !== undefined) r.hostname = p.get('pod', e.hostname)
              if (e.nodeName !== undefined) r.nodeName = e.nodeName === null ? null : p.get('node', e.nodeName)
              if (e.zone !== undefined) r.zone = e.zone
              if (e.hints !== undefined) {
                r.hints =
                  e.hints === null
                    ? null
                    : {
                        ...(e.hints.forZones !== undefined ? {forZones: e.hints.forZones} : {}),
                        ...(e.hints.forNodes !== undefined ? {forNodes: e.hints.forNodes === null ? null : e.hints.forNodes.map((f) => ({name: p.get('node', f.name)}))} : {}),
                      }
              }
              if (e.targetRef !== undefined) {
                const t = e.targetRef
                r.targetRef = {
                  ...(t.kind !== undefined ? {kind: t.kind} : {}),
                  ...(t.name !== undefined ? {name: t.kind === 'Node' ? p.get('node', t.name) : p.get('pod', t.name)} : {}),
                  ...(t.namespace !== undefined ? {namespace: t.namespace} : {}),
                }
              }
              return r
            })
    }
    if (sl.ports !== undefined) out.ports = sl.ports
    return out
  })

  const out: RedactedState = {nodes, services, endpointSlices}
  if (state.events) {
    out.events = state.events.map((ev) => {
      const r: EventObject = {metadata: redactMeta(ev.metadata, ev.metadata.name)}
      if (ev.involvedObject) {
        const io = ev.involvedObject
        r.involvedObject = {
          ...(io.kind !== undefined ? {kind: io.kind} : {}),
          ...(io.name !== undefined ? {name: io.name} : {}),
          ...(io.namespace !== undefined ? {namespace: io.namespace} : {}),
        }
      }
      for (const f of EVENT_FIELDS) {
        const v = ev[f]
        if (v !== undefined) (r as unknown as Obj)[f] = f === 'message' && typeof v === 'string' ? p.scrubText(v) : v
      }
      return {apiVersion: 'v1', kind: 'Event', ...r} as EventObject
    })
  }
  return out
}
