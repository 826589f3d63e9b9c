// Port of k8s.io/endpointslice topologycache/event.go (k8s.io/endpointslice v0.36.3, from
// Kubernetes v1.36.3): the texts of the events the topology cache records. `EventBuilder`
// is api/types.ts `TopologyEvent`.

/**
 * event.go's message constants (`NoZoneSpecified`, `NoAllocatedHintsForZones`,
 * `TopologyAwareHintsEnabled`, `TopologyAwareHintsDisabled`, `InsufficientNodeInfo`,
 * `NodesReadyInOneZoneOnly`, `InsufficientNumberOfEndpoints`,
 * `MinAllocationExceedsOverloadThreshold`), without the ", addressType: X" suffix.
 */
export const MESSAGES = {
  noZoneSpecified: 'One or more endpoints do not have a zone specified',
  noAllocatedHintsForZones: 'No hints allocated for zones',
  topologyAwareHintsEnabled: 'Topology Aware Hints has been enabled',
  topologyAwareHintsDisabled: 'Topology Aware Hints has been disabled',
  insufficientNodeInfo: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
  nodesReadyInOneZoneOnly: 'Nodes only ready in one zone',
  insufficientNumberOfEndpoints: 'Insufficient number of endpoints',
  minAllocationExceedsOverloadThreshold: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold',
} as const
