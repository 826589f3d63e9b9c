// Port of kubernetes/kubernetes pkg/proxy/endpoint.go (Kubernetes v1.36.3): `BaseEndpointInfo`,
// the endpoint kube-proxy keeps per service port, reduced to the fields topology reads.
//
// Upstream's `Endpoint` interface answers IsReady / IsServing / IsTerminating / ZoneHints /
// NodeHints / IsLocal; we keep the same facts as plain fields. IsLocal is not stored: upstream
// computes it when the endpoint is built (endpointslicecache.go `isLocal`, nodeName equal to the
// proxy's node); we compute it in topology.ts `categorizeEndpoints` from `nodeName`, so one list
// serves every node. `nodeName`, `zone` and `sliceName` are ours, for the report.

/** pkg/proxy/endpoint.go `BaseEndpointInfo`, as built by endpointslicecache.go `addEndpoints`. */
export interface ProxyEndpoint {
  /** `addresses[0]`, verbatim (upstream re-prints it through ParseIPSloppy; we do not normalise). */
  ip: string
  /** `conditions.ready` unset or true. */
  ready: boolean
  /** `conditions.serving` unset or true. */
  serving: boolean
  /** `conditions.terminating` set and true. */
  terminating: boolean
  nodeName: string | null
  zone: string | null
  /** Names in `hints.forZones`; null when there are none. */
  zoneHints: ReadonlySet<string> | null
  /** Names in `hints.forNodes`; null when there are none or the PreferSame gate is off. */
  nodeHints: ReadonlySet<string> | null
  /** The slice this copy of the endpoint came from (after merging, the winning copy's slice). */
  sliceName: string
}
