// Zone capacity from Nodes: the upstream EndpointSlice controller's TopologyCache.SetNodes
// (k8s.io/endpointslice topologycache/topologycache.go), as a pure function.
//
// Upstream, in node list order:
//  1. skip nodes with a node-role.kubernetes.io/control-plane or .../master label (any value);
//  2. skip nodes that are not Ready (the first condition of type Ready must be "True");
//  3. any other node with no/empty topology.kubernetes.io/zone label or zero allocatable CPU
//     stops the loop: the node info is insufficient and the ratios are nil (cluster-wide);
//  4. otherwise its CPU is added (exactly, as a Quantity) to its zone and to the total.
// Afterwards: total zero, insufficient info or fewer than 2 zones -> cpuByZone and ratios nil;
// else ratio[zone] = float64(zone.MilliValue()) / float64(total.MilliValue()).
//
// Our additions for the UI: every node gets a verdict, including the nodes after the stopping
// point (processed=false), so all offending nodes can be listed at once.
//
// Differences that cannot arise with real API data: allocatable CPU that does not parse is
// treated as 0 (cpuError is set), and negative CPU (rejected by API validation) is treated
// like zero CPU, where upstream would add the negative amount.

import {LABEL_CONTROL_PLANE, LABEL_MASTER, LABEL_ZONE} from '../api/types.js'
import type {Node} from '../api/types.js'
import {nanoToMilli, parseNano, QuantityError} from '../apimachinery/quantity.js'

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

export interface ZoneCapacity {
  sufficientNodeInfo: boolean
  /** milli-CPU per zone (sorted keys); null when the node info is insufficient */
  cpuByZone: Record<string, number> | null
  /** float64 share of the total per zone (sorted keys); null when the node info is insufficient */
  cpuRatiosByZone: Record<string, number> | null
  /** every input node in input order, with its verdict even when upstream stopped earlier */
  nodes: NodeVerdict[]
}

/** Upstream's hasExcludedLabels: control-plane or master role label, with any value. */
export function hasExcludedLabels(labels: Record<string, string> | undefined): boolean {
  if (!labels) return false
  return Object.hasOwn(labels, LABEL_CONTROL_PLANE) || Object.hasOwn(labels, LABEL_MASTER)
}

/** Upstream's isNodeReady: the first condition of type Ready decides; it must be "True". */
export function nodeReady(node: Node): boolean {
  const conditions = node.status?.conditions ?? []
  for (let i = 0; i < conditions.length; i++) {
    if (conditions[i]!.type === 'Ready') return conditions[i]!.status === 'True'
  }
  return false
}

interface Evaluated {
  verdict: NodeVerdict
  nano: bigint
}

interface ParsedCPU {
  nano: bigint
  milli: number
  error?: string
}

function parseCPU(raw: unknown): ParsedCPU {
  try {
    const nano = parseNano(raw as string | undefined)
    return {nano, milli: nanoToMilli(nano)}
  } catch (e) {
    if (!(e instanceof QuantityError)) throw e
    return {nano: 0n, milli: 0, error: e.message}
  }
}

function evaluate(node: Node, parse: (raw: unknown) => ParsedCPU): Evaluated {
  const labels = node.metadata?.labels
  const zone = labels && Object.hasOwn(labels, LABEL_ZONE) ? (labels[LABEL_ZONE] as string) : null
  const raw = node.status?.allocatable && Object.hasOwn(node.status.allocatable, 'cpu') ? node.status.allocatable.cpu : undefined
  const {nano, milli, error: cpuError} = parse(raw)
  let status: NodeStatus
  if (hasExcludedLabels(labels)) status = 'control-plane'
  else if (!nodeReady(node)) status = 'not-ready'
  else if (zone === null || zone === '') status = 'no-zone-label'
  // Negative CPU (impossible with API data) is treated like zero CPU.
  else if (nano <= 0n) status = 'no-cpu'
  else status = 'counted'
  const verdict: NodeVerdict = {
    name: node.metadata?.name ?? '',
    zone,
    milliCPU: milli,
    status,
    disablesHints: status === 'no-zone-label' || status === 'no-cpu',
    processed: true,
  }
  if (cpuError !== undefined) verdict.cpuError = cpuError
  return {verdict, nano}
}

export function setNodes(nodes: Node[]): ZoneCapacity {
  const nanoByZone = new Map<string, bigint>()
  let totalNano = 0n
  let sufficientNodeInfo = true
  let stopped = false
  const verdicts: NodeVerdict[] = []
  // Nodes of a cluster have a handful of distinct allocatable CPU values: parse each once.
  const parsed = new Map<unknown, ParsedCPU>()
  const parse = (raw: unknown) => {
    let p = parsed.get(raw)
    if (p === undefined) parsed.set(raw, (p = parseCPU(raw)))
    return p
  }

  for (let i = 0; i < nodes.length; i++) {
    const {verdict, nano} = evaluate(nodes[i]!, parse)
    verdicts.push(verdict)
    if (stopped) {
      verdict.processed = false
      continue
    }
    if (verdict.status === 'control-plane' || verdict.status === 'not-ready') continue
    if (verdict.disablesHints) {
      nanoByZone.clear()
      sufficientNodeInfo = false
      stopped = true
      continue
    }
    const zone = verdict.zone as string
    totalNano += nano
    nanoByZone.set(zone, (nanoByZone.get(zone) ?? 0n) + nano)
  }

  if (totalNano === 0n || !sufficientNodeInfo || nanoByZone.size < 2) {
    return {sufficientNodeInfo: false, cpuByZone: null, cpuRatiosByZone: null, nodes: verdicts}
  }

  const totalMilli = nanoToMilli(totalNano)
  const zones = [...nanoByZone.keys()].sort()
  const cpuByZone = Object.fromEntries(zones.map((z) => [z, nanoToMilli(nanoByZone.get(z) as bigint)]))
  // float64(zoneMilli) / float64(totalMilli): Number() of the integers, then one division.
  const cpuRatiosByZone = Object.fromEntries(zones.map((z) => [z, (cpuByZone[z] as number) / totalMilli]))
  return {sufficientNodeInfo: true, cpuByZone, cpuRatiosByZone, nodes: verdicts}
}
