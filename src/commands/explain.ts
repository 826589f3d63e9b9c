// kubectl topology explain: options -> validation -> run, like kubectl's commands.
import * as Flags from '@oclif/core/flags'
import {ExitCode} from '../errors.js'
import type {ExplainOptions, ExplainReport, ServiceExplanation} from '../explain/report.js'
import type {ExplainFormat} from '../render/explain.js'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {clientPathsFlag, commonFlags, dataPlaneFlag, noHeadersFlag, outputFlag, readFlags} from './flags.js'
import {checkKubeVersion, checkTrafficZones, parseTraffic} from './flag-values.js'
import {escapeTerminal} from '../render/escape.js'
import {openTrafficSource, readTrafficFrom, trafficFromFlags, trafficFromOptions} from './traffic-from.js'

export default class Explain extends TopologyCommand {
  static override summary = 'Explain why a Service does or does not get topology-aware routing.'
  static override usage = 'explain [svc/NAME ...] [flags]'
  static override description =
    `Reads Nodes, the Service and its EndpointSlices (live, or from a snapshot file), re-runs what the EndpointSlice controller would do at its next sync (topology-mode Auto's CPU-proportional allocation, or spec.trafficDistribution), and what kube-proxy in each zone does with the hints that are live now.

Per zone: counted/ignored nodes, allocatable CPU share, ready endpoints, desired / minimum / maximum / assigned endpoints, expected overload, endpoints donated in/out, hints live now, and kube-proxy's verdict. Above the table: the Service's mode and why, the controller's verdict with upstream's event reason and message, the expected in-zone traffic. Below: what to do.

Where Go's random map order makes upstream random (which zone receives a donated endpoint when several do, tie-breaks), the prediction uses sorted zone names.`

  static override examples = [
    {description: 'Explain one Service in the current namespace', command: '<%= config.bin %> explain svc/web'},
    {description: 'Every Service in a namespace (like kubectl describe svc -n shop)', command: '<%= config.bin %> explain -n shop'},
    {description: 'Explain from a snapshot file (no cluster needed)', command: '<%= config.bin %> explain svc/checkout -n shop --from-file examples/three-zones.yaml'},
    {description: 'Every Service in every namespace, as JSON', command: '<%= config.bin %> explain -A -o json'},
    {description: 'One row per endpoint: live and predicted hints', command: '<%= config.bin %> explain svc/web -o wide'},
    {description: 'Fail a CI step when hints are dropped, a zone falls back, or hints drift', command: '<%= config.bin %> explain -l tier=frontend --exit-code'},
    {description: 'Assume traffic comes mostly from one zone', command: '<%= config.bin %> explain svc/web --traffic zone-a=0.6,zone-b=0.2,zone-c=0.2'},
    {
      description: 'Use the traffic Grafana Beyla measured (zone to zone) instead of the CPU assumption',
      command: '<%= config.bin %> explain svc/web --traffic-from http://127.0.0.1:9090 --traffic-preset beyla',
    },
  ]

  static override strict = false
  static override args = {}

  static override flags = {
    ...readFlags,
    'data-plane': dataPlaneFlag(),
    'client-paths': clientPathsFlag(),
    ...commonFlags,
    output: outputFlag(['table', 'wide', 'json', 'yaml'], 'table'),
    'no-headers': noHeadersFlag(),
    'per-node': Flags.boolean({description: 'Also show, for every node, the topology mode its kube-proxy takes and the endpoints it routes to.', default: false}),
    traffic: Flags.string({
      description:
        "Traffic share per zone for the in-zone and overload estimates, e.g. zone-a=0.5,zone-b=0.3,zone-c=0.2 (default: proportional to zone CPU, upstream's assumption).",
    }),
    prediction: Flags.option({
      options: ['next-sync', 'fresh'] as const,
      default: 'next-sync' as const,
      description: 'next-sync: what the controller does at its next sync (reusing valid live hints); fresh: as if every EndpointSlice were rewritten.',
    })(),
    ...trafficFromFlags,
    'exit-code': Flags.boolean({
      description:
        'Exit 1 when a Service has a finding (hints refused, a zone falling back, drift between live and predicted hints), when its worst overload after the next sync is above 20%, or when the advice is to change its setting.',
      default: false,
    }),
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Explain)
    // The engine and renderer load here, not with the command class: every command's class
    // is loaded to run any one of them (docs/design.md "Startup").
    const [{explainAdvisedEach}, {keepsWhatIsThere}, {checkSelection, selectOrFail}, {renderExplain}, {openSource}] = await Promise.all([
      import('../advise/report.js'),
      import('../advise/advisor.js'),
      import('./select.js'),
      import('../render/explain.js'),
      import('../cluster/source.js'),
    ])
    // Validation, before any I/O.
    const names = parseServiceArgs(argv as string[])
    checkSelection(names, flags)
    const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
    const trafficFrom = trafficFromOptions(flags)
    checkKubeVersion(flags['kube-version'])
    const prometheus = trafficFrom === undefined ? undefined : await openTrafficSource(trafficFrom, flags['request-timeout'])

    // Read.
    const read = await openSource({
      flags,
      serviceNames: names,
      withEvents: 'optional',
      dataPlane: flags['data-plane'] ?? 'detect',
      clientPaths: flags['client-paths'],
      // The presets narrow the flows to the workloads behind each Service.
      ...(trafficFrom?.template.includes('{workloads}') ? {withWorkloads: 'optional' as const} : {}),
    })
    for (const w of read.warnings) this.note(`Warning: ${escapeTerminal(w)}`)
    checkTrafficZones(traffic, read.state)

    const services = await selectOrFail(read, names, flags)
    let measured: Awaited<ReturnType<typeof readTrafficFrom>> | undefined
    try {
      measured = prometheus === undefined ? undefined : await readTrafficFrom(prometheus, trafficFrom!, read.state, services)
    } finally {
      prometheus?.close()
    }

    // Engine.
    const kubeVersion = flags['kube-version'] ?? read.state.serverVersion
    const engineOptions: ExplainOptions = {
      kubeVersion,
      versionSource: flags['kube-version'] ? 'flag' : read.state.serverVersion ? 'server' : 'default',
      traffic,
      ...(measured ? {measured: measured.measured} : {}),
      perNode: flags['per-node'],
      prediction: flags.prediction,
      ...(read.dataPlane ? {dataPlane: read.dataPlane} : {}),
      ...(read.state.routes ? {routes: {objects: read.state.routes, source: read.source === 'live' ? ('detected' as const) : ('snapshot' as const)}} : {}),
    }
    const format: ExplainFormat = flags.output
    // JSON: each Service is explained, advised, written and dropped in turn: at thousands of
    // Services neither the whole report nor its whole text is held (docs/design.md, "Reading a
    // whole cluster"). The other formats take the whole report.
    const {head, services: each} = explainAdvisedEach(read.state, services, engineOptions)
    const report: ExplainReport | undefined = format === 'json' ? undefined : {...head, services: [...each]}

    // Render. Warnings go to stderr in every format (kubectl's way), the report to stdout.
    const errStyle = this.style(flags.color, process.stderr)
    // A Service without measured traffic keeps the CPU assumption: said on stderr and in the report's warnings.
    if (measured !== undefined) head.warnings.push(...measured.warnings)
    for (const w of head.warnings) this.note(errStyle.warn(`Warning: ${escapeTerminal(w)}`))
    // A finding, or advice to change something (or a worst overload above the bound after the next sync).
    const acts = (s: ServiceExplanation) => s.findings.length > 0 || (s.recommendation !== undefined && !keepsWhatIsThere(s.recommendation))
    let acted = false
    if (report === undefined) {
      // Streamed: at thousands of Services, or one of 50,000 endpoints, the whole text would double peak memory.
      const {jsonStreamChunks, writeChunks} = await import('../render/json-stream.js')
      const seen = function* () {
        for (const s of each) {
          if (!acted && acts(s)) acted = true
          yield s
        }
      }
      await writeChunks(process.stdout, jsonStreamChunks(head, 'services', seen()))
    } else {
      acted = report.services.some(acts)
      if (report.services.length === 0 && (format === 'table' || format === 'wide')) {
        this.note(flags['all-namespaces'] ? 'No Services found.' : `No Services found in ${read.namespace ?? 'default'} namespace.`)
      } else if (format === 'yaml') {
        // Streamed as JSON, and written without the yaml package's document of the whole report (render/yaml-stream.ts).
        const [{writeChunks}, {yamlChunks}] = await Promise.all([import('../render/json-stream.js'), import('../render/yaml-stream.js')])
        await writeChunks(process.stdout, yamlChunks(report))
      } else this.out(renderExplain(report, {format, style: this.style(flags.color), noHeaders: flags['no-headers'], perNode: flags['per-node']}))
    }
    if (flags['exit-code'] && acted) this.exit(ExitCode.FINDING)
  }
}
