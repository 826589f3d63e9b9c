// The explanation model: for each Service (and address type), what the EndpointSlice
// controller would do at its next sync, what kube-proxy in each zone does with the hints
// that are live now, how the two differ, and what to change. Pure: the same input gives
// the same report, from a live cluster or a snapshot file. Schema: schema/explain.v1.json.

import type {ZoneView} from '../upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {serviceMode, serviceModePath} from './mode.js'
import type {ZoneCapacity} from './node-verdicts.js'
import {predictHints, type HintPrediction} from '../upstream/endpointslice/reconciler.js'
import type {AddressType, Endpoint, EndpointSlice, EventObject, Node, Service} from '../upstream/api/types.js'
import {controllerState, settledState, eventUnderGuess, type ControllerState} from './controller-state.js'
import type {ClusterState} from '../state/cluster-state.js'
import {featuresCached as featuresFor, formatVersion, type Features} from '../upstream/features.js'
import {clientPathsOf, routesFound} from './client-paths.js'
import {dataPlaneReport, type DataPlaneReport} from '../dataplane/describe.js'
import type {DataPlane} from '../dataplane/types.js'
import {dataPlaneNotice} from './dataplane-views.js'
import {advise} from './advice.js'
import {applicability, familyHasClusterIP} from './applicability.js'
import {isManaged} from './helpers.js'
import {lintIssues} from './lint.js'
import {estimateTraffic, trafficModel} from './traffic.js'
import {proxySkewMemo, skewNotices, type ProxySkew} from './proxy-skew.js'
import type {ProxyRules} from '../dataplane/proxy-nodes.js'
import type {
  ExplainOptions,
  ExplainReport,
  KubeProxyVerdict,
  MeasuredTrafficInput,
  MeasuredTrafficReport,
  NodeProxyRow,
  ServiceExplanation,
  TrafficEstimate,
  ZoneRow,
  Finding,
} from './report-types.js'
import {SCHEMA_VERSION} from './report-types.js'
import {nodeFacts, slicesByService, addressTypesOf, own, shownZones, type NodeIndex} from './node-facts.js'
import {rowParts, Rows, type RowParts} from './rows.js'
import {allocationFigures, controllerVerdict, NO_RANDOM_CHOICES} from './controller-verdict.js'
import {proxyLists, zoneViews, type ClassViews} from './proxy-views.js'
import {nodeRows} from './node-rows.js'
import {liveRows} from './figures-share.js'

// The report's types live in report-types.ts; callers import them, explain() and these from here.
export type * from './report-types.js'
export {summariseNodes} from './node-facts.js'
export {allocationFigures} from './controller-verdict.js'

// ---------------------------------------------------------------------------------------

export function explain(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}): ExplainReport {
  // A plain loop, not explainEach's generator: the advisor calls explain() four or five times per
  // Service, and a generator's setup and resumption showed in each call (docs/design.md, "The advisor's cost").
  const {head, explainOne} = explainer(state, opts)
  const out: ServiceExplanation[] = []
  for (const svc of services) explainOne(svc, out)
  return {...head, services: out}
}

/** explain()'s report in two parts: all but its services, and the services (see explainEach). */
export interface ExplainParts {
  head: Omit<ExplainReport, 'services'>
  /** Each Service (and address type) explained as the iteration reaches it, in explain()'s order; iterate once. */
  services: Iterable<ServiceExplanation>
}

/**
 * explain(), with each Service explained only when the iteration reaches it: `explain -A -o json`
 * writes each one and drops it, so a report of thousands of Services is never in memory whole
 * (docs/design.md, "Reading a whole cluster").
 */
export function explainEach(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}): ExplainParts {
  const {head, explainOne} = explainer(state, opts)
  function* each(): Generator<ServiceExplanation> {
    const out: ServiceExplanation[] = []
    for (const svc of services) {
      explainOne(svc, out)
      for (let i = 0; i < out.length; i++) yield out[i]!
      out.length = 0
    }
  }
  return {head, services: each()}
}

/** The report's head and the per-cluster facts, computed once; `explainOne` appends a Service's explanations (one per address type). */
function explainer(state: ClusterState, opts: ExplainOptions): {head: ExplainParts['head']; explainOne(svc: Service, out: ServiceExplanation[]): void} {
  const f = featuresFor(opts.kubeVersion)
  const warnings: string[] = []
  if (f.warning) warnings.push(f.warning)
  const nodesReadable = state.nodesReadable !== false
  const {capacity, cluster, nodeIndex} = nodeFacts(state.nodes)
  const sliceGroups = slicesByService(state.endpointSlices)
  const parts = rowParts()
  const skewOf = proxySkewMemo(opts.dataPlane, state.nodes)
  const found = opts.routes ? routesFound(opts.routes) : undefined
  const explainOne = (svc: Service, out: ServiceExplanation[]): void => {
    const slices = sliceGroups.get(svc.metadata.namespace ?? 'default')?.get(svc.metadata.name) ?? NO_SLICES
    for (const addressType of addressTypesOf(svc, slices)) {
      const explained = explainService({
        service: svc,
        events: state.events,
        slices: slices.filter((s) => s.addressType === addressType),
        allSlices: slices,
        addressType,
        capacity,
        features: f,
        nodes: state.nodes,
        nodeIndex,
        nodesReadable,
        opts,
        parts,
        skewOf,
      })
      if (opts.routes && found) {
        const zones = cluster.zones.filter((z) => z.counted > 0).map((z) => z.name)
        explained.clientPaths = clientPathsOf(found, opts.routes, svc, slices, zones)
      }
      out.push(explained)
    }
  }
  return {
    head: {
      apiVersion: SCHEMA_VERSION,
      kind: 'TopologyExplanation',
      kubernetesVersion: formatVersion(f.version),
      versionSource: opts.versionSource ?? (opts.kubeVersion ? 'flag' : 'default'),
      warnings,
      nodesReadable,
      cluster,
      ...(opts.dataPlane ? {dataPlane: planeReport(opts.dataPlane)} : {}),
      ...(found ? {routes: found} : {}),
    },
    explainOne,
  }
}

/**
 * The data plane's report, once per DataPlane object (frozen, shared by the reports made with it):
 * the advisor's per-mode explain() calls each made the head again, its description included.
 */
const PLANE_REPORTS = new WeakMap<DataPlane, DataPlaneReport>()
function planeReport(plane: DataPlane): DataPlaneReport {
  let r = PLANE_REPORTS.get(plane)
  if (r === undefined) PLANE_REPORTS.set(plane, (r = Object.freeze(dataPlaneReport(plane))))
  return r
}

/**
 * The zones shown, then those the traffic model weights that are not shown (the shown set itself
 * when there are none), once per pair: the shown set is the cluster's for most Services
 * (shownZones) and the model the CPU ratios, so every Service of a cluster, and every mode the
 * advisor evaluates, shares one answer instead of listing the model's zones again. Read only.
 */
const VIEW_ZONES = new WeakMap<ReadonlySet<string>, {shares: Record<string, number>; zones: ReadonlySet<string>}>()
function viewZonesOf(shown: ReadonlySet<string>, shares: Record<string, number> | null): ReadonlySet<string> {
  if (shares === null) return shown
  const memo = VIEW_ZONES.get(shown)
  if (memo !== undefined && memo.shares === shares) return memo.zones
  let more: Set<string> | undefined
  for (const z of Object.keys(shares)) if (!shown.has(z)) (more ??= new Set(shown)).add(z)
  const zones = more ?? shown
  VIEW_ZONES.set(shown, {shares, zones})
  return zones
}

interface ServiceInput {
  service: Service
  /** Events on Services, when read (ClusterState.events). */
  events: readonly EventObject[] | undefined
  slices: EndpointSlice[]
  /** Every slice of the Service, all address types (FQDN included). */
  allSlices: readonly EndpointSlice[]
  addressType: AddressType
  capacity: ZoneCapacity
  features: Features
  nodes: readonly Node[]
  nodeIndex: NodeIndex
  nodesReadable: boolean
  opts: ExplainOptions
  parts: RowParts
  /** Each node's kube-proxy rules (proxy-skew.ts), computed once per call. */
  skewOf: (base: ProxyRules) => ProxySkew | null
}

function measuredReport(m: MeasuredTrafficInput, t: TrafficEstimate): MeasuredTrafficReport {
  return {
    source: m.source,
    query: m.query,
    clientMix: m.mix,
    crossZoneShare: m.crossZoneShare,
    crossZoneSharePredicted: t.inZoneShareLive === null ? null : 1 - t.inZoneShareLive,
    matrix: m.matrix,
    ignored: m.ignored,
  }
}

function explainService(input: ServiceInput): ServiceExplanation {
  const {service, slices, addressType, capacity, features: f, opts} = input
  const figuresOnly = opts.figuresOnly === true
  const mode = figuresOnly ? serviceModePath(service, f) : serviceMode(service, f)
  const managedSlices = slices.filter(isManaged)
  const externalName = service.spec?.type === 'ExternalName'
  const headless = service.spec?.clusterIP === 'None'
  const managedByController = !externalName && Boolean(service.spec?.selector && Object.keys(service.spec.selector).length > 0)
  // An address family the Service has no ClusterIP of is not proxied (pkg/proxy/servicechangetracker.go
  // serviceToServiceMap: GetClusterIPByFamily == "" -> no service ports for that family's proxier).
  const noClusterIP = !externalName && !headless && !familyHasClusterIP(service, addressType)
  const proxied = !externalName && !headless && !noClusterIP
  const ratios = input.nodesReadable ? capacity.cpuRatiosByZone : null
  const predictionMode = opts.prediction ?? 'next-sync'
  // The controller's "hints populated" mark decides only its events, which figuresOnly does not
  // read: it is then not read from the slices and Events (a pass over every endpoint per mode).
  let state: ControllerState = figuresOnly ? {hintsPopulated: false, inferredFrom: 'assumed'} : controllerState(service, mode.path, managedSlices, input.events)

  // What the controller does with its slices at its next sync.
  let prediction: HintPrediction | null = null
  let otherEvents: HintPrediction | null = null
  // Without Nodes (RBAC) the CPU allocation cannot be computed: say so rather than predict
  // the controller's "Insufficient Node information" refusal, which the controller does not make.
  const unpredictable = !input.nodesReadable && mode.path === 'topology-mode-auto'
  const share = figuresOnly ? opts.figuresShare : undefined
  if (managedByController && !unpredictable) {
    // figuresOnly: the rows' alternatives and random choices are not read, so AddHints need not
    // compute them; nor the slices to update, which only the mark's guess reads (hintsSet and the
    // reason do not depend on the mark). A share gives fresh mode's cleared slices.
    const only = figuresOnly ? {alternatives: false, changes: false, ...(share && predictionMode === 'fresh' ? {cleared: share.cleared(addressType, managedSlices)} : {})} : {}
    const args = {service, slices: managedSlices, addressType, ratios, features: f, mode: predictionMode, ...only}
    prediction = predictHints({...args, populated: state.hintsPopulated})
    if (state.inferredFrom === 'unknown' && !figuresOnly) {
      // No Events read. Hints the next sync leaves as they are are the current path's (settledState);
      // else the mark is a guess, and the other guess's event is one the controller may record.
      const settled = settledState(mode.path, prediction.changedSliceNames.length === 0)
      if (settled === null) otherEvents = predictHints({...args, populated: !state.hintsPopulated})
      else {
        if (settled.hintsPopulated !== state.hintsPopulated) prediction = predictHints({...args, populated: settled.hintsPopulated})
        state = settled
      }
    }
  }
  const predictedByName = new Map<string, EndpointSlice>()
  for (const s of prediction?.slices ?? []) predictedByName.set(s.metadata.name, s)
  const predictedSlices = slices.map((s) => predictedByName.get(s.metadata.name) ?? s)

  // Endpoint rows, and the per-zone counts, in one pass (readyCount is countReady(slices)).
  // figuresOnly: those of the live slices, the same for every mode (ExplainOptions.figuresOnly).
  const alternatives = prediction?.hintsSet ? prediction.addHints?.alternatives : undefined
  let rows: Rows
  if (share) rows = share.liveRows(addressType, slices, input.parts)
  else if (figuresOnly) rows = liveRows(slices, input.parts)
  else {
    rows = new Rows(input.parts, slices)
    for (let i = 0; i < slices.length; i++) rows.addSlice(slices[i]!, predictedSlices[i]!, alternatives?.bySlice.get(slices[i]!.metadata.name))
  }
  const {endpoints, stats, rowZone, rowProxyReady, withAddress, readyCount, hinted, anyLiveHints, driftedRows, donatedCount, noZone, noZoneReady} = rows

  const controller = unpredictable
    ? {
        path: mode.path,
        hintsSet: slices.some((s) => (s.endpoints ?? []).some((e) => (e.hints?.forZones?.length ?? 0) > 0)),
        reason: 'NodesUnreadable',
        message: 'cannot predict the CPU-proportional allocation: Nodes could not be read (missing permission: list nodes); showing the live hints',
        event: null,
        totalReadyEndpoints: readyCount,
        prediction: predictionMode,
        slicesToUpdate: [],
        randomChoices: NO_RANDOM_CHOICES,
        state,
      }
    : controllerVerdict(prediction, mode.path, managedByController, predictionMode, addressType, service, readyCount, state)
  if (otherEvents !== null) {
    const other = controllerVerdict(otherEvents, mode.path, managedByController, predictionMode, addressType, service, readyCount, state).event
    Object.assign(controller, eventUnderGuess(controller.event, other))
  }

  // kube-proxy, per zone and per node, on live and predicted hints.
  // With figuresOnly the live side is the predicted one (nothing the advisor reads is live).
  const lists = proxyLists(service, slices, predictedSlices, proxied, f, opts.dataPlane, input.skewOf, opts.figuresOnly === true)
  const {plane, liveProxy, predProxy, skew, liveSameNode, predSameNode} = lists

  const {names: zoneNames, sorted: sortedZones} = shownZones(ratios, input.nodeIndex, stats)
  const nodesByZone = input.nodeIndex.byZone

  const measured = opts.measured?.get(`${service.metadata.namespace ?? 'default'}/${service.metadata.name}`)
  const trafficShares = trafficModel(measured?.mix ?? opts.traffic, ratios, capacity)
  // The zone-wide view (a node of the zone that holds no node-hinted endpoint) of every zone
  // shown or weighted by the traffic model, once per endpoint list: the zone rows and the
  // traffic estimate both use it.
  // (zoneNames itself when the traffic model weights no other zone: the same names in the same order.)
  const viewZones = viewZonesOf(zoneNames, trafficShares)
  const {liveViews, predViews, liveClasses, predClasses, zoneRulesOf, skewVerdict, zoneVerdict} = zoneViews(
    lists,
    service,
    viewZones,
    nodesByZone,
    capacity,
    proxied,
    input.nodeIndex.namedPerZone,
  )

  const n = prediction?.addHints?.totalReady ?? readyCount
  const allocations = prediction?.addHints?.allocations ?? null
  const auto = mode.path === 'topology-mode-auto'
  const figures = auto && allocations === null && ratios !== null && n > 0 ? allocationFigures(n, ratios) : null

  const noNodes = (z: {counted: number; ignored: number}) => input.nodesReadable && proxied && z.counted + z.ignored === 0
  const zones: ZoneRow[] = sortedZones.map((zone) => {
    const zoneNodes = input.nodeIndex.verdicts.get(zone) ?? {counted: 0, ignored: 0, cpuMilli: 0}
    const counts = stats.get(zone)
    const ready = counts?.ready ?? 0
    const assigned = counts?.assigned ?? 0
    const liveHints = counts?.liveHints ?? 0
    const alloc = auto ? (own(allocations, zone) ?? own(figures, zone) ?? null) : null
    const predictedVerdict = noNodes(zoneNodes) ? NO_NODES : predClasses ? skewVerdict(predClasses, zone) : zoneVerdict(predViews, predSameNode, zone, predProxy)
    const share = own(trafficShares, zone) ?? null
    // Traffic spreads over every ready endpoint kube-proxy routes to (every slice of the
    // Service, whoever wrote it); the Auto figures above are over the controller's own.
    const desiredForOverload = share !== null ? share * readyCount : null
    const overload = hinted && assigned > 0 && desiredForOverload !== null ? desiredForOverload / assigned - 1 : null
    // desired/minimum/target/maximum are the Auto heuristic's; on other paths, and where the
    // heuristic gives the zone no figure (e.g. the controller's slices have no ready endpoint, the
    // hints are another manager's), the traffic-proportional desired count the overload is
    // measured against: a row with an overload figure always shows its desired count.
    return {
      name: zone,
      nodes: {counted: zoneNodes.counted, ignored: zoneNodes.ignored},
      cpuMilli: zoneNodes.cpuMilli,
      cpuRatio: own(ratios, zone) ?? null,
      trafficShare: share,
      readyEndpoints: ready,
      desired: alloc?.desired ?? (auto && overload === null ? null : desiredForOverload),
      minimum: alloc?.minimum ?? null,
      target: alloc?.target ?? null,
      maximum: alloc?.maximum ?? null,
      assigned,
      expectedOverload: overload,
      donatedIn: counts?.donatedIn ?? 0,
      donatedOut: counts?.donatedOut ?? 0,
      liveHints,
      // A zone no node is in (named only by hints or --traffic) runs no kube-proxy: no verdict to give.
      // figuresOnly: the live lists are the predicted ones (proxyLists), and so is the verdict.
      kubeProxy: figuresOnly
        ? predictedVerdict
        : noNodes(zoneNodes)
          ? NO_NODES
          : liveClasses
            ? skewVerdict(liveClasses, zone)
            : zoneVerdict(liveViews, liveSameNode, zone, liveProxy),
      kubeProxyPredicted: predictedVerdict,
    }
  })

  const nodes: NodeProxyRow[] | undefined = opts.perNode ? nodeRows(lists, service, slices, input.nodeIndex.sorted(), proxied) : undefined

  // Position j of the proxy endpoints is row j when no endpoint lacks an address and no IP
  // repeats (then nothing was skipped or merged); the predicted ones are checked address by address.
  const byRow = (eps: readonly ProxyEndpoint[]): boolean => {
    if (eps.length !== endpoints.length || withAddress !== endpoints.length) return false
    if (eps === liveProxy && !opts.figuresOnly) return true
    for (let j = 0; j < eps.length; j++) if (eps[j]!.ip !== endpoints[j]!.addresses[0]) return false
    return true
  }
  // Not proxied: clients pick endpoints themselves (DNS), there is nothing to estimate.
  // With skew: each zone's traffic split over the rule sets its nodes run (by their CPU).
  const mix = (classes: ClassViews | null) => {
    if (classes === null) return undefined
    const out = new Map<string, {view: ZoneView; weight: number}[]>()
    for (const zone of viewZones)
      out.set(
        zone,
        [...zoneRulesOf(zone).weights].map(([c, weight]) => ({view: classes.get(c)!.views.get(zone)!, weight})),
      )
    return out
  }
  const estimate = proxied
    ? estimateTraffic(
        trafficShares,
        measured ? 'measured' : opts.traffic ? 'custom' : 'zone-cpu',
        {rows: endpoints, stats, rowZone, rowProxyReady, byRow},
        liveProxy,
        liveViews,
        predProxy,
        predViews,
        {
          live: mix(liveClasses),
          predicted: mix(predClasses),
        },
      )
    : estimateTraffic(null, 'zone-cpu', {rows: endpoints, stats, rowZone, rowProxyReady, byRow}, liveProxy, liveViews, predProxy, predViews)
  const traffic: TrafficEstimate = measured === undefined ? estimate : {...estimate, measured: measuredReport(measured, estimate)}

  const driftCount = managedByController ? driftedRows : 0
  // The live per-zone counts against every count the controller can produce (Auto, hints set).
  let zoneCountDrift = false
  // (Only when every slice is the controller's: the zone rows count the others' hints too.)
  if (managedByController && alternatives?.counts && controller.slicesToUpdate.length > 0 && managedSlices.length === slices.length) {
    const live: Record<string, number> = {}
    for (const z of zones) if (z.liveHints > 0) live[z.name] = z.liveHints
    const key = JSON.stringify(
      Object.keys(live)
        .sort()
        .map((k) => [k, live[k]]),
    )
    zoneCountDrift = !alternatives.counts.some(
      (c) =>
        JSON.stringify(
          Object.keys(c)
            .sort()
            .map((k) => [k, c[k]]),
        ) === key,
    )
  }
  if (controller.path === 'topology-mode-auto' && alternatives) {
    controller.randomChoices = {
      ...controller.randomChoices,
      uncertainEndpoints: rows.uncertainRows,
      countsCertain: alternatives.counts?.length === 1,
    }
  }
  const findings: Finding[] = []
  if (mode.path === 'topology-mode-auto' && !controller.hintsSet && !unpredictable) findings.push('hints-refused')
  // A zone with nothing (ready) to route to is not a topology fallback (check's no-fallback agrees).
  const topologyFallback = (v: KubeProxyVerdict) => v.fallback && v.reason !== 'no-endpoints' && v.reason !== 'no-ready-endpoints' && v.reason !== 'ignored-by-data-plane'
  if (proxied && (mode.path !== 'none' || anyLiveHints) && zones.some((z) => topologyFallback(z.kubeProxy) && (nodesByZone.get(z.name)?.length ?? 0) > 0)) findings.push('fallback')
  if (driftCount > 0 || zoneCountDrift) findings.push('drift')
  if (controller.hintsSet && zones.some((z) => (own(ratios, z.name) ?? 0) > 0 && z.readyEndpoints === 0)) findings.push('no-endpoints-zone')

  const result: ServiceExplanation = {
    namespace: service.metadata.namespace ?? 'default',
    name: service.metadata.name,
    addressType,
    mode: {...mode, managedByController},
    controller,
    zones,
    totals: {
      readyEndpoints: readyCount,
      endpoints: endpoints.length,
      assigned: zones.reduce((a, z) => a + z.assigned, 0),
      liveHints: zones.reduce((a, z) => a + z.liveHints, 0),
      donated: donatedCount,
      cpuMilli: zones.reduce((a, z) => a + z.cpuMilli, 0),
    },
    endpoints,
    traffic,
    drift: {endpoints: driftCount, zoneCounts: zoneCountDrift},
    findings,
    advice: [],
    lint: opts.figuresOnly ? [] : lintIssues(service, mode, capacity, input.nodesReadable, f),
    applicability: applicability(service, input.allSlices, slices, {externalName, headless, proxied, managedByController, noClusterIP, addressType}),
    withoutZone: noZone > 0 ? {endpoints: noZone, readyEndpoints: noZoneReady, nodes: input.nodeIndex.withoutZone} : null,
  }
  if (nodes) result.nodes = nodes
  if (skew !== null) {
    const anyHint = (f: (h: NonNullable<Endpoint['hints']>) => boolean) => slices.some((s) => (s.endpoints ?? []).some((e) => e.hints != null && f(e.hints)))
    const nodeHints = service.spec?.trafficDistribution === 'PreferSameNode' || anyHint((h) => (h.forNodes?.length ?? 0) > 0)
    const emptyZoneHint = anyHint((h) => (h.forZones ?? []).some((z) => z.name === ''))
    const hinted = proxied && (mode.path !== 'none' || anyLiveHints || controller.hintsSet)
    result.kubeProxySkew = skewNotices(skew, input.nodes, service, {hinted, nodeHints, emptyZoneHint})
  }
  if (plane) {
    result.dataPlane = dataPlaneNotice(plane, proxied && (mode.path !== 'none' || anyLiveHints || controller.hintsSet), anyLiveHints || controller.hintsSet, service)
    if (result.dataPlane?.ignoresHints) findings.push('data-plane-ignores-hints')
  }
  if (!opts.figuresOnly) result.advice = advise(result, capacity, input.nodesReadable)
  return result
}

const NO_SLICES: readonly EndpointSlice[] = Object.freeze([])
const NO_NODES: KubeProxyVerdict = Object.freeze({mode: '' as const, fallback: false, reason: 'no-nodes' as const, routedEndpoints: 0, nodesPreferSameNode: 0})
