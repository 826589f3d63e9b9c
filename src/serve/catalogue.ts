// The metrics `kubectl topology serve` exports: one list, the single source of their names,
// types, label names and help texts. cluster/serve-registry.ts makes prom-client metrics of
// it; docs/metrics.md lists the same (test/unit/serve.test.ts checks that they agree).
//
// Prometheus conventions (https://prometheus.io/docs/practices/naming/): one prefix, the unit
// as the suffix (_ratio, _seconds, _timestamp_seconds), _total only on counters, 0/1 gauges for
// booleans, an `_info` gauge (value 1) for a state named by a label. Labels are bounded:
// namespace, service, address_type, zone, mode, reason, data_plane, resource (and cluster when
// several contexts are served); never a Pod, an endpoint or a node name.

export type MetricType = 'gauge' | 'counter'

export interface MetricFamily {
  name: string
  type: MetricType
  help: string
  /** Label names, without `cluster` (added to every family when several contexts are served). */
  labels: readonly string[]
  /** Produced only with this flag (serve --traffic-from); every other family is always produced. */
  only?: '--traffic-from'
}

const SVC = ['namespace', 'service', 'address_type'] as const
const ZONE = [...SVC, 'zone'] as const

/** Every family, in the order /metrics lists them. */
export const FAMILIES = [
  // ---- per Service (and address type) --------------------------------------------------
  {
    name: 'kubectl_topology_service_info',
    type: 'gauge',
    help: 'Always 1: the topology mode of the Service as the EndpointSlice controller reads it (mode: topology-mode-auto, traffic-distribution, none; not-managed when the controller does not manage its slices).',
    labels: [...SVC, 'mode'],
  },
  {
    name: 'kubectl_topology_service_hints_requested',
    type: 'gauge',
    help: '1 when the Service asks for hints (topology-mode annotation or a usable trafficDistribution) and the controller manages its slices, else 0.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_hints_live',
    type: 'gauge',
    help: '1 when the live EndpointSlices of the Service carry zone hints on any ready endpoint, else 0.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_hints_predicted',
    type: 'gauge',
    help: '1 when the EndpointSlice controller writes hints at its next sync (the engine of explain), else 0.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_controller_reason_info',
    type: 'gauge',
    help: "Always 1: the controller's reason at its next sync (upstream's event.go constant, e.g. InsufficientNumberOfEndpoints, or TopologyAwareHintsEnabled, TrafficDistribution, TopologyNotRequested, NotManagedByController, NodesUnreadable).",
    labels: [...SVC, 'reason'],
  },
  {
    name: 'kubectl_topology_service_ready_endpoints',
    type: 'gauge',
    help: 'Ready endpoints of the Service the controller counts (all zones).',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_accepted_endpoints_distance',
    type: 'gauge',
    help: 'topology-mode Auto only: ready endpoints to add (positive) or remove (negative) to reach the nearest count the controller accepts with the current zone CPU shares; 0 when the current count is accepted. Absent when no count is accepted or the mode is not Auto.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_live_in_zone_traffic_ratio',
    type: 'gauge',
    help: 'Expected share of requests served in the zone they come from, with the live hints (traffic assumed proportional to zone CPU, as upstream does; with --traffic-from, the measured client mix). Absent when it cannot be computed.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_predicted_in_zone_traffic_ratio',
    type: 'gauge',
    help: 'Expected share of requests served in the zone they come from, once the controller has written the hints it writes at its next sync.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_live_max_endpoint_overload_ratio',
    type: 'gauge',
    help: 'Largest expected per-endpoint overload with the live hints: load x ready endpoints - 1 (0.2 = 20% more than an even share).',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_predicted_max_endpoint_overload_ratio',
    type: 'gauge',
    help: 'Largest expected per-endpoint overload once the predicted hints are written.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_drift_endpoints',
    type: 'gauge',
    help: 'Ready endpoints whose live hints are none the controller can write at its next sync (drift between live and predicted hints).',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_drift_zone_counts',
    type: 'gauge',
    help: '1 when the live per-zone counts of zone hints are none the controller can produce (topology-mode Auto), else 0.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_data_plane_honours_hints',
    type: 'gauge',
    help: '0 when the data plane ignores the hints of this Service for pod traffic, 1 otherwise (including "unknown" data planes: see docs/dataplane.md).',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_recommended_mode_info',
    type: 'gauge',
    help: "Always 1: the advisor's recommended setting for the Service (mode: Auto, PreferClose, PreferSameZone, PreferSameNode, none), the one explain prints under What to do.",
    labels: [...SVC, 'mode'],
  },
  {
    name: 'kubectl_topology_service_recommendation_meets_bound',
    type: 'gauge',
    help: "1 when the advisor's recommended setting keeps the worst expected overload within its bound (20%), else 0.",
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_change_recommended',
    type: 'gauge',
    help: '1 when the advisor recommends a change (explain lists steps), 0 when it recommends keeping what is there.',
    labels: SVC,
  },
  {
    name: 'kubectl_topology_service_measured_cross_zone_traffic_ratio',
    type: 'gauge',
    help: "With --traffic-from: the measured share of the Service's traffic whose endpoint was in another zone than its client (the query's dst_zone against src_zone). Compare with 1 - kubectl_topology_service_live_in_zone_traffic_ratio, the share predicted under the same measured client mix. Absent when not measured or the answer has no dst_zone.",
    labels: SVC,
    only: '--traffic-from',
  },
  // ---- per Service and zone --------------------------------------------------------------
  {
    name: 'kubectl_topology_zone_ready_endpoints',
    type: 'gauge',
    help: 'Ready endpoints of the Service in the zone.',
    labels: ZONE,
  },
  {
    name: 'kubectl_topology_zone_live_hinted_endpoints',
    type: 'gauge',
    help: 'Ready endpoints of the Service whose live hints name the zone.',
    labels: ZONE,
  },
  {
    name: 'kubectl_topology_zone_expected_overload_ratio',
    type: 'gauge',
    help: "The zone's expected per-endpoint overload with the predicted hints: desired / assigned - 1 (upstream's overload bound is 0.2). Absent when no hints are predicted.",
    labels: ZONE,
  },
  {
    name: 'kubectl_topology_zone_fallback',
    type: 'gauge',
    help: '1 when hints exist on the Service but nodes of the zone ignore them (kube-proxy or the data plane falls back to every endpoint), else 0.',
    labels: ZONE,
  },
  {
    name: 'kubectl_topology_zone_measured_client_traffic_ratio',
    type: 'gauge',
    help: "With --traffic-from: the share of the Service's measured traffic that came from clients in the zone (the client mix that replaces the zone CPU shares in every figure of the Service).",
    labels: ZONE,
    only: '--traffic-from',
  },
  // ---- per cluster -----------------------------------------------------------------------
  {
    name: 'kubectl_topology_counted_nodes',
    type: 'gauge',
    help: 'Nodes of the zone the EndpointSlice controller counts (ready, zone label, allocatable CPU, not control-plane).',
    labels: ['zone'],
  },
  {
    name: 'kubectl_topology_ignored_nodes',
    type: 'gauge',
    help: 'Nodes of the zone the controller does not count (not ready, or control-plane).',
    labels: ['zone'],
  },
  {
    name: 'kubectl_topology_zone_cpu_ratio',
    type: 'gauge',
    help: "The zone's share of the allocatable CPU of counted nodes (the controller's allocation weights). Absent when the controller computes none.",
    labels: ['zone'],
  },
  {
    name: 'kubectl_topology_zones',
    type: 'gauge',
    help: 'Zones with at least one counted node.',
    labels: [],
  },
  {
    name: 'kubectl_topology_hints_disabling_nodes',
    type: 'gauge',
    help: 'Ready worker nodes without a zone label or allocatable CPU: each one makes the controller refuse topology-mode Auto hints for every Service.',
    labels: [],
  },
  {
    name: 'kubectl_topology_services',
    type: 'gauge',
    help: 'Services explained (each address type once).',
    labels: [],
  },
  {
    name: 'kubectl_topology_data_plane_info',
    type: 'gauge',
    help: 'Always 1: the data plane that load-balances Services (detected once at start, or --data-plane).',
    labels: ['data_plane'],
  },
  // ---- the source ------------------------------------------------------------------------
  {
    name: 'kubectl_topology_source_up',
    type: 'gauge',
    help: '1 when every watch of the API server is synced and running; 0 while a resource is re-listing or backing off after an error (the figures are then stale: they are those of the last successful sync).',
    labels: [],
  },
  {
    name: 'kubectl_topology_source_last_sync_timestamp_seconds',
    type: 'gauge',
    help: 'Unix time of the last successful list or watch event of the resource.',
    labels: ['resource'],
  },
  {
    name: 'kubectl_topology_source_watch_restarts_total',
    type: 'counter',
    help: 'Watch requests started again for the resource after the first (server closed the watch, timeout, error).',
    labels: ['resource'],
  },
  {
    name: 'kubectl_topology_source_relists_total',
    type: 'counter',
    help: 'Full lists of the resource after the first (410 Gone: the resourceVersion expired).',
    labels: ['resource'],
  },
  {
    name: 'kubectl_topology_source_errors_total',
    type: 'counter',
    help: 'Failed list or watch requests of the resource (each followed by a back-off).',
    labels: ['resource'],
  },
  // ---- the measured traffic's source (--traffic-from) --------------------------------------
  {
    name: 'kubectl_topology_traffic_source_up',
    type: 'gauge',
    help: 'With --traffic-from: 1 when the last read of the measured traffic from Prometheus succeeded; 0 after a failed one (the measured figures are then those of the last successful read).',
    labels: [],
    only: '--traffic-from',
  },
  {
    name: 'kubectl_topology_traffic_source_last_success_timestamp_seconds',
    type: 'gauge',
    help: 'With --traffic-from: Unix time of the last successful read of the measured traffic.',
    labels: [],
    only: '--traffic-from',
  },
  {
    name: 'kubectl_topology_traffic_source_errors_total',
    type: 'counter',
    help: 'With --traffic-from: failed reads of the measured traffic (Prometheus unreachable, an error answer, a timeout).',
    labels: [],
    only: '--traffic-from',
  },
  {
    name: 'kubectl_topology_traffic_measured_services',
    type: 'gauge',
    help: 'With --traffic-from: Services whose traffic the last successful read measured (the others keep the zone CPU assumption).',
    labels: [],
    only: '--traffic-from',
  },
] as const satisfies readonly MetricFamily[]

export type FamilyName = (typeof FAMILIES)[number]['name']

/** One sample: label values by label name, and the value. */
export interface Sample {
  labels: Record<string, string>
  value: number
}
