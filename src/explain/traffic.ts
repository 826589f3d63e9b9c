// The traffic estimate: the share of requests served in their own zone and the worst
// per-endpoint overload, with the live and the predicted hints, under the traffic model (zone
// CPU shares, upstream's assumption, or --traffic).
import type {EndpointRow, TrafficEstimate, ZoneStats} from './report-types.js'
import type {ZoneCapacity} from './node-verdicts.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import type {ZoneView} from '../upstream/kube-proxy/topology.js'
import {sortStrings} from './helpers.js'

export function trafficModel(custom: Record<string, number> | undefined, ratios: Record<string, number> | null, capacity: ZoneCapacity): Record<string, number> | null {
  if (custom) return memo(CUSTOM_SHARES, custom, customShares)
  if (ratios) return ratios
  return memo(NODE_SHARES, capacity, nodeShares)
}

/**
 * Each model once per input object, not once per explain() call (the engine never mutates its
 * input, and callers only read the shares): the advisor explains every Service four or five
 * times, and without CPU ratios the estimate is a pass over every Node of the cluster
 * (docs/design.md, "The advisor's cost").
 */
const CUSTOM_SHARES = new WeakMap<object, Record<string, number> | null>()
const NODE_SHARES = new WeakMap<object, Record<string, number> | null>()
function memo<K extends object>(m: WeakMap<object, Record<string, number> | null>, key: K, f: (k: K) => Record<string, number> | null): Record<string, number> | null {
  let v = m.get(key)
  if (v === undefined) {
    v = f(key)
    m.set(key, v)
  }
  return v
}

function customShares(custom: Record<string, number>): Record<string, number> | null {
  const total = Object.values(custom).reduce((a, b) => a + b, 0)
  if (total <= 0) return null
  return Object.fromEntries(Object.entries(custom).map(([z, w]) => [z, w / total]))
}

function nodeShares(capacity: ZoneCapacity): Record<string, number> | null {
  // No upstream ratios (a node without zone or CPU): estimate from the nodes that do have both.
  const cpu = new Map<string, number>()
  for (const v of capacity.nodes) {
    if ((v.status === 'counted' || (v.status !== 'control-plane' && v.status !== 'not-ready')) && v.zone && v.milliCPU > 0) cpu.set(v.zone, (cpu.get(v.zone) ?? 0) + v.milliCPU)
  }
  const total = [...cpu.values()].reduce((a, b) => a + b, 0)
  if (total <= 0) return null
  // Sorted zone names, like the ratios: the estimate sums over zones in this order.
  return Object.fromEntries(sortStrings(cpu.keys()).map((z) => [z, cpu.get(z)! / total]))
}

/** What the traffic estimate reads from the endpoint rows. */
export interface RowFacts {
  rows: readonly EndpointRow[]
  /** Per zone a row names: its counts and id. */
  stats: ReadonlyMap<string, ZoneStats>
  /** By row: its zone's id, -1 without zone. */
  rowZone: Int32Array
  /** By row: 1 when kube-proxy counts the endpoint as ready. */
  rowProxyReady: Uint8Array
  /** Whether eps[j] is the endpoint of rows[j] for every j. */
  byRow: (eps: readonly ProxyEndpoint[]) => boolean
}

export function estimateTraffic(
  shares: Record<string, number> | null,
  model: 'zone-cpu' | 'custom' | 'measured',
  facts: RowFacts,
  live: readonly ProxyEndpoint[],
  liveViews: Map<string, ZoneView>,
  predicted: readonly ProxyEndpoint[],
  predictedViews: Map<string, ZoneView>,
  /**
   * Zones whose nodes run kube-proxies of different rules (version skew): per zone, each rule
   * set's view and its share of the zone's traffic, instead of the one view above.
   */
  mix: {live?: Map<string, {view: ZoneView; weight: number}[]>; predicted?: Map<string, {view: ZoneView; weight: number}[]>} = {},
): TrafficEstimate {
  if (shares === null)
    return {
      model: 'none',
      inZoneShareLive: null,
      inZoneSharePredicted: null,
      maxEndpointOverloadLive: null,
      maxEndpointOverloadPredicted: null,
      worstZoneLive: null,
      worstZonePredicted: null,
    }
  const {rows, stats} = facts
  // Read only for the endpoints at the highest load, when some is above an even share: the zone
  // names by id in a list made then (a Map of them built from copied entries was most of a small
  // Service's estimate; a list indexed by id also serves thousands of endpoints at that load).
  let namesById: string[] | undefined
  const zoneById = (id: number): string | undefined => {
    if (namesById === undefined) {
      namesById = new Array<string>(stats.size)
      for (const [name, z] of stats) namesById[z.id] = name
    }
    return id >= 0 && id < namesById.length ? namesById[id] : undefined
  }
  const zoneShares = entriesOf(shares)
  /**
   * By position in eps: the id of the endpoint's zone (the zone of the last row with its
   * address; -1 when none), and whether it is ready.
   */
  let zoneOf: Map<string, string | null> | undefined
  const positions = (eps: readonly ProxyEndpoint[]): {zone: Int32Array; ready: Uint8Array} => {
    // Usually eps[j] is the endpoint of rows[j]: then that row is the only one with its address.
    if (facts.byRow(eps)) return {zone: facts.rowZone, ready: facts.rowProxyReady}
    zoneOf ??= new Map(rows.map((r) => [r.addresses[0] ?? '', r.zone]))
    const zone = new Int32Array(eps.length)
    const ready = new Uint8Array(eps.length)
    for (let j = 0; j < eps.length; j++) {
      const z = zoneOf.get(eps[j]!.ip)
      zone[j] = z == null || z === '' ? -1 : stats.get(z)!.id
      if (eps[j]!.ready) ready[j] = 1
    }
    return {zone, ready}
  }
  const estimate = (eps: readonly ProxyEndpoint[], views: Map<string, ZoneView>, parts: Map<string, {view: ZoneView; weight: number}[]> | undefined) => {
    const at = positions(eps)
    // Loads by position in eps (IPs are unique there: proxyEndpointsFromSlices merges them).
    const load = loads(eps.length)
    let inZone = 0
    let covered = 0
    const add = (zone: string, view: ZoneView, share: number) => {
      const targets = view.cluster
      if (targets.length === 0 || share <= 0) return
      covered += share
      // A zone no row names matches no endpoint (-2 is no id).
      const local = spread(targets, share / targets.length, load, at.zone, stats.get(zone)?.id ?? -2)
      inZone += (share * local) / targets.length
    }
    for (let s = 0; s < zoneShares.length; s++) {
      const [zone, zoneShare] = zoneShares[s]!
      // One view per zone (no skew: no list made for it), or each rule set's with its weight.
      const mixed = parts?.get(zone)
      if (mixed === undefined) add(zone, views.get(zone)!, zoneShare)
      else for (const {view, weight} of mixed) add(zone, view, zoneShare * weight)
    }
    let ready = 0
    for (let i = 0; i < eps.length; i++) ready += at.ready[i]!
    if (covered === 0 || ready === 0) return {inZone: null, maxOverload: null, worstZone: null}
    let max = -1
    for (let i = 0; i < eps.length; i++) if (at.ready[i] === 1) max = Math.max(max, (load[i]! / covered) * ready - 1)
    // The zone of the most loaded endpoint (ties: the first zone name), when one is above an even share.
    let worstZone: string | null = null
    if (max > 1e-9) {
      for (let i = 0; i < eps.length; i++) {
        if (at.ready[i] !== 1 || (load[i]! / covered) * ready - 1 < max - 1e-9) continue
        const z = zoneById(at.zone[i]!)
        if (z !== undefined && (worstZone === null || z < worstZone)) worstZone = z
      }
    }
    return {inZone: inZone / covered, maxOverload: max, worstZone}
  }
  const l = estimate(live, liveViews, mix.live)
  const p = predicted === live && mix.predicted === mix.live ? l : estimate(predicted, predictedViews, mix.predicted)
  return {
    model,
    inZoneShareLive: l.inZone,
    inZoneSharePredicted: p.inZone,
    maxEndpointOverloadLive: l.maxOverload,
    maxEndpointOverloadPredicted: p.maxOverload,
    worstZoneLive: l.worstZone,
    worstZonePredicted: p.worstZone,
  }
}

/**
 * The model's [zone, share] pairs, once per model object (models are shared by every Service of a
 * cluster: trafficModel; the engine never mutates them). Read only.
 */
const ENTRIES = new WeakMap<Record<string, number>, readonly (readonly [string, number])[]>()
function entriesOf(shares: Record<string, number>): readonly (readonly [string, number])[] {
  let e = ENTRIES.get(shares)
  if (e === undefined) ENTRIES.set(shares, (e = Object.entries(shares)))
  return e
}

/**
 * The loads of a small Service are written in one buffer, zeroed for each estimate: a
 * Float64Array of more than 8 numbers (64 bytes) is allocated outside V8's heap, and that fixed
 * cost showed in every estimate when the advisor explains thousands of small Services five times
 * each (docs/design.md, "The advisor's cost"). An estimate reads its loads before it returns and
 * calls nothing that estimates again, so one buffer serves every call.
 */
const SMALL_LOADS = new Float64Array(64)
/** `n` zeroed loads (valid until the next call). */
function loads(n: number): Float64Array {
  if (n > SMALL_LOADS.length) return new Float64Array(n)
  for (let i = 0; i < n; i++) SMALL_LOADS[i] = 0
  return SMALL_LOADS
}

/** Adds `each` to the load of every target; returns how many targets are in zone `id`. */
function spread(targets: Readonly<ArrayLike<number>>, each: number, load: Float64Array, zoneOf: Int32Array, id: number): number {
  let local = 0
  for (let k = 0; k < targets.length; k++) {
    const j = targets[k]!
    if (zoneOf[j] === id) local++
    load[j] = load[j]! + each
  }
  return local
}

/** How a traffic model is named after a figure: one wording for explain, check, plan and watch. */
export function trafficBasis(model: TrafficEstimate['model']): string {
  switch (model) {
    case 'custom':
      return 'traffic per --traffic'
    case 'measured':
      return 'client mix measured by --traffic-from'
    default:
      return 'traffic proportional to zone CPU'
  }
}
