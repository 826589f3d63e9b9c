// The cluster strategies (Auto, PreferSameZone, PreferSameNode; and topology-keys) on a dataset row, from
// counts alone: per zone, `nodes` Ready worker nodes and `endpoints` ready endpoints. Pure.
//
// A row is the cluster rowToClusterState (simulate-dataset.ts) builds from it, and these functions
// give the same measures as simulate.ts does on that cluster (a property test checks it), without
// building nodes, EndpointSlices and hints per row:
//
//  * traffic: every node has the same allocatable CPU, so a zone's CPU share is its node share
//    (the evaluation tool's traffic model; KEP-2004's fallback when CPU is unknown), and a node's
//    share is its zone's share divided by the zone's nodes;
//  * placement: a zone's endpoints are spread round-robin over its nodes (node i of k holds
//    floor(n/k) + (i < n mod k ? 1 : 0)); a zone without nodes holds endpoints on no node. The
//    dataset does not say where endpoints run: PreferSameNode and topology-keys depend on this
//    assumption, Auto and PreferSameZone do not;
//  * endpoints are listed zone by zone in row order (the order upstream's redistribution walks
//    them in).
//
// Auto: topologycache AddHints ("fresh": every slice rewritten) with the exported
// getAllocations / getGivingAndReceivingZones, then the redistribution walk at count level;
// kube-proxy (newest): a zone uses the endpoints hinted for it, or every endpoint if none is.
// PreferSameZone: trafficDistribution PreferSameZone; a zone without endpoints routes cluster-wide.
// PreferSameNode: node hints only count if every endpoint has a node (else zone mode).
// topology-keys: KEP-536; the synthetic nodes carry only the zone and hostname labels, so any other
// key is skipped, "*" matches every endpoint, and no match means no backends.
import type {Consumer, MeasureGroup} from '../measure.js'
import {getAllocations} from '../../upstream/endpointslice/topologycache/topologycache.js'
import {getGivingAndReceivingZones} from '../../upstream/endpointslice/topologycache/utils.js'
import {LABEL_HOSTNAME, LABEL_ZONE} from '../../upstream/api/types.js'

export interface CountZone {
  name: string
  nodes: number
  endpoints: number
}

/** What measure() needs, plus a one-line reason when the strategy routes (partly) without topology. */
export interface CountEvaluation {
  zoneCount: number
  total: number
  consumers: Consumer[]
  groups: MeasureGroup[]
  fallback: string | null
}

interface Base {
  Z: number
  K: number
  N: number
  /** zone share k/K (as the cpu traffic model computes it with equal nodes) */
  share: number[]
}

function base(zones: readonly CountZone[]): Base {
  let K = 0
  let N = 0
  for (const z of zones) {
    K += z.nodes
    N += z.endpoints
  }
  return {Z: zones.length, K, N, share: zones.map((z) => (K === 0 ? 0 : z.nodes / K))}
}

/** Zones that are traffic sources of a zone-level strategy: zones with nodes or endpoints. */
const present = (z: CountZone) => z.nodes > 0 || z.endpoints > 0

/** Every endpoint in one group, every present zone consuming it (no topology). */
function clusterWide(zones: readonly CountZone[], b: Base, fallback: string): CountEvaluation {
  const consumers: Consumer[] = []
  zones.forEach((z, i) => {
    if (present(z)) consumers.push({zone: i, share: b.share[i] as number})
  })
  const groups: MeasureGroup[] = b.N > 0 ? [{comp: zones.map((z) => z.endpoints), weights: consumers.map(() => 1)}] : []
  return {zoneCount: b.Z, total: b.N, consumers, groups, fallback}
}

/**
 * Zone-level hints: `hinted[h]` = endpoints per origin zone hinted for zone h. A present zone with
 * hinted endpoints uses them; one without routes cluster-wide.
 */
function zoneHints(zones: readonly CountZone[], b: Base, hinted: number[][]): CountEvaluation {
  const consumers: Consumer[] = []
  const hasHints = hinted.map((comp) => comp.some((n) => n > 0))
  const consumerZone: number[] = []
  zones.forEach((z, i) => {
    if (!present(z)) return
    consumers.push({zone: i, share: b.share[i] as number})
    consumerZone.push(i)
  })
  const groups: MeasureGroup[] = []
  hinted.forEach((comp, h) => {
    if (!hasHints[h]) return
    groups.push({comp, weights: consumerZone.map((c) => (c === h || !hasHints[c] ? 1 : 0))})
  })
  const without = consumerZone.filter((c) => !hasHints[c]).map((c) => (zones[c] as CountZone).name)
  return {zoneCount: b.Z, total: b.N, consumers, groups, fallback: without.length > 0 ? `no endpoint hinted for ${without.join(', ')}: cluster-wide there` : null}
}

export function upstreamAutoCounts(zones: readonly CountZone[]): CountEvaluation {
  const b = base(zones)
  const withNodes = zones.filter((z) => z.nodes > 0)
  // setNodes: ratios need Ready nodes in at least two zones
  const ratios = withNodes.length < 2 ? null : Object.fromEntries(withNodes.map((z) => [z.name, z.nodes / b.K]))
  const outcome = getAllocations(b.N, ratios)
  if (!outcome.ok) return clusterWide(zones, b, outcome.message)
  const allocated: Record<string, number> = {}
  for (const z of zones) if (z.endpoints > 0) allocated[z.name] = (allocated[z.name] ?? 0) + z.endpoints
  const {giving, receiving} = getGivingAndReceivingZones(outcome.allocations, allocated)
  // redistributeInPlace at count level: the endpoints of a giving zone are re-hinted, in endpoint
  // order, to the first receiving zone (sorted) that still receives.
  const index = new Map(zones.map((z, i) => [z.name, i]))
  const hinted = zones.map((_, h) => zones.map((z, o) => (o === h ? z.endpoints : 0)))
  const toGive = new Map(Object.entries(giving).filter(([, n]) => n > 0))
  const receivers = Object.keys(receiving).sort()
  const toReceive = new Map(receivers.filter((r) => (receiving[r] as number) > 0).map((r) => [r, receiving[r] as number]))
  for (let o = 0; o < zones.length; o++) {
    const origin = zones[o] as CountZone
    for (let e = 0; e < origin.endpoints; e++) {
      if (toGive.size === 0 || toReceive.size === 0) break
      const left = toGive.get(origin.name)
      if (left === undefined) break
      const r = receivers.find((x) => (toReceive.get(x) ?? 0) > 0) as string
      const h = index.get(r) as number
      const own = hinted[o] as number[]
      own[o] = (own[o] as number) - 1
      const to = hinted[h] as number[]
      to[o] = (to[o] as number) + 1
      if (left === 1) toGive.delete(origin.name)
      else toGive.set(origin.name, left - 1)
      const rl = toReceive.get(r) as number
      if (rl === 1) toReceive.delete(r)
      else toReceive.set(r, rl - 1)
    }
  }
  return zoneHints(zones, b, hinted)
}

export function sameZoneCounts(zones: readonly CountZone[]): CountEvaluation {
  const b = base(zones)
  return zoneHints(
    zones,
    b,
    zones.map((_, h) => zones.map((z, o) => (o === h ? z.endpoints : 0))),
  )
}

/** Endpoints on node i of a zone with k nodes and n endpoints (round-robin). */
const onNode = (n: number, k: number, i: number) => Math.floor(n / k) + (i < n % k ? 1 : 0)

type NodeRoute = 'node' | 'zone' | 'all' | 'none'

/**
 * Node-level strategies: `route(zone, nodeEndpoints)` says what a node uses. Groups: one per node
 * holding endpoints (plus one per zone without nodes); consumers: one per node routing to its own
 * node, and one per zone and route for the others (their reach is the same, so merging them gives
 * the same measures).
 */
function nodeLevel(
  zones: readonly CountZone[],
  b: Base,
  route: (z: number, local: number) => NodeRoute,
): {groups: MeasureGroup[]; consumers: Consumer[]; none: number; zoneMode: number} {
  const groupZone: number[] = []
  const groupComp: number[][] = []
  const nodeGroup: number[][] = zones.map(() => [])
  zones.forEach((z, zi) => {
    if (z.endpoints === 0) return
    if (z.nodes === 0) {
      groupZone.push(zi)
      groupComp.push(zones.map((_, o) => (o === zi ? z.endpoints : 0)))
      return
    }
    for (let i = 0; i < z.nodes && i < z.endpoints; i++) {
      ;(nodeGroup[zi] as number[])[i] = groupComp.length
      groupZone.push(zi)
      groupComp.push(zones.map((_, o) => (o === zi ? onNode(z.endpoints, z.nodes, i) : 0)))
    }
  })
  const G = groupComp.length
  const consumers: Consumer[] = []
  const weights: number[][] = Array.from({length: G}, () => [])
  let none = 0
  let zoneMode = 0
  const add = (zi: number, share: number, reach: (g: number) => boolean) => {
    const c = consumers.length
    consumers.push({zone: zi, share})
    for (let g = 0; g < G; g++) (weights[g] as number[])[c] = reach(g) ? 1 : 0
  }
  zones.forEach((z, zi) => {
    if (z.nodes === 0) return
    const nodeShare = (b.share[zi] as number) * (1 / z.nodes)
    const merged = new Map<NodeRoute, number>()
    for (let i = 0; i < z.nodes; i++) {
      const local = z.endpoints > 0 ? onNode(z.endpoints, z.nodes, i) : 0
      const r = route(zi, local)
      if (r === 'node') {
        const g = (nodeGroup[zi] as number[])[i] as number
        add(zi, nodeShare, (x) => x === g)
      } else merged.set(r, (merged.get(r) ?? 0) + 1)
    }
    for (const [r, count] of merged) {
      if (r === 'none') none += count
      if (r === 'zone') zoneMode += count
      // the share of `count` nodes, summed as the per-node shares would be
      let share = 0
      for (let i = 0; i < count; i++) share += nodeShare
      add(zi, share, (g) => (r === 'all' ? true : r === 'zone' ? groupZone[g] === zi : false))
    }
  })
  return {groups: groupComp.map((comp, g) => ({comp, weights: weights[g] as number[]})), consumers, none, zoneMode}
}

export function sameNodeCounts(zones: readonly CountZone[]): CountEvaluation {
  const b = base(zones)
  // kube-proxy prefers the node only if every ready endpoint carries a node hint (has a node)
  const allOnNodes = zones.every((z) => z.endpoints === 0 || z.nodes > 0)
  const {groups, consumers, zoneMode} = nodeLevel(zones, b, (zi, local) => {
    if (allOnNodes && local > 0) return 'node'
    return (zones[zi] as CountZone).endpoints > 0 ? 'zone' : 'all'
  })
  const fallback = !allOnNodes
    ? 'endpoints of a zone without nodes have no node hint: every node uses zone hints'
    : zoneMode > 0
      ? `${zoneMode} node(s) without a local endpoint use zone hints`
      : null
  return {zoneCount: b.Z, total: b.N, consumers, groups, fallback}
}

export function topologyKeysCounts(zones: readonly CountZone[], keys: readonly string[]): CountEvaluation {
  const b = base(zones)
  const {groups, consumers, none} = nodeLevel(zones, b, (zi, local) => {
    for (const key of keys) {
      if (key === '*') return 'all'
      if (key === LABEL_HOSTNAME && local > 0) return 'node'
      if (key === LABEL_ZONE && (zones[zi] as CountZone).endpoints > 0) return 'zone'
    }
    return 'none'
  })
  return {zoneCount: b.Z, total: b.N, consumers, groups, fallback: none > 0 ? `${none} node(s) match no topology key and have no backends` : null}
}
