// KEP-536 Service Topology (spec.topologyKeys; alpha 1.17, removed 1.22), kube-proxy's alpha
// FilterTopologyEndpoint (pkg/proxy/topology.go, Kubernetes 1.17-1.21) as a pure function:
// for a client node, walk the keys in order; "*" takes every endpoint; a key the client node
// does not carry is skipped; otherwise the endpoints whose node has the same value for the key
// are used if there is at least one. No key matches: the Service has NO backends for that node
// (connections fail). Any node label works the same (rack, region, custom).
//
// Endpoint topology came from the endpoint's node labels (EndpointSlice.endpoints[].topology);
// for an endpoint whose node is not in the state, its zone field stands for the zone label and
// its nodeName for the hostname label.
import {LABEL_HOSTNAME, LABEL_ZONE} from '../../upstream/api/types.js'
import type {SimEndpoint, SimNode} from './cluster.js'

const MAX_TOPOLOGY_KEYS = 16

/** The API's validation of topologyKeys: <= 16 keys, valid label keys, "*" only last, no duplicates. Returns the problem, or null. */
export function validateTopologyKeys(keys: readonly string[]): string | null {
  if (keys.length === 0) return 'at least one key is needed'
  if (keys.length > MAX_TOPOLOGY_KEYS) return `at most ${MAX_TOPOLOGY_KEYS} keys are allowed, got ${keys.length}`
  const seen = new Set<string>()
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string
    if (seen.has(k)) return `duplicate key "${k}"`
    seen.add(k)
    if (k === '*') {
      if (i !== keys.length - 1) return '"*" must be the last key'
      continue
    }
    if (!/^(([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(k)) {
      return `"${k}" is not a valid label key`
    }
  }
  return null
}

export interface ClientReach {
  node: string
  zone: string
  /** the key that matched ("*" included), null when none did (no backends) */
  matchedKey: string | null
  /** indices into the ready endpoint list */
  endpoints: number[]
}

export interface TopologyKeysResult {
  clients: ClientReach[]
}

function endpointLabel(ep: SimEndpoint, nodes: Map<string, SimNode>, key: string): string | undefined {
  const node = ep.nodeName === null ? undefined : nodes.get(ep.nodeName)
  if (node !== undefined) return Object.hasOwn(node.labels, key) ? node.labels[key] : undefined
  if (key === LABEL_ZONE) return ep.zone ?? undefined
  if (key === LABEL_HOSTNAME) return ep.nodeName ?? undefined
  return undefined
}

/** Per counted client node with a zone: the endpoints kube-proxy there would use. */
export function topologyKeysReach(nodes: readonly SimNode[], ready: readonly SimEndpoint[], keys: readonly string[]): TopologyKeysResult {
  const byName = new Map(nodes.map((n) => [n.name, n]))
  const clients: ClientReach[] = []
  for (const n of nodes) {
    if (!n.counted || n.zone === null) continue
    let matchedKey: string | null = null
    let endpoints: number[] = []
    for (const key of keys) {
      if (key === '*') {
        matchedKey = '*'
        endpoints = ready.map((_, i) => i)
        break
      }
      if (!Object.hasOwn(n.labels, key)) continue
      const value = n.labels[key]
      const hits = ready.flatMap((ep, i) => (endpointLabel(ep, byName, key) === value ? [i] : []))
      if (hits.length > 0) {
        matchedKey = key
        endpoints = hits
        break
      }
    }
    clients.push({node: n.name, zone: n.zone, matchedKey, endpoints})
  }
  return {clients}
}
