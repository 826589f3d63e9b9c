// The cluster-wide basis of the topology-mode Auto heuristic, for `kubectl topology nodes`:
// which nodes the EndpointSlice controller counts, which it ignores and why, each zone's
// share of allocatable CPU, and the nodes that disable hints for every Service. Built from
// setNodes (upstream TopologyCache.SetNodes) and explain's summariseNodes. Pure.
// Schema: schema/nodes.v1.json.
import {clusterCliffs, type Cliff} from './cliffs.js'
import {summariseNodes} from './node-facts.js'
import type {NodeSummary} from './report-types.js'
import {zoneCapacity, type NodeStatus, type NodeVerdict} from './node-verdicts.js'
import {MESSAGES} from '../upstream/endpointslice/topologycache/event.js'
import type {ClusterState} from '../state/cluster-state.js'

export const NODES_SCHEMA_VERSION = 'kubectl-topology.io/v1'

export type AutoVerdictReason = 'ok' | 'disabling-nodes' | 'single-zone' | 'no-counted-nodes' | 'nodes-unreadable'

export interface NodesReport {
  apiVersion: typeof NODES_SCHEMA_VERSION
  kind: 'TopologyNodes'
  nodesReadable: boolean
  /** Whether topology-mode Auto can allocate hints at all, cluster-wide. */
  auto: {
    possible: boolean
    reason: AutoVerdictReason
    /** The controller's event message when it refuses (upstream text), else a summary. */
    message: string
  }
  totals: {nodes: number; counted: number; ignored: Record<Exclude<NodeStatus, 'counted'>, number>; cpuMilli: number}
  zones: NodeSummary['zones']
  nodes: NodeVerdict[]
  disablingNodes: NodeSummary['disablingNodes']
  /** Single nodes whose loss would disable topology-mode Auto for every Service. */
  cliffs: Cliff[]
}

export function nodesReport(state: Pick<ClusterState, 'nodes' | 'nodesReadable'>): NodesReport {
  const capacity = zoneCapacity(state.nodes)
  const summary = summariseNodes(capacity)
  const readable = state.nodesReadable !== false
  const ignored = {'control-plane': 0, 'not-ready': 0, 'no-zone-label': 0, 'no-cpu': 0}
  let counted = 0
  let cpuMilli = 0
  for (const n of capacity.nodes) {
    if (n.status === 'counted') {
      counted++
      cpuMilli += n.milliCPU
    } else ignored[n.status]++
  }
  const countedZones = summary.zones.filter((z) => z.counted > 0)
  let auto: NodesReport['auto']
  if (!readable) {
    auto = {possible: false, reason: 'nodes-unreadable', message: 'Nodes could not be read (missing permission: list nodes); the zone CPU shares are unknown'}
  } else if (summary.disablingNodes.length > 0) {
    auto = {
      possible: false,
      reason: 'disabling-nodes',
      message: `${MESSAGES.insufficientNodeInfo} (${summary.disablingNodes.length} ready worker node(s) without a zone label or allocatable CPU)`,
    }
  } else if (counted === 0) {
    auto = {possible: false, reason: 'no-counted-nodes', message: `${MESSAGES.insufficientNodeInfo} (no ready worker node)`}
  } else if (countedZones.length < 2) {
    auto = {possible: false, reason: 'single-zone', message: `${MESSAGES.insufficientNodeInfo} (counted nodes only in zone ${countedZones[0]?.name ?? '?'}: hints need 2 zones)`}
  } else {
    auto = {possible: true, reason: 'ok', message: `zone CPU shares computed from ${counted} counted node(s) in ${countedZones.length} zones`}
  }
  return {
    apiVersion: NODES_SCHEMA_VERSION,
    kind: 'TopologyNodes',
    nodesReadable: readable,
    auto,
    totals: {nodes: capacity.nodes.length, counted, ignored, cpuMilli},
    zones: summary.zones,
    nodes: summary.nodes,
    disablingNodes: summary.disablingNodes,
    cliffs: readable ? clusterCliffs(state.nodes) : [],
  }
}
