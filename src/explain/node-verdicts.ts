// Our per-node verdicts on the controller's zone capacity, for `nodes`, `explain` and `watch`:
// which branch of the EndpointSlice controller's SetNodes loop each node takes, including the
// nodes after the point where upstream stops (processed=false), so all offending nodes can be
// listed at once. Not an upstream port: the rules are k8s.io/endpointslice
// topologycache/topologycache.go `TopologyCache.SetNodes` and `hasExcludedLabels`, and
// topologycache/utils.go `isNodeReady`, all in upstream/endpointslice/topologycache/.

import type {Node} from '../upstream/api/types.js'
import {allocatableCPUCache, hasExcludedLabels, nodeZone, setNodes, type NodeInfo} from '../upstream/endpointslice/topologycache/topologycache.js'
import {isNodeReady} from '../upstream/endpointslice/topologycache/utils.js'

export type NodeStatus = 'counted' | 'control-plane' | 'not-ready' | 'no-zone-label' | 'no-cpu'

export interface NodeVerdict {
  name: string
  /** the topology.kubernetes.io/zone label; null when the label is absent */
  zone: string | null
  milliCPU: number
  /**
   * 'counted' means the node qualifies; its CPU is only in cpuByZone when processed is true
   * and the node info as a whole is sufficient.
   */
  status: NodeStatus
  /** a ready worker with no zone label or zero CPU: disables hints cluster-wide */
  disablesHints: boolean
  /** false for nodes upstream never looked at because it stopped at an earlier bad node */
  processed: boolean
  /** set when allocatable cpu could not be parsed (treated as 0, like upstream's zero value) */
  cpuError?: string
}

/** SetNodes' result (upstream's cpuByZone and ratios) with a verdict for every node. */
export interface ZoneCapacity extends NodeInfo {
  /** every input node in input order, with its verdict even when upstream stopped earlier */
  nodes: NodeVerdict[]
}

/**
 * Each node's verdict, in input order: the SetNodes branch it takes (excluded label, not ready,
 * no zone or no CPU, counted), and whether SetNodes reached it before stopping at the first
 * ready worker without zone or CPU.
 */
function nodeVerdicts(nodes: Node[]): NodeVerdict[] {
  const cpuOf = allocatableCPUCache()
  const verdicts: NodeVerdict[] = []
  let stopped = false
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!
    const zone = nodeZone(node)
    const {nano, milli, error: cpuError} = cpuOf(node)
    let status: NodeStatus
    if (hasExcludedLabels(node.metadata?.labels)) status = 'control-plane'
    else if (!isNodeReady(node)) status = 'not-ready'
    else if (zone === null || zone === '') status = 'no-zone-label'
    // Negative CPU (impossible with API data) is treated like zero CPU.
    else if (nano <= 0n) status = 'no-cpu'
    else status = 'counted'
    const disablesHints = status === 'no-zone-label' || status === 'no-cpu'
    const verdict: NodeVerdict = {name: node.metadata?.name ?? '', zone, milliCPU: milli, status, disablesHints, processed: !stopped}
    if (cpuError !== undefined) verdict.cpuError = cpuError
    verdicts.push(verdict)
    if (disablesHints) stopped = true
  }
  return verdicts
}

/** upstream `setNodes` and `nodeVerdicts` of the same nodes. */
export function zoneCapacity(nodes: Node[]): ZoneCapacity {
  return {...setNodes(nodes), nodes: nodeVerdicts(nodes)}
}
