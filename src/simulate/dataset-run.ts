// simulate over a dataset: every strategy the rows have the data for, on every row, with per-row
// scores and the aggregates of the evaluation tool's hack/results-parser.py (mean/max/min of each
// score, max and average max overload). KEP-2004 strategies (none = the tool's "Original") run as the
// tool runs them (count level); Auto, PreferClose/PreferSameZone, PreferSameNode and topology-keys
// run on the cluster rowToClusterState builds
// from the row, computed from the counts (strategies/counts.ts; equal to simulate.ts on that
// cluster). Also turns one row into a ClusterState (--synthetic), so every strategy and what-if
// works on synthetic clusters.
import type {DatasetRow} from './dataset.js'
import {measureTotals, scoreOf, type MeasureTotals, type ScoreParts} from './measure.js'
import {DEFAULT_TOPOLOGY_KEYS, KEP2004_STRATEGIES, runKep2004, type Kep2004Strategy, type StrategyName} from './simulate.js'
import {sameNodeCounts, sameZoneCounts, topologyKeysCounts, upstreamAutoCounts, type CountEvaluation} from './strategies/counts.js'
import {regionFromCounts} from './strategies/region.js'
import {CONTROLLER_NAME, LABEL_HOSTNAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_ZONE, type EndpointSlice, type Node} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'

export {DATASET_DEFAULT_STRATEGIES} from './names.js'

/**
 * What a dataset row lacks for each strategy, and what stands in for it (printed with the results).
 * A row has per zone a node count and an endpoint count, nothing else.
 */
export const DATASET_NOTES: Partial<Record<StrategyName, string>> = {
  Auto: 'zone CPU shares are node shares (every node the same size): the rows have no CPU',
  PreferSameNode: "endpoints are spread round-robin over their zone's nodes: the rows do not say which node runs which endpoint",
  'topology-keys': "endpoints are spread round-robin over their zone's nodes, and nodes carry only the zone and hostname labels: the rows have no placement or other labels",
}

export interface RowScore {
  row: string
  strategy: StrategyName
  measures: MeasureTotals
  score: ScoreParts | null
}

export interface ScoreRowOptions {
  /** topology-keys: the keys (default kubernetes.io/hostname,topology.kubernetes.io/zone,*) */
  topologyKeys?: readonly string[]
}

function countEvaluation(strategy: Exclude<StrategyName, Kep2004Strategy>, row: DatasetRow, opts: ScoreRowOptions): CountEvaluation {
  switch (strategy) {
    case 'Auto':
      return upstreamAutoCounts(row.zones)
    case 'PreferClose': // newest Kubernetes: PreferSameZone's old name
    case 'PreferSameZone':
      return sameZoneCounts(row.zones)
    case 'PreferSameNode':
      return sameNodeCounts(row.zones)
    case 'topology-keys':
      return topologyKeysCounts(row.zones, opts.topologyKeys ?? DEFAULT_TOPOLOGY_KEYS)
  }
}

const isKep = (s: StrategyName): s is Kep2004Strategy => (KEP2004_STRATEGIES as readonly string[]).includes(s)

export function scoreRow(row: DatasetRow, strategies: readonly StrategyName[] = KEP2004_STRATEGIES, opts: ScoreRowOptions = {}): RowScore[] {
  const region = regionFromCounts(row.zones)
  const consumers = region.zones.map((_, i) => ({zone: i, share: region.share[i] as number}))
  return strategies.map((strategy) => {
    if (isKep(strategy)) {
      const alloc = runKep2004(strategy, region)
      const m = measureTotals(region.zones.length, region.total, consumers, alloc.groups)
      if (alloc.error !== undefined) m.valid = false
      return {row: row.name, strategy, measures: m, score: scoreOf(m)}
    }
    const ev = countEvaluation(strategy, row, opts)
    const m = measureTotals(ev.zoneCount, ev.total, ev.consumers, ev.groups, Math.ceil(ev.total / 100))
    // no node, no client: nothing sends traffic through kube-proxy (the KEP-2004 tool still scores such rows)
    if (region.share.every((s) => s === 0)) m.valid = false
    return {row: row.name, strategy, measures: m, score: scoreOf(m)}
  })
}

interface Metric {
  sum: number
  max: number
  min: number
}
const metric = (): Metric => ({sum: 0, max: Number.NEGATIVE_INFINITY, min: Number.POSITIVE_INFINITY})
function add(m: Metric, v: number): void {
  m.sum += v
  if (v > m.max) m.max = v
  if (v < m.min) m.min = v
}

export interface Aggregate {
  strategy: StrategyName
  clusters: number
  invalid: number
  score: {mean: number; max: number; min: number}
  inZoneScore: {mean: number; max: number; min: number}
  deviationScore: {mean: number; max: number; min: number}
  sliceScore: {mean: number; max: number; min: number}
  /** fractions */
  maxOverload: number
  meanMaxOverload: number
  meanInZoneTraffic: number
}

export class Aggregator {
  private readonly acc = new Map<StrategyName, {valid: number; invalid: number; score: Metric; inZone: Metric; dev: Metric; slice: Metric; maxDev: Metric}>()
  constructor(readonly strategies: readonly StrategyName[]) {
    for (const s of strategies) this.acc.set(s, {valid: 0, invalid: 0, score: metric(), inZone: metric(), dev: metric(), slice: metric(), maxDev: metric()})
  }
  add(r: RowScore): void {
    const a = this.acc.get(r.strategy)
    if (a === undefined) return
    if (r.score === null) {
      a.invalid++
      return
    }
    a.valid++
    add(a.score, r.score.score)
    add(a.inZone, r.score.inZoneScore)
    add(a.dev, r.score.deviationScore)
    add(a.slice, r.score.sliceScore)
    add(a.maxDev, r.measures.maxOverload)
  }
  result(): Aggregate[] {
    const stat = (m: Metric, n: number) => (n === 0 ? {mean: 0, max: 0, min: 0} : {mean: m.sum / n, max: m.max, min: m.min})
    return this.strategies.map((s) => {
      const a = this.acc.get(s)!
      return {
        strategy: s,
        clusters: a.valid,
        invalid: a.invalid,
        score: stat(a.score, a.valid),
        inZoneScore: stat(a.inZone, a.valid),
        deviationScore: stat(a.dev, a.valid),
        sliceScore: stat(a.slice, a.valid),
        maxOverload: a.valid === 0 ? 0 : a.maxDev.max,
        meanMaxOverload: a.valid === 0 ? 0 : a.maxDev.sum / a.valid,
        meanInZoneTraffic: a.valid === 0 ? 0 : a.inZone.sum / a.valid / 100,
      }
    })
  }
}

/**
 * One dataset row as a cluster: per zone `nodes` Ready nodes with 1 CPU each (so the cpu and nodes
 * traffic models agree with the tool's), one Service "synthetic" in namespace "default" whose ready
 * endpoints are spread round-robin over the zone's nodes (from 10.0.0.1 up; on no node when the
 * zone has none).
 */
export function rowToClusterState(row: DatasetRow, serviceName = 'synthetic'): ClusterState {
  const nodes: Node[] = []
  const endpoints: NonNullable<EndpointSlice['endpoints']> = []
  let ip = 1
  for (const z of row.zones) {
    const names: string[] = []
    for (let i = 1; i <= z.nodes; i++) {
      const name = `${z.name}-node-${i}`
      names.push(name)
      nodes.push({
        metadata: {name, labels: {[LABEL_ZONE]: z.name, [LABEL_HOSTNAME]: name}},
        status: {allocatable: {cpu: '1'}, capacity: {cpu: '1'}, conditions: [{type: 'Ready', status: 'True'}]},
      })
    }
    for (let e = 0; e < z.endpoints; e++) {
      const n = ip++
      endpoints.push({
        addresses: [`10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`],
        conditions: {ready: true, serving: true, terminating: false},
        nodeName: names.length > 0 ? (names[e % names.length] as string) : null,
        zone: z.name,
        targetRef: {kind: 'Pod', name: `${serviceName}-${n}`, namespace: 'default'},
      })
    }
  }
  const slices: EndpointSlice[] = []
  for (let i = 0; i * 100 < Math.max(endpoints.length, 1); i++) {
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${serviceName}-${String(i).padStart(5, '0')}`,
        namespace: 'default',
        labels: {[LABEL_SERVICE_NAME]: serviceName, [LABEL_MANAGED_BY]: CONTROLLER_NAME},
      },
      addressType: 'IPv4',
      endpoints: endpoints.slice(i * 100, i * 100 + 100),
      ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
    })
  }
  return {
    nodes,
    services: [
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {name: serviceName, namespace: 'default'},
        spec: {selector: {app: serviceName}, ports: [{name: 'http', port: 80, targetPort: 8080, protocol: 'TCP'}], ipFamilies: ['IPv4']},
      },
    ],
    endpointSlices: slices,
  }
}
