// serve once its options are valid: one feed per context (cluster/serve-feed.ts), one model per
// feed (serve/model.ts) updated on every change, debounced, and the HTTP server
// (cluster/serve-http.ts) writing the samples with prom-client (render/metrics.ts).
import {ExitCode} from '../errors.js'
import type {KubeContext} from '../cluster/kubeconfig.js'
import type {DataPlane, DataPlaneName} from '../dataplane/types.js'
import {startFeed, type Feed} from '../cluster/serve-feed.js'
import {Body, listen} from '../cluster/serve-http.js'
import {ServeModel, type Change, type Row} from '../serve/model.js'
import {sourceRows, trafficSourceRows} from '../serve/source.js'
import type {PrometheusClient} from '../cluster/prometheus.js'
import type {TrafficPoller} from '../cluster/serve-traffic.js'
import {negotiate} from '../serve/http-rules.js'
import {explainOptions, resourceStatusText, statusWorthALine} from '../watch/session.js'
import {MetricsWriter, type Format, type Section} from '../render/metrics.js'
import {escapeTerminal} from '../render/escape.js'
import type {CommandIO} from './base.js'

export interface ServeOptions {
  listen: {host: string; port: number}
  kubeVersion: string | undefined
  dataPlane: DataPlaneName | undefined
  /** Add cluster="<context>" to every sample (several contexts). */
  clusterLabel: boolean
  /** --traffic-from (one context only): the measured traffic, read again every intervalMs. */
  traffic?: {client: PrometheusClient; template: string; window: string; intervalMs: number}
}

/** Changes are gathered this long before the model is updated. */
const DEBOUNCE_MS = 100

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

interface Cluster {
  name: string
  feed: Feed
  model: ServeModel | null
  dataPlane: DataPlane
  pending: Change | null
  timer: NodeJS.Timeout | undefined
  /** --traffic-from: the poller, and how many Services its last successful read measured. */
  traffic?: {poller: TrafficPoller; measured: number}
}

export async function runServe(io: CommandIO, ctxs: KubeContext[], o: ServeOptions): Promise<void> {
  const writer = new MetricsWriter(o.clusterLabel ? ['cluster'] : [])
  let version = 0
  // The body of each format asked for since the content last changed (a new key drops them all:
  // a stale body is never kept). A Body writes the parts, and compresses them, only as scrapers ask.
  let cache: {key: number; bodies: Map<Format, Body>} = {key: -1, bodies: new Map()}
  const clusters: Cluster[] = []
  const statuses = new Map<string, string>()

  const update = (c: Cluster) => {
    c.timer = undefined
    const change = c.pending
    c.pending = null
    if (!c.model || !change) return
    c.model.update(c.feed.index, change)
    version++
  }
  const schedule = (c: Cluster, change: Change) => {
    c.pending = merge(c.pending, change)
    if (!c.model || c.timer) return
    c.timer = setTimeout(() => update(c), DEBOUNCE_MS)
  }

  const stopAll = async () => {
    for (const c of clusters) {
      if (c.timer) clearTimeout(c.timer)
      c.traffic?.poller.stop()
      c.feed.stop()
    }
    await server?.close()
    // Aborted watch streams can keep connections open for a while (see watch-flow.ts).
    setTimeout(() => process.exit(), 1000).unref()
  }

  let server: Awaited<ReturnType<typeof listen>> | undefined
  try {
    for (const ctx of ctxs) {
      const name = ctx.contextName
      const dataPlane = o.dataPlane
        ? (await import('../dataplane/detect.js')).dataPlaneFromFlag(o.dataPlane)
        : await (await import('../cluster/dataplane.js')).detectLiveDataPlane(ctx)
      for (const w of dataPlane.warnings) io.err(`Warning: ${escapeTerminal(prefix(o, name))}${escapeTerminal(w)}`)
      const holder: {c?: Cluster} = {}
      const feed = await startFeed(
        ctx,
        {},
        {
          onChange: (change) => {
            if (holder.c) schedule(holder.c, change)
          },
          onStatus: (resource, s) => {
            const k = `${name}\u0000${resource}`
            const before = statuses.get(k)
            const text = resourceStatusText(s)
            statuses.set(k, text)
            if (statusWorthALine(s, before)) io.err(`${now()}  ${escapeTerminal(prefix(o, name))}${resource}: ${escapeTerminal(text)}`)
          },
          onWarning: (w) => io.err(`Warning: ${escapeTerminal(prefix(o, name))}${escapeTerminal(w)}`),
        },
      )
      const c: Cluster = {name, feed, model: null, dataPlane, pending: null, timer: undefined}
      holder.c = c
      clusters.push(c)
    }
    // Listening once every API server answered (its version), so a wrong context or an
    // unreachable server fails before anything binds; /healthz (and /readyz with 503) answer
    // while the first lists run.
    server = await listen(o.listen.host, o.listen.port, {
      notReady: () => {
        const waiting = clusters.length < ctxs.length ? ctxs.map((c) => c.contextName) : clusters.filter((c) => !c.model).map((c) => c.name)
        return waiting.length === 0 ? null : `not ready: first full list of ${waiting.map((n) => JSON.stringify(escapeTerminal(n))).join(', ')} under way`
      },
      metrics: async (accept) => {
        const format = negotiate(accept)
        // The source's health changes without a model update (a watch restarted, a back-off): part of the key.
        const key = version * 1e6 + healthSignature(clusters)
        if (cache.key !== key) cache = {key, bodies: new Map()}
        let body = cache.bodies.get(format)
        if (!body) {
          // The samples as they are now; written when a scraper first needs them.
          const now = sections(clusters, o.clusterLabel)
          body = new Body(async () => {
            const parts = await writer.parts(now, format)
            // The written Services' rows are not needed again (their lines are): freed.
            for (const c of clusters) c.model?.shed((g) => writer.written(g, sectionLabels(c, o.clusterLabel)))
            return parts
          })
          cache.bodies.set(format, body)
        }
        return {contentType: writer.contentType(format), body}
      },
    })
    io.err(`${now()}  serving http://${server.address}/metrics (and /healthz, /readyz) for ${ctxs.map((c) => escapeTerminal(c.contextName)).join(', ')}`)
    for (const c of clusters) {
      await c.feed.synced
      c.model = new ServeModel(explainOptions(o.kubeVersion, c.feed.serverVersion, undefined, c.dataPlane))
      c.pending = null
      c.model.update(c.feed.index, {all: true})
      version++
      io.err(`${now()}  ${escapeTerminal(prefix(o, c.name))}synced: ${[...c.feed.index.serviceKeys()].length} Services, ${c.feed.index.nodes().length} Nodes`)
    }
    const t = o.traffic
    const first = clusters[0]
    if (t !== undefined && first !== undefined) {
      const {startTrafficPoller} = await import('../cluster/serve-traffic.js')
      const poller = startTrafficPoller(ctxs[0]!, t.client, t, first.feed.index, {
        onMeasured: (measured) => {
          if (first.traffic) first.traffic.measured = measured.size
          first.model?.setMeasured(measured)
          schedule(first, {all: true})
        },
        onProblem: (line) => io.err(`${now()}  ${escapeTerminal(line)}`),
      })
      first.traffic = {poller, measured: 0}
    }
  } catch (e) {
    await stopAll()
    throw e
  }

  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
  await stopAll()
  io.exit(ExitCode.INTERRUPTED)
}

const prefix = (o: ServeOptions, name: string) => (o.clusterLabel ? `${name}: ` : '')

function merge(a: Change | null, b: Change): Change {
  if (a === null) return b
  if (a.all || b.all) return {all: true}
  return {all: false, services: new Set([...a.services, ...b.services])}
}

/** A number that changes when any source health figure does. */
function healthSignature(clusters: readonly Cluster[]): number {
  let h = 0
  for (const c of clusters) {
    for (const r of c.feed.health()) h = (h * 31 + (r.up ? 1 : 2) + r.watchRestarts * 7 + r.relists * 13 + r.errors * 17 + (r.lastSyncSeconds ?? 0)) % 999_983
    if (c.traffic) {
      const t = c.traffic.poller.health()
      h = (h * 31 + (t.up ? 1 : 2) + t.errors * 19 + (t.lastSuccessSeconds ?? 0) + c.traffic.measured * 23) % 999_983
    }
  }
  return h
}

function sections(clusters: readonly Cluster[], clusterLabel: boolean): Section[] {
  return clusters.map((c) => {
    const rows: Row[] = [
      ...(c.model?.clusterRows() ?? []),
      ...sourceRows(c.feed.health()),
      ['kubectl_topology_data_plane_info', {labels: {data_plane: c.dataPlane.name}, value: 1}],
    ]
    if (c.traffic) rows.push(...trafficSourceRows(c.traffic.poller.health(), c.traffic.measured))
    return {labels: sectionLabels(c, clusterLabel), groups: c.model?.groups() ?? [], rows}
  })
}

const sectionLabels = (c: Cluster, clusterLabel: boolean): Record<string, string> => (clusterLabel ? {cluster: c.name} : {})
