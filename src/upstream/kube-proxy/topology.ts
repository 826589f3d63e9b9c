// Port of kubernetes/kubernetes pkg/proxy/topology.go (Kubernetes v1.36.3): `CategorizeEndpoints`,
// `topologyModeFromHints` and `availableForTopology`, as pure functions; and, for kube-proxy
// 1.28-1.30 (`requireAnnotation`), Kubernetes v1.30's topology.go `canUseTopology`.
//
// Ours, on top of upstream: the fallback reason (why mode "" was chosen although hints exist,
// `FallbackReason`, `topologyDecisionFromHints`), and `categorizeZones`, which gives
// `CategorizeEndpoints`' cluster set for many zones in one pass (kubeproxy.test.ts checks it
// equals `categorizeEndpoints` zone by zone).
//
// Ordering: upstream keeps endpoints in maps and sorts by "IP:port"; we keep every list in
// the order the endpoints first appear in the input array.

import {LABEL_ZONE} from '../api/types.js'
import type {ProxyEndpoint} from './endpoint.js'
import {legacyHintsAnnotation, type ServiceTrafficFlags} from './serviceport.js'

// ---- Topology mode (topology.go) ------------------------------------------------------------

export type ProxyTopologyMode = '' | 'PreferSameZone' | 'PreferSameNode'

/**
 * Why kube-proxy routes without topology although hints are present (see `Categorized`).
 * - no-endpoints: the service port has no endpoints at all.
 * - no-ready-endpoints: hints exist, but no endpoint is ready (serving-terminating fallback, cluster-wide).
 * - unhinted-ready-endpoint: some ready endpoint has no zone hint (or no node hint, when only node hints are in use).
 * - no-hint-for-zone: every ready endpoint is zone-hinted, none for this node's zone.
 * - no-hint-for-node: every ready endpoint is node-hinted (and there are no zone hints), none for this node.
 * - node-has-no-zone: this node has no (or an empty) zone label and no ready endpoint is hinted for "".
 *   (kube-proxy 1.28-1.30: any node without a zone label, "" hints or not.)
 * - annotation-required: kube-proxy 1.28-1.30 and the Service lacks an enabling annotation.
 * - local-traffic-policy-only: iTP=Local and not externally accessible; no cluster set, so no topology.
 */
export type FallbackReason =
  | 'no-endpoints'
  | 'no-ready-endpoints'
  | 'unhinted-ready-endpoint'
  | 'no-hint-for-zone'
  | 'no-hint-for-node'
  | 'node-has-no-zone'
  | 'annotation-required'
  | 'local-traffic-policy-only'

export interface TopologyDecision {
  mode: ProxyTopologyMode
  /** null when a mode was chosen, and also when no endpoint carries any (usable) hint. */
  fallbackReason: FallbackReason | null
}

/** `sets.Set.Len()` of a hint set; a missing set is empty. */
function size(s: ReadonlySet<string> | null): number {
  return s === null ? 0 : s.size
}

/** Some endpoint carries a hint kube-proxy reads (ours: decides whether a fallback reason is given). */
function anyHints(endpoints: readonly ProxyEndpoint[], nodeHintsCount: boolean): boolean {
  return endpoints.some((ep) => size(ep.zoneHints) > 0 || (nodeHintsCount && size(ep.nodeHints) > 0))
}

/**
 * What topology.go `topologyModeFromHints` reads from the ready endpoints for one node, except
 * `hasEndpointForZone` (see `categorizeZones`, which finds it for many zones in one pass).
 */
interface ReadyHintFacts {
  hasReadyEndpoints: boolean
  hasEndpointForNode: boolean
  allEndpointsHaveNodeHints: boolean
  allEndpointsHaveZoneHints: boolean
}

/**
 * topology.go `topologyModeFromHints`, the part after the loop, once the facts are known, plus
 * the reason when the answer is "". `hinted`: some endpoint (ready or not) carries a hint
 * kube-proxy reads; `zoneHintsPresent`: some endpoint carries a zone hint. Both are only asked
 * for on a fallback.
 */
function decideFromHints(
  f: ReadyHintFacts,
  hasEndpointForZone: boolean,
  zone: string,
  preferSameGate: boolean,
  hinted: () => boolean,
  zoneHintsPresent: () => boolean,
): TopologyDecision {
  const fallback = (r: FallbackReason): TopologyDecision => ({mode: '', fallbackReason: hinted() ? r : null})

  if (!f.hasReadyEndpoints) return fallback('no-ready-endpoints')

  let nodeReason: FallbackReason | null = null
  if (preferSameGate) {
    if (f.allEndpointsHaveNodeHints) {
      if (f.hasEndpointForNode) return {mode: 'PreferSameNode', fallbackReason: null}
      nodeReason = 'no-hint-for-node'
    } else {
      nodeReason = 'unhinted-ready-endpoint'
    }
  }
  let zoneReason: FallbackReason
  if (f.allEndpointsHaveZoneHints) {
    if (hasEndpointForZone) return {mode: 'PreferSameZone', fallbackReason: null}
    zoneReason = zone === '' ? 'node-has-no-zone' : 'no-hint-for-zone'
  } else {
    zoneReason = 'unhinted-ready-endpoint'
  }
  // Zone hints are the last fallback, so explain with them; when only node hints exist
  // (no endpoint has a zone hint), the node-hint reason says more.
  return fallback(!zoneHintsPresent() && nodeReason !== null ? nodeReason : zoneReason)
}

const zoneHintsIn = (endpoints: readonly ProxyEndpoint[]) => endpoints.some((ep) => size(ep.zoneHints) > 0)

/**
 * topology.go `topologyModeFromHints`, plus the reason when the answer is "".
 * Only ready endpoints are examined. Node hints count only when `preferSameGate` is on.
 * A node zone of "" matches an endpoint hinted with zone "" (upstream does not special-case it).
 */
export function topologyDecisionFromHints(endpoints: readonly ProxyEndpoint[], nodeName: string, zone: string, preferSameGate: boolean): TopologyDecision {
  const f: ReadyHintFacts = {hasReadyEndpoints: false, hasEndpointForNode: false, allEndpointsHaveNodeHints: true, allEndpointsHaveZoneHints: true}
  let hasEndpointForZone = false
  for (const ep of endpoints) {
    if (!ep.ready) continue
    f.hasReadyEndpoints = true
    if (size(ep.nodeHints) === 0) f.allEndpointsHaveNodeHints = false
    else if (ep.nodeHints!.has(nodeName)) f.hasEndpointForNode = true
    if (size(ep.zoneHints) === 0) f.allEndpointsHaveZoneHints = false
    else if (ep.zoneHints!.has(zone)) hasEndpointForZone = true
  }
  // Reasons are only given when some endpoint (ready or not) carries a hint kube-proxy would read.
  return decideFromHints(
    f,
    hasEndpointForZone,
    zone,
    preferSameGate,
    () => anyHints(endpoints, preferSameGate),
    () => zoneHintsIn(endpoints),
  )
}

/** topology.go `topologyModeFromHints`: "PreferSameNode", "PreferSameZone" or "" (no topology). */
export function topologyModeFromHints(endpoints: readonly ProxyEndpoint[], nodeName: string, zone: string, preferSameGate: boolean): ProxyTopologyMode {
  return topologyDecisionFromHints(endpoints, nodeName, zone, preferSameGate).mode
}

const DISABLED_ANNOTATION_VALUES = new Set(['', 'disabled', 'Disabled'])

/**
 * Kubernetes v1.30 topology.go `canUseTopology` (kube-proxy 1.28-1.30, TopologyAwareHints gate on,
 * ServiceTrafficDistribution gate off), expressed as a mode: true -> "PreferSameZone".
 * Checks, in upstream's order: annotation not in {"", "disabled", "Disabled"}; the node has a
 * non-empty zone label (so "" hints never match); every ready endpoint has a zone hint; some
 * ready endpoint is hinted for the node's zone. Node hints did not exist then and are ignored.
 */
function legacyDecision(endpoints: readonly ProxyEndpoint[], zone: string, annotations: Record<string, string> | undefined): TopologyDecision {
  let hasReady = false
  let allHaveZoneHints = true
  let hasEndpointForZone = false
  for (const ep of endpoints) {
    if (!ep.ready) continue
    hasReady = true
    if (size(ep.zoneHints) === 0) allHaveZoneHints = false
    else if (ep.zoneHints!.has(zone)) hasEndpointForZone = true
  }
  return decideLegacy(annotations, zone, hasReady, allHaveZoneHints, hasEndpointForZone, () => anyHints(endpoints, false))
}

/**
 * v1.30 topology.go `canUseTopology`: the checks of `legacyDecision` in upstream's order, once
 * the facts are known. (Upstream's loop returns at the first ready endpoint without a zone hint,
 * whatever it saw before: the result only depends on whether one exists.)
 */
function decideLegacy(
  annotations: Record<string, string> | undefined,
  zone: string,
  hasReady: boolean,
  allHaveZoneHints: boolean,
  hasEndpointForZone: boolean,
  hinted: () => boolean,
): TopologyDecision {
  const fallback = (r: FallbackReason): TopologyDecision => ({mode: '', fallbackReason: hinted() ? r : null})
  if (DISABLED_ANNOTATION_VALUES.has(legacyHintsAnnotation(annotations))) return fallback('annotation-required')
  if (zone === '') return fallback('node-has-no-zone')
  if (!allHaveZoneHints) return fallback('unhinted-ready-endpoint')
  if (!hasEndpointForZone) return fallback(hasReady ? 'no-hint-for-zone' : 'no-ready-endpoints')
  return {mode: 'PreferSameZone', fallbackReason: null}
}

// ---- CategorizeEndpoints (topology.go) ------------------------------------------------------

export interface Categorized {
  /** The mode used for the cluster set; "" also when the service has no cluster set. */
  topologyMode: ProxyTopologyMode
  /** Usable Cluster-policy endpoints (topology applied). Empty when the service never uses them. */
  clusterEndpoints: ProxyEndpoint[]
  /** Usable Local-policy endpoints (never topology-filtered). Empty when the service never uses them. */
  localEndpoints: ProxyEndpoint[]
  /** cluster ∪ local, as reachable from this node. */
  allReachableEndpoints: ProxyEndpoint[]
  /** Whether the service has usable endpoints anywhere in the cluster (may be true with `all` empty). */
  hasAnyEndpoints: boolean
  /**
   * Why topology was not used, in kube-proxy terms; null when it was used.
   *
   * Two different situations give mode "":
   *   - fallbackReason === null: topology is simply not in use, no endpoint carries a hint
   *     kube-proxy reads (zone hints; node hints only with the PreferSame gate);
   *   - fallbackReason !== null: hints are present but kube-proxy ignores them on this node
   *     (a safeguard fired), e.g. 'unhinted-ready-endpoint'.
   * Exception: an empty endpoint list gives 'no-endpoints', hints or not.
   */
  fallbackReason: FallbackReason | null
  /** The local set fell back to serving-terminating endpoints. */
  localUsesTerminating: boolean
}

export interface CategorizeOptions {
  preferSameGate: boolean
  /**
   * Model kube-proxy 1.28-1.30, which only used hints when the Service was annotated
   * (see `legacyHintsAnnotation`) and the node had a non-empty zone label.
   */
  requireAnnotation?: {annotations: Record<string, string> | undefined}
}

/**
 * topology.go `CategorizeEndpoints` for one kube-proxy node.
 * isLocal = endpoint.nodeName non-empty and equal to node.name. The node's zone is its
 * topology.kubernetes.io/zone label ("" when missing).
 */
export function categorizeEndpoints(
  endpoints: readonly ProxyEndpoint[],
  flags: ServiceTrafficFlags,
  node: {name: string; labels: Record<string, string>},
  opts: CategorizeOptions,
): Categorized {
  const result: Categorized = {
    topologyMode: '',
    clusterEndpoints: [],
    localEndpoints: [],
    allReachableEndpoints: [],
    hasAnyEndpoints: false,
    fallbackReason: null,
    localUsesTerminating: false,
  }
  if (endpoints.length === 0) {
    result.fallbackReason = 'no-endpoints'
    return result
  }
  const isLocal = (ep: ProxyEndpoint) => node.name !== '' && ep.nodeName != null && ep.nodeName === node.name
  const zone = node.labels[LABEL_ZONE] ?? ''

  if (flags.usesClusterEndpoints) {
    const decision = opts.requireAnnotation
      ? legacyDecision(endpoints, zone, opts.requireAnnotation.annotations)
      : topologyDecisionFromHints(endpoints, node.name, zone, opts.preferSameGate)
    const mode = decision.mode
    result.topologyMode = mode
    result.fallbackReason = decision.fallbackReason
    result.clusterEndpoints = endpoints.filter((ep) => ep.ready && availableForTopology(ep, mode, node.name, zone))
    // No ready endpoints anywhere: serving-terminating ones, with no topology filter.
    if (result.clusterEndpoints.length === 0) {
      result.clusterEndpoints = endpoints.filter((ep) => ep.serving && ep.terminating)
    }
    if (result.clusterEndpoints.length > 0) result.hasAnyEndpoints = true
  } else if (anyHints(endpoints, opts.requireAnnotation ? false : opts.preferSameGate)) {
    result.fallbackReason = 'local-traffic-policy-only'
  }

  if (!flags.usesLocalEndpoints) {
    result.allReachableEndpoints = [...result.clusterEndpoints]
    return result
  }

  let hasLocalReady = false
  let hasLocalServingTerminating = false
  for (const ep of endpoints) {
    if (ep.ready) {
      result.hasAnyEndpoints = true
      if (isLocal(ep)) hasLocalReady = true
    } else if (ep.serving && ep.terminating) {
      result.hasAnyEndpoints = true
      if (isLocal(ep)) hasLocalServingTerminating = true
    }
  }
  if (hasLocalReady) {
    result.localEndpoints = endpoints.filter((ep) => isLocal(ep) && ep.ready)
  } else if (hasLocalServingTerminating) {
    result.localUsesTerminating = true
    result.localEndpoints = endpoints.filter((ep) => isLocal(ep) && ep.serving && ep.terminating)
  }

  if (!flags.usesClusterEndpoints) {
    result.allReachableEndpoints = [...result.localEndpoints]
    return result
  }
  if (result.topologyMode === '' && !result.localUsesTerminating) {
    // Every ready endpoint is in the cluster set, which is then a superset of the local set.
    result.allReachableEndpoints = [...result.clusterEndpoints]
    return result
  }

  // Upstream merges cluster then local into a map keyed by "IP:port" (local copies overwrite) and
  // returns it in Go map order. We key by IP (one service port) and order the union by the
  // position where each IP first appears in `endpoints`.
  const merged = new Map<string, ProxyEndpoint>()
  for (const ep of result.clusterEndpoints) merged.set(ep.ip, ep)
  for (const ep of result.localEndpoints) merged.set(ep.ip, ep)
  const firstIndex = new Map<string, number>()
  endpoints.forEach((ep, i) => {
    if (!firstIndex.has(ep.ip)) firstIndex.set(ep.ip, i)
  })
  result.allReachableEndpoints = [...merged.values()].sort((a, b) => (firstIndex.get(a.ip) ?? 0) - (firstIndex.get(b.ip) ?? 0))
  return result
}

/** topology.go `availableForTopology`: no fallback here, it happens when choosing the mode. */
function availableForTopology(ep: ProxyEndpoint, mode: ProxyTopologyMode, nodeName: string, zone: string): boolean {
  switch (mode) {
    case '':
      return true
    case 'PreferSameNode':
      return ep.nodeHints !== null && ep.nodeHints.has(nodeName)
    case 'PreferSameZone':
      return ep.zoneHints !== null && ep.zoneHints.has(zone)
  }
}

// ---- The zone-wide view, for many zones at once (ours, not in upstream) ----------------------

export interface ZoneView {
  /** categorizeEndpoints' topologyMode. */
  topologyMode: ProxyTopologyMode
  /** categorizeEndpoints' fallbackReason. */
  fallbackReason: FallbackReason | null
  /** categorizeEndpoints' clusterEndpoints, as ascending positions in `endpoints` (shared between zones: read-only). */
  cluster: Readonly<ArrayLike<number>>
}

const NO_POSITIONS = new Int32Array(0)

/** How many distinct zone-hint Sets categorizeZones compares one by one before a Map lookup. */
const FEW_SETS = 8

/**
 * `categorizeEndpoints` on a node named "" of each zone in `zones` (a node that holds no endpoint:
 * the zone-wide view explain shows), reduced to the cluster set: topologyMode, fallbackReason and
 * clusterEndpoints. Two passes over the endpoints for all zones, where categorizeEndpoints takes
 * one (or three) per zone: the first finds the facts topologyModeFromHints reads and how many
 * endpoints each cluster set holds, the second writes the positions of the sets in use.
 * kubeproxy.test.ts checks, on random endpoint lists, that each zone's result equals
 * categorizeEndpoints'.
 */
export function categorizeZones(endpoints: readonly ProxyEndpoint[], flags: ServiceTrafficFlags, zones: Iterable<string>, opts: CategorizeOptions): Map<string, ZoneView> {
  const out = new Map<string, ZoneView>()
  const wanted = new Set(zones)
  if (endpoints.length === 0) {
    for (const zone of wanted) out.set(zone, {topologyMode: '', fallbackReason: 'no-endpoints', cluster: NO_POSITIONS})
    return out
  }
  if (!flags.usesClusterEndpoints) {
    const reason = anyHints(endpoints, opts.requireAnnotation ? false : opts.preferSameGate) ? 'local-traffic-policy-only' : null
    for (const zone of wanted) out.set(zone, {topologyMode: '', fallbackReason: reason, cluster: NO_POSITIONS})
    return out
  }

  // Pass 1: the facts of topologyModeFromHints that do not depend on the zone (the node name is
  // ""), and the sizes of the candidate cluster sets: every ready endpoint (mode ""), the ready
  // endpoints hinted for node "" (PreferSameNode), those hinted for each zone (PreferSameZone),
  // and the serving-terminating endpoints (the fallback when the set is empty). Endpoints share
  // one zone-hint Set per name (proxyEndpointsFromSlices): count per Set, then per zone.
  const f: ReadyHintFacts = {hasReadyEndpoints: false, hasEndpointForNode: false, allEndpointsHaveNodeHints: true, allEndpointsHaveZoneHints: true}
  let ready = 0
  let readyForNode = 0
  let servingTerminating = 0
  // Each distinct zone-hint Set: its ready endpoints; and each ready endpoint's Set (-1: none).
  const setIds = new Map<ReadonlySet<string>, number>()
  const perSet: {set: ReadonlySet<string>; n: number; lists: {at: Int32Array; n: number}[]}[] = []
  const setOf = new Int32Array(endpoints.length)
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i]!
    setOf[i] = -1
    if (!ep.ready) {
      if (ep.serving && ep.terminating) servingTerminating++
      continue
    }
    ready++
    if (size(ep.nodeHints) === 0) f.allEndpointsHaveNodeHints = false
    else if (ep.nodeHints!.has('')) readyForNode++
    const zh = ep.zoneHints
    if (zh === null || zh.size === 0) {
      f.allEndpointsHaveZoneHints = false
      continue
    }
    // A handful of Sets (one per zone) are compared in place; more are looked up.
    let id = -1
    for (let k = 0; k < perSet.length && k < FEW_SETS; k++) {
      if (perSet[k]!.set === zh) {
        id = k
        break
      }
    }
    if (id < 0) {
      id = perSet.length > FEW_SETS ? (setIds.get(zh) ?? -1) : -1
      if (id < 0) {
        setIds.set(zh, (id = perSet.length))
        perSet.push({set: zh, n: 0, lists: []})
      }
    }
    perSet[id]!.n++
    setOf[i] = id
  }
  f.hasReadyEndpoints = ready > 0
  f.hasEndpointForNode = readyForNode > 0
  const readyForZone = new Map<string, number>()
  for (const {set, n} of perSet) for (const zone of set) if (wanted.has(zone)) readyForZone.set(zone, (readyForZone.get(zone) ?? 0) + n)

  let hinted: boolean | undefined
  const hintedNew = () => (hinted ??= anyHints(endpoints, opts.preferSameGate))
  const hintedLegacy = () => (hinted ??= anyHints(endpoints, false))
  let zoneHints: boolean | undefined
  const zoneHintsPresent = () => (zoneHints ??= zoneHintsIn(endpoints))
  // The cluster set of each zone: every ready endpoint (`all`), those hinted for node ""
  // (`forNode`), the zone's own (`zoneSets`, by zone name), or the serving-terminating ones (`st`,
  // when the chosen set is empty). Sets are made as a zone first picks them, and shared by zones
  // that pick the same one (no key strings are built per zone: a new string is hashed anew).
  type Positions = {at: Int32Array; n: number}
  const positions = (n: number): Positions => ({at: n === 0 ? NO_POSITIONS : new Int32Array(n), n: 0})
  let all: Positions | undefined
  let forNode: Positions | undefined
  let st: Positions | undefined
  const zoneSets = new Map<string, Positions>()
  const decisions: [string, TopologyDecision, Positions][] = []
  for (const zone of wanted) {
    const forZone = readyForZone.get(zone) ?? 0
    const decision = opts.requireAnnotation
      ? decideLegacy(opts.requireAnnotation.annotations, zone, f.hasReadyEndpoints, f.allEndpointsHaveZoneHints, forZone > 0, hintedLegacy)
      : decideFromHints(f, forZone > 0, zone, opts.preferSameGate, hintedNew, zoneHintsPresent)
    const n = decision.mode === '' ? ready : decision.mode === 'PreferSameNode' ? readyForNode : forZone
    let set: Positions
    // No ready endpoints anywhere: serving-terminating ones, with no topology filter.
    if (n === 0) set = st ??= positions(servingTerminating)
    else if (decision.mode === '') set = all ??= positions(ready)
    else if (decision.mode === 'PreferSameNode') set = forNode ??= positions(readyForNode)
    else zoneSets.set(zone, (set = positions(forZone)))
    decisions.push([zone, decision, set])
  }

  // Pass 2: the positions of the sets in use.
  let forZones = false
  if (zoneSets.size > 0) {
    for (const entry of perSet) {
      for (const zone of entry.set) {
        const list = zoneSets.get(zone)
        if (list !== undefined) {
          entry.lists.push(list)
          forZones = true
        }
      }
    }
  }
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i]!
    if (!ep.ready) {
      if (st !== undefined && ep.serving && ep.terminating) st.at[st.n++] = i
      continue
    }
    if (all !== undefined) all.at[all.n++] = i
    if (forNode !== undefined && ep.nodeHints !== null && ep.nodeHints.has('')) forNode.at[forNode.n++] = i
    const id = setOf[i]!
    if (!forZones || id < 0) continue
    const targets = perSet[id]!.lists
    for (let k = 0; k < targets.length; k++) {
      const t = targets[k]!
      t.at[t.n++] = i
    }
  }
  for (const [zone, decision, set] of decisions) out.set(zone, {topologyMode: decision.mode, fallbackReason: decision.fallbackReason, cluster: set.at})
  return out
}
