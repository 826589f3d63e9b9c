// kubectl topology serve: the topology health of every Service as Prometheus metrics, kept up
// to date with API watches (src/cluster/serve-feed.ts) and explain's engine (src/serve/). The
// loop, the timers and the HTTP server are in serve-flow.ts.
import * as Flags from '@oclif/core/flags'
import {TopologyCommand} from './base.js'
import {commonFlags, connectionFlags, dataPlaneFlag, kubeVersionFlag} from './flags.js'
import {checkKubeVersion} from './flag-values.js'
import {DEFAULT_LISTEN, parseListen} from '../serve/http-rules.js'
import {CliError, ExitCode} from '../errors.js'
import {openTrafficSource, parseTrafficInterval, trafficFromFlags, trafficFromOptions, trafficIntervalFlag} from './traffic-from.js'

export default class Serve extends TopologyCommand {
  static override summary = 'Serve the topology-aware routing health of every Service as Prometheus metrics (/metrics, /healthz, /readyz).'
  static override usage = 'serve [--listen HOST:PORT] [--context NAME]... [flags]'
  static override description =
    `Keeps the Nodes, Services, EndpointSlices and Events on Services of the whole cluster with API watches (list, then watch; re-list on 410 Gone; back-off on errors) and explains every Service with the same engine as explain; a change recomputes only the Services it touches. Serves:
  /metrics  Prometheus text format, or OpenMetrics when the scraper asks for it (Accept header)
  /healthz  200 while the process runs
  /readyz   200 once every context was listed in full, 503 before

Several --context flags serve several clusters from one process (kubectl topology serve --context prod-eu --context prod-us); every sample then carries a "cluster" label (the context name). Metrics: docs/metrics.md; alert rules: deploy/prometheus/rules.yaml. Runs until SIGINT or SIGTERM (exit 130).`

  static override examples = [
    {description: 'Serve the current context on the default address', command: '<%= config.bin %> serve'},
    {description: 'Serve on another loopback port', command: '<%= config.bin %> serve --listen 127.0.0.1:9090'},
    {
      description: 'Use the traffic Beyla measured, read again every 5 minutes',
      command: '<%= config.bin %> serve --traffic-from http://127.0.0.1:9090 --traffic-preset beyla --traffic-interval 5m',
    },
  ]

  static override flags = {
    ...connectionFlags,
    context: Flags.string({
      description: 'The kubeconfig context to serve; repeat it to serve several clusters (each sample then carries cluster="<context>"). Default: the current context.',
      multiple: true,
      helpGroup: 'CLUSTER',
    }),
    ...commonFlags,
    listen: Flags.string({description: `Address to serve on: HOST:PORT, [IPv6]:PORT, or :PORT for every address (port 0: any free port).`, default: DEFAULT_LISTEN}),
    'kube-version': kubeVersionFlag({description: "Behave as this Kubernetes version (default: each API server's version)."}),
    'data-plane': dataPlaneFlag({description: 'The data plane that load-balances Services (default: detected once at start per cluster from the kube-system DaemonSets).'}),
    ...trafficFromFlags,
    'traffic-interval': trafficIntervalFlag,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Serve)
    const listen = parseListen(flags.listen)
    checkKubeVersion(flags['kube-version'])
    const contexts: (string | undefined)[] = flags.context ?? [undefined]
    const dup = contexts.find((c, i) => c !== undefined && contexts.indexOf(c) !== i)
    if (dup !== undefined) throw new CliError(`--context ${JSON.stringify(dup)} is given twice: name each context once`, ExitCode.USAGE)
    const trafficFrom = trafficFromOptions(flags)
    const trafficIntervalMs = parseTrafficInterval(flags['traffic-interval'])
    if (trafficFrom !== undefined && contexts.length > 1) {
      throw new CliError('--traffic-from with several --context: one Prometheus query template cannot tell the clusters apart; run one serve per cluster', ExitCode.USAGE)
    }
    // The URL, token and CA are checked before any connection (no request yet).
    const prometheus = trafficFrom === undefined ? undefined : await openTrafficSource(trafficFrom, flags['request-timeout'])
    const [{connect}, {runServe}] = await Promise.all([import('../cluster/source.js'), import('./serve-flow.js')])
    const ctxs = []
    for (const context of contexts) ctxs.push(await connect({kubeconfig: flags.kubeconfig, context, 'request-timeout': flags['request-timeout']}))
    await runServe(this.io(), ctxs, {
      listen,
      kubeVersion: flags['kube-version'],
      dataPlane: flags['data-plane'],
      clusterLabel: contexts.length > 1,
      ...(prometheus && trafficFrom ? {traffic: {client: prometheus, template: trafficFrom.template, window: trafficFrom.window, intervalMs: trafficIntervalMs}} : {}),
    })
  }
}
