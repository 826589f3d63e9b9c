// Measured traffic (--traffic-from): the PromQL asked of a Prometheus for one Service, and what
// its answer says: the per-zone client mix (which replaces the CPU assumption, exactly as
// --traffic does) and, when the answer names both zones of each flow, the measured share of the
// Service's traffic that crossed zones. Pure: the query text in, the answer's JSON in; the HTTP
// is cluster/prometheus.ts's. docs/traffic.md documents the presets, placeholders and labels.

/** The labels a --traffic-query answer carries: the client's zone, and (for the matrix) the endpoint's. */
const SRC_ZONE_LABEL = 'src_zone'
const DST_ZONE_LABEL = 'dst_zone'

/**
 * Presets for projects that document a zone-to-zone metric: Grafana Beyla and OpenTelemetry eBPF
 * Instrumentation (OBI, which Beyla vendors). Their network flow metric counts bytes per
 * (source, destination) with the zone of each end as attributes src.zone / dst.zone (Prometheus
 * labels src_zone / dst_zone: the dots become underscores), taken from the Node label
 * topology.kubernetes.io/zone of the Pod's node, and the destination Pod's namespace and top
 * owner (k8s.dst.namespace, k8s.dst.owner.name: the Deployment, not the ReplicaSet). The flows
 * are narrowed to those whose destination is a Pod of a workload behind the Service
 * ({workloads}: the Deployments and StatefulSets whose pod template the Service selects) and
 * whose both ends have a zone. So the preset measures bytes sent to the Service's Pods by any
 * path, not requests through the Service; a flow Beyla saw addressed to the ClusterIP (no Pod,
 * no zone on that end) is left out. src.zone and dst.zone are off by default on the flow metric
 * and must be selected (docs/traffic.md). Sources: grafana/beyla v3.33.0 pkg/beyla/config_obi.go
 * (beyla.network.flow.bytes, {bytes}, counter -> beyla_network_flow_bytes_total),
 * docs/sources/network/_index.md and inter-az.md; OBI v0.12.1 as vendored there:
 * pkg/export/attributes/metric.go (obi.network.flow.bytes), names/attrs.go (src.zone, dst.zone,
 * k8s.dst.owner.name, k8s.dst.namespace), pkg/internal/pipe/transform/k8s/kubernetes.go
 * (decorate: TopOwner, the zone from the node label).
 */
export const TRAFFIC_PRESETS = {
  beyla: {
    metric: 'beyla_network_flow_bytes_total',
    query:
      'sum by (src_zone, dst_zone) (rate(beyla_network_flow_bytes_total{k8s_dst_namespace="{namespace}", k8s_dst_owner_name=~"{workloads}", src_zone!="", dst_zone!=""}[{window}]))',
  },
  obi: {
    metric: 'obi_network_flow_bytes_total',
    query:
      'sum by (src_zone, dst_zone) (rate(obi_network_flow_bytes_total{k8s_dst_namespace="{namespace}", k8s_dst_owner_name=~"{workloads}", src_zone!="", dst_zone!=""}[{window}]))',
  },
} as const

export type TrafficPreset = keyof typeof TRAFFIC_PRESETS
export const TRAFFIC_PRESET_NAMES = Object.keys(TRAFFIC_PRESETS) as TrafficPreset[]

/** The placeholders a --traffic-query may hold. */
const TRAFFIC_PLACEHOLDERS = ['namespace', 'service', 'workloads', 'window'] as const
type Placeholder = (typeof TRAFFIC_PLACEHOLDERS)[number]

/** A problem with a query template (unknown placeholder, an unclosed brace), or null. */
export function templateProblem(template: string): string | null {
  if (template.trim() === '') return 'the query is empty'
  for (const m of template.matchAll(/\{([a-z]+)\}/g)) {
    if (!(TRAFFIC_PLACEHOLDERS as readonly string[]).includes(m[1]!)) {
      // PromQL's own braces hold label matchers (name="value"), never a bare lower-case word.
      return `unknown placeholder {${m[1]}}: the placeholders are ${TRAFFIC_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`
    }
  }
  return null
}

/** Whether a template uses a placeholder. */
export const usesPlaceholder = (template: string, p: Placeholder): boolean => template.includes(`{${p}}`)

/** A string for inside a PromQL double-quoted string literal. */
const promString = (s: string) => s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')
/** A name matched literally by a PromQL (RE2) regular expression, for inside a double-quoted string. */
const promRegexLiteral = (s: string) => promString(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))

/** The query for one Service: each placeholder replaced (names quoted for PromQL strings; {workloads} as an alternation). */
export function expandTrafficQuery(template: string, v: {namespace: string; service: string; workloads: readonly string[]; window: string}): string {
  return template.replace(/\{(namespace|service|workloads|window)\}/g, (_m, p: Placeholder) => {
    switch (p) {
      case 'namespace':
        return promString(v.namespace)
      case 'service':
        return promString(v.service)
      case 'workloads':
        return v.workloads.map(promRegexLiteral).join('|')
      case 'window':
        return v.window
    }
  })
}

/** A Prometheus range duration (5m, 1h, 1h30m, 90s): the --traffic-window values accepted. */
export const isPromDuration = (s: string): boolean => /^(?:\d+(?:ms|[smhdwy]))+$/.test(s) && !/^(?:0+(?:ms|[smhdwy]))+$/.test(s)

/** What is wrong with an answer: the query (the user's template, exit 2) or the server's answer (exit 6). */
export interface PromFault {
  error: string
  errorType?: string
  fault: 'query' | 'server'
}

/** One series of an instant query's answer. */
export interface PromSample {
  labels: Record<string, string>
  value: number
}

/**
 * The result of /api/v1/query's JSON: the vector's samples, or what is wrong with the answer
 * (a Prometheus error, or something that is not an instant vector).
 */
export function parsePromAnswer(body: unknown): {samples: PromSample[]} | PromFault {
  const server = (error: string): PromFault => ({error, fault: 'server'})
  if (typeof body !== 'object' || body === null) return server('the answer is not a JSON object')
  const b = body as {status?: unknown; error?: unknown; errorType?: unknown; data?: unknown}
  if (b.status === 'error') {
    const errorType = typeof b.errorType === 'string' ? b.errorType : undefined
    // bad_data: the query itself (a parse error, a bad range); the others (timeout, execution, unavailable, ...) are the server's.
    return {error: typeof b.error === 'string' ? b.error : 'an error without a message', ...(errorType ? {errorType} : {}), fault: errorType === 'bad_data' ? 'query' : 'server'}
  }
  if (b.status !== 'success') return server('the answer has no "status": "success" (not a Prometheus query API answer)')
  const d = b.data as {resultType?: unknown; result?: unknown} | undefined
  if (typeof d !== 'object' || d === null) return server('the answer has no "data"')
  if (d.resultType === 'scalar' || d.resultType === 'string' || d.resultType === 'matrix') {
    return {
      error: `the query gives a ${d.resultType}, not an instant vector: it must give one series per zone (labels ${SRC_ZONE_LABEL}, and ${DST_ZONE_LABEL} for the matrix)`,
      fault: 'query',
    }
  }
  if (d.resultType !== 'vector' || !Array.isArray(d.result)) return server('the answer\'s "data" is not an instant vector')
  const samples: PromSample[] = []
  for (const r of d.result as unknown[]) {
    const s = r as {metric?: unknown; value?: unknown}
    if (typeof s !== 'object' || s === null || typeof s.metric !== 'object' || s.metric === null || !Array.isArray(s.value) || typeof s.value[1] !== 'string') {
      return server('a series of the answer has no "metric" object or no [time, "value"] pair')
    }
    const labels: Record<string, string> = {}
    for (const [k, val] of Object.entries(s.metric as Record<string, unknown>)) if (typeof val === 'string') labels[k] = val
    // Prometheus writes NaN and ±Inf as "NaN", "+Inf", "-Inf"; Number() reads them all.
    samples.push({labels, value: Number(s.value[1])})
  }
  return {samples}
}

/** What a Prometheus answer says about one Service's traffic. */
export interface MeasuredTraffic {
  /** Per client zone, its share of the Service's measured traffic (adds up to 1). */
  mix: Record<string, number>
  /**
   * Share of the measured traffic whose endpoint was in another zone than its client; null when
   * the series carry no dst_zone (a client mix only).
   */
  crossZoneShare: number | null
  /** Zone to zone, the share of the measured traffic (sorted; null: no dst_zone). */
  matrix: {from: string; to: string; share: number}[] | null
  /** Series left out: without a client zone, in a zone the cluster does not have, or not a finite value >= 0 (with their share of the total, when known). */
  ignored: {series: number; share: number}
}

/**
 * The measured traffic from an answer's samples: the client mix over the zones the cluster knows,
 * and the cross-zone share over the flows with both zones known. null: nothing measured (no
 * series, or every value 0 or left out), with the reason.
 */
export function measuredFromSamples(samples: readonly PromSample[], zones: ReadonlySet<string>): MeasuredTraffic | {none: string} {
  if (samples.length === 0) return {none: 'the query gives no series'}
  const bySrc = new Map<string, number>()
  const pairs = new Map<string, number>()
  let withDst = 0
  let ignoredSeries = 0
  let ignoredValue = 0
  let total = 0
  for (const s of samples) {
    const src = s.labels[SRC_ZONE_LABEL] ?? ''
    const dst = s.labels[DST_ZONE_LABEL]
    const v = s.value
    if (!Number.isFinite(v) || v < 0) {
      ignoredSeries++
      continue
    }
    if (src === '' || !zones.has(src) || (dst !== undefined && dst !== '' && !zones.has(dst))) {
      ignoredSeries++
      ignoredValue += v
      continue
    }
    total += v
    bySrc.set(src, (bySrc.get(src) ?? 0) + v)
    if (dst !== undefined && dst !== '') {
      withDst++
      const key = `${src}\u0000${dst}`
      pairs.set(key, (pairs.get(key) ?? 0) + v)
    }
  }
  if (total <= 0) {
    return {none: ignoredSeries > 0 ? `no series names a zone of the cluster in label ${SRC_ZONE_LABEL} with a value above 0 (${ignoredSeries} left out)` : 'every series is 0'}
  }
  const mix = Object.fromEntries([...bySrc.keys()].sort().map((z) => [z, bySrc.get(z)! / total]))
  // The matrix only when every counted series names its endpoint's zone: otherwise part of the
  // traffic has no known destination and a cross-zone share would claim more than was measured.
  const complete = withDst === samples.length - ignoredSeries
  let matrix: MeasuredTraffic['matrix'] = null
  let crossZoneShare: number | null = null
  if (complete) {
    matrix = [...pairs.entries()]
      .map(([k, v]) => {
        const [from, to] = k.split('\u0000') as [string, string]
        return {from, to, share: v / total}
      })
      .sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : 0))
    let cross = 0
    for (const [k, v] of pairs) {
      const [from, to] = k.split('\u0000') as [string, string]
      if (from !== to) cross += v
    }
    crossZoneShare = cross / total
  }
  return {mix, crossZoneShare, matrix, ignored: {series: ignoredSeries, share: ignoredValue / (total + ignoredValue)}}
}
