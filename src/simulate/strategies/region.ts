// The KEP-2004 evaluation tool's data model (github.com/googleinterns/k8s-topology-simulator,
// commit b2a4aae5568792a115be8c4bf0c8ef03845b97a2 "Merge PR #20 local-alg-opt"), as plain arrays:
//
//   types.Zone / types.RegionInfo  -> Region (zones sorted by name, as the tool's sortZoneByNames)
//   types.EndpointSliceGroup       -> SliceGroup (composition weight is 1 in every algorithm at
//                                     that commit, so only counts are kept; consumer weights per zone)
//   algorithm.ZonePriorityQueue    -> zoneLess() + the Go container/heap mimic below
//
// Go's container/heap is reproduced operation by operation (Init, Push, Pop = swap(0, n-1),
// sift down, take the last) because the tool breaks ties by heap mechanics: the same input gives
// the same allocation as the tool, ties included.

import {zeros} from '../zeros.js'

export interface Region {
  /** Zone names, sorted (Go sort.Strings order: byte order; UTF-16 order is the same for ASCII names). */
  zones: string[]
  /** r_z: the zone's share of the traffic ("NodesRatio" in the tool: nodes_z / total nodes; 0 when there are no nodes). */
  share: number[]
  /** n_z: endpoints in the zone. */
  endpoints: number[]
  /** N = sum of n_z. */
  total: number
}

export interface SliceGroup {
  /** The tool's label: a zone name for local groups, "global", "merged-<zones>", "shared-<zones>". */
  label: string
  /** Endpoints in the group, per zone index (where they run). Written only through setComp / addTo. */
  comp: number[]
  /**
   * The sum of `comp`, kept by setComp / addTo (Groups.countOf reads it in every heap comparison).
   * Every composition is a count (an integer), so the running sum is exactly the sum.
   */
  size: number
  /** Consumer weight per zone index (0: the zone does not consume this group). */
  weights: number[]
}

export type FallbackCause = 'starting-threshold' | 'overload-threshold' | 'no-contributor' | 'padding'

export interface Allocation {
  /** Groups in creation order (a later group with the same label replaces the earlier one, as in the tool's map). */
  groups: SliceGroup[]
  /** Set when a subsetting algorithm handed the Service to the Original (no subsetting) allocation. */
  fallback?: FallbackCause
  /** Set when the tool would return an error for this input (the row would be dropped). */
  error?: string
}

type Algorithm = (region: Region) => Allocation

/** The tool's CreateRegionInfo: ratios from node counts (0 when there are no nodes). Throws on negative counts. */
export function regionFromCounts(zones: readonly {name: string; nodes: number; endpoints: number}[]): Region {
  if (zones.length === 0) throw new Error('a region needs at least one zone')
  let totalNodes = 0
  let total = 0
  for (const z of zones) {
    if (!(z.nodes >= 0) || !(z.endpoints >= 0) || !Number.isInteger(z.nodes) || !Number.isInteger(z.endpoints)) {
      throw new Error(`zone ${JSON.stringify(z.name)}: nodes and endpoints must be non-negative integers`)
    }
    totalNodes += z.nodes
    total += z.endpoints
  }
  const sorted = [...zones].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return {
    zones: sorted.map((z) => z.name),
    share: sorted.map((z) => (totalNodes === 0 ? 0 : z.nodes / totalNodes)),
    endpoints: sorted.map((z) => z.endpoints),
    total,
  }
}

/** A region with explicit traffic shares (CPU share, a custom split, ...); shares are used as given. */
export function regionFromShares(zones: readonly {name: string; share: number; endpoints: number}[]): Region {
  if (zones.length === 0) throw new Error('a region needs at least one zone')
  const sorted = [...zones].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  let total = 0
  for (const z of sorted) total += z.endpoints
  return {zones: sorted.map((z) => z.name), share: sorted.map((z) => z.share), endpoints: sorted.map((z) => z.endpoints), total}
}

// ---- groups ------------------------------------------------------------------------------

/**
 * The tool's map[string]EndpointSliceGroup: insertion-ordered, a set with an existing label replaces
 * it in place. The group whose label is a zone's name (its local group) is also kept by zone index,
 * so groupOf / countOf, called in every heap comparison, index an array instead of hashing a name.
 */
export class Groups {
  private readonly byLabel = new Map<string, SliceGroup>()
  /** zone indices per zone name (a name given twice keeps both: the map lookup found the same group for both) */
  private readonly zoneIndices = new Map<string, number[]>()
  private readonly byZone: (SliceGroup | undefined)[]
  constructor(zones: readonly string[]) {
    this.byZone = new Array<SliceGroup | undefined>(zones.length)
    for (let z = 0; z < zones.length; z++) {
      this.byZone[z] = undefined
      const name = zones[z] as string
      const list = this.zoneIndices.get(name)
      if (list === undefined) this.zoneIndices.set(name, [z])
      else list.push(z)
    }
  }
  get(label: string): SliceGroup | undefined {
    return this.byLabel.get(label)
  }
  set(g: SliceGroup): void {
    this.byLabel.set(g.label, g)
    for (const z of this.zoneIndices.get(g.label) ?? []) this.byZone[z] = g
  }
  delete(label: string): void {
    this.byLabel.delete(label)
    for (const z of this.zoneIndices.get(label) ?? []) this.byZone[z] = undefined
  }
  list(): SliceGroup[] {
    return [...this.byLabel.values()]
  }
  /** get(name of zone z) */
  groupOf(z: number): SliceGroup | undefined {
    return this.byZone[z]
  }
  /** NumberOfEndpoints() of the group labelled with zone z's name (0 when absent, like Go's zero value). */
  countOf(z: number): number {
    const g = this.byZone[z]
    return g === undefined ? 0 : g.size
  }
}

export function newGroup(label: string, zoneCount: number): SliceGroup {
  return {label, comp: zeros(zoneCount), weights: zeros(zoneCount), size: 0}
}

export function groupSize(g: SliceGroup): number {
  let n = 0
  for (const c of g.comp) n += c
  return n
}

/** The tool's updateSGComposition (weight is always 1). */
export function addTo(g: SliceGroup | undefined, zone: number, delta: number): void {
  if (g === undefined) throw new Error('internal: update of a missing slice group')
  g.comp[zone] = (g.comp[zone] as number) + delta
  g.size += delta
}

/** Sets the group's endpoints of one zone (a map assignment in the tool), keeping `size`. */
export function setComp(g: SliceGroup, zone: number, value: number): void {
  g.size += value - (g.comp[zone] as number)
  g.comp[zone] = value
}

/** Expected endpoints E_z = N * r_z, as the tool computes it (float64(TotalEndpoints) * NodesRatio). */
export function expected(region: Region, z: number): number {
  return region.total * (region.share[z] as number)
}

// ---- Go container/heap --------------------------------------------------------------------

/** A heap over zone indices with Go's exact sift order. `less(a, b)`: zone a goes before zone b. */
export class GoHeap {
  constructor(
    public items: number[],
    private readonly lessFn: (a: number, b: number) => boolean,
  ) {}
  get length(): number {
    return this.items.length
  }
  private less(i: number, j: number): boolean {
    return this.lessFn(this.items[i] as number, this.items[j] as number)
  }
  private swap(i: number, j: number): void {
    const t = this.items[i] as number
    this.items[i] = this.items[j] as number
    this.items[j] = t
  }
  private up(j: number): void {
    for (;;) {
      const i = Math.trunc((j - 1) / 2) // parent (Go integer division truncates toward zero)
      if (i === j || !this.less(j, i)) break
      this.swap(i, j)
      j = i
    }
  }
  private down(i0: number, n: number): void {
    let i = i0
    for (;;) {
      const j1 = 2 * i + 1
      if (j1 >= n || j1 < 0) break
      let j = j1
      const j2 = j1 + 1
      if (j2 < n && this.less(j2, j1)) j = j2
      if (!this.less(j, i)) break
      this.swap(i, j)
      i = j
    }
  }
  init(): void {
    const n = this.items.length
    for (let i = Math.trunc(n / 2) - 1; i >= 0; i--) this.down(i, n)
  }
  push(x: number): void {
    this.items.push(x)
    this.up(this.items.length - 1)
  }
  pop(): number {
    const n = this.items.length - 1
    this.swap(0, n)
    this.down(0, n)
    return this.items.pop() as number
  }
  peek(): number {
    return this.items[0] as number
  }
}

/**
 * ZonePriorityQueue.Less (modeling/algorithm/utils.go): zones whose local group is empty go
 * first when receiving (last when giving); receivers by highest r/|G|, givers by lowest r/(|G|-1).
 */
export function zoneLess(region: Region, groups: Groups, receive: boolean): (a: number, b: number) => boolean {
  const lessRaw = (za: number, zb: number): boolean => {
    const ca = groups.countOf(za)
    const cb = groups.countOf(zb)
    if (ca === 0) return false
    if (cb === 0) return true
    if (receive) return (region.share[za] as number) / ca < (region.share[zb] as number) / cb
    return (region.share[za] as number) / (ca - 1) < (region.share[zb] as number) / (cb - 1)
  }
  return receive ? (a, b) => lessRaw(b, a) : lessRaw
}

// ---- endpointsList (utils.go) -------------------------------------------------------------

export interface EndpointDeviation {
  zone: number
  /** integer deviation (a count) */
  deviation: number
  /** fractional weight (local-weighted, local-shared) */
  weight: number
  consumeByLocal: boolean
}

export function dev(zone: number, deviation: number, weight = 0, consumeByLocal = false): EndpointDeviation {
  return {zone, deviation, weight, consumeByLocal}
}

/**
 * utils.go assignEndpoints: first-fit from the front of `available` into `receive`, in list
 * order; the composition entry is SET (not added), as in the tool.
 */
export function assignEndpoints(receive: EndpointDeviation, available: EndpointDeviation[], groups: Groups, region: Region): void {
  for (let index = 0; index < available.length; ) {
    const send = available[index] as EndpointDeviation
    const g = groups.groupOf(receive.zone)
    if (g === undefined) throw new Error('internal: receiver without a local group')
    if (send.deviation === receive.deviation) {
      setComp(g, send.zone, send.deviation)
      receive.deviation = 0
      available.shift()
      break
    }
    if (send.deviation > receive.deviation) {
      setComp(g, send.zone, receive.deviation)
      send.deviation -= receive.deviation
      receive.deviation = 0
      break
    }
    // send.deviation < receive.deviation
    setComp(g, send.zone, send.deviation)
    receive.deviation -= send.deviation
    available.shift()
  }
}
