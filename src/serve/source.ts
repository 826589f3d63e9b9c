// The source's health as samples: per resource the watch state the caller (cluster/serve-feed.ts)
// counted. Pure: the timestamps come in as numbers.
import type {Row} from './model.js'

export interface ResourceHealth {
  resource: string
  /** Listed once and not re-listing or backing off now. */
  up: boolean
  /** Unix seconds of the last successful list or watch event; null before the first list. */
  lastSyncSeconds: number | null
  /** Watch requests after the first. */
  watchRestarts: number
  /** Lists after the first. */
  relists: number
  /** Failed requests (each followed by a back-off). */
  errors: number
}

export function sourceRows(resources: readonly ResourceHealth[]): Row[] {
  const rows: Row[] = [['kubectl_topology_source_up', {labels: {}, value: resources.length > 0 && resources.every((r) => r.up) ? 1 : 0}]]
  for (const r of resources) {
    const labels = {resource: r.resource}
    if (r.lastSyncSeconds !== null) rows.push(['kubectl_topology_source_last_sync_timestamp_seconds', {labels, value: r.lastSyncSeconds}])
    rows.push(['kubectl_topology_source_watch_restarts_total', {labels, value: r.watchRestarts}])
    rows.push(['kubectl_topology_source_relists_total', {labels, value: r.relists}])
    rows.push(['kubectl_topology_source_errors_total', {labels, value: r.errors}])
  }
  return rows
}

/** serve --traffic-from: how the last reads of the measured traffic went (cluster/serve-traffic.ts). */
export interface TrafficSourceHealth {
  /** The last read succeeded. */
  up: boolean
  /** Unix seconds of the last successful read; null before the first. */
  lastSuccessSeconds: number | null
  /** Failed reads. */
  errors: number
}

/** The measured traffic source's samples, with how many Services the last successful read measured. */
export function trafficSourceRows(h: TrafficSourceHealth, measuredServices: number): Row[] {
  const rows: Row[] = [
    ['kubectl_topology_traffic_source_up', {labels: {}, value: h.up ? 1 : 0}],
    ['kubectl_topology_traffic_source_errors_total', {labels: {}, value: h.errors}],
    ['kubectl_topology_traffic_measured_services', {labels: {}, value: measuredServices}],
  ]
  if (h.lastSuccessSeconds !== null) rows.push(['kubectl_topology_traffic_source_last_success_timestamp_seconds', {labels: {}, value: h.lastSuccessSeconds}])
  return rows
}
