// "Threshold cliffs": how far a Service (or the whole cluster) is from a change of the
// controller's verdict. One ready endpoint fewer or more, or one node lost, can make the
// topology-mode Auto allocation refuse (or accept) hints; under trafficDistribution a
// zone whose only ready endpoint goes away falls back to every endpoint. Pure: computed with
// the controller's own arithmetic (setNodes, getAllocations).
import type {ServiceExplanation} from './report-types.js'
import {getAllocations, setNodes} from '../upstream/endpointslice/topologycache/topologycache.js'
import {zoneCapacity} from './node-verdicts.js'
import {LABEL_ZONE, type Node} from '../upstream/api/types.js'

export type CliffKind = 'endpoint-fewer' | 'endpoint-more' | 'node-lost' | 'zone-last-endpoint'
export type CliffEffect = 'hints-refused' | 'hints-set' | 'zone-falls-back' | 'hints-disabled-cluster'

export interface Cliff {
  kind: CliffKind
  effect: CliffEffect
  zone: string | null
  /** node-lost: every node whose loss has this effect (same zone, same CPU, same endpoints). */
  nodes: string[]
  /** Ready endpoints after the step. */
  endpoints: number | null
  message: string
}

interface NodeGroup {
  zone: string
  cpu: string
  endpoints: number
  names: string[]
  rep: Node
}

const cpuOf = (n: Node) => String(n.status?.allocatable?.cpu ?? '')

/** Groups counted nodes that are interchangeable for the arithmetic (zone, allocatable CPU, ready endpoints on them). */
function groupNodes(nodes: readonly Node[], countedNames: Set<string>, readyByNode: Map<string, number>): NodeGroup[] {
  const groups = new Map<string, NodeGroup>()
  for (const n of nodes) {
    const name = n.metadata.name
    if (!countedNames.has(name)) continue
    const zone = n.metadata.labels?.[LABEL_ZONE] ?? ''
    const endpoints = readyByNode.get(name) ?? 0
    const key = JSON.stringify([zone, cpuOf(n), endpoints])
    const g = groups.get(key)
    if (g) g.names.push(name)
    else groups.set(key, {zone, cpu: cpuOf(n), endpoints, names: [name], rep: n})
  }
  return [...groups.values()].sort((a, b) => (a.zone < b.zone ? -1 : a.zone > b.zone ? 1 : a.names[0]! < b.names[0]! ? -1 : 1))
}

const listNodes = (names: string[]) => (names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`)

/** Cliffs of one explained Service, given the cluster's Nodes. */
export function serviceCliffs(s: ServiceExplanation, nodes: readonly Node[]): Cliff[] {
  const cliffs: Cliff[] = []
  if (!s.mode.managedByController) return cliffs
  if (s.mode.path === 'topology-mode-auto') {
    const capacity = zoneCapacity([...nodes])
    const ratios = capacity.cpuRatiosByZone
    const n = s.controller.totalReadyEndpoints
    if (ratios === null) return cliffs
    const now = getAllocations(n, ratios)
    // A ready endpoint without a zone refuses hints whatever the count; the count cliffs still hold.
    for (const [kind, k] of [
      ['endpoint-fewer', n - 1],
      ['endpoint-more', n + 1],
    ] as const) {
      if (k < 0) continue
      const then = getAllocations(k, ratios)
      if (now.ok && !then.ok) {
        cliffs.push({
          kind,
          effect: 'hints-refused',
          zone: null,
          nodes: [],
          endpoints: k,
          message: `${k} ready endpoints (${kind === 'endpoint-fewer' ? 'one fewer' : 'one more'}) and the controller drops the hints: ${then.message}`,
        })
      } else if (!now.ok && then.ok) {
        cliffs.push({
          kind,
          effect: 'hints-set',
          zone: null,
          nodes: [],
          endpoints: k,
          message: `${k} ready endpoints (${kind === 'endpoint-fewer' ? 'one fewer' : 'one more'}) and the controller sets hints again`,
        })
      }
    }
    if (now.ok) {
      const counted = new Set(capacity.nodes.filter((v) => v.status === 'counted').map((v) => v.name))
      const readyByNode = new Map<string, number>()
      for (const e of s.endpoints) if (e.controllerReady && e.nodeName) readyByNode.set(e.nodeName, (readyByNode.get(e.nodeName) ?? 0) + 1)
      for (const g of groupNodes(nodes, counted, readyByNode)) {
        const rest = nodes.filter((x) => x !== g.rep)
        const after = setNodes([...rest]).cpuRatiosByZone
        const k = n - g.endpoints
        const then = getAllocations(k, after)
        if (!then.ok) {
          const its = g.endpoints > 0 ? ` with its ${g.endpoints} ready endpoint(s)` : ''
          cliffs.push({
            kind: 'node-lost',
            effect: 'hints-refused',
            zone: g.zone,
            nodes: [...g.names],
            endpoints: k,
            message: `losing ${g.names.length > 1 ? 'any one of ' : ''}node ${listNodes(g.names)} (${g.zone})${its} and the controller drops the hints: ${then.message}`,
          })
        }
      }
    }
    return cliffs
  }
  if (s.mode.path === 'traffic-distribution' && s.controller.hintsSet) {
    for (const z of s.zones) {
      if (z.nodes.counted + z.nodes.ignored === 0) continue
      if (z.readyEndpoints === 1 && z.kubeProxy.mode !== '' && !z.kubeProxy.fallback) {
        cliffs.push({
          kind: 'zone-last-endpoint',
          effect: 'zone-falls-back',
          zone: z.name,
          nodes: [],
          endpoints: s.controller.totalReadyEndpoints - 1,
          message: `${z.name} has one ready endpoint: if it goes, kube-proxy in ${z.name} falls back to every endpoint (no hint for the zone)`,
        })
      }
    }
  }
  return cliffs
}

/** Nodes whose loss leaves fewer than 2 zones: topology-mode Auto then refuses hints for every Service. */
export function clusterCliffs(nodes: readonly Node[]): Cliff[] {
  const capacity = zoneCapacity([...nodes])
  if (capacity.cpuRatiosByZone === null) return []
  const counted = new Set(capacity.nodes.filter((v) => v.status === 'counted').map((v) => v.name))
  const cliffs: Cliff[] = []
  for (const g of groupNodes(nodes, counted, new Map())) {
    const after = setNodes(nodes.filter((x) => x !== g.rep))
    if (after.cpuRatiosByZone === null) {
      cliffs.push({
        kind: 'node-lost',
        effect: 'hints-disabled-cluster',
        zone: g.zone,
        nodes: [...g.names],
        endpoints: null,
        message: `losing ${g.names.length > 1 ? 'any one of ' : ''}node ${listNodes(g.names)} (${g.zone}) leaves counted nodes in fewer than 2 zones: topology-mode Auto refuses hints for every Service`,
      })
    }
  }
  return cliffs
}
