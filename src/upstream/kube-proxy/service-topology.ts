// Port of kubernetes/kubernetes pkg/proxy/topology.go as it was in Kubernetes v1.18-v1.21
// (Service Topology, KEP-536, alpha behind the ServiceTopology gate; removed in v1.22, when
// topology.go became the hints code of kube-proxy/topology.ts): `FilterTopologyEndpoint`.
// And of pkg/controller/endpointslice/utils.go (v1.17-v1.20) `podToEndpoint`'s topology map,
// the only place an endpoint's topology came from (`endpointTopology`).
//
// Upstream keeps the endpoint's topology on `BaseEndpointInfo.Topology` (GetTopology); we take
// it as a plain map per endpoint, and return indices into the input list, in input order
// (upstream returns the endpoints themselves, in input order).

import {LABEL_HOSTNAME, LABEL_ZONE} from '../api/types.js'

/** core/v1 `TopologyKeyAny`: the catch-all key. */
export const TOPOLOGY_KEY_ANY = '*'
/** core/v1 `LabelTopologyRegion`. */
const LABEL_REGION = 'topology.kubernetes.io/region'

/**
 * The keys an endpoint's topology could carry: pkg/controller/endpointslice/utils.go `podToEndpoint`
 * set `kubernetes.io/hostname` (the pod's spec.nodeName) and copied only
 * `topology.kubernetes.io/zone` and `topology.kubernetes.io/region` from the node's labels ("This
 * is currently limited to hostname, zone, and region"); the Service Topology docs list the same
 * three as the valid keys. Any other key matches no endpoint.
 */
export const ENDPOINT_TOPOLOGY_KEYS: readonly string[] = [LABEL_HOSTNAME, LABEL_ZONE, LABEL_REGION]

/**
 * pkg/controller/endpointslice/utils.go `podToEndpoint` (v1.17-v1.20), the topology map: the
 * hostname from the pod's node name, zone and region from the node's labels when not empty.
 * `nodeLabels` is null when the node is unknown (upstream: node nil).
 */
export function endpointTopology(nodeName: string | null, nodeLabels: Readonly<Record<string, string>> | null): Record<string, string> {
  const topology: Record<string, string> = {}
  if (nodeName !== null && nodeName !== '') topology[LABEL_HOSTNAME] = nodeName
  if (nodeLabels !== null) {
    for (const label of [LABEL_ZONE, LABEL_REGION]) {
      const v = Object.hasOwn(nodeLabels, label) ? nodeLabels[label] : undefined
      if (v !== undefined && v !== '') topology[label] = v
    }
  }
  return topology
}

/**
 * pkg/proxy/topology.go `FilterTopologyEndpoint` (v1.18-v1.21): the endpoints kube-proxy on a
 * node with `nodeLabels` uses for a Service with `topologyKeys`. No keys: every endpoint. A node
 * without labels: every endpoint when the last key is "*", else none. Otherwise the keys in
 * order: "*" takes every endpoint; a key the node lacks is skipped; else the endpoints whose
 * topology has the node's value for the key, if any. No key matches: none (connections fail).
 * Returns indices into `topologies` (one topology map per endpoint).
 */
export function filterTopologyEndpoint(
  nodeLabels: Readonly<Record<string, string>>,
  topologyKeys: readonly string[],
  topologies: readonly Readonly<Record<string, string>>[],
): number[] {
  const all = () => topologies.map((_, i) => i)
  if (topologyKeys.length === 0) return all()
  if (Object.keys(nodeLabels).length === 0) {
    return topologyKeys[topologyKeys.length - 1] === TOPOLOGY_KEY_ANY ? all() : []
  }
  for (const key of topologyKeys) {
    if (key === TOPOLOGY_KEY_ANY) return all()
    if (!Object.hasOwn(nodeLabels, key)) continue
    const value = nodeLabels[key]
    const filtered: number[] = []
    topologies.forEach((t, i) => {
      if (Object.hasOwn(t, key) && t[key] === value) filtered.push(i)
    })
    if (filtered.length > 0) return filtered
  }
  return []
}
