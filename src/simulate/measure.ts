// The KEP-2004 evaluation tool's measures and score, as pure functions.
//
// Traffic model: modeling/simulator/theoretical-simulator.go (TheoreticalSimulator.Simulate:
// getReachableEndpoints, getTraffic, getEndpointsTrafficLoadDetails, getZoneToZoneTraffic,
// getSimulationResult). Exact expected values, no randomness. Generalised in one way only:
// the tool's consumers are zones (share = the zone's node ratio); here a consumer is any
// traffic source with a zone and a share (a zone, or a node for PreferSameNode / topology-keys).
// With zones as consumers the arithmetic is the tool's, operation for operation.
//
//   reach_c(g) = n_g * w_g(c)                   p_c(g) = reach_c(g) / sum_g' reach_c(g')
//   T_g        = sum_c share_c * p_c(g)          (traffic into group g)
//   load(z,g)  = T_g * (m_zg / n_g) / m_zg      (per endpoint of zone z in g)
//   dev(z,g)   = load(z,g) / (1/N) - 1          ("overload" when > 0)
//   inZone     = sum_c share_c sum_g p_c(g) * m_{zone(c),g} / n_g
//   maxOverload  = max(0, max dev(z,g))               (only overload counts: the running maximum starts at 0)
//   meanOverload = sum |dev(z,g)| * m_zg / N           (mean ABSOLUTE deviation: under-load counts too)
//   sdOverload   = sqrt(sum (dev - meanOverload)^2 * m_zg / N)   (reported by the tool, not scored)
//
// Score: process/output-parser.go parseResult with the weights of process/process.go
// (inZoneTrafficScoreWeight 0.45, deviationScoreWeight 0.4, sliceScoreWeight 0.15, endpointsPerSlice 100):
//   inZoneScore    = 100 * inZone
//   deviationScore = 0.5 * (100 - 100*maxOverload) + 0.5 * (100 - 100*meanOverload)
//   sliceScore     = 100 * ceil(N/100) / endpointSlices
//   score          = 0.45*inZoneScore + 0.4*deviationScore + 0.15*sliceScore
// (the KEP's table "in-zone 45%, max overload 20%, mean overload 20%, slices 15%").
// Invalid (no score): a consumer that reaches no endpoint at all, or no endpoints.

import {zeros} from './zeros.js'

const ENDPOINTS_PER_SLICE = 100
const WEIGHTS = {inZone: 0.45, deviation: 0.4, slices: 0.15} as const

export interface Consumer {
  /** zone index of the traffic source (-1: none) */
  zone: number
  share: number
}

export interface MeasureGroup {
  /** endpoints per zone index */
  comp: number[]
  /** consumer weight per consumer index */
  weights: number[]
}

/** The figures a score and a dataset's aggregates need. */
export interface MeasureTotals {
  valid: boolean
  inZone: number
  maxOverload: number
  meanOverload: number
  sdOverload: number
  endpointSlices: number
  /** ceil(N/100): the slices of one group holding every endpoint */
  baselineSlices: number
  /** endpoints in no group (the tool's local-weighted label collisions) */
  unassigned: number
  /** traffic share of consumers that reach no endpoint */
  unserved: number
}

/** The totals plus the per-zone and per-consumer figures one Service's report shows. */
export interface Measures extends MeasureTotals {
  /** per origin zone: traffic share received by its endpoints */
  zoneLoad: number[]
  /** per origin zone: the largest deviation of its endpoints (null: no endpoint in any group) */
  zoneMaxDeviation: (number | null)[]
  /** per consumer: share of its own traffic served in its zone */
  consumerInZone: number[]
  /** per consumer: endpoints it may reach (groups with weight > 0), per origin zone */
  consumerReach: number[][]
}

export interface ScoreParts {
  score: number
  inZoneScore: number
  deviationScore: number
  sliceScore: number
}

/**
 * Runs the tool's theoretical simulator. `total` is N (the ideal load is 1/N); `slices`
 * overrides the slice count (endpoint-level strategies keep the Service's slices as they are).
 */
export function measure(zoneCount: number, total: number, consumers: readonly Consumer[], groups: readonly MeasureGroup[], opts: {slices?: number} = {}): Measures {
  const detail: Detail = {
    zoneLoad: new Array<number>(zoneCount).fill(0),
    zoneMaxDeviation: new Array<number | null>(zoneCount).fill(null),
    consumerInZone: new Array<number>(consumers.length).fill(0),
    consumerReach: [],
  }
  return {...run(zoneCount, total, consumers, groups, opts.slices, detail), ...detail}
}

/**
 * measure()'s totals alone, without the per-zone and per-consumer arrays (what `simulate
 * --dataset` scores a row with). Every total is computed by the same operations in the same
 * order as measure()'s, so both give the same bits.
 */
export function measureTotals(zoneCount: number, total: number, consumers: readonly Consumer[], groups: readonly MeasureGroup[], slices?: number): MeasureTotals {
  return run(zoneCount, total, consumers, groups, slices, null)
}

type Detail = Pick<Measures, 'zoneLoad' | 'zoneMaxDeviation' | 'consumerInZone' | 'consumerReach'>

function run(
  zoneCount: number,
  total: number,
  consumers: readonly Consumer[],
  groups: readonly MeasureGroup[],
  slicesOverride: number | undefined,
  detail: Detail | null,
): MeasureTotals {
  const C = consumers.length
  const G = groups.length
  const n = new Array<number>(G)
  // each group's arrays, read once here rather than in the consumers x groups loops below
  const comps = new Array<number[]>(G)
  const weights = new Array<number[]>(G)
  let assigned = 0
  let slices = 0
  for (let g = 0; g < G; g++) {
    let s = 0
    const grp = groups[g] as MeasureGroup
    const comp = grp.comp
    comps[g] = comp
    weights[g] = grp.weights
    for (let z = 0; z < zoneCount; z++) s += comp[z] as number
    n[g] = s
    assigned += s
    slices += Math.ceil(s / ENDPOINTS_PER_SLICE)
  }
  let valid = total > 0 && G > 0
  let unserved = 0
  const T = zeros(G)
  let inZone = 0
  for (let c = 0; c < C; c++) {
    const cons = consumers[c] as Consumer
    const reach = detail === null ? null : new Array<number>(zoneCount).fill(0)
    if (detail !== null) detail.consumerReach.push(reach as number[])
    let all = 0
    for (let g = 0; g < G; g++) all += (n[g] as number) * ((weights[g] as number[])[c] as number)
    if (!(all > 0)) {
      valid = false
      unserved += cons.share
      continue
    }
    let own = 0
    for (let g = 0; g < G; g++) {
      const w = (weights[g] as number[])[c] as number
      if (w < 0) valid = false
      // A group this consumer does not use (weight 0) adds exactly +0 to every sum below: skip it.
      if (w === 0) continue
      const comp = comps[g] as number[]
      if (w > 0 && reach !== null) for (let z = 0; z < zoneCount; z++) reach[z] = (reach[z] as number) + (comp[z] as number)
      const p = ((n[g] as number) * w) / all
      T[g] = (T[g] as number) + cons.share * p
      if (cons.zone >= 0 && (n[g] as number) > 0) {
        const ratio = (comp[cons.zone] as number) / (n[g] as number)
        const part = cons.share * p * ratio
        inZone += part
        own += p * ratio
      }
    }
    if (detail !== null) detail.consumerInZone[c] = own
  }
  const ideal = 1.0 / total
  let maxDev = 0
  let sumAbs = 0
  for (let g = 0; g < G; g++) {
    const ng = n[g] as number
    if (ng === 0) continue
    const comp = comps[g] as number[]
    for (let z = 0; z < zoneCount; z++) {
      const m = comp[z] as number
      if (m === 0) continue
      const d = deviation(T[g] as number, m, ng, ideal)
      if (detail !== null) {
        detail.zoneLoad[z] = (detail.zoneLoad[z] as number) + (((T[g] as number) * ((m * 1) / ng)) / m) * m
        const prev = detail.zoneMaxDeviation[z]
        if (prev === null || prev === undefined || d > prev) detail.zoneMaxDeviation[z] = d
      }
      sumAbs += Math.abs(d) * m
      if (d > maxDev) maxDev = d
    }
  }
  const mean = total > 0 ? sumAbs / total : 0
  // second pass over the same (group, zone) cells in the same order: the same deviations, recomputed
  let sq = 0
  for (let g = 0; g < G; g++) {
    const ng = n[g] as number
    if (ng === 0) continue
    const comp = comps[g] as number[]
    for (let z = 0; z < zoneCount; z++) {
      const m = comp[z] as number
      if (m === 0) continue
      sq += (deviation(T[g] as number, m, ng, ideal) - mean) ** 2 * m
    }
  }
  return {
    valid,
    inZone,
    maxOverload: maxDev,
    meanOverload: mean,
    sdOverload: total > 0 ? Math.sqrt(sq / total) : 0,
    endpointSlices: slicesOverride ?? slices,
    baselineSlices: Math.ceil(total / ENDPOINTS_PER_SLICE),
    unassigned: total - assigned,
    unserved,
  }
}

/** dev(z,g) of an endpoint of zone z in group g: load / ideal - 1, with load = T_g * (m_zg / n_g) / m_zg. */
function deviation(Tg: number, m: number, ng: number, ideal: number): number {
  const ratioInGroup = (m * 1) / ng
  const load = (Tg * ratioInGroup) / m
  return load / ideal - 1.0
}

/** The tool's score (output-parser.go); null when the result is invalid. */
export function scoreOf(m: Pick<MeasureTotals, 'valid' | 'inZone' | 'maxOverload' | 'meanOverload' | 'endpointSlices' | 'baselineSlices'>): ScoreParts | null {
  if (!m.valid || m.endpointSlices === 0) return null
  const inZoneScore = m.inZone * 100
  const deviationMaxScore = 100.0 - m.maxOverload * 100
  const deviationMeanScore = 100.0 - m.meanOverload * 100
  const deviationScore = 0.5 * deviationMaxScore + 0.5 * deviationMeanScore
  const sliceScore = (m.baselineSlices / m.endpointSlices) * 100
  const score = WEIGHTS.inZone * inZoneScore + WEIGHTS.deviation * deviationScore + WEIGHTS.slices * sliceScore
  return {score, inZoneScore, deviationScore, sliceScore}
}
