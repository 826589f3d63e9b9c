// serve's /metrics body: the samples of serve/ written by prom-client, in the Prometheus text
// format (0.0.4) or OpenMetrics 1.0, whichever the scraper asks for. prom-client does the
// exposition (names, HELP/TYPE lines, label escaping, value formatting, counter `_total` rules,
// `# EOF`); label values from the cluster are made printable first (escape.ts), as everywhere else.
//
// At scale (2,000 Services give ~58,000 samples) writing every sample again for each scrape or
// change cost most of serve's time (docs/design.md "serve at scale"), so the samples come in
// groups that change together (a Service): prom-client writes a group's sample lines once, and
// they are reused, family by family, until the caller gives a new group in its place (the
// cache is keyed by the group's array: a recomputed Service is a new array, a deleted one is
// gone with its array). Rows outside groups (the cluster's, the source's) are written on every
// call.
import {Counter, Gauge, Registry} from 'prom-client'
import {FAMILIES, type FamilyName} from '../serve/catalogue.js'
import type {Row} from '../serve/model.js'
import {escapeTerminal} from './escape.js'

export type Format = 'openmetrics' | 'text'

type ContentType = typeof Registry.PROMETHEUS_CONTENT_TYPE | typeof Registry.OPENMETRICS_CONTENT_TYPE
type Metric = Gauge<string> | Counter<string>

/** The samples of one source (a cluster), in the order they are written within each family. */
export interface Section {
  /** Labels every sample of the section carries first (cluster="<context>" when several contexts are served). */
  labels: Readonly<Record<string, string>>
  /** Rows that change together (a Service's), each group written once while the same array is given again. */
  groups: readonly (readonly Row[])[]
  /** Rows written on every call (the cluster's and the source's: a few dozen). */
  rows: readonly Row[]
}

/** A group's sample lines ("line\n" each) by family index (undefined: no sample of that family), for one section's labels. */
interface Lines {
  /** The section's labels (JSON) the lines were written with. */
  labels: string
  byFamily: (Buffer | undefined)[]
}

/** Groups written per fill of prom-client's metrics. */
const BATCH = 250
const NEWLINE = Buffer.from('\n')
const EOF = Buffer.from('# EOF\n')

const INDEX = new Map<FamilyName, number>(FAMILIES.map((f, i) => [f.name, i]))

interface Writer {
  registry: Registry<ContentType>
  metrics: Map<FamilyName, Metric>
  /** The name each family's metric is registered under (OpenMetrics counters without _total). */
  names: Map<FamilyName, string>
  /** "# HELP ...\n# TYPE ...\n" of each family, by index. */
  headers: Buffer[]
}

/** One registry per format: prom-client names counters differently in OpenMetrics, so the two never share a metric object. */
export class MetricsWriter {
  private readonly writers: Record<Format, Writer>
  private readonly cache = new WeakMap<readonly Row[], Lines>()
  /** The group lines are the same in both formats (every per-group family is a gauge; checked in write). */
  private readonly gaugeOnly = new Set<FamilyName>(FAMILIES.filter((f) => f.type === 'gauge').map((f) => f.name))

  /** extraLabels: label names every sample carries besides its family's (`cluster` when several contexts are served). */
  constructor(extraLabels: readonly string[] = []) {
    const make = (contentType: ContentType): Writer => {
      const registry = new Registry<ContentType>()
      registry.setContentType(contentType)
      const metrics = new Map<FamilyName, Metric>()
      const names = new Map<FamilyName, string>()
      const om = contentType === Registry.OPENMETRICS_CONTENT_TYPE
      for (const f of FAMILIES) {
        const labelNames = [...extraLabels, ...f.labels]
        // In OpenMetrics a counter's family name has no _total (its samples have): prom-client's
        // registry.metrics() renames the metric so, getSingleMetricAsString does not.
        const name = om && f.type === 'counter' ? f.name.replace(/_total$/, '') : f.name
        const config = {name, help: f.help, labelNames, registers: [registry]}
        metrics.set(f.name, f.type === 'counter' ? new Counter(config) : new Gauge(config))
        names.set(f.name, name)
      }
      return {registry, metrics, names, headers: []}
    }
    this.writers = {text: make(Registry.PROMETHEUS_CONTENT_TYPE), openmetrics: make(Registry.OPENMETRICS_CONTENT_TYPE)}
  }

  /**
   * Whether this group's lines are written for these section labels (the model can then let go
   * of its rows: a written group is never read again while the same array is given).
   */
  written(group: readonly Row[], labels: Readonly<Record<string, string>>): boolean {
    return this.cache.get(group)?.labels === JSON.stringify(labels)
  }

  contentType(format: Format): string {
    return this.writers[format].registry.contentType
  }

  /**
   * The exposition of these sections: every family (those without samples with HELP and TYPE
   * only), and within a family each section's groups then its rows. The same text as
   * prom-client's registry.metrics() with every sample set in that order.
   */
  async write(sections: readonly Section[], format: Format): Promise<Buffer> {
    return Buffer.concat(await this.parts(sections, format))
  }

  /**
   * The same exposition as write, as the parts that make it up, in order (cached lines shared,
   * not copied): a gzip-only scraper's body is compressed from them and never joined (the
   * 7 MB copy of 2,000 Services).
   */
  async parts(sections: readonly Section[], format: Format): Promise<Buffer[]> {
    const w = this.writers[format]
    if (w.headers.length === 0) await this.fillHeaders(w)
    const parts: Buffer[][] = FAMILIES.map(() => [])
    for (const section of sections) {
      const key = JSON.stringify(section.labels)
      const groups = section.groups
      const missing = groups.filter((g) => this.cache.get(g)?.labels !== key)
      // In batches: one batch's garbage (prom-client's samples, the texts) dies young, so the
      // first write of 2,000 Services does not grow the heap (RSS) as one fill of all would.
      // Each batch is checked again when its turn comes: a write in flight for the other
      // format may have written it, and the model may have shed its rows since (the rows of a
      // written group are never read).
      for (let i = 0; i < missing.length; i += BATCH) {
        const batch = missing.slice(i, i + BATCH).filter((g) => this.cache.get(g)?.labels !== key)
        if (batch.length > 0) await this.writeGroups(batch, section.labels, key)
      }
      for (const group of groups) {
        const lines = this.cache.get(group)!.byFamily
        for (let i = 0; i < lines.length; i++) if (lines[i] !== undefined) parts[i]!.push(lines[i]!)
      }
      const rest = await this.lines(w, section.rows, section.labels)
      for (let i = 0; i < rest.length; i++) if (rest[i] !== undefined) parts[i]!.push(Buffer.from(`${rest[i]}\n`))
    }
    // registry.metrics(): the families joined by a blank line (text format) or by nothing
    // (OpenMetrics, then "# EOF"), each its HELP and TYPE lines then its samples. No 7 MB
    // string is built for a body.
    const chunks: Buffer[] = []
    FAMILIES.forEach((_, i) => {
      if (i > 0 && format === 'text') chunks.push(NEWLINE)
      chunks.push(w.headers[i]!)
      for (const b of parts[i]!) chunks.push(b)
    })
    if (format === 'openmetrics') chunks.push(EOF)
    return chunks
  }

  /**
   * Writes the lines of these groups and caches them: prom-client writes all their samples at
   * once (one fill, one text per family: writing each group on its own cost 3x as much on the
   * bench load), and each family's text is cut into the groups' lines by their sample counts
   * (one line per sample: prom-client escapes newlines in label values).
   */
  private async writeGroups(groups: readonly (readonly Row[])[], extra: Readonly<Record<string, string>>, key: string): Promise<void> {
    const counts = groups.map((g) => {
      const c: number[] = []
      for (const [f] of g) {
        if (!this.gaugeOnly.has(f)) throw new Error(`metrics: ${f} is a counter: groups are written once for both formats, counters go in rows`)
        const i = INDEX.get(f)!
        c[i] = (c[i] ?? 0) + 1
      }
      return c
    })
    const texts = await this.lines(this.writers.text, groups.flat(), extra)
    const split = texts.map((t) => (t === undefined ? [] : t.split('\n')))
    const total: number[] = []
    for (const c of counts) for (let i = 0; i < c.length; i++) total[i] = (total[i] ?? 0) + (c[i] ?? 0)
    if (total.length > split.length || split.some((lines, i) => lines.length !== (total[i] ?? 0))) {
      // Two samples with the same labels (prom-client keeps one): each group on its own.
      for (const g of groups) {
        if (this.cache.get(g)?.labels === key) continue
        this.cache.set(g, {labels: key, byFamily: (await this.lines(this.writers.text, g, extra)).map((t) => (t === undefined ? undefined : Buffer.from(`${t}\n`)))})
      }
      return
    }
    const at: number[] = []
    groups.forEach((g, n) => {
      const byFamily: (Buffer | undefined)[] = []
      const c = counts[n]!
      for (let i = 0; i < c.length; i++) {
        const k = c[i]
        if (!k) continue
        const from = at[i] ?? 0
        byFamily[i] = Buffer.from(`${k === 1 ? split[i]![from] : split[i]!.slice(from, from + k).join('\n')}\n`)
        at[i] = from + k
      }
      this.cache.set(g, {labels: key, byFamily})
    })
  }

  /** Each family's sample lines of these rows, as prom-client writes them (without HELP and TYPE), by family index. */
  private async lines(w: Writer, rows: readonly Row[], extra: Readonly<Record<string, string>>): Promise<(string | undefined)[]> {
    const touched = new Set<FamilyName>()
    for (const [family, sample] of rows) {
      const m = w.metrics.get(family)!
      if (!touched.has(family)) {
        m.reset()
        touched.add(family)
      }
      const labels: Record<string, string> = {}
      for (const [k, v] of Object.entries(extra)) labels[k] = escapeTerminal(v)
      for (const [k, v] of Object.entries(sample.labels)) labels[k] = escapeTerminal(v)
      if (m instanceof Counter) m.inc(labels, sample.value)
      else m.set(labels, sample.value)
    }
    // Every family is read (prom-client takes its values synchronously) before the first
    // await, so two writes in flight never see each other's samples.
    const texts = [...touched].map((f) => [f, w.registry.getSingleMetricAsString(w.names.get(f)!)] as const)
    const out: (string | undefined)[] = []
    for (const [f, text] of texts) out[INDEX.get(f)!] = withoutHeader(await text)
    return out
  }

  private async fillHeaders(w: Writer): Promise<void> {
    const headers: Buffer[] = []
    for (const f of FAMILIES) {
      w.metrics.get(f.name)!.reset()
      const text = await w.registry.getSingleMetricAsString(w.names.get(f.name)!)
      headers.push(Buffer.from(`${text.split('\n', 2).join('\n')}\n`))
    }
    w.headers = headers
  }
}

/** prom-client's text of one family without its "# HELP" and "# TYPE" lines. */
function withoutHeader(text: string): string {
  const help = text.indexOf('\n')
  return text.slice(text.indexOf('\n', help + 1) + 1)
}
