// The explanation model: for each Service (and address type), what the EndpointSlice
// controller would do at its next sync, what kube-proxy in each zone does with the hints
// that are live now, how the two differ, and what to change. Pure: the same input gives
// the same report, from a live cluster or a snapshot file. Schema: schema/explain.v1.json.

import {categorizeEndpoints, categorizeZones, type ZoneView} from '../upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {proxyEndpointsFromSlices} from '../upstream/kube-proxy/endpointslicecache.js'
import {serviceTrafficFlags} from '../upstream/kube-proxy/serviceport.js'
import {serviceMode} from './mode.js'
import type {ZoneCapacity} from './node-verdicts.js'
import {predictHints, type HintPrediction} from '../upstream/endpointslice/reconciler.js'
import {LABEL_ZONE, type AddressType, type Endpoint, type EndpointSlice, type EventObject, type Node, type Service} from '../upstream/api/types.js'
import {controllerState, eventUnderGuess} from './controller-state.js'
import type {ClusterState} from '../state/cluster-state.js'
import {features as featuresFor, formatVersion, type Features} from '../upstream/features.js'
import {clientPathsOf, routesFound} from './client-paths.js'
import {dataPlaneReport} from '../dataplane/describe.js'
import {dataPlaneNotice, kubeProxyRules, planeNodeChoice, planeZoneViews} from './dataplane-views.js'
import {advise} from './advice.js'
import {applicability, carriesPort, familyHasClusterIP} from './applicability.js'
import {countReady, isManaged, sortStrings} from './helpers.js'
import {lintIssues} from './lint.js'
import {estimateTraffic, trafficModel} from './traffic.js'
import {categorizeOptions, mergesLocalCopy, proxySkewMemo, sameRules, skewNotices, zoneRules, type ProxySkew} from './proxy-skew.js'
import type {ProxyRules} from '../dataplane/proxy-nodes.js'
import type {
  ExplainOptions,
  ExplainReport,
  KubeProxyVerdict,
  MeasuredTrafficInput,
  MeasuredTrafficReport,
  NodeProxyRow,
  ProxyReason,
  ServiceExplanation,
  TrafficEstimate,
  ZoneRow,
  Finding,
} from './report-types.js'
import {SCHEMA_VERSION} from './report-types.js'
import {nodeFacts, groupSlices, addressTypesOf, own, type NodeIndex} from './node-facts.js'
import {rowParts, Rows, type RowParts} from './rows.js'
import {allocationFigures, controllerVerdict, NO_RANDOM_CHOICES} from './controller-verdict.js'

// The report's types live in report-types.ts; callers import them, explain() and these from here.
export type * from './report-types.js'
export {summariseNodes} from './node-facts.js'
export {allocationFigures} from './controller-verdict.js'

// ---------------------------------------------------------------------------------------

export function explain(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}): ExplainReport {
  const f = featuresFor(opts.kubeVersion)
  const warnings: string[] = []
  if (f.warning) warnings.push(f.warning)
  const nodesReadable = state.nodesReadable !== false
  const {capacity, cluster, nodeIndex} = nodeFacts(state.nodes)
  const slicesByService = groupSlices(state.endpointSlices, new Set(services.map((s) => s.metadata.name)))
  const parts = rowParts()
  const skewOf = proxySkewMemo(opts.dataPlane, state.nodes)
  const out: ServiceExplanation[] = []
  const found = opts.routes ? routesFound(opts.routes) : undefined
  for (const svc of services) {
    const key = `${svc.metadata.namespace ?? 'default'}/${svc.metadata.name}`
    const slices = slicesByService.get(key) ?? []
    for (const addressType of addressTypesOf(svc, slices)) {
      out.push(
        explainService({
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
        }),
      )
      if (opts.routes && found) {
        const zones = cluster.zones.filter((z) => z.counted > 0).map((z) => z.name)
        out[out.length - 1]!.clientPaths = clientPathsOf(found, opts.routes, svc, slices, zones)
      }
    }
  }
  return {
    apiVersion: SCHEMA_VERSION,
    kind: 'TopologyExplanation',
    kubernetesVersion: formatVersion(f.version),
    versionSource: opts.versionSource ?? (opts.kubeVersion ? 'flag' : 'default'),
    warnings,
    nodesReadable,
    cluster,
    ...(opts.dataPlane ? {dataPlane: dataPlaneReport(opts.dataPlane)} : {}),
    ...(found ? {routes: found} : {}),
    services: out,
  }
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
  const mode = serviceMode(service, f)
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
  const state = controllerState(service, mode.path, managedSlices, input.events)

  // What the controller does with its slices at its next sync.
  let prediction: HintPrediction | null = null
  let otherEvents: HintPrediction | null = null
  // Without Nodes (RBAC) the CPU allocation cannot be computed: say so rather than predict
  // the controller's "Insufficient Node information" refusal, which the controller does not make.
  const unpredictable = !input.nodesReadable && mode.path === 'topology-mode-auto'
  if (managedByController && !unpredictable) {
    const args = {service, slices: managedSlices, addressType, ratios, features: f, mode: predictionMode}
    prediction = predictHints({...args, populated: state.hintsPopulated})
    // The mark is a guess (no Events read): the other guess's event is one the controller may record.
    if (state.inferredFrom === 'unknown') otherEvents = predictHints({...args, populated: !state.hintsPopulated})
  }
  const predictedByName = new Map<string, EndpointSlice>()
  for (const s of prediction?.slices ?? []) predictedByName.set(s.metadata.name, s)
  const predictedSlices = slices.map((s) => predictedByName.get(s.metadata.name) ?? s)

  const controller = unpredictable
    ? {
        path: mode.path,
        hintsSet: slices.some((s) => (s.endpoints ?? []).some((e) => (e.hints?.forZones?.length ?? 0) > 0)),
        reason: 'NodesUnreadable',
        message: 'cannot predict the CPU-proportional allocation: Nodes could not be read (missing permission: list nodes); showing the live hints',
        event: null,
        totalReadyEndpoints: countReady(slices),
        prediction: predictionMode,
        slicesToUpdate: [],
        randomChoices: NO_RANDOM_CHOICES,
        state,
      }
    : controllerVerdict(prediction, mode.path, managedByController, predictionMode, addressType, service, countReady(slices), state)
  if (otherEvents !== null) {
    const other = controllerVerdict(otherEvents, mode.path, managedByController, predictionMode, addressType, service, countReady(slices), state).event
    Object.assign(controller, eventUnderGuess(controller.event, other))
  }

  // Endpoint rows, and the per-zone counts, in one pass.
  const rows = new Rows(input.parts, slices)
  const alternatives = prediction?.hintsSet ? prediction.addHints?.alternatives : undefined
  for (let i = 0; i < slices.length; i++) rows.addSlice(slices[i]!, predictedSlices[i]!, alternatives?.bySlice.get(slices[i]!.metadata.name))
  const {endpoints, stats, rowZone, rowProxyReady, withAddress, readyCount, hinted, anyLiveHints, driftedRows, donatedCount, noZone, noZoneReady} = rows

  // kube-proxy, per zone and per node, on live and predicted hints.
  const plane = opts.dataPlane
  const planeRules = !kubeProxyRules(plane)
  // kube-proxy's own version and gate when detected (its image can lag the API server).
  const proxyF = plane?.proxyVersion !== undefined && plane.name === 'kube-proxy' ? featuresFor(plane.proxyVersion) : f
  // --data-plane kube-proxy names no version: the gate is the modelled Kubernetes version's.
  const planeGate = plane?.name === 'kube-proxy' && plane.source === 'flag' ? undefined : plane?.preferSameGate
  const preferSameGate = planeGate ?? proxyF.preferSameTrafficDistribution
  // kube-proxy keeps one endpoint list per Service port, from the slices carrying that port
  // (endpointslicecache.go endpointInfoByServicePort). When every slice carries every port the
  // lists are the same; otherwise the zone and node-level views are those of the first port.
  const servicePorts = (service.spec?.ports ?? []).map((p) => ({name: p.name ?? '', protocol: p.protocol || 'TCP'}))
  const uniformPorts = slices.every((s) => servicePorts.every((p) => carriesPort(s, p)))
  const firstPort = uniformPorts ? undefined : servicePorts[0]
  const forPort = (list: EndpointSlice[], p: {name: string; protocol: string} | undefined) => (p === undefined ? list : list.filter((s) => carriesPort(s, p)))
  const flags = firstPort === undefined ? serviceTrafficFlags(service) : serviceTrafficFlags(service, {portName: firstPort.name})
  const liveProxy = proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate})
  // Nothing rewritten: the predicted endpoints are the live ones (same slices, same result).
  const predProxy = predictedSlices.every((s, i) => s === slices[i]) ? liveProxy : proxyEndpointsFromSlices(forPort(predictedSlices, firstPort), {preferSameGate})
  const requireAnnotation = proxyF.kubeProxyRequiresAnnotation ? {annotations: service.metadata.annotations} : undefined
  const categorizeOpts = {preferSameGate, requireAnnotation}
  // Each node's own kube-proxy version (its Pod) when the data plane's Pods were read: the
  // rules of each node's minor (src/explain/proxy-skew.ts). `skewed` when they differ.
  const baseRules: ProxyRules = {minor: null, preferSameGate, requireAnnotation: proxyF.kubeProxyRequiresAnnotation}
  const skew = planeRules ? null : input.skewOf(baseRules)
  const skewed = proxied && skew?.skewed === true ? skew : null
  // The endpoint lists for the other PreferSame gate: they differ from these only in node hints (same positions).
  const otherGate =
    skewed?.classes.some((c) => c.preferSameGate !== preferSameGate) === true
      ? (() => {
          const live = proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate: !preferSameGate})
          return {live, pred: predProxy === liveProxy ? live : proxyEndpointsFromSlices(forPort(predictedSlices, firstPort), {preferSameGate: !preferSameGate})}
        })()
      : null
  const epsOf = (r: ProxyRules, live: boolean): ProxyEndpoint[] =>
    r.preferSameGate === preferSameGate || otherGate === null ? (live ? liveProxy : predProxy) : live ? otherGate.live : otherGate.pred

  const zoneNames = new Set<string>()
  for (const z of Object.keys(ratios ?? {})) zoneNames.add(z)
  for (const z of input.nodeIndex.zones) zoneNames.add(z)
  for (const [z, c] of stats) if (c.named) zoneNames.add(z)
  const nodesByZone = input.nodeIndex.byZone

  // kube-proxy on a node picks PreferSameNode when every ready endpoint has a node hint and
  // one names that node (topologyModeFromHints): so the nodes that do are exactly the nodes
  // named in node hints, when all ready endpoints have one. One pass instead of one
  // categorization per node.
  const sameNodeNodes = (eps: readonly ProxyEndpoint[], gate = preferSameGate): Set<string> => {
    const names = new Set<string>()
    if (!gate) return names
    for (let i = 0; i < eps.length; i++) {
      const e = eps[i]!
      if (!e.ready) continue
      if (e.nodeHints === null || e.nodeHints.size === 0) return new Set()
      for (const name of e.nodeHints) names.add(name)
    }
    return names
  }
  const liveSameNode = sameNodeNodes(liveProxy)
  const predSameNode = sameNodeNodes(predProxy)
  const measured = opts.measured?.get(`${service.metadata.namespace ?? 'default'}/${service.metadata.name}`)
  const trafficShares = trafficModel(measured?.mix ?? opts.traffic, ratios, capacity)
  // The zone-wide view (a node of the zone that holds no node-hinted endpoint) of every zone
  // shown or weighted by the traffic model, once per endpoint list: the zone rows and the
  // traffic estimate both use it.
  const viewZones = new Set(zoneNames)
  for (const z of Object.keys(trafficShares ?? {})) viewZones.add(z)
  type View = ZoneView & {reason?: ProxyReason | null}
  const views = (eps: readonly ProxyEndpoint[]): Map<string, View> =>
    planeRules ? planeZoneViews(plane!, eps, service, viewZones) : categorizeZones(eps, flags, viewZones, categorizeOpts)
  const liveViews = views(liveProxy)
  const predViews = predProxy === liveProxy ? liveViews : views(predProxy)
  // With skew: each rule set's zone views, and the nodes that go node-local under it.
  type ClassViews = Map<ProxyRules, {views: Map<string, View>; sameNode: Set<string>}>
  const classViews = (live: boolean): ClassViews => {
    const out: ClassViews = new Map()
    for (const c of skewed!.classes) {
      const eps = epsOf(c, live)
      const base = sameRules(c, baseRules)
      out.set(c, {
        views: base ? (live ? liveViews : predViews) : categorizeZones(eps, flags, viewZones, categorizeOptions(c, service)),
        sameNode: sameNodeNodes(eps, c.preferSameGate),
      })
    }
    return out
  }
  const liveClasses = skewed ? classViews(true) : null
  const predClasses = skewed ? (predProxy === liveProxy ? liveClasses : classViews(false)) : null
  const cpuByNode = new Map(capacity.nodes.map((v) => [v.name, v.milliCPU]))
  const zoneRulesOf = (zone: string) => zoneRules(skewed!, nodesByZone.get(zone) ?? [], (n) => cpuByNode.get(n) ?? 0)
  // Under another data plane: the nodes of a zone whose choice is node-local, by node.
  // Only a Service that can go node-local (PreferSameNode, or node hints present) needs one choice per node.
  const nodeLocal = (eps: readonly ProxyEndpoint[]) => service.spec?.trafficDistribution === 'PreferSameNode' || eps.some((e) => (e.nodeHints?.size ?? 0) > 0)
  const planeSameNode = (eps: readonly ProxyEndpoint[], zone: string): number =>
    !nodeLocal(eps)
      ? 0
      : (nodesByZone.get(zone) ?? []).filter((n) => planeNodeChoice(plane!, eps, service, {name: n.metadata.name, labels: n.metadata.labels ?? {}}).mode === 'PreferSameNode')
          .length
  // A zone whose nodes run different kube-proxy minors: the verdict of the rules most of them run;
  // nodesPreferSameNode counts each node under its own rules.
  const skewVerdict = (classes: ClassViews, zone: string): KubeProxyVerdict => {
    const v = classes.get(zoneRulesOf(zone).rules)!.views.get(zone)!
    const nodesPreferSameNode = (nodesByZone.get(zone) ?? []).filter((n) => classes.get(skewed!.rulesOf(n.metadata.name))!.sameNode.has(n.metadata.name)).length
    return {mode: v.topologyMode, fallback: v.fallbackReason !== null, reason: v.fallbackReason, routedEndpoints: v.cluster.length, nodesPreferSameNode}
  }
  const zoneVerdict = (views: Map<string, View>, sameNode: Set<string>, zone: string, eps: readonly ProxyEndpoint[]): KubeProxyVerdict => {
    if (!proxied) return NOT_PROXIED
    const v = views.get(zone)!
    const reason = v.reason !== undefined ? v.reason : v.fallbackReason
    const nodesPreferSameNode = planeRules
      ? plane!.honoursNodeHints === false && plane!.selection !== 'cilium'
        ? 0
        : planeSameNode(eps, zone)
      : sameNode.size === 0
        ? 0
        : (nodesByZone.get(zone) ?? []).filter((n) => sameNode.has(n.metadata.name)).length
    return {
      mode: v.topologyMode,
      fallback: reason !== null,
      reason,
      routedEndpoints: v.cluster.length,
      nodesPreferSameNode,
    }
  }

  const n = prediction?.addHints?.totalReady ?? readyCount
  const allocations = prediction?.addHints?.allocations ?? null
  const auto = mode.path === 'topology-mode-auto'
  const figures = auto && allocations === null && ratios !== null && n > 0 ? allocationFigures(n, ratios) : null

  const noNodes = (z: {counted: number; ignored: number}) => input.nodesReadable && proxied && z.counted + z.ignored === 0
  const zones: ZoneRow[] = sortStrings(zoneNames).map((zone) => {
    const zoneNodes = input.nodeIndex.verdicts.get(zone) ?? {counted: 0, ignored: 0, cpuMilli: 0}
    const counts = stats.get(zone)
    const ready = counts?.ready ?? 0
    const assigned = counts?.assigned ?? 0
    const liveHints = counts?.liveHints ?? 0
    const alloc = auto ? (own(allocations, zone) ?? own(figures, zone) ?? null) : null
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
      kubeProxy: noNodes(zoneNodes) ? NO_NODES : liveClasses ? skewVerdict(liveClasses, zone) : zoneVerdict(liveViews, liveSameNode, zone, liveProxy),
      kubeProxyPredicted: noNodes(zoneNodes) ? NO_NODES : predClasses ? skewVerdict(predClasses, zone) : zoneVerdict(predViews, predSameNode, zone, predProxy),
    }
  })

  let nodes: NodeProxyRow[] | undefined
  if (opts.perNode) {
    // Ports whose slices differ from the node-level view's: their own endpoints and flags.
    const ownPortsFor = (gate: boolean) =>
      uniformPorts
        ? []
        : servicePorts.map((p, i) =>
            i === 0 ? null : {eps: proxyEndpointsFromSlices(forPort(slices, p), {preferSameGate: gate}), flags: serviceTrafficFlags(service, {portName: p.name})},
          )
    const ownPortsByGate = new Map<boolean, ReturnType<typeof ownPortsFor>>()
    // Some address is in several slices (kube-proxy merges the copies; the rule changed in 1.36).
    let addresses = 0
    for (const s of forPort(slices, firstPort)) for (const e of s.endpoints ?? []) if (e.addresses?.[0] !== undefined) addresses++
    const duplicated = skew !== null && liveProxy.length < addresses
    // Each node's kube-proxy version, when the Pods were read (null: not known for that node).
    const versionOf = (name: string) => (skew === null ? {} : {kubeProxyVersion: skew.versions.get(name) ?? null})
    nodes = input.nodeIndex.sorted().map((node) => {
      const zone = node.metadata.labels?.[LABEL_ZONE] ?? null
      if (!proxied) {
        const none = {mode: '' as const, fallback: false, reason: 'not-proxied' as const, endpoints: [] as string[]}
        return {
          name: node.metadata.name,
          zone,
          ...versionOf(node.metadata.name),
          ...none,
          clusterEndpoints: [],
          localEndpoints: [],
          ports: servicePorts.map((p) => ({...p, ...none, endpoints: []})),
        }
      }
      if (planeRules) {
        const c = planeNodeChoice(plane!, liveProxy, service, {name: node.metadata.name, labels: node.metadata.labels ?? {}})
        const v = {mode: c.mode, fallback: c.reason !== null, reason: c.reason, endpoints: c.endpoints}
        return {
          name: node.metadata.name,
          zone,
          ...versionOf(node.metadata.name),
          ...v,
          clusterEndpoints: [...c.endpoints],
          localEndpoints: [],
          ports: servicePorts.map((p) => ({...p, ...v, endpoints: [...v.endpoints]})),
        }
      }
      // The node's own kube-proxy rules (the cluster-wide ones without skew).
      const rules = skewed ? skewed.rulesOf(node.metadata.name) : baseRules
      const nodeOpts = sameRules(rules, baseRules) ? categorizeOpts : categorizeOptions(rules, service)
      const categorize = (eps: readonly ProxyEndpoint[], f: typeof flags) => categorizeEndpoints(eps, f, {name: node.metadata.name, labels: node.metadata.labels ?? {}}, nodeOpts)
      const viewOf = (c: ReturnType<typeof categorize>) => ({
        mode: c.topologyMode,
        fallback: c.fallbackReason !== null,
        reason: c.fallbackReason,
        endpoints: c.allReachableEndpoints.map((e) => e.ip),
      })
      // One address in several slices, on a kube-proxy before 1.36: its own merge rule (the local copy wins).
      const legacy = duplicated && mergesLocalCopy(skew, node.metadata.name)
      const c0 = categorize(
        legacy ? proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate: rules.preferSameGate, localCopyWins: node.metadata.name}) : epsOf(rules, true),
        flags,
      )
      const v = viewOf(c0)
      let ownPorts = ownPortsByGate.get(rules.preferSameGate)
      if (ownPorts === undefined) ownPortsByGate.set(rules.preferSameGate, (ownPorts = ownPortsFor(rules.preferSameGate)))
      return {
        name: node.metadata.name,
        zone: node.metadata.labels?.[LABEL_ZONE] ?? null,
        ...versionOf(node.metadata.name),
        ...v,
        clusterEndpoints: c0.clusterEndpoints.map((e) => e.ip),
        localEndpoints: c0.localEndpoints.map((e) => e.ip),
        ports: servicePorts.map((p, i) => {
          const own = ownPorts[i]
          return {...p, ...(own ? viewOf(categorize(own.eps, own.flags)) : {...v, endpoints: [...v.endpoints]})}
        }),
      }
    })
  }

  // Position j of the proxy endpoints is row j when no endpoint lacks an address and no IP
  // repeats (then nothing was skipped or merged); the predicted ones are checked address by address.
  const byRow = (eps: readonly ProxyEndpoint[]): boolean => {
    if (eps.length !== endpoints.length || withAddress !== endpoints.length) return false
    if (eps === liveProxy) return true
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
      uncertainEndpoints: endpoints.filter((e) => e.alternatives !== null).length,
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

const NO_NODES: KubeProxyVerdict = Object.freeze({mode: '' as const, fallback: false, reason: 'no-nodes' as const, routedEndpoints: 0, nodesPreferSameNode: 0})

const NOT_PROXIED: KubeProxyVerdict = Object.freeze({mode: '' as const, fallback: false, reason: 'not-proxied' as const, routedEndpoints: 0, nodesPreferSameNode: 0})
