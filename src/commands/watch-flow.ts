// watch once its options are valid: start the API watches (cluster/watch.ts), recompute the
// frame (watch/model.ts) on every change, debounced, and show it: the ink view on a terminal,
// otherwise one line per change. The decisions are watch/session.ts's; this file holds the
// timers, the signals and the output, which come in as a CommandIO (never the oclif class).
import {CliError, ExitCode} from '../errors.js'
import type {EventObject} from '../upstream/api/types.js'
import {features} from '../upstream/features.js'
import type {KubeContext} from '../cluster/kubeconfig.js'
import type {DataPlane} from '../dataplane/types.js'
import {dataPlaneLine} from '../dataplane/describe.js'
import {clientPathLines, routesLine} from '../render/client-paths.js'
import type {RoutesInput} from '../explain/client-paths.js'
import {startServiceWatch} from '../cluster/watch.js'
import {diffFrames, watchFrame, type WatchFrame} from '../watch/model.js'
import {eventKey, eventSignature, eventTime, explainOptions, nextView, resourceStatusText, restatesSummary, statusText, statusWorthALine, type WatchView} from '../watch/session.js'
import {changeLine, eventLine, firstFrameLines, summaryLines} from '../render/watch-lines.js'
import {escapeDeep} from '../render/escape.js'
import type {Style} from '../render/style.js'
import type {CommandIO} from './base.js'
import {checkTrafficZones} from './flag-values.js'
import type {PrometheusClient} from '../cluster/prometheus.js'
import type {ExplainOptions} from '../explain/report.js'
import {escapeTerminal} from '../render/escape.js'

export interface WatchOptions {
  name: string
  namespace: string
  kubeVersion: string | undefined
  traffic: Record<string, number> | undefined
  /** The live ink view (a terminal, not --plain); otherwise one line per change. */
  interactive: boolean
  style: Style
  /** The data plane (detected once at start, or --data-plane); its verdicts follow it. */
  dataPlane?: DataPlane
  /** The meshes and gateways (read once at start with --client-paths). */
  routes?: RoutesInput
  /** --traffic-from: the watched Service's measured traffic, read once at start (docs/traffic.md). */
  trafficFrom?: {client: PrometheusClient; template: string; window: string}
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')
/** Changes are recomputed at most this often. */
const DEBOUNCE_MS = 150

export async function runWatch(io: CommandIO, ctx: KubeContext, o: WatchOptions): Promise<void> {
  const {name, namespace: ns, interactive} = o
  let session: Awaited<ReturnType<typeof startServiceWatch>> | undefined
  let frame: WatchFrame | null = null
  let view: WatchView | null = null
  const listeners = new Set<() => void>()
  const statuses = new Map<string, string>()
  const pendingEvents: {time: string; event: EventObject}[] = []
  let measured: ExplainOptions['measured']

  const recompute = () => {
    if (!session) return
    const base = explainOptions(o.kubeVersion, session.state().serverVersion, o.traffic, o.dataPlane, o.routes)
    const next = watchFrame(session.state(), ns, name, measured ? {...base, measured} : base)
    if (frame === null && !interactive) {
      // As explain: a --kube-version outside the modelled range is a warning, on stderr.
      const warning = features(o.kubeVersion ?? session.state().serverVersion).warning
      if (warning) io.err(`Warning: ${escapeTerminal(warning)}`)
    }
    const changes = diffFrames(frame, next)
    const time = now()
    if (!interactive) printFrame(io, frame, next, changes, time)
    const prev = frame
    frame = next
    view = nextView(view, prev, next, changes, pendingEvents.splice(0), statusText(statuses), time)
    for (const l of listeners) l()
  }
  let timer: NodeJS.Timeout | undefined
  const schedule = () => {
    if (timer) return
    timer = setTimeout(() => {
      timer = undefined
      recompute()
    }, DEBOUNCE_MS)
  }
  const seen = new Map<string, string>()
  session = await startServiceWatch(
    ctx,
    {namespace: ns, name},
    {
      onChange: () => {
        if (frame !== null) schedule()
      },
      onEvent: (e, initial) => {
        if (seen.get(eventKey(e)) === eventSignature(e)) return
        seen.set(eventKey(e), eventSignature(e))
        const time = eventTime(e, initial, now())
        if (!interactive) io.out(eventLine(time, e))
        pendingEvents.push({time, event: e})
        if (view) schedule()
      },
      onStatus: (resource, s) => {
        const text = resourceStatusText(s)
        const before = statuses.get(resource)
        statuses.set(resource, text)
        if (!interactive && statusWorthALine(s, before)) io.err(`${now()}  ${resource}: ${text}`)
        if (view) schedule()
      },
    },
  )
  const stopAll = () => {
    if (timer) clearTimeout(timer)
    session?.stop()
    // Aborted watch streams can leave keep-alive connections open for up to 30 s (seen with
    // http:// servers such as kubectl proxy); exit once the exit code is set. unref: it does
    // not keep the process alive when nothing else does.
    setTimeout(() => process.exit(), 1000).unref()
  }
  try {
    await session.synced
    // As explain and simulate: --traffic names zones of the cluster just read.
    checkTrafficZones(o.traffic, session.state())
    if (o.trafficFrom && session.state().services.length > 0) {
      const t = o.trafficFrom
      const {readWatchedTraffic} = await import('../cluster/measured-traffic.js')
      try {
        const r = await readWatchedTraffic(ctx, t.client, t.template, t.window, session.state(), ns)
        for (const w of r.warnings) io.err(`Warning: ${escapeTerminal(w)}`)
        measured = r.measured
      } finally {
        t.client.close()
      }
    }
  } catch (e) {
    stopAll()
    throw e
  }
  if (session.state().services.length === 0) {
    stopAll()
    throw new CliError(`services "${name}" not found in namespace "${ns}"${await nameHint(ctx, ns, name)}`, ExitCode.NOT_FOUND)
  }
  recompute()

  // ---- run until q / Ctrl-C / SIGTERM -----------------------------------------------
  let signalled: NodeJS.Signals | null = null
  const stopped = new Promise<void>((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      signalled = sig
      resolve()
    }
    process.once('SIGINT', on)
    process.once('SIGTERM', on)
  })
  if (interactive) {
    const {runWatchView} = await import('../render/watch-view.js')
    const store = {get: () => view!, subscribe: (l: () => void) => (listeners.add(l), () => listeners.delete(l))}
    const how = await runWatchView(store, o.style, stopped)
    stopAll()
    if (how === 'interrupt' || signalled) io.exit(ExitCode.INTERRUPTED)
    return
  }
  await stopped
  stopAll()
  io.exit(ExitCode.INTERRUPTED)
}

/** Without a terminal: the first frame in full, then one line per change. */
function printFrame(io: CommandIO, prev: WatchFrame | null, next: WatchFrame, changes: ReturnType<typeof diffFrames>, time: string): void {
  if (prev === null) {
    const f = escapeDeep(next)
    if (f.dataPlane) io.out(`${time}  ${dataPlaneLine(f.dataPlane)}`)
    for (const e of f.explanations) if (e.dataPlane) io.out(`${time}  data plane: ${e.dataPlane.message}${e.dataPlane.fix ? ` (fix: ${e.dataPlane.fix})` : ''}`)
    if (f.routes) io.out(`${time}  ${routesLine(f.routes)}`)
    for (const e of f.explanations) if (e.clientPaths) for (const l of clientPathLines(e.clientPaths, undefined, 'clients: ', 'clients: ')) io.out(`${time}  ${l}`)
    for (const l of firstFrameLines(time, next)) io.out(l)
  } else if (changes.length > 0) {
    for (const c of changes) io.out(changeLine(time, c))
    // After a change of verdict, restate where the Service stands.
    if (restatesSummary(changes)) for (const l of summaryLines(escapeDeep(next))) io.out(`${time}  now: ${l}`)
  }
}

/** "; did you mean ..." from the Services in the namespace (optional: empty on any error). */
async function nameHint(ctx: KubeContext, ns: string, name: string): Promise<string> {
  const [{didYouMean}, k8s] = await Promise.all([import('../cluster/suggest.js'), import('../cluster/k8s.js')])
  try {
    const list = await ctx.kc.makeApiClient(k8s.CoreV1Api).listNamespacedService({namespace: ns, limit: 500}, ctx.apiOptions)
    return didYouMean(
      name,
      (list.items ?? []).map((s) => s.metadata?.name ?? ''),
    )
  } catch {
    return ''
  }
}
