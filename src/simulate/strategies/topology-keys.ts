// KEP-536 Service Topology (spec.topologyKeys; alpha 1.17, removed 1.22) per client node, with
// kube-proxy's own filter (upstream/kube-proxy/service-topology.ts `filterTopologyEndpoint`, a port
// of pkg/proxy/topology.go v1.18-v1.21 `FilterTopologyEndpoint`): for a client node, walk the keys
// in order; "*" takes every endpoint; a key the client node does not carry is skipped; otherwise
// the endpoints whose topology has the node's value for the key are used if there is at least
// one. No key matches: the Service has NO backends for that node (connections fail).
//
// The client side is the node's full label set (kube-proxy read its own Node). The endpoint side
// is what the EndpointSlice controller wrote into endpoint topology (`endpointTopology`, upstream's
// podToEndpoint): the hostname, zone and region only; any other key (a rack label) matched no
// endpoint, which `keysNeverMatching` states. Ours: for an endpoint whose node is not in the state,
// its zone field stands for the zone label (the controller set both from the same node label).
import {LABEL_ZONE} from '../../upstream/api/types.js'
import {ENDPOINT_TOPOLOGY_KEYS, endpointTopology, filterTopologyEndpoint, TOPOLOGY_KEY_ANY} from '../../upstream/kube-proxy/service-topology.js'
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
  /** keys (other than "*") no endpoint topology can carry: they never match (upstream's podToEndpoint) */
  keysNeverMatching: string[]
}

function topologyOf(ep: SimEndpoint, nodes: Map<string, SimNode>): Record<string, string> {
  const node = ep.nodeName === null ? undefined : nodes.get(ep.nodeName)
  const t = endpointTopology(ep.nodeName, node?.labels ?? null)
  if (node === undefined && ep.zone !== null && ep.zone !== '') t[LABEL_ZONE] = ep.zone
  return t
}

/** The key of `keys` that gave a node its endpoints: FilterTopologyEndpoint's walk, reporting where it stopped. */
function matchedKeyOf(labels: Readonly<Record<string, string>>, keys: readonly string[], topologies: readonly Record<string, string>[]): string | null {
  if (Object.keys(labels).length === 0) return keys[keys.length - 1] === TOPOLOGY_KEY_ANY ? TOPOLOGY_KEY_ANY : null
  for (const key of keys) {
    if (key === TOPOLOGY_KEY_ANY) return key
    if (Object.hasOwn(labels, key) && topologies.some((t) => Object.hasOwn(t, key) && t[key] === labels[key])) return key
  }
  return null
}

/** Per counted client node with a zone: the endpoints kube-proxy there would use. */
export function topologyKeysReach(nodes: readonly SimNode[], ready: readonly SimEndpoint[], keys: readonly string[]): TopologyKeysResult {
  const byName = new Map(nodes.map((n) => [n.name, n]))
  const topologies = ready.map((ep) => topologyOf(ep, byName))
  const clients: ClientReach[] = []
  for (const n of nodes) {
    if (!n.counted || n.zone === null) continue
    const endpoints = filterTopologyEndpoint(n.labels, keys, topologies)
    const matchedKey = matchedKeyOf(n.labels, keys, topologies)
    clients.push({node: n.name, zone: n.zone, matchedKey, endpoints})
  }
  return {clients, keysNeverMatching: keys.filter((k) => k !== TOPOLOGY_KEY_ANY && !ENDPOINT_TOPOLOGY_KEYS.includes(k))}
}
