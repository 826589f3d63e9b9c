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

export interface Measures {
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
  const C = consumers.length
  const G = groups.length
  const n = new Array<number>(G)
  let assigned = 0
  let slices = 0
  for (let g = 0; g < G; g++) {
    let s = 0
    const comp = (groups[g] as MeasureGroup).comp
    for (let z = 0; z < zoneCount; z++) s += comp[z] as number
    n[g] = s
    assigned += s
    slices += Math.ceil(s / ENDPOINTS_PER_SLICE)
  }
  const reachAll = new Array<number>(C).fill(0)
  for (let c = 0; c < C; c++) {
    let r = 0
    for (let g = 0; g < G; g++) r += (n[g] as number) * ((groups[g] as MeasureGroup).weights[c] as number)
    reachAll[c] = r
  }
  let valid = total > 0 && G > 0
  let unserved = 0
  const T = new Array<number>(G).fill(0)
  const consumerInZone = new Array<number>(C).fill(0)
  const consumerReach: number[][] = []
  let inZone = 0
  for (let c = 0; c < C; c++) {
    const cons = consumers[c] as Consumer
    const reach = new Array<number>(zoneCount).fill(0)
    consumerReach.push(reach)
    const all = reachAll[c] as number
    if (!(all > 0)) {
      valid = false
      unserved += cons.share
      continue
    }
    let own = 0
    for (let g = 0; g < G; g++) {
      const grp = groups[g] as MeasureGroup
      const w = grp.weights[c] as number
      if (w < 0) valid = false
      // A group this consumer does not use (weight 0) adds exactly +0 to every sum below: skip it.
      if (w === 0) continue
      if (w > 0) for (let z = 0; z < zoneCount; z++) reach[z] = (reach[z] as number) + (grp.comp[z] as number)
      const p = ((n[g] as number) * w) / all
      T[g] = (T[g] as number) + cons.share * p
      if (cons.zone >= 0 && (n[g] as number) > 0) {
        const ratio = (grp.comp[cons.zone] as number) / (n[g] as number)
        const part = cons.share * p * ratio
        inZone += part
        own += p * ratio
      }
    }
    consumerInZone[c] = own
  }
  const ideal = 1.0 / total
  let maxDev = 0
  let sumAbs = 0
  const zoneLoad = new Array<number>(zoneCount).fill(0)
  const zoneMaxDeviation = new Array<number | null>(zoneCount).fill(null)
  const devs: number[] = []
  const weightsOf: number[] = []
  for (let g = 0; g < G; g++) {
    const ng = n[g] as number
    if (ng === 0) continue
    const comp = (groups[g] as MeasureGroup).comp
    for (let z = 0; z < zoneCount; z++) {
      const m = comp[z] as number
      if (m === 0) continue
      const ratioInGroup = (m * 1) / ng
      const load = ((T[g] as number) * ratioInGroup) / m
      const d = load / ideal - 1.0
      zoneLoad[z] = (zoneLoad[z] as number) + load * m
      const prev = zoneMaxDeviation[z]
      if (prev === null || prev === undefined || d > prev) zoneMaxDeviation[z] = d
      sumAbs += Math.abs(d) * m
      if (d > maxDev) maxDev = d
      devs.push(d)
      weightsOf.push(m)
    }
  }
  const mean = total > 0 ? sumAbs / total : 0
  let sq = 0
  for (let i = 0; i < devs.length; i++) sq += ((devs[i] as number) - mean) ** 2 * (weightsOf[i] as number)
  return {
    valid,
    inZone,
    maxOverload: maxDev,
    meanOverload: mean,
    sdOverload: total > 0 ? Math.sqrt(sq / total) : 0,
    endpointSlices: opts.slices ?? slices,
    baselineSlices: Math.ceil(total / ENDPOINTS_PER_SLICE),
    unassigned: total - assigned,
    unserved,
    zoneLoad,
    zoneMaxDeviation,
    consumerInZone,
    consumerReach,
  }
}

/** The tool's score (output-parser.go); null when the result is invalid. */
export function scoreOf(m: Pick<Measures, 'valid' | 'inZone' | 'maxOverload' | 'meanOverload' | 'endpointSlices' | 'baselineSlices'>): ScoreParts | null {
  if (!m.valid || m.endpointSlices === 0) return null
  const inZoneScore = m.inZone * 100
  const deviationMaxScore = 100.0 - m.maxOverload * 100
  const deviationMeanScore = 100.0 - m.meanOverload * 100
  const deviationScore = 0.5 * deviationMaxScore + 0.5 * deviationMeanScore
  const sliceScore = (m.baselineSlices / m.endpointSlices) * 100
  const score = WEIGHTS.inZone * inZoneScore + WEIGHTS.deviation * deviationScore + WEIGHTS.slices * sliceScore
  return {score, inZoneScore, deviationScore, sliceScore}
}
