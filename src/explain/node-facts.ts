// What explain derives from the Nodes once per call (the cluster summary, the zone capacity,
// the nodes by zone) and how it groups a Service's slices. Pure.

import {zoneCapacity, type ZoneCapacity} from './node-verdicts.js'
import {LABEL_SERVICE_NAME, LABEL_ZONE, type AddressType, type EndpointSlice, type Node, type Service} from '../upstream/api/types.js'
import type {NodeSummary, ZoneStats} from './report-types.js'
import {sortStrings} from './helpers.js'

/**
 * What explain derives from the Nodes alone, by the Nodes array: the advisor and plan explain one
 * Service many times over the same Nodes (each option, each count), and this part grows with the
 * cluster. A memo by identity: the engine never mutates its input, so the same array gives the same facts.
 */
const NODE_FACTS = new WeakMap<readonly Node[], {capacity: ZoneCapacity; cluster: NodeSummary; nodeIndex: ReturnType<typeof indexNodes>}>()
export function nodeFacts(nodes: Node[]): {capacity: ZoneCapacity; cluster: NodeSummary; nodeIndex: ReturnType<typeof indexNodes>} {
  let f = NODE_FACTS.get(nodes)
  if (f === undefined) {
    const capacity = zoneCapacity(nodes)
    const cluster = summariseNodes(capacity)
    f = {capacity, cluster, nodeIndex: indexNodes(nodes, cluster)}
    NODE_FACTS.set(nodes, f)
  }
  return f
}

/**
 * The zones a Service's rows show: the CPU ratios' and the Nodes' (in that order), then those its
 * endpoints name (`stats`, in order), as a set in that order and sorted. The first two are the same
 * for every Service of a cluster, so they are joined and sorted once per NodeIndex (and ratios),
 * and a Service whose endpoints name no other zone shares them (read-only): explain() ran this for
 * each of the advisor's per-mode evaluations (docs/design.md, "The advisor's cost").
 */
const CLUSTER_ZONES = new WeakMap<NodeIndex, {ratios: Record<string, number> | null; names: ReadonlySet<string>; sorted: readonly string[]}>()
export function shownZones(
  ratios: Record<string, number> | null,
  nodeIndex: NodeIndex,
  stats: ReadonlyMap<string, ZoneStats>,
): {names: ReadonlySet<string>; sorted: readonly string[]} {
  let base = CLUSTER_ZONES.get(nodeIndex)
  if (base === undefined || base.ratios !== ratios) {
    const names = new Set<string>()
    for (const z of Object.keys(ratios ?? {})) names.add(z)
    for (const z of nodeIndex.zones) names.add(z)
    base = {ratios, names, sorted: sortStrings(names)}
    CLUSTER_ZONES.set(nodeIndex, base)
  }
  let names: Set<string> | undefined
  for (const [z, c] of stats) {
    if (!c.named || base.names.has(z)) continue
    names ??= new Set(base.names)
    names.add(z)
  }
  return names === undefined ? base : {names, sorted: sortStrings(names)}
}

/**
 * The slices of each Service, by namespace then name (the service-name label), in input order,
 * grouped once per slices array (a memo by identity, like nodeFacts: the engine never mutates its
 * input). explain() looks up only the Services it explains; the advisor's four or five explain()
 * calls per Service share one view (src/advise/view.ts), whose slices were grouped again by each.
 * Two levels, not one "namespace/name" key: a lookup then hashes the Service's own strings (V8
 * keeps a string's hash) instead of a new string per call. Read only.
 */
export type SliceGroups = ReadonlyMap<string, ReadonlyMap<string, readonly EndpointSlice[]>>
const SLICES_BY_SERVICE = new WeakMap<readonly EndpointSlice[], SliceGroups>()
export function slicesByService(slices: readonly EndpointSlice[]): SliceGroups {
  let m = SLICES_BY_SERVICE.get(slices)
  if (m === undefined) {
    const out = new Map<string, Map<string, EndpointSlice[]>>()
    for (let i = 0; i < slices.length; i++) {
      const s = slices[i]!
      const svc = s.metadata.labels?.[LABEL_SERVICE_NAME]
      if (!svc) continue
      const ns = s.metadata.namespace ?? 'default'
      let byName = out.get(ns)
      if (byName === undefined) out.set(ns, (byName = new Map()))
      const list = byName.get(svc)
      if (list) list.push(s)
      else byName.set(svc, [s])
    }
    SLICES_BY_SERVICE.set(slices, (m = out))
  }
  return m
}

export function addressTypesOf(svc: Service, slices: readonly EndpointSlice[]): AddressType[] {
  const seen = new Set<AddressType>()
  for (const s of slices) if (s.addressType !== 'FQDN') seen.add(s.addressType)
  if (seen.size === 0) {
    for (const fam of svc.spec?.ipFamilies ?? ['IPv4']) if (fam === 'IPv4' || fam === 'IPv6') seen.add(fam)
  }
  return [...seen].sort()
}

export function summariseNodes(capacity: ZoneCapacity): NodeSummary {
  const zones = new Map<string, {counted: number; ignored: number; cpuMilli: number}>()
  for (let i = 0; i < capacity.nodes.length; i++) {
    const n = capacity.nodes[i]!
    if (n.zone === null || n.zone === '') continue
    const z = zones.get(n.zone) ?? {counted: 0, ignored: 0, cpuMilli: 0}
    if (n.status === 'counted') {
      z.counted++
      z.cpuMilli += n.milliCPU
    } else z.ignored++
    zones.set(n.zone, z)
  }
  return {
    sufficientNodeInfo: capacity.sufficientNodeInfo,
    zones: [...zones.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, z]) => ({name, ...z, cpuRatio: own(capacity.cpuRatiosByZone, name) ?? null})),
    nodes: capacity.nodes,
    disablingNodes: capacity.nodes
      .filter((n) => n.disablesHints)
      .map((n) => ({
        name: n.name,
        status: n.status,
        fix:
          n.status === 'no-zone-label'
            ? // Prose, not a command: the zone is the node's to know (a template with "<zone>" in it
              // is not runnable), and a pasted name is never a command (issue 20).
              `label node ${n.name} with ${LABEL_ZONE} set to the zone it runs in`
            : `give node ${n.name} allocatable CPU (status.allocatable.cpu is ${n.cpuError ? 'invalid' : 'zero or missing'})`,
      })),
  }
}

/** rec[key] for own keys only: a zone may be named like an Object.prototype member ("constructor"). */
export const own = <T>(rec: Record<string, T> | null | undefined, key: string): T | undefined => (rec != null && Object.hasOwn(rec, key) ? rec[key] : undefined)

/** What every Service's explanation needs from the Nodes, computed once per explain() call. */
export interface NodeIndex {
  /** Non-empty zone labels of the nodes. */
  zones: Set<string>
  /** Nodes per non-empty zone label, in input order. */
  byZone: Map<string, Node[]>
  /** Per non-empty zone (the verdict's zone label), from nodeVerdicts' verdicts in input order. */
  verdicts: Map<string, {counted: number; ignored: number; cpuMilli: number}>
  /** The nodes sorted by name (the --per-node view; sorted on first use). */
  sorted(): Node[]
  /** Nodes without a (non-empty) zone label. */
  withoutZone: number
  /**
   * Per non-empty zone, how many of its nodes (in `byZone`) are named in `names`: the count of
   * `byZone.get(zone).filter((n) => names.has(n.metadata.name))` for every zone at once, by a
   * lookup per name (a Service's node hints name a few nodes; a zone has hundreds).
   */
  namedPerZone(names: ReadonlySet<string>): Map<string, number>
}

function indexNodes(nodes: readonly Node[], summary: NodeSummary): NodeIndex {
  const zones = new Set<string>()
  const byZone = new Map<string, Node[]>()
  let withoutZone = 0
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!
    const z = n.metadata.labels?.[LABEL_ZONE]
    if (!z) {
      withoutZone++
      continue
    }
    zones.add(z)
    const list = byZone.get(z)
    if (list) list.push(n)
    else byZone.set(z, [n])
  }
  // The summary's zones (a zone row is never named "").
  const verdicts = new Map(summary.zones.map((z) => [z.name, z]))
  let sorted: Node[] | undefined
  // Each name's zones, one entry per node of that name in byZone (two Nodes may share a name).
  let zonesByName: Map<string, string[]> | undefined
  const namedPerZone = (names: ReadonlySet<string>): Map<string, number> => {
    if (zonesByName === undefined) {
      zonesByName = new Map()
      for (const [zone, list] of byZone)
        for (let i = 0; i < list.length; i++) {
          const name = list[i]!.metadata.name
          const zs = zonesByName.get(name)
          if (zs) zs.push(zone)
          else zonesByName.set(name, [zone])
        }
    }
    const out = new Map<string, number>()
    for (const name of names) {
      const zs = zonesByName.get(name)
      if (zs !== undefined) for (let i = 0; i < zs.length; i++) out.set(zs[i]!, (out.get(zs[i]!) ?? 0) + 1)
    }
    return out
  }
  return {zones, byZone, verdicts, withoutZone, namedPerZone, sorted: () => (sorted ??= [...nodes].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)))}
}
