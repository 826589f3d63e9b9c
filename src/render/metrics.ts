// serve's /metrics body: the samples of serve/ written by prom-client, in the Prometheus text
// format (0.0.4) or OpenMetrics 1.0, whichever the scraper asks for. prom-client does the
// exposition (names, HELP/TYPE lines, label escaping, counter `_total` rules, `# EOF`);
// label values from the cluster are made printable first (escape.ts), as everywhere else.
import {Counter, Gauge, Registry} from 'prom-client'
import {FAMILIES, type FamilyName} from '../serve/catalogue.js'
import type {Row} from '../serve/model.js'
import {escapeTerminal} from './escape.js'

export type Format = 'openmetrics' | 'text'

type ContentType = typeof Registry.PROMETHEUS_CONTENT_TYPE | typeof Registry.OPENMETRICS_CONTENT_TYPE
type Metric = Gauge<string> | Counter<string>

/** One registry per format: prom-client renames counters for OpenMetrics in place, so the two never share a metric object. */
export class MetricsWriter {
  private readonly registries: Record<Format, {registry: Registry<ContentType>; metrics: Map<FamilyName, Metric>}>

  /** extraLabels: label names every sample carries besides its family's (`cluster` when several contexts are served). */
  constructor(extraLabels: readonly string[] = []) {
    const make = (contentType: ContentType) => {
      const registry = new Registry<ContentType>()
      registry.setContentType(contentType)
      const metrics = new Map<FamilyName, Metric>()
      for (const f of FAMILIES) {
        const config = {name: f.name, help: f.help, labelNames: [...extraLabels, ...f.labels], registers: [registry]}
        metrics.set(f.name, f.type === 'counter' ? new Counter(config) : new Gauge(config))
      }
      return {registry, metrics}
    }
    this.registries = {text: make(Registry.PROMETHEUS_CONTENT_TYPE), openmetrics: make(Registry.OPENMETRICS_CONTENT_TYPE)}
  }

  contentType(format: Format): string {
    return this.registries[format].registry.contentType
  }

  /** The exposition of these samples (every family, those without samples with HELP and TYPE only). */
  async write(rows: readonly Row[], format: Format): Promise<string> {
    const {registry, metrics} = this.registries[format]
    for (const m of metrics.values()) m.reset()
    for (const [family, sample] of rows) {
      const m = metrics.get(family)!
      const labels: Record<string, string> = {}
      for (const [k, v] of Object.entries(sample.labels)) labels[k] = escapeTerminal(v)
      if (m instanceof Counter) m.inc(labels, sample.value)
      else m.set(labels, sample.value)
    }
    // Filled and read without an await in between (prom-client reads values synchronously).
    return registry.metrics()
  }
}
