// A real Prometheus for the e2e tests (Debian's package, installed by scripts/prometheus.mjs when
// missing): started on 127.0.0.1 with a 1 s scrape and evaluation interval, scraping the given
// targets and loading the given rule files, queried through its HTTP API. Stopped by pid.
import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {stringify} from 'yaml'
// @ts-expect-error: a test script in plain JavaScript, without types.
import {ensurePrometheus} from '../../scripts/prometheus.mjs'

export interface Prometheus {
  url: string
  /** An instant query; the result vector (empty when nothing matches). */
  query(q: string): Promise<{metric: Record<string, string>; value: [number, string]}[]>
  /** /api/v1/label/NAME/values restricted to the series a selector matches (Grafana's label_values()). */
  labelValues(label: string, match: string): Promise<string[]>
  /** /api/v1/alerts. */
  alerts(): Promise<{labels: Record<string, string>; state: string}[]>
  log(): string
  stop(): Promise<void>
}

/** A free loopback port (asked of the OS, then released: Prometheus cannot report the port it picked). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const a = s.address()
      const port = typeof a === 'object' && a ? a.port : 0
      s.close(() => resolve(port))
    })
  })
}

/** A scrape job: its targets, each group with its own target labels (e.g. {cluster: 'east'}). */
export interface ScrapeJob {
  name: string
  groups: {targets: string[]; labels?: Record<string, string>}[]
}

/**
 * targets: one job `kubectl-topology`, scraped every second; jobs: more jobs, or target labels
 * (the fleet test); ruleFiles: loaded; openMetrics: an OpenMetrics text (ending with "# EOF")
 * loaded into the TSDB before start with `promtool tsdb create-blocks-from openmetrics`, the way
 * a user backfills history (samples must be in the past, in time order per series).
 */
export async function startPrometheus(o: {targets: string[]; jobs?: ScrapeJob[]; ruleFiles?: string[]; openMetrics?: string}): Promise<Prometheus> {
  const jobs: ScrapeJob[] = [...(o.targets.length > 0 ? [{name: 'kubectl-topology', groups: [{targets: o.targets}]}] : []), ...(o.jobs ?? [])]
  for (const j of jobs) for (const g of j.groups) for (const t of g.targets) if (!/^127\.0\.0\.1:\d+$/.test(t)) throw new Error(`loopback targets only: ${t}`)
  const {prometheus, promtool} = ensurePrometheus() as {prometheus: string; promtool: string}
  const dir = mkdtempSync(path.join(tmpdir(), 'e2e-prometheus-'))
  if (o.openMetrics !== undefined) {
    const file = path.join(dir, 'backfill.om')
    writeFileSync(file, o.openMetrics)
    const r = spawnSync(promtool, ['tsdb', 'create-blocks-from', 'openmetrics', file, path.join(dir, 'data')], {encoding: 'utf8', timeout: 60_000})
    if (r.status !== 0) throw new Error(`promtool tsdb create-blocks-from openmetrics failed (${r.status}): ${r.stderr}${r.stdout}`)
  }
  const config = {
    global: {scrape_interval: '1s', evaluation_interval: '1s', scrape_timeout: '1s'},
    rule_files: o.ruleFiles ?? [],
    scrape_configs: jobs.map((j) => ({job_name: j.name, static_configs: j.groups.map((g) => ({targets: g.targets, ...(g.labels ? {labels: g.labels} : {})}))})),
  }
  writeFileSync(path.join(dir, 'prometheus.yml'), stringify(config))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  let log = ''
  const child: ChildProcess = spawn(
    prometheus,
    [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
    {stdio: ['ignore', 'pipe', 'pipe']},
  )
  child.stdout!.on('data', (d) => (log += d))
  child.stderr!.on('data', (d) => (log += d))
  const api = async (p: string) => {
    const r = await fetch(`${url}${p}`, {signal: AbortSignal.timeout(5000)})
    const body = (await r.json()) as {status: string; data: unknown; error?: string}
    if (body.status !== 'success') throw new Error(`${p}: ${body.error}`)
    return body.data
  }
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}):\n${log}`)
    try {
      const r = await fetch(`${url}/-/ready`, {signal: AbortSignal.timeout(1000)})
      if (r.ok) break
    } catch {}
    if (Date.now() > deadline) throw new Error(`prometheus not ready after 30 s:\n${log}`)
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    url,
    query: async (q) => ((await api(`/api/v1/query?query=${encodeURIComponent(q)}`)) as {result: never[]}).result,
    labelValues: async (label, match) => (await api(`/api/v1/label/${encodeURIComponent(label)}/values?match[]=${encodeURIComponent(match)}`)) as string[],
    alerts: async () => ((await api('/api/v1/alerts')) as {alerts: never[]}).alerts,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
        if (child.exitCode === null) child.kill('SIGKILL')
      }
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
