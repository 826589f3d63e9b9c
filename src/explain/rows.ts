// A Service's endpoint rows and per-zone counts, filled slice by slice in one pass, and the
// row parts many rows share. Pure.

import {hintNamesOf, type HintNames} from '../apply/plan.js'
import type {Endpoint, EndpointSlice} from '../upstream/api/types.js'
import type {EndpointRow, ZoneStats} from './report-types.js'

/** Parts of endpoint rows that many rows share, read-only (frozen). */
export interface RowParts {
  /** The row's conditions (null = unset). */
  conditions(c: Endpoint['conditions']): EndpointRow['conditions']
  /** The hint names, null without hints. */
  hints(h: Endpoint['hints']): HintNames | null
}

/**
 * Row parts shared by the rows of one explain() call: conditions, and hints that name at most
 * one zone and no node. 50,000 endpoints have a handful of distinct ones, so the rows need not
 * allocate three or four objects each. Other hints get objects of their own.
 */
export function rowParts(): RowParts {
  const conditions: EndpointRow['conditions'][] = []
  const code = (v: boolean | null) => (v === null ? 0 : v === true ? 1 : v === false ? 2 : -1)
  const zoneOnly = new Map<string, HintNames>()
  const frozen = (forZones: string[]): HintNames => Object.freeze({forZones: Object.freeze(forZones) as string[], forNodes: Object.freeze([]) as unknown as string[]})
  let none: HintNames | undefined
  return {
    conditions(c) {
      const ready = c?.ready ?? null
      const serving = c?.serving ?? null
      const terminating = c?.terminating ?? null
      const r = code(ready)
      const s = code(serving)
      const t = code(terminating)
      if (r < 0 || s < 0 || t < 0) return {ready, serving, terminating}
      const k = r * 9 + s * 3 + t
      return (conditions[k] ??= Object.freeze({ready, serving, terminating}))
    },
    hints(h) {
      if (!h) return null
      const zones = h.forZones
      const nodes = h.forNodes
      if ((nodes == null || nodes.length === 0) && (zones == null || zones.length <= 1)) {
        if (zones == null || zones.length === 0) return (none ??= frozen([]))
        const name = zones[0]!.name
        let names = zoneOnly.get(name)
        if (names === undefined) zoneOnly.set(name, (names = frozen([name])))
        return names
      }
      return hintNamesOf(h)
    },
  }
}

const NO_NAMES: readonly string[] = Object.freeze([])

/** The hints name exactly one zone, one of `zones`, and no node. */
const oneZoneOf = (h: HintNames | null, zones: readonly string[]): boolean => h !== null && h.forNodes.length === 0 && h.forZones.length === 1 && zones.includes(h.forZones[0]!)

const sameHints = (a: HintNames | null, b: HintNames | null): boolean => {
  // Lists of 0 or 1 names (the usual case) need no sorted copy.
  const sorted = (xs: string[]) => (xs.length === 0 ? '' : xs.length === 1 ? xs[0]! : [...xs].sort().join(','))
  const norm = (h: HintNames | null) => (h === null || (h.forZones.length === 0 && h.forNodes.length === 0) ? '' : `${sorted(h.forZones)}|${sorted(h.forNodes)}`)
  return norm(a) === norm(b)
}

/**
 * The endpoint rows of a Service and the per-zone counts, filled slice by slice. (The loop over a
 * slice's endpoints is a method of its own: V8 optimises it after a few slices, where a loop
 * nested in the loop over the slices left optimised code at the end of every slice.)
 */
export class Rows {
  /** Sized once for every endpoint of the slices (a list grown by push is copied as it grows). */
  readonly endpoints: EndpointRow[]
  private count = 0
  readonly stats = new Map<string, ZoneStats>()
  /** For the traffic estimate, by row: the zone's id in `stats` (-1: none). */
  readonly rowZone: Int32Array
  /** By row: 1 when kube-proxy counts the endpoint as ready (unset counts, unlike the controller). */
  readonly rowProxyReady: Uint8Array
  withAddress = 0
  readyCount = 0
  /** Endpoints (and ready ones) without a zone. */
  noZone = 0
  noZoneReady = 0
  hinted = false
  anyLiveHints = false
  driftedRows = 0
  donatedCount = 0
  /** Rows with alternatives (more than one zone the controller may hint them for). */
  uncertainRows = 0

  constructor(
    private readonly parts: RowParts,
    slices: readonly EndpointSlice[],
  ) {
    let n = 0
    for (const s of slices) n += s.endpoints?.length ?? 0
    this.endpoints = new Array<EndpointRow>(n)
    this.rowZone = new Int32Array(n)
    this.rowProxyReady = new Uint8Array(n)
  }

  private stat(zone: string): ZoneStats {
    let z = this.stats.get(zone)
    if (z === undefined) this.stats.set(zone, (z = {id: this.stats.size, named: false, ready: 0, assigned: 0, liveHints: 0, donatedIn: 0, donatedOut: 0}))
    return z
  }

  /** The rows of one slice; `predicted` is the slice as the controller writes it (maybe the same object). */
  addSlice(slice: EndpointSlice, predicted: EndpointSlice, alternatives: readonly (string[] | null)[] | undefined): void {
    const {parts, endpoints} = this
    const sliceName = slice.metadata.name
    const sliceEndpoints = slice.endpoints ?? []
    // A slice the controller leaves alone is its own prediction (the same object).
    const predictedEndpoints = predicted === slice ? null : predicted.endpoints
    for (let j = 0; j < sliceEndpoints.length; j++) {
      const e = sliceEndpoints[j]!
      const p = predictedEndpoints?.[j] ?? e
      const live = parts.hints(e.hints)
      const pred = p === e || p.hints === e.hints ? live : parts.hints(p.hints)
      const zone = e.zone ?? null
      // Upstream takes a zone "" for none (AddHints: `endpoint.Zone == nil || *endpoint.Zone == ""`;
      // SetNodes skips a node labelled ""): such an endpoint counts in the "<no zone>" row, and
      // no zone donates it nor receives it.
      const zoned = zone !== null && zone !== ''
      const c = e.conditions
      const ready = c?.ready === true
      const predZone = pred?.forZones.length === 1 ? pred.forZones[0]! : null
      const donatedTo = predZone !== null && predZone !== '' && zoned && predZone !== zone && ready ? predZone : null
      const alts = alternatives?.[j] ?? null
      const choices = alts !== null && alts.length > 1 ? alts : null
      // The same endpoint object (a slice the controller leaves alone) cannot drift, nor can
      // live hints the controller may write in another order (one zone of `alternatives`).
      const drift = p !== e && live !== pred && !sameHints(live, pred) && !(choices !== null && oneZoneOf(live, choices))
      const at = this.count++
      endpoints[at] = {
        addresses: e.addresses,
        nodeName: e.nodeName ?? null,
        zone,
        slice: sliceName,
        conditions: parts.conditions(c),
        controllerReady: ready,
        liveHints: live,
        predictedHints: pred,
        alternatives: choices,
        donatedTo,
        drift,
      }
      if (drift) this.driftedRows++
      if (choices !== null) this.uncertainRows++
      // The zone's own counts first: the hints usually name it.
      const home = zoned ? this.stat(zone) : null
      if (home !== null) home.named = true
      this.rowZone[at] = home === null ? -1 : home.id
      if (c == null || c.ready == null || c.ready) this.rowProxyReady[at] = 1
      if (e.addresses[0] !== undefined) this.withAddress++
      const liveZones = live?.forZones ?? NO_NAMES
      const predZones = pred?.forZones ?? NO_NAMES
      // The same hints (the usual case: the controller keeps them) count for both in one walk.
      const same = live === pred
      // A zone named twice in one endpoint's hints counts once.
      for (let k = 0; k < liveZones.length; k++) {
        const z = liveZones[k]!
        const zc = home !== null && z === zone ? home : this.stat(z)
        if (z) zc.named = true
        if (ready && (k === 0 || liveZones.indexOf(z) === k)) {
          zc.liveHints++
          if (same) zc.assigned++
        }
      }
      for (let k = 0; !same && k < predZones.length; k++) {
        const z = predZones[k]!
        const zc = home !== null && z === zone ? home : this.stat(z)
        if (z) zc.named = true
        if (ready && (k === 0 || predZones.indexOf(z) === k)) zc.assigned++
      }
      if (home === null) {
        this.noZone++
        if (ready) this.noZoneReady++
      }
      if (ready) {
        this.readyCount++
        if (home !== null) home.ready++
        if (predZones.length > 0) this.hinted = true
        if (live !== null && (live.forZones.length > 0 || live.forNodes.length > 0)) this.anyLiveHints = true
      }
      if (donatedTo !== null) {
        this.donatedCount++
        this.stat(donatedTo).donatedIn++
        home!.donatedOut++
      }
    }
  }
}
