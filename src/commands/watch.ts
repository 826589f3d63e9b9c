// kubectl topology watch svc/NAME: a live view driven by API watches on Nodes, the Service,
// its EndpointSlices and its Events (src/cluster/watch.ts). Every change recomputes the
// explanation (src/engine/watchmodel.ts) and lists what changed. On a terminal: a live ink
// view (loaded lazily, only here); otherwise one line per change on stdout.
import * as Flags from '@oclif/core/flags'
import {CliError, ExitCode} from '../errors.js'
import type {ExplainOptions} from '../explain/report.js'
import type {EventObject} from '../upstream/api/types.js'
import type {WatchFrame} from '../watch/model.js'
import type {WatchViewState} from '../render/watch-lines.js'
import {commonFlags, connectionFlags, parseServiceArgs, TopologyCommand} from './base.js'
import {checkKubeVersion, parseTraffic} from './flag-values.js'

export default class Watch extends TopologyCommand {
  static override summary = 'Watch a Service\'s topology-aware routing live: hints set or dropped, zone shares, fallbacks, controller events and threshold cliffs.'
  static override usage = 'watch svc/NAME [flags]'
  static override description = `Watches the Nodes, the Service, its EndpointSlices and its Events, and re-explains the Service on every change: the zone table updates in place with the changed cells marked (*), the changes and the EndpointSlice controller's events are listed as they arrive, and "threshold cliffs" show when one endpoint or one node more or fewer would change the controller's verdict.

Without a terminal (a pipe, a file, CI) or with --plain, it prints one line per change instead:
  2026-11-21T12:00:00Z  zone-c: ready endpoints 3 -> 2

Expired watches (410 Gone) are re-listed; lost connections are retried with back-off. Quit with q or Ctrl-C (exit 130 on Ctrl-C or SIGTERM).`

  static override examples = [
    {description: 'Watch a Service in the current namespace', command: '<%= config.bin %> watch svc/web'},
    {description: 'Log changes to a file (one line per change)', command: '<%= config.bin %> watch svc/checkout -n shop > checkout-topology.log'},
  ]

  static override strict = false
  static override args = {}

  static override flags = {
    ...connectionFlags,
    ...commonFlags,
    namespace: Flags.string({char: 'n', description: 'Namespace (default: the context\'s namespace, else "default").', helpGroup: 'CLUSTER'}),
    plain: Flags.boolean({description: 'One line per change even on a terminal (no live view).', default: false}),
    traffic: Flags.string({description: 'Traffic share per zone for the overload estimate, e.g. zone-a=0.5,zone-b=0.5.'}),
    'kube-version': Flags.string({description: 'Behave as this Kubernetes version (default: the API server\'s version).'}),
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Watch)
    // Loaded here, not with the command class (docs/design.md "Startup").
    const [{diffFrames, watchFrame}, {changeLine, eventLine, summaryLines}] = await Promise.all([
      import('../watch/model.js'),
      import('../render/watch-lines.js'),
    ])
    const names = parseServiceArgs(argv as string[])
    if (names.length !== 1) throw new CliError('watch takes exactly one Service: kubectl topology watch svc/NAME', ExitCode.USAGE)
    const name = names[0]!
    const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
    checkKubeVersion(flags['kube-version'])
    const interactive = Boolean(process.stdout.isTTY && process.stdin.isTTY) && !flags.plain && process.env.TERM !== 'dumb' && !process.env.CI

    const [{loadKubeConfig, parseDuration}, {startServiceWatch}] = await Promise.all([import('../cluster/kubeconfig.js'), import('../cluster/watch.js')])
    const ctx = await loadKubeConfig({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      namespace: flags.namespace,
      requestTimeoutMs: parseDuration(flags['request-timeout'] ?? '30s'),
    })
    const ns = flags.namespace || ctx.namespace
    const style = this.style(flags.color)
    const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z')

    // ---- state shared by both outputs -------------------------------------------------
    let session: Awaited<ReturnType<typeof startServiceWatch>> | undefined
    let frame: WatchFrame | null = null
    let view: WatchViewState | null = null
    const listeners = new Set<() => void>()
    const publish = (next: WatchViewState) => {
      view = next
      for (const l of listeners) l()
    }
    const statuses = new Map<string, string>()
    const statusText = () => {
      const bad = [...statuses.entries()].filter(([, s]) => s !== 'watching' && !s.startsWith('synced'))
      return bad.length === 0 ? 'watching Nodes, the Service, its EndpointSlices and Events' : bad.map(([r, s]) => `${r}: ${s}`).join('; ')
    }
    const pendingEvents: {time: string; event: EventObject}[] = []
    const explainOpts = (): ExplainOptions => {
      const kubeVersion = flags['kube-version'] ?? session?.state().serverVersion
      const o: ExplainOptions = {versionSource: flags['kube-version'] ? 'flag' : kubeVersion ? 'server' : 'default'}
      if (kubeVersion) o.kubeVersion = kubeVersion
      if (traffic) o.traffic = traffic
      return o
    }

    const recompute = () => {
      if (!session) return
      const next = watchFrame(session.state(), ns, name, explainOpts())
      const changes = diffFrames(frame, next)
      const time = now()
      if (!interactive) {
        if (frame === null) {
          for (const l of summaryLines(next)) this.out(`${time}  ${l}`)
          for (const c of next.cliffs) this.out(`${time}  cliff: ${c.message}`)
          for (const d of next.cluster.disablingNodes) this.out(`${time}  node ${d.name} (${d.status}) disables hints for every Service: ${d.fix}`)
        } else if (changes.length > 0) {
          for (const c of changes) this.out(changeLine(time, c))
          // After a change of verdict, restate where the Service stands.
          if (changes.some((c) => c.kind === 'hints-set' || c.kind === 'hints-dropped' || c.kind === 'service-added')) for (const l of summaryLines(next)) this.out(`${time}  now: ${l}`)
        }
      }
      const prev = frame
      frame = next
      const base: WatchViewState = view ?? {frame: next, previous: null, changes: [], events: [], status: statusText(), updatedAt: time}
      publish({
        frame: next,
        previous: changes.length > 0 ? prev : base.previous,
        changes: [...base.changes, ...changes.map((change) => ({time, change}))].slice(-50),
        events: [...base.events, ...pendingEvents.splice(0)].slice(-20),
        status: statusText(),
        updatedAt: changes.length > 0 || prev === null ? time : base.updatedAt,
      })
    }

    let timer: NodeJS.Timeout | undefined
    const schedule = () => {
      if (timer) return
      timer = setTimeout(() => {
        timer = undefined
        recompute()
      }, 150)
    }

    const seen = new Map<string, string>()
    const onEvent = (e: EventObject, initial: boolean) => {
      // MODIFIED events repeat the object: print when the count or the message changed.
      const sig = `${e.count ?? 1}|${e.message ?? ''}|${e.lastTimestamp ?? e.eventTime ?? ''}`
      const key = e.metadata.uid ?? e.metadata.name
      if (seen.get(key) === sig) return
      seen.set(key, sig)
      const time = initial ? (e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? now()).replace(/\.\d+Z$/, 'Z') : now()
      if (!interactive) this.out(eventLine(time, e))
      pendingEvents.push({time, event: e})
      if (view) schedule()
    }

    session = await startServiceWatch(
      ctx,
      {namespace: ns, name},
      {
        onChange: () => {
          if (frame !== null) schedule()
        },
        onEvent,
        onStatus: (resource, s) => {
          const text =
            s.state === 'backoff'
              ? `reconnecting in ${s.delayMs >= 1000 ? `${(s.delayMs / 1000).toFixed(1)}s` : `${s.delayMs}ms`} (${s.error})`
              : s.state === 'relisting'
                ? `re-listing (${s.reason})`
                : s.state === 'synced'
                  ? `synced (${s.items})`
                  : 'watching'
          const before = statuses.get(resource)
          statuses.set(resource, text)
          if (!interactive && (s.state === 'backoff' || s.state === 'relisting' || (s.state === 'watching' && before?.startsWith('reconnecting')))) {
            this.note(`${now()}  ${resource}: ${text}`)
          }
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
    } catch (e) {
      stopAll()
      throw e
    }
    if (session.state().services.length === 0) {
      stopAll()
      const {didYouMean} = await import('../cluster/suggest.js')
      const k8s = await import('../cluster/k8s.js')
      let hint = ''
      try {
        const list = await ctx.kc.makeApiClient(k8s.CoreV1Api).listNamespacedService({namespace: ns, limit: 500}, ctx.apiOptions)
        hint = didYouMean(name, (list.items ?? []).map((s) => s.metadata?.name ?? ''))
      } catch {
        // the hint is optional
      }
      throw new CliError(`services "${name}" not found in namespace "${ns}"${hint}`, ExitCode.NOT_FOUND)
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
      const how = await runWatchView(store, style, stopped)
      stopAll()
      if (how === 'interrupt' || signalled) this.exit(ExitCode.INTERRUPTED)
      return
    }
    await stopped
    stopAll()
    this.exit(ExitCode.INTERRUPTED)
  }
}
