// The model behind `kubectl topology watch`: a frame is the explanation of one Service at one
// moment (plus the cluster's node basis and the threshold cliffs), and diffFrames lists what
// changed between two frames, in words an operator reads as they happen ("hints dropped",
// "zone-c falls back", "CPU share of zone-a 33.3% -> 50.0%"). Pure: the watch command feeds
// it the state its API watches maintain.
import {serviceCliffs, type Cliff} from '../explain/cliffs.js'
import type {ExplainOptions, ExplainReport, NodeSummary, ServiceExplanation, ZoneRow} from '../explain/report.js'
import {explainAdvised} from '../advise/report.js'
import type {NodeVerdict} from '../explain/node-verdicts.js'
import type {ClusterState} from '../state/cluster-state.js'

export interface WatchFrame {
  namespace: string
  name: string
  /** False while the Service does not exist (not created yet, or deleted). */
  exists: boolean
  kubernetesVersion: string
  /** One per address type (usually one), each with the advisor's recommendation (explain's). */
  explanations: ServiceExplanation[]
  cluster: NodeSummary
  cliffs: Cliff[]
  /** The data plane assumed (explain's report), when one was given. */
  dataPlane?: ExplainReport['dataPlane']
  /** The meshes and gateways found (read once at start with --client-paths). */
  routes?: ExplainReport['routes']
}

export type ChangeKind =
  | 'service-added'
  | 'service-deleted'
  | 'mode'
  | 'hints-set'
  | 'hints-dropped'
  | 'zone-added'
  | 'zone-removed'
  | 'zone-share'
  | 'ready-endpoints'
  | 'live-hints'
  | 'fallback'
  | 'fallback-cleared'
  | 'drift'
  | 'drift-cleared'
  | 'node-added'
  | 'node-removed'
  | 'node-status'
  | 'cliff'
  | 'cliff-cleared'
  | 'advice'
  | 'client-path'

export interface Change {
  kind: ChangeKind
  /** good: routing got better; bad: it got worse; info: neither. */
  tone: 'good' | 'bad' | 'info'
  zone: string | null
  message: string
}

export function watchFrame(state: ClusterState, namespace: string, name: string, opts: ExplainOptions = {}): WatchFrame {
  const svc = state.services.find((s) => (s.metadata.namespace ?? 'default') === namespace && s.metadata.name === name)
  const report = explainAdvised(state, svc ? [svc] : [], opts)
  const explanations = report.services
  return {
    namespace,
    name,
    exists: svc !== undefined,
    kubernetesVersion: report.kubernetesVersion,
    explanations,
    cluster: report.cluster,
    cliffs: explanations.flatMap((e) => serviceCliffs(e, state.nodes)),
    ...(report.dataPlane ? {dataPlane: report.dataPlane} : {}),
    ...(report.routes ? {routes: report.routes} : {}),
  }
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)}%`)

const nodeReason: Record<NodeVerdict['status'], string> = {
  counted: 'counted',
  'control-plane': 'ignored: control-plane',
  'not-ready': 'ignored: not Ready',
  'no-zone-label': 'no zone label: disables hints for every Service',
  'no-cpu': 'no allocatable CPU: disables hints for every Service',
}

function describeNode(v: NodeVerdict): string {
  return `${v.zone ? `zone ${v.zone}, ` : ''}${v.status === 'counted' ? `counted, ${v.milliCPU}m CPU` : nodeReason[v.status]}`
}

export function diffFrames(prev: WatchFrame | null, next: WatchFrame): Change[] {
  const out: Change[] = []
  const add = (kind: ChangeKind, tone: Change['tone'], message: string, zone: string | null = null) => out.push({kind, tone, zone, message})
  const ref = `${next.namespace}/${next.name}`

  // Nodes (cluster-wide basis).
  const before = new Map((prev?.cluster.nodes ?? []).map((n) => [n.name, n]))
  const after = new Map(next.cluster.nodes.map((n) => [n.name, n]))
  if (prev !== null) {
    for (const [name, v] of after) {
      const old = before.get(name)
      if (!old) add('node-added', v.disablesHints ? 'bad' : 'info', `node ${name} added (${describeNode(v)})`, v.zone)
      else if (old.status !== v.status || old.zone !== v.zone || old.milliCPU !== v.milliCPU) {
        add('node-status', v.disablesHints ? 'bad' : old.disablesHints ? 'good' : 'info', `node ${name}: ${describeNode(old)} -> ${describeNode(v)}`, v.zone)
      }
    }
    for (const [name, v] of before) if (!after.has(name)) add('node-removed', v.disablesHints ? 'good' : 'info', `node ${name} removed (was ${describeNode(v)})`, v.zone)
  }

  // The Service.
  if (prev !== null && prev.exists !== next.exists) {
    add(next.exists ? 'service-added' : 'service-deleted', next.exists ? 'info' : 'bad', `Service ${ref} ${next.exists ? 'created' : 'deleted'}`)
  }
  const prevBy = new Map((prev?.explanations ?? []).map((e) => [e.addressType, e]))
  const multi = next.explanations.length > 1
  for (const e of next.explanations) {
    const p = prevBy.get(e.addressType)
    const tag = multi ? ` (${e.addressType})` : ''
    if (!p) continue
    if (p.mode.path !== e.mode.path || p.mode.annotationValue !== e.mode.annotationValue || p.mode.trafficDistribution !== e.mode.trafficDistribution) {
      add('mode', 'info', `mode${tag}: ${modeText(p)} -> ${modeText(e)}`)
    }
    const pr = p.recommendation
    const er = e.recommendation
    if (er !== undefined && (pr === undefined || pr.recommended !== er.recommended || pr.steps.length !== er.steps.length)) {
      add('advice', 'info', `advice${tag}: ${er.reasons[0] ?? `keep ${er.current}`}`)
    }
    // A client path through a mesh or gateway whose verdict changed (the Service's setting changed).
    const before = new Map((p.clientPaths?.paths ?? []).map((c) => [`${c.via} ${c.clients}`, c.verdict]))
    for (const c of e.clientPaths?.paths ?? []) {
      const was = before.get(`${c.via} ${c.clients}`)
      if (was !== undefined && was !== c.verdict) {
        const tone = c.verdict === 'ignores' || c.verdict === 'partial' ? 'bad' : c.verdict === 'honours' ? 'good' : 'info'
        add('client-path', tone, `client path${tag} ${c.via} (${c.clients}): ${was} -> ${c.verdict}: ${c.does}`)
      }
    }
    if (p.controller.hintsSet !== e.controller.hintsSet) {
      if (e.controller.hintsSet) add('hints-set', 'good', `hints set${tag}: ${e.controller.reason}: ${e.controller.message}`)
      else add('hints-dropped', e.mode.path === 'none' ? 'info' : 'bad', `hints dropped${tag}: ${e.controller.reason}: ${e.controller.message}`)
    } else if (!e.controller.hintsSet && e.mode.path === 'topology-mode-auto' && p.controller.message !== e.controller.message) {
      add('hints-dropped', 'bad', `hints still refused${tag}: ${e.controller.message}`)
    }
    const pz = new Map(p.zones.map((z) => [z.name, z]))
    const nz = new Map(e.zones.map((z) => [z.name, z]))
    for (const z of e.zones) {
      const o = pz.get(z.name)
      if (!o) {
        add('zone-added', 'info', `zone ${z.name} appears${tag} (${z.nodes.counted} counted nodes, ${z.readyEndpoints} ready endpoints)`, z.name)
        continue
      }
      zoneChanges(o, z, tag, add)
    }
    for (const z of p.zones) if (!nz.has(z.name)) add('zone-removed', 'info', `zone ${z.name} gone${tag}`, z.name)
    if (p.drift.endpoints === 0 && e.drift.endpoints > 0) add('drift', 'info', `${e.drift.endpoints} endpoint(s) differ from what the controller writes at its next sync${tag}`)
    if (p.drift.endpoints > 0 && e.drift.endpoints === 0) add('drift-cleared', 'good', `live hints match the controller's prediction again${tag}`)
  }

  // Cliffs.
  if (prev !== null) {
    const key = (c: Cliff) => `${c.kind}|${c.effect}|${c.zone ?? ''}|${c.nodes.join(',')}|${c.endpoints ?? ''}`
    const was = new Set(prev.cliffs.map(key))
    const is = new Set(next.cliffs.map(key))
    for (const c of next.cliffs) if (!was.has(key(c))) add('cliff', c.effect === 'hints-set' ? 'info' : 'bad', `cliff: ${c.message}`, c.zone)
    for (const c of prev.cliffs) if (!is.has(key(c))) add('cliff-cleared', 'info', `no longer on the edge: ${c.message}`, c.zone)
  }
  return out
}

function modeText(e: ServiceExplanation): string {
  switch (e.mode.path) {
    case 'topology-mode-auto':
      return `topology-mode ${e.mode.annotationValue}`
    case 'traffic-distribution':
      return `trafficDistribution ${e.mode.trafficDistribution}`
    default:
      return 'none (no topology-aware routing)'
  }
}

function zoneChanges(o: ZoneRow, z: ZoneRow, tag: string, add: (kind: ChangeKind, tone: Change['tone'], message: string, zone?: string | null) => void): void {
  const n = z.name
  if (o.cpuRatio !== z.cpuRatio && (o.cpuRatio === null || z.cpuRatio === null || Math.abs(o.cpuRatio - z.cpuRatio) >= 0.0005)) {
    add('zone-share', 'info', `${n}: CPU share ${pct(o.cpuRatio)} -> ${pct(z.cpuRatio)}`, n)
  }
  if (o.readyEndpoints !== z.readyEndpoints) {
    add('ready-endpoints', z.readyEndpoints < o.readyEndpoints ? 'bad' : 'good', `${n}: ready endpoints ${o.readyEndpoints} -> ${z.readyEndpoints}${tag}`, n)
  }
  if (o.liveHints !== z.liveHints) add('live-hints', 'info', `${n}: live hints ${o.liveHints} -> ${z.liveHints}${tag}`, n)
  if (!o.kubeProxy.fallback && z.kubeProxy.fallback) add('fallback', 'bad', `${n}: kube-proxy falls back to every endpoint (${z.kubeProxy.reason})${tag}`, n)
  if (o.kubeProxy.fallback && !z.kubeProxy.fallback) {
    add('fallback-cleared', 'good', `${n}: kube-proxy ${z.kubeProxy.mode === '' ? 'no longer falls back (no hints)' : 'uses the hints again'}${tag}`, n)
  }
}
