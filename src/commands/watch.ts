// kubectl topology watch svc/NAME: a live view driven by API watches on Nodes, the Service,
// its EndpointSlices and its Events (src/cluster/watch.ts). Every change recomputes the
// explanation (src/watch/model.ts) and lists what changed. On a terminal: a live ink
// view (loaded lazily, only here); otherwise one line per change on stdout.
import * as Flags from '@oclif/core/flags'
import type {RoutesObjects} from '../dataplane/routes/types.js'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {clientPathsFlag, commonFlags, connectionFlags, dataPlaneFlag, kubeVersionFlag, namespaceFlag} from './flags.js'
import {checkKubeVersion, parseTraffic} from './flag-values.js'
import {openTrafficSource, trafficFromFlags, trafficFromOptions} from './traffic-from.js'
import {escapeTerminal} from '../render/escape.js'

export default class Watch extends TopologyCommand {
  static override summary = "Watch a Service's topology-aware routing live: hints set or dropped, zone shares, fallbacks, controller events and threshold cliffs."
  static override usage = 'watch svc/NAME [flags]'
  static override description =
    `Watches the Nodes, the Service, its EndpointSlices and its Events, and re-explains the Service on every change: the zone table updates in place with the changed cells marked (*), the changes and the EndpointSlice controller's events are listed as they arrive, and "threshold cliffs" show when one endpoint or one node more or fewer would change the controller's verdict.

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
    namespace: namespaceFlag(),
    plain: Flags.boolean({description: 'One line per change even on a terminal (no live view).', default: false}),
    traffic: Flags.string({description: 'Traffic share per zone for the overload estimate, e.g. zone-a=0.5,zone-b=0.5.'}),
    ...trafficFromFlags,
    'kube-version': kubeVersionFlag({description: "Behave as this Kubernetes version (default: the API server's version)."}),
    'client-paths': clientPathsFlag({
      description:
        "Also read the meshes and gateways once at start (Istio, Linkerd, ingress-nginx, Envoy Gateway, Gateway API routes) and say which client paths bypass the node data plane and what each does with the Service's topology setting.",
    }),
    'data-plane': dataPlaneFlag({
      description: 'The data plane that load-balances Services (default: detected once at start from the kube-system DaemonSets). Its rules decide the per-zone verdicts.',
    }),
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Watch)
    const names = parseServiceArgs(argv as string[])
    const name = (await import('./select.js')).watchedService(names, flags.namespace)
    const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
    const trafficFrom = trafficFromOptions(flags)
    checkKubeVersion(flags['kube-version'])
    // Read once at start, after the first sync (docs/traffic.md); the URL, token and CA are checked now.
    const prometheus = trafficFrom === undefined ? undefined : await openTrafficSource(trafficFrom, flags['request-timeout'])
    const interactive = Boolean(process.stdout.isTTY && process.stdin.isTTY) && !flags.plain && process.env.TERM !== 'dumb' && !process.env.CI
    // Loaded here, not with the command class (docs/design.md "Startup").
    const [{connect}, {runWatch}] = await Promise.all([import('../cluster/source.js'), import('./watch-flow.js')])
    const ctx = await connect(flags, {withNamespace: true, liveOnly: true})
    // The data plane, once (its DaemonSets are not watched): named, or detected (RBAC: one warning, unknown).
    const dataPlane = flags['data-plane']
      ? (await import('../dataplane/detect.js')).dataPlaneFromFlag(flags['data-plane'])
      : await (await import('../cluster/dataplane.js')).detectLiveDataPlane(ctx)
    for (const w of dataPlane.warnings) this.note(`Warning: ${escapeTerminal(w)}`)
    // The meshes and gateways, once, like the data plane (their objects are not watched).
    let routes: {objects: RoutesObjects; source: 'detected'} | undefined
    if (flags['client-paths']) {
      const {requests: _, ...objects} = await (await import('../cluster/routes.js')).readRoutesObjects(ctx)
      for (const w of objects.warnings ?? []) this.note(`Warning: ${escapeTerminal(w)}`)
      routes = {objects, source: 'detected'}
    }
    const options = {
      name,
      namespace: flags.namespace || ctx.namespace,
      kubeVersion: flags['kube-version'],
      traffic,
      interactive,
      style: this.style(flags.color),
      dataPlane,
      ...(routes ? {routes} : {}),
      ...(prometheus && trafficFrom ? {trafficFrom: {client: prometheus, template: trafficFrom.template, window: trafficFrom.window}} : {}),
    }
    await runWatch(this.io(), ctx, options)
  }
}
