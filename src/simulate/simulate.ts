// kubectl topology simulate: every strategy on one Service's real (or what-if) state, scored with
// the KEP-2004 evaluation tool's measures (measure.ts). Pure: same input, same report.
//
// Strategies (names.ts; the cluster settings carry the setting's name, as in apply and plan)
//   Auto            the EndpointSlice controller's topology-mode Auto (reconciler.ts predictHints, "fresh":
//                   as if every slice were rewritten), then kube-proxy's topologyModeFromHints per zone
//   PreferClose     trafficDistribution PreferClose (PreferSameZone's name before 1.34)
//   PreferSameZone  trafficDistribution PreferSameZone: every ready endpoint hinted to its zone
//   PreferSameNode  trafficDistribution PreferSameNode: node hints, zone hints as the fallback
//   none            no topology-aware routing: every endpoint from everywhere (KEP-2004's baseline, "Original")
//   research (asked for only): local, local-shared, local-weighted, local-opt   KEP-2004 subsetting
//                   (strategies/*.ts), per-zone counts; topology-keys   KEP-536 spec.topologyKeys: per
//                   client node, the first key whose value an endpoint's node shares
//
// Auto and PreferClose follow --kube-version (the server's version); PreferSameZone / PreferSameNode
// follow it where that version accepts the value, else they are modelled with the newest Kubernetes
// behaviour (a strategy to compare, e.g. before an upgrade). By default only the settings the version
// offers are scored (defaultStrategies, as plan's modes).
import {topologyDecisionFromHints} from '../upstream/kube-proxy/topology.js'
import {proxyEndpointsFromSlices} from '../upstream/kube-proxy/endpointslicecache.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {measure, scoreOf, type Consumer, type MeasureGroup, type Measures} from './measure.js'
import {predictHints} from '../upstream/endpointslice/reconciler.js'
import {serviceView, type ServiceView, type SimNode} from './strategies/cluster.js'
import {local} from './strategies/local.js'
import {localOpt} from './strategies/local-opt.js'
import {localShared} from './strategies/local-shared.js'
import {localWeighted} from './strategies/local-weighted.js'
import {localWithPadding} from './strategies/padding.js'
import {random} from './strategies/random.js'
import {regionFromShares, type Allocation, type Region} from './strategies/region.js'
import {topologyKeysReach, type TopologyKeysResult} from './strategies/topology-keys.js'
import {ANNOTATION_TOPOLOGY_AWARE_HINTS, ANNOTATION_TOPOLOGY_MODE, type Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {acceptedTrafficDistributions, features as featuresFor} from '../upstream/features.js'

import {isResearch, KEP2004_STRATEGIES, RESEARCH_STRATEGIES, type Kep2004Strategy, type StrategyName} from './names.js'
export {KEP2004_STRATEGIES, type Kep2004Strategy, type StrategyName}
import {
  DEFAULT_TOPOLOGY_KEYS,
  SimulateInputError,
  type ClientRoute,
  type GroupResult,
  type ServiceSimulation,
  type SimulateOptions,
  type StrategyResult,
  type TrafficModel,
  type ZoneResult,
} from './simulate-types.js'
export {DEFAULT_TOPOLOGY_KEYS, SimulateInputError} from './simulate-types.js'
export type {RolloutStepResult, ServiceSimulation, SimulateOptions, StrategyResult, ZoneDisruption, ZoneResult} from './simulate-types.js'

/**
 * The strategies scored when none are named: what a Service at this Kubernetes version can be set
 * to (plan's modes): Auto, the trafficDistribution values its API server keeps (PreferClose only
 * where it is the one value; from 1.34 it is PreferSameZone's old name), and none.
 */
function defaultStrategies(kubeVersion: string | undefined): StrategyName[] {
  const accepted = acceptedTrafficDistributions(featuresFor(kubeVersion))
  return ['Auto', ...accepted.filter((v) => v !== 'PreferClose' || accepted.length === 1), 'none']
}

/**
 * The strategies a run scores: those named (--strategies), else the default set, with KEP-2004's
 * subsetting strategies when research is asked for (--research) and topology-keys with --keys.
 */
function strategiesFor(opts: Pick<SimulateOptions, 'strategies' | 'research' | 'topologyKeys' | 'kubeVersion'>): StrategyName[] {
  if (opts.strategies !== undefined) return [...opts.strategies]
  const out = defaultStrategies(opts.kubeVersion)
  if (opts.research === true) out.push(...RESEARCH_STRATEGIES.filter((s) => s !== 'topology-keys'))
  if (opts.topologyKeys !== undefined) out.push('topology-keys')
  return out
}

// ---- traffic --------------------------------------------------------------------------------

export interface TrafficPlan {
  zones: string[]
  zoneShare: number[]
  /** per counted node with a zone: its share of all traffic */
  nodeShare: Map<string, number>
}

function trafficPlan(view: ServiceView, model: TrafficModel, custom?: Record<string, number>, customZonesKnown = false): TrafficPlan {
  const zones = customZonesKnown && custom !== undefined ? [...new Set([...view.zones, ...Object.keys(custom)])].sort() : view.zones
  const sources = view.nodes.filter((n) => n.counted && n.zone !== null)
  const weightOf = (n: SimNode): number => (model === 'cpu' ? n.milliCPU : 1)
  const zoneWeight = new Map<string, number>()
  const zoneNodes = new Map<string, SimNode[]>()
  for (const n of sources) {
    zoneWeight.set(n.zone as string, (zoneWeight.get(n.zone as string) ?? 0) + weightOf(n))
    const list = zoneNodes.get(n.zone as string) ?? []
    list.push(n)
    zoneNodes.set(n.zone as string, list)
  }
  let zoneShare: number[]
  if (custom !== undefined) {
    const known = new Set(zones)
    for (const z of Object.keys(custom)) {
      if (!known.has(z)) throw new SimulateInputError(`--traffic names zone "${z}", which has no node or endpoint (zones: ${zones.filter((x) => x !== '').join(', ') || 'none'})`)
    }
    const sum = Object.values(custom).reduce((a, b) => a + b, 0)
    zoneShare = zones.map((z) => (custom[z] ?? 0) / sum)
  } else if (model === 'uniform') {
    const withNodes = zones.filter((z) => zoneNodes.has(z))
    zoneShare = zones.map((z) => (zoneNodes.has(z) ? 1 / withNodes.length : 0))
  } else {
    let total = 0
    for (const w of zoneWeight.values()) total += w
    if (total <= 0) {
      throw new SimulateInputError(
        model === 'cpu'
          ? 'the cpu traffic model needs Ready nodes with a zone label and allocatable CPU; use --traffic-model nodes or --traffic'
          : 'no Ready node with a zone label: name the traffic with --traffic ZONE=SHARE,...',
      )
    }
    zoneShare = zones.map((z) => (zoneWeight.get(z) ?? 0) / total)
  }
  const nodeShare = new Map<string, number>()
  zones.forEach((z, i) => {
    const list = zoneNodes.get(z) ?? []
    const w = list.reduce((a, n) => a + weightOf(n), 0)
    for (const n of list) nodeShare.set(n.name, (zoneShare[i] as number) * (w > 0 ? weightOf(n) / w : 1 / list.length))
  })
  return {zones, zoneShare, nodeShare}
}

// ---- endpoint-level strategies -> groups ------------------------------------------------------

interface Reach {
  /** consumer index -> indices into the endpoint list, or null for "every endpoint" */
  sets: (number[] | null)[]
}

/** Endpoints with identical sets of consumers form one group (each consumer weighs its endpoints equally). */
function groupsFromReach(zones: string[], endpointZones: number[], consumerCount: number, reach: Reach): MeasureGroup[] {
  const E = endpointZones.length
  const sig: number[][] = Array.from({length: E}, () => [])
  for (let c = 0; c < consumerCount; c++) {
    const set = reach.sets[c]
    if (set === null || set === undefined) for (let e = 0; e < E; e++) (sig[e] as number[]).push(c)
    else for (const e of set) (sig[e] as number[]).push(c)
  }
  const byKey = new Map<string, MeasureGroup>()
  for (let e = 0; e < E; e++) {
    const key = (sig[e] as number[]).join(',')
    let g = byKey.get(key)
    if (g === undefined) {
      g = {comp: new Array<number>(zones.length).fill(0), weights: new Array<number>(consumerCount).fill(0)}
      for (const c of sig[e] as number[]) g.weights[c] = 1
      byKey.set(key, g)
    }
    g.comp[endpointZones[e] as number] = (g.comp[endpointZones[e] as number] as number) + 1
  }
  return [...byKey.values()]
}

interface Evaluated {
  measures: Measures
  consumers: Consumer[]
  consumerNames: string[]
  consumerFallback: (string | null)[]
  fallback: string | null
  groups?: GroupResult[]
  noBackends?: string[]
  clients?: ClientRoute[]
}

function hintStrategy(view: ServiceView, plan: TrafficPlan, service: Service, kubeVersion: string | undefined, perNode: boolean): Evaluated {
  const f = featuresFor(kubeVersion)
  const prediction = predictHints({
    service,
    slices: view.slices,
    addressType: view.addressType,
    ratios: view.cpuRatios,
    features: f,
    mode: 'fresh',
  })
  const proxyEps: ProxyEndpoint[] = proxyEndpointsFromSlices(prediction.slices, {
    preferSameGate: f.preferSameTrafficDistribution,
    addressType: view.addressType === 'FQDN' ? undefined : view.addressType,
  })
  const zoneIndex = new Map(plan.zones.map((z, i) => [z, i]))
  const readyIdx = proxyEps.map((ep, i) => (ep.ready ? i : -1)).filter((i) => i >= 0)
  const endpointZones = readyIdx.map((i) => zoneIndex.get(proxyEps[i]!.zone ?? '') ?? 0)
  const consumers: Consumer[] = []
  const names: string[] = []
  const sets: (number[] | null)[] = []
  const why: (string | null)[] = []
  const refusal = prediction.addHints?.refusal?.message ?? null
  const addConsumer = (nodeName: string, zone: string, share: number) => {
    const d = topologyDecisionFromHints(proxyEps, nodeName, zone, f.preferSameTrafficDistribution)
    consumers.push({zone: zoneIndex.get(zone) ?? -1, share})
    names.push(perNode ? nodeName : zone)
    if (d.mode === 'PreferSameNode') sets.push(readyIdx.flatMap((i, k) => (proxyEps[i]!.nodeHints?.has(nodeName) ? [k] : [])))
    else if (d.mode === 'PreferSameZone') sets.push(readyIdx.flatMap((i, k) => (proxyEps[i]!.zoneHints?.has(zone) ? [k] : [])))
    else sets.push(null)
    why.push(d.mode === '' ? (d.fallbackReason ?? refusal ?? (prediction.hintsSet ? null : 'no hints')) : null)
  }
  if (perNode) {
    for (const n of view.nodes) if (n.counted && n.zone !== null) addConsumer(n.name, n.zone, plan.nodeShare.get(n.name) ?? 0)
  } else {
    plan.zones.forEach((z, i) => {
      if (z !== '') addConsumer('', z, plan.zoneShare[i] as number)
    })
  }
  const groups = groupsFromReach(plan.zones, endpointZones, consumers.length, {sets})
  const measures = measure(plan.zones.length, readyIdx.length, consumers, groups, {slices: Math.ceil(readyIdx.length / 100)})
  return {
    measures,
    consumers,
    consumerNames: names,
    consumerFallback: why,
    fallback: refusal ?? (prediction.hintsSet ? null : 'no hints written'),
  }
}

function withTopologyMode(svc: Service, td: string | null): Service {
  const copy = structuredClone(svc)
  const ann = {...(copy.metadata.annotations ?? {})}
  delete ann[ANNOTATION_TOPOLOGY_AWARE_HINTS]
  delete ann[ANNOTATION_TOPOLOGY_MODE]
  if (td === null) ann[ANNOTATION_TOPOLOGY_MODE] = 'Auto'
  copy.metadata.annotations = ann
  copy.spec = {...(copy.spec ?? {})}
  if (td === null) delete copy.spec.trafficDistribution
  else copy.spec.trafficDistribution = td
  return copy
}

// ---- KEP-2004 strategies ------------------------------------------------------------------------

function regionOf(plan: TrafficPlan, view: ServiceView): Region {
  const counts = new Map<string, number>()
  for (const e of view.ready) counts.set(e.zone ?? '', (counts.get(e.zone ?? '') ?? 0) + 1)
  return regionFromShares(plan.zones.map((z, i) => ({name: z, share: plan.zoneShare[i] as number, endpoints: counts.get(z) ?? 0})))
}

export function runKep2004(name: Kep2004Strategy, region: Region, opts: Pick<SimulateOptions, 'previousMode' | 'padding'> = {}): Allocation {
  switch (name) {
    case 'none':
      return random(region)
    case 'local':
      return opts.previousMode !== undefined ? localWithPadding(region, {previous: opts.previousMode, padding: opts.padding}) : local(region)
    case 'local-shared':
      return localShared(region)
    case 'local-weighted':
      return localWeighted(region)
    case 'local-opt':
      return localOpt(region)
  }
}

const FALLBACK_TEXT: Record<string, string> = {
  'starting-threshold': 'fewer endpoints than the starting threshold: no subsetting',
  'overload-threshold': 'a zone stays at or above 50% overload: downgraded to no subsetting',
  'no-contributor': 'no zone can give endpoints: downgraded to no subsetting',
  padding: 'inside the padding band (hysteresis): no subsetting',
}

function kepStrategy(name: Kep2004Strategy, region: Region, opts: SimulateOptions): Evaluated {
  const alloc = runKep2004(name, region, opts)
  const consumers = region.zones.map((_, i) => ({zone: i, share: region.share[i] as number}))
  const measures = measure(region.zones.length, region.total, consumers, alloc.groups)
  if (alloc.error !== undefined) measures.valid = false
  const fallback = alloc.error ?? (alloc.fallback !== undefined ? (FALLBACK_TEXT[alloc.fallback] ?? alloc.fallback) : null)
  const groups: GroupResult[] = alloc.groups.map((g) => ({
    label: g.label,
    endpoints: Object.fromEntries(region.zones.flatMap((z, i) => ((g.comp[i] as number) !== 0 ? [[z, g.comp[i] as number]] : []))),
    consumers: Object.fromEntries(region.zones.flatMap((z, i) => ((g.weights[i] as number) !== 0 ? [[z, g.weights[i] as number]] : []))),
  }))
  return {
    measures,
    consumers,
    consumerNames: region.zones,
    consumerFallback: region.zones.map(() => (alloc.fallback !== undefined && name !== 'none' ? fallback : null)),
    fallback: name === 'none' ? null : fallback,
    groups,
  }
}

// ---- topology-keys -------------------------------------------------------------------------------

function keysStrategy(view: ServiceView, plan: TrafficPlan, keys: readonly string[], perNode: boolean): Evaluated {
  const zoneIndex = new Map(plan.zones.map((z, i) => [z, i]))
  const endpointZones = view.ready.map((e) => zoneIndex.get(e.zone ?? '') ?? 0)
  const result: TopologyKeysResult = topologyKeysReach(view.nodes, view.ready, keys)
  const consumers: Consumer[] = []
  const names: string[] = []
  const sets: (number[] | null)[] = []
  const why: (string | null)[] = []
  for (const c of result.clients) {
    consumers.push({zone: zoneIndex.get(c.zone) ?? -1, share: plan.nodeShare.get(c.node) ?? 0})
    names.push(c.node)
    sets.push(c.endpoints)
    why.push(c.matchedKey === null ? 'no topology key matches: no backends' : c.matchedKey === '*' ? 'matched "*": any endpoint' : null)
  }
  const groups = groupsFromReach(plan.zones, endpointZones, consumers.length, {sets})
  const measures = measure(plan.zones.length, view.ready.length, consumers, groups, {slices: Math.ceil(view.ready.length / 100)})
  const noBackends = result.clients.filter((c) => c.matchedKey === null).map((c) => c.node)
  const notes = result.keysNeverMatching.map((k) => `key ${k} matches no endpoint (endpoint topology carried only hostname, zone and region)`)
  if (noBackends.length > 0) notes.push(`${noBackends.length} node(s) match no topology key and have no backends`)
  const ev: Evaluated = {
    measures,
    consumers,
    consumerNames: names,
    consumerFallback: why,
    fallback: notes.length > 0 ? notes.join('; ') : null,
    noBackends,
  }
  if (perNode) ev.clients = result.clients.map((c) => ({node: c.node, zone: c.zone, matchedKey: c.matchedKey, endpoints: c.endpoints.map((i) => view.ready[i]!.address)}))
  return ev
}

// ---- one Service ----------------------------------------------------------------------------------

/** The version to model a trafficDistribution value at: the cluster's when it keeps the value, else the newest. */
function versionKeeping(value: 'PreferSameZone' | 'PreferSameNode', kubeVersion: string | undefined): string | undefined {
  return acceptedTrafficDistributions(featuresFor(kubeVersion)).includes(value) ? kubeVersion : undefined
}

export function simulateService(state: ClusterState, svc: Service, opts: SimulateOptions = {}): ServiceSimulation {
  const view = serviceView(state, svc)
  const plan = trafficPlan(view, opts.trafficModel ?? 'cpu', opts.traffic, opts.trafficZonesKnown)
  const strategies = strategiesFor(opts)
  const region = regionOf(plan, view)
  const results: StrategyResult[] = []
  for (const s of strategies) {
    let ev: Evaluated
    switch (s) {
      case 'Auto':
        ev = hintStrategy(view, plan, withTopologyMode(svc, null), opts.kubeVersion, false)
        break
      case 'PreferClose':
        ev = hintStrategy(view, plan, withTopologyMode(svc, 'PreferClose'), opts.kubeVersion, false)
        break
      case 'PreferSameZone':
      case 'PreferSameNode':
        ev = hintStrategy(view, plan, withTopologyMode(svc, s), versionKeeping(s, opts.kubeVersion), s === 'PreferSameNode')
        break
      case 'topology-keys':
        ev = keysStrategy(view, plan, opts.topologyKeys ?? DEFAULT_TOPOLOGY_KEYS, opts.perNode === true)
        break
      default:
        ev = kepStrategy(s, region, opts)
    }
    results.push(toResult(s, ev, plan, region))
  }
  return {
    namespace: svc.metadata.namespace ?? 'default',
    name: svc.metadata.name,
    addressType: view.addressType,
    input: {
      zones: plan.zones,
      trafficShare: Object.fromEntries(plan.zones.map((z, i) => [z, plan.zoneShare[i] as number])),
      readyEndpoints: region.total,
      endpointsByZone: Object.fromEntries(region.zones.map((z, i) => [z, region.endpoints[i] as number])),
    },
    strategies: results,
  }
}

function toResult(strategy: StrategyName, ev: Evaluated, plan: TrafficPlan, region: Region): StrategyResult {
  const m = ev.measures
  const parts = scoreOf(m)
  const zones: ZoneResult[] = plan.zones.map((zone, zi) => {
    let share = 0
    let own = 0
    const serves: Record<string, number> = {}
    let fallback = false
    let reason: string | null = null
    const without: string[] = []
    ev.consumers.forEach((c, ci) => {
      if (c.zone !== zi) return
      share += c.share
      own += c.share * (m.consumerInZone[ci] as number)
      const reach = m.consumerReach[ci] as number[]
      reach.forEach((n, z) => {
        if (n > 0) serves[plan.zones[z] as string] = Math.max(serves[plan.zones[z] as string] ?? 0, n)
      })
      const why = ev.consumerFallback[ci]
      if (why !== null && why !== undefined && !why.startsWith('matched')) {
        fallback = true
        reason ??= why
      }
      if (ev.noBackends?.includes(ev.consumerNames[ci] as string)) without.push(ev.consumerNames[ci] as string)
    })
    return {
      zone,
      trafficShare: share,
      inZoneTraffic: share > 0 ? own / share : 0,
      localEndpoints: region.endpoints[region.zones.indexOf(zone)] ?? 0,
      serves,
      load: m.zoneLoad[zi] as number,
      maxOverload: m.zoneMaxDeviation[zi] ?? null,
      fallback,
      reason,
      nodesWithoutBackends: without,
    }
  })
  const out: StrategyResult = {
    strategy,
    research: isResearch(strategy),
    valid: m.valid,
    score: parts?.score ?? null,
    scoreParts: parts,
    inZoneTraffic: m.inZone,
    maxOverload: m.maxOverload,
    meanOverload: m.meanOverload,
    sdOverload: m.sdOverload,
    endpointSlices: m.endpointSlices,
    baselineSlices: m.baselineSlices,
    fallbackZones: zones.filter((z) => z.fallback).map((z) => z.zone),
    fallback: ev.fallback,
    unservedTraffic: m.unserved,
    unassignedEndpoints: m.unassigned,
    zones,
  }
  if (ev.groups !== undefined) out.groups = ev.groups
  if (ev.clients !== undefined) out.clients = ev.clients
  return out
}

/** Strategies ranked by score (invalid last), ties by the order asked for. */
export function rank(results: readonly StrategyResult[]): StrategyResult[] {
  return results
    .map((r, i) => ({r, i}))
    .sort((a, b) => {
      const sa = a.r.score ?? Number.NEGATIVE_INFINITY
      const sb = b.r.score ?? Number.NEGATIVE_INFINITY
      return sb - sa || a.i - b.i
    })
    .map((x) => x.r)
}
