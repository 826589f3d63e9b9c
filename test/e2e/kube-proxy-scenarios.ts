// Seeded random Services for the differential test against the real kube-proxy
// (kube-proxy-differential.test.ts). Pure: the same seed gives the same scenario (mulberry32),
// so a disagreement is reproduced with KP_SEED=N KP_SCENARIOS=1.
//
// The Nodes are fixed for the whole file (KP_NODES): kube-proxies start once, not per
// scenario. Every scenario is one Service in a fresh namespace, of one of two kinds:
//  - managed: a selector, Pods on the Nodes, the real EndpointSlice controller writes the
//    slices and hints (topology-mode Auto, trafficDistribution, or none); sometimes a
//    "rollout": with the controller paused, some endpoints lose their hints;
//  - hand-made: no selector, EndpointSlices written by the test with any mix of hints
//    (zone, node, none, partial, for zones without Nodes), conditions (ready unset/true/false,
//    serving, terminating), nodeNames of Nodes with and without kube-proxy or of no Node,
//    and IPv4, IPv6 or dual-stack.
// Both kinds sometimes use internalTrafficPolicy Local, or NodePort with externalTrafficPolicy Local.
import type {NodeOptions} from './fixtures.js'
import {mulberry32} from './scenarios.js'

/** A Node of the fixed set; proxy: whether a kube-proxy runs for it. */
export interface KpNode extends NodeOptions {
  proxy: boolean
}

/**
 * zone-a (two Nodes), zone-b, zone-c, one Node without a zone label (NotReady, so the
 * controller ignores it and topology-mode Auto stays possible; kube-proxy does not look at
 * Ready), and zone-d whose Node has no kube-proxy. zone-e has no Node at all: it only appears
 * in hand-made endpoints and hints.
 */
export const KP_NODES: KpNode[] = [
  {name: 'kp-a-1', zone: 'zone-a', cpu: '4', proxy: true},
  {name: 'kp-a-2', zone: 'zone-a', cpu: '2', proxy: true},
  {name: 'kp-b-1', zone: 'zone-b', cpu: '4', proxy: true},
  {name: 'kp-c-1', zone: 'zone-c', cpu: '8', proxy: true},
  {name: 'kp-nozone', cpu: '4', ready: false, proxy: true},
  {name: 'kp-d-1', zone: 'zone-d', cpu: '4', proxy: false},
]
const ZONES = ['zone-a', 'zone-b', 'zone-c', 'zone-d', 'zone-e']
const NODE_NAMES = KP_NODES.map((n) => n.name)
/** Nodes a Pod can run on (the controller skips Pods of unknown Nodes; NotReady is fine). */
const POD_NODES = NODE_NAMES

export const PORT_NAME = 'http'
export const TARGET_PORT = 8080

export interface KpPod {
  name: string
  nodeName: string
  ip: string
  ready: boolean
  terminating: boolean
}

export interface KpEndpoint {
  addresses: [string]
  conditions: {ready?: boolean; serving?: boolean; terminating?: boolean}
  nodeName?: string
  zone?: string
  hints?: {forZones?: {name: string}[]; forNodes?: {name: string}[]}
}

export interface KpSlice {
  name: string
  addressType: 'IPv4' | 'IPv6'
  endpoints: KpEndpoint[]
}

export interface KpScenario {
  seed: number
  kind: 'managed' | 'handmade'
  /** How the hints come about, for the summary. */
  style: string
  type: 'ClusterIP' | 'NodePort'
  internalTrafficPolicy?: 'Local'
  externalTrafficPolicy?: 'Local'
  ipFamilies: ('IPv4' | 'IPv6')[]
  // managed
  pods: KpPod[]
  annotations: Record<string, string>
  trafficDistribution?: string
  publishNotReadyAddresses: boolean
  /** managed: with the controller paused, drop the hints of the endpoints with these IPs. */
  rolloutUnhint: string[]
  // hand-made
  slices: KpSlice[]
}

const TRAFFIC: (string | undefined)[] = [undefined, 'PreferClose', 'PreferSameZone', 'PreferSameZone', 'PreferSameNode', 'PreferSameNode']
/**
 * focus 'skew' (Nodes at different kube-proxy minors): the same draws, but managed Services
 * mostly ask for PreferSameNode (which kube-proxy reads from 1.34 only) and hand-made hints
 * mostly name nodes, so the minors' differences are exercised in most scenarios.
 */
const TRAFFIC_SKEW: (string | undefined)[] = ['PreferSameNode', 'PreferSameNode', 'PreferSameNode', 'PreferSameNode', 'PreferSameZone', 'PreferClose']
const MODES = ['auto', 'auto', 'traffic', 'traffic', 'none'] as const
const MODES_SKEW = ['auto', 'traffic', 'traffic', 'traffic', 'traffic'] as const
const HINT_STYLES = ['own-zone', 'own-zone', 'partial', 'node', 'node-and-zone', 'other-zones', 'none', 'random'] as const
const HINT_STYLES_SKEW = ['own-zone', 'node-and-zone', 'node-and-zone', 'node', 'node', 'node-and-zone', 'partial', 'random'] as const

export function generateKpScenario(seed: number, focus?: 'skew'): KpScenario {
  const rnd = mulberry32(seed * 7919 + 17)
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const chance = (p: number) => rnd() < p

  const s: KpScenario = {
    seed,
    kind: chance(0.5) ? 'managed' : 'handmade',
    style: '',
    type: 'ClusterIP',
    ipFamilies: ['IPv4'],
    pods: [],
    annotations: {},
    publishNotReadyAddresses: false,
    rolloutUnhint: [],
    slices: [],
  }
  const policy = rnd()
  if (policy < 0.15) s.internalTrafficPolicy = 'Local'
  else if (policy < 0.25) {
    s.type = 'NodePort'
    s.externalTrafficPolicy = 'Local'
  }
  const net = seed % 200

  if (s.kind === 'managed') {
    const mode = pick(focus === 'skew' ? MODES_SKEW : MODES)
    if (mode === 'auto') s.annotations = {'service.kubernetes.io/topology-mode': 'Auto'}
    if (mode === 'traffic') {
      const td = pick(focus === 'skew' ? TRAFFIC_SKEW : TRAFFIC)
      if (td !== undefined) s.trafficDistribution = td
    }
    s.publishNotReadyAddresses = chance(0.1)
    // Enough endpoints, often, for Auto to hint (it wants several per zone).
    const n = chance(0.15) ? int(0, 3) : int(4, 30)
    // Auto hints only when each zone's share of endpoints is near its share of CPU: most Auto
    // scenarios place their Pods so (Nodes in turn, weighted by CPU), the others at random.
    const balanced = mode === 'auto' && chance(0.7)
    const weighted = KP_NODES.filter((x) => x.ready !== false).flatMap((x) => Array<string>(Math.max(1, Math.round(Number(x.cpu) / 2))).fill(x.name))
    const offset = int(0, weighted.length - 1)
    for (let i = 0; i < n; i++) {
      s.pods.push({
        name: `p${i}`,
        nodeName: balanced ? weighted[(i + offset) % weighted.length]! : pick(POD_NODES),
        ip: `10.${net + 20}.0.${i + 1}`,
        ready: chance(0.85),
        terminating: chance(0.08),
      })
    }
    // Only where the controller writes hints (Auto, or a trafficDistribution it acts on).
    const rollout = n > 0 && (mode === 'auto' || s.trafficDistribution !== undefined) && chance(0.35)
    if (rollout) s.rolloutUnhint = s.pods.filter(() => chance(0.3)).map((p) => p.ip)
    s.style = `${mode === 'auto' ? `topology-mode Auto${balanced ? ' (Pods spread by CPU)' : ''}` : s.trafficDistribution ? `trafficDistribution ${s.trafficDistribution}` : 'no topology'}${s.rolloutUnhint.length ? ', rollout (paused controller, some hints dropped)' : ''}`
    return s
  }

  // hand-made
  const fam = rnd()
  s.ipFamilies = fam < 0.6 ? ['IPv4'] : fam < 0.8 ? ['IPv4', 'IPv6'] : ['IPv6']
  const hintStyle = pick(focus === 'skew' ? HINT_STYLES_SKEW : HINT_STYLES)
  s.style = `hand-made ${s.ipFamilies.join('+')} slices, hints: ${hintStyle}`
  let k = 0
  for (const addressType of s.ipFamilies) {
    const sliceCount = chance(0.2) ? 2 : 1
    for (let si = 0; si < sliceCount; si++) {
      const endpoints: KpEndpoint[] = []
      const n = chance(0.1) ? int(0, 2) : int(1, 14)
      for (let i = 0; i < n; i++) {
        k++
        const ip = addressType === 'IPv4' ? `10.${net + 20}.1.${k}` : `fd00:${(net + 20).toString(16)}::${k.toString(16)}`
        const ep: KpEndpoint = {addresses: [ip], conditions: {}}
        const cond = rnd()
        if (cond < 0.15) {
          // ready unset: kube-proxy counts it ready
        } else if (cond < 0.75) ep.conditions = {ready: true, serving: true, terminating: false}
        else if (cond < 0.85) ep.conditions = {ready: false, serving: false, terminating: false}
        else if (cond < 0.95) ep.conditions = {ready: false, serving: true, terminating: true}
        else ep.conditions = {ready: false, serving: false, terminating: true}
        const where = rnd()
        if (where < 0.75) {
          const node = pick(KP_NODES)
          ep.nodeName = node.name
          if (node.zone !== undefined) ep.zone = node.zone
        } else if (where < 0.85)
          ep.zone = 'zone-e' // a zone without Nodes
        else if (where < 0.92) {
          ep.nodeName = 'gone-1' // no such Node
          ep.zone = pick(ZONES)
        } // else: neither nodeName nor zone
        const ownZone = ep.zone ?? pick(ZONES)
        const ownNode = ep.nodeName ?? pick(NODE_NAMES)
        switch (hintStyle) {
          case 'own-zone':
            ep.hints = {forZones: [{name: ownZone}]}
            break
          case 'partial': // a rollout: the new endpoints have no hints yet
            if (chance(0.7)) ep.hints = {forZones: [{name: ownZone}]}
            break
          case 'node':
            ep.hints = {forNodes: [{name: ownNode}]}
            break
          case 'node-and-zone':
            ep.hints = {forZones: [{name: ownZone}], forNodes: [{name: ownNode}]}
            break
          case 'other-zones': {
            const zs = [...new Set([pick(ZONES), ...(chance(0.4) ? [pick(ZONES)] : [])])]
            ep.hints = {forZones: zs.map((name) => ({name}))}
            break
          }
          case 'none':
            break
          case 'random': {
            const h: KpEndpoint['hints'] = {}
            if (chance(0.7)) h.forZones = [{name: pick(ZONES)}]
            if (chance(0.3)) h.forNodes = [{name: pick(NODE_NAMES)}]
            if (h.forZones || h.forNodes) ep.hints = h
            break
          }
        }
        endpoints.push(ep)
      }
      s.slices.push({name: `hand-${addressType.toLowerCase()}-${si}`, addressType, endpoints})
    }
  }
  // Now and then the same address in two slices, one copy terminating (endpointslicecache.go
  // keeps the non-terminating copy).
  const v4 = s.slices.filter((sl) => sl.addressType === 'IPv4')
  // Only a non-terminating original: with two terminating copies upstream's pick depends on Go's map order.
  const src = v4[0]?.endpoints.find((e) => e.conditions.terminating !== true)
  // Not with focus 'skew': before 1.36 kube-proxy keeps the first copy in Go's map order of the
  // slices unless one copy is on its own node (v1.33.13 endpointslicecache.go `!exists || isLocal`),
  // so a node of an older minor has no certain answer (the draw is made all the same).
  if (v4.length === 2 && src && chance(0.5) && focus !== 'skew') {
    v4[1]!.endpoints.push({...src, conditions: {ready: false, serving: true, terminating: true}})
    s.style += ', one address in two slices'
  }
  // Drawn last, so the scenarios of earlier seeds are otherwise unchanged: now and then the
  // topology-mode annotation, which kube-proxy up to 1.30 needs before it reads any hint
  // (v1.30 pkg/proxy/topology.go canUseTopology; the controller ignores a Service without a selector).
  if (chance(0.35)) {
    s.annotations = {'service.kubernetes.io/topology-mode': 'Auto'}
    s.style += ', annotated Auto'
  }
  return s
}
