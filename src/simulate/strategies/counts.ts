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
import {zeros} from '../zeros.js'
import {getAllocations} from '../../upstream/endpointslice/topologycache/topologycache.js'
import {sortedKeys, type ZoneAllocation} from '../../upstream/endpointslice/topologycache/utils.js'
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
  // The zones with an allocation, in sorted name order (the order upstream visits them in), as row
  // indices. Zone names are unique in a row (the dataset reader refuses a name given twice).
  const index = new Map(zones.map((z, i) => [z.name, i]))
  const names = sortedKeys(outcome.allocations)
  const rowOf = names.map((name) => index.get(name) as number)
  const {giving, receiving} = givingAndReceiving(
    names,
    names.map((name) => (outcome.allocations[name] as ZoneAllocation).target),
    rowOf.map((o) => (zones[o] as CountZone).endpoints),
  )
  // redistributeInPlace at count level: the endpoints of a giving zone are re-hinted, in endpoint
  // order (zones in row order), to the first receiving zone in sorted order that still receives.
  // Whole runs of endpoints move at once: a run ends where the giver or the receiver is done.
  const hinted = zones.map((_, h) => zones.map((z, o) => (o === h ? z.endpoints : 0)))
  const toGive = zeros(zones.length)
  names.forEach((_, i) => {
    toGive[rowOf[i] as number] = giving[i] as number
  })
  const receivers: number[] = [] // positions in `names`
  names.forEach((_, i) => {
    if ((receiving[i] as number) > 0) receivers.push(i)
  })
  const toReceive = receiving.slice()
  let next = 0 // receivers[next] is the first that still receives
  for (let o = 0; o < zones.length && next < receivers.length; o++) {
    let left = toGive[o] as number
    let endpoints = (zones[o] as CountZone).endpoints
    while (left > 0 && endpoints > 0 && next < receivers.length) {
      const r = receivers[next] as number
      const k = Math.min(left, endpoints, toReceive[r] as number)
      const own = hinted[o] as number[]
      own[o] = (own[o] as number) - k
      const to = hinted[rowOf[r] as number] as number[]
      to[o] = (to[o] as number) + k
      left -= k
      endpoints -= k
      toReceive[r] = (toReceive[r] as number) - k
      if (toReceive[r] === 0) next++
    }
  }
  return zoneHints(zones, b, hinted)
}

/**
 * Upstream's getGivingAndReceivingZones (upstream/endpointslice/topologycache/utils.ts) over
 * arrays: `names` sorted, with each zone's allocation target and allocated hints. The same loop
 * with the same float operations (one endpoint per round, the largest surplus and deficit first,
 * ties to the first zone in sorted order), without sorting the zones again each round or counting
 * tie-breaks (a dataset run does not report them). Returns the counts per position of `names`.
 */
export function givingAndReceiving(names: readonly string[], targets: readonly number[], allocated: readonly number[]): {giving: number[]; receiving: number[]} {
  const Z = names.length
  // A zone that neither gives nor receives is left at 0, which never wins a round: upstream's
  // getMost only takes a value strictly greater than the largest so far, starting from 0.
  const givingDesired = zeros(Z)
  const receivingDesired = zeros(Z)
  for (let i = 0; i < Z; i++) {
    const a = allocated[i] as number
    const t = targets[i] as number
    if (a > t) givingDesired[i] = a - t
    else if (a < t) receivingDesired[i] = t - a
  }
  const giving = zeros(Z)
  const receiving = zeros(Z)
  for (;;) {
    let g = -1
    let numToGive = 0
    let r = -1
    let numToReceive = 0
    for (let i = 0; i < Z; i++) {
      if ((givingDesired[i] as number) > numToGive) {
        g = i
        numToGive = givingDesired[i] as number
      }
      if ((receivingDesired[i] as number) > numToReceive) {
        r = i
        numToReceive = receivingDesired[i] as number
      }
    }
    // upstream stops on the empty zone name: no zone, or (never through SetNodes) a zone named ""
    if (g < 0 || r < 0 || names[g] === '' || names[r] === '' || (numToGive < 1.0 && numToReceive < 1.0) || numToGive < 0.5 || numToReceive < 0.5) break
    giving[g] = (giving[g] as number) + 1
    givingDesired[g] = numToGive - 1
    receiving[r] = (receiving[r] as number) + 1
    receivingDesired[r] = numToReceive - 1
  }
  return {giving, receiving}
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
  const Z = zones.length
  const groupComp: number[][] = []
  // a zone's groups are consecutive: its node groups from firstGroup[zi], nodeGroups[zi] of them
  const firstGroup = zeros(Z)
  const nodeGroups = zeros(Z)
  for (let zi = 0; zi < Z; zi++) {
    const z = zones[zi] as CountZone
    firstGroup[zi] = groupComp.length
    if (z.endpoints === 0) continue
    if (z.nodes === 0) {
      groupComp.push(compOf(Z, zi, z.endpoints))
      continue
    }
    for (let i = 0; i < z.nodes && i < z.endpoints; i++) groupComp.push(compOf(Z, zi, onNode(z.endpoints, z.nodes, i)))
    nodeGroups[zi] = Math.min(z.nodes, z.endpoints)
  }
  const G = groupComp.length
  // consumers as the groups they reach: [from, to) of the group list
  const consumers: Consumer[] = []
  const reachFrom: number[] = []
  const reachTo: number[] = []
  let none = 0
  let zoneMode = 0
  for (let zi = 0; zi < Z; zi++) {
    const z = zones[zi] as CountZone
    if (z.nodes === 0) continue
    const nodeShare = (b.share[zi] as number) * (1 / z.nodes)
    const merged = new Map<NodeRoute, number>()
    for (let i = 0; i < z.nodes; i++) {
      const local = z.endpoints > 0 ? onNode(z.endpoints, z.nodes, i) : 0
      const r = route(zi, local)
      if (r === 'node') {
        const g = (firstGroup[zi] as number) + i
        consumers.push({zone: zi, share: nodeShare})
        reachFrom.push(g)
        reachTo.push(g + 1)
      } else merged.set(r, (merged.get(r) ?? 0) + 1)
    }
    for (const [r, count] of merged) {
      if (r === 'none') none += count
      if (r === 'zone') zoneMode += count
      // the share of `count` nodes, summed as the per-node shares would be
      let share = 0
      for (let i = 0; i < count; i++) share += nodeShare
      consumers.push({zone: zi, share})
      const from = r === 'all' ? 0 : r === 'zone' ? (firstGroup[zi] as number) : 0
      reachFrom.push(from)
      reachTo.push(r === 'all' ? G : r === 'zone' ? from + (nodeGroups[zi] as number) : 0)
    }
  }
  const C = consumers.length
  const groups: MeasureGroup[] = groupComp.map((comp) => ({comp, weights: zeros(C)}))
  for (let c = 0; c < C; c++) for (let g = reachFrom[c] as number; g < (reachTo[c] as number); g++) (groups[g] as MeasureGroup).weights[c] = 1
  return {groups, consumers, none, zoneMode}
}

/** Endpoints per origin zone of a group holding `n` endpoints of zone `zi` only. */
function compOf(Z: number, zi: number, n: number): number[] {
  const comp = zeros(Z)
  comp[zi] = n
  return comp
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
