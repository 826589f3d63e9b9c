// kubectl topology plan: what to set (mode, replica range, zone spread) so that routing stays
// local and no zone is overloaded through autoscaling, rollouts and a zone loss, and what the
// cross-zone traffic costs. Options -> validation -> read -> plan (pure, src/plan/) -> render.
import * as Flags from '@oclif/core/flags'
import type {PlanFormat} from '../render/plan.js'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {checkKubeVersion, checkTrafficZones, parseMaxOverload, parseTraffic} from './flag-values.js'
import {openTrafficSource, readTrafficFrom, trafficFromFlags, trafficFromOptions} from './traffic-from.js'
import {commonFlags, noHeadersFlag, outputFlag, readFlags} from './flags.js'
import {parseCost, parseMaxCounts} from './plan-options.js'

export default class Plan extends TopologyCommand {
  static override summary = 'Plan what to set before a change: mode, replica range, autoscaling, rollouts, zone loss and cross-zone cost.'
  static override usage = 'plan [svc/NAME ...] [flags]'
  static override description =
    `Reads the Service, its EndpointSlices and Nodes, the Deployment or StatefulSet behind it, its HorizontalPodAutoscaler (autoscaling/v2) and PodDisruptionBudget (policy/v1), live or from a snapshot, and computes explain's figures for every topology mode:

  at every replica count of the HPA's range (without an HPA: 1 to 3x today), pods placed zone-balanced as a zone spread constraint makes the scheduler place them;
  at every step of the workload's rollout (its strategy's maxSurge / maxUnavailable) at today's count and the HPA's bounds;
  with each zone lost, right away and once the pods run again elsewhere;
  with as many pods evicted from the most crowded zone as the PodDisruptionBudget allows.

It recommends the mode with the highest in-zone share whose worst overload stays within --max-overload, with the settings and commands that get there (a minReplicas from which Auto keeps hints, a zone spread constraint), and prices the cross-zone traffic with --traffic-volume and --cross-zone-price.

Models and their limits: docs/plan.md.`

  static override examples = [
    {description: 'Plan one Service in the current namespace', command: '<%= config.bin %> plan svc/web'},
    {description: 'Every Service of a snapshot (no cluster needed)', command: '<%= config.bin %> plan -A --from-file examples/three-zones.yaml'},
    {
      description: 'With a cost: 40 TiB a month at 0.01 per GiB crossing zones',
      command: '<%= config.bin %> plan svc/checkout -n shop --from-file examples/three-zones.yaml --traffic-volume 40TiB --cross-zone-price 0.01',
    },
    {description: 'Allow at most 10% overload, as JSON', command: '<%= config.bin %> plan svc/web -n shop --max-overload 10% -o json'},
  ]

  static override strict = false
  static override args = {}

  static override flags = {
    ...readFlags,
    ...commonFlags,
    output: outputFlag(['table', 'json', 'yaml'], 'table'),
    'no-headers': noHeadersFlag(),
    'max-overload': Flags.string({description: 'Worst expected per-endpoint overload a recommendation may reach, e.g. 0.2 or 20%.', default: '20%'}),
    traffic: Flags.string({description: "Traffic share per zone, e.g. zone-a=0.5,zone-b=0.3,zone-c=0.2 (default: proportional to zone CPU, upstream's assumption)."}),
    'traffic-volume': Flags.string({description: "The Service's traffic per month, e.g. 40TiB or 500GB (with --cross-zone-price: the monthly cost)."}),
    'cross-zone-price': Flags.string({description: 'Price per GiB of traffic crossing zones, e.g. 0.01 (with --traffic-volume).'}),
    'max-counts': Flags.string({description: 'Evaluate at most this many replica counts from the bottom of the range (default 1000).'}),
    ...trafficFromFlags,
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Plan)
    // Loaded here, not with the command class (docs/design.md "Startup").
    const [{plan}, {checkSelection, selectOrFail}, {renderPlan}, {openSource}] = await Promise.all([
      import('../plan/plan.js'),
      import('./select.js'),
      import('../render/plan.js'),
      import('../cluster/source.js'),
    ])
    // Validation, before any I/O.
    const names = parseServiceArgs(argv as string[])
    checkSelection(names, flags)
    const maxOverload = parseMaxOverload(flags['max-overload'])
    const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
    const cost = parseCost(flags['traffic-volume'], flags['cross-zone-price'])
    const maxCounts = flags['max-counts'] === undefined ? undefined : parseMaxCounts(flags['max-counts'])
    const trafficFrom = trafficFromOptions(flags)
    checkKubeVersion(flags['kube-version'])
    const prometheus = trafficFrom === undefined ? undefined : await openTrafficSource(trafficFrom, flags['request-timeout'])

    // Read: the Services with their workloads, HPAs and PDBs (without permission: a warning each).
    const read = await openSource({flags, serviceNames: names, withWorkloads: 'optional', withScaling: 'optional'})
    for (const w of read.warnings) this.note(`Warning: ${w}`)
    // As explain, check and simulate: --traffic names the cluster's zones, every one with nodes.
    checkTrafficZones(traffic, read.state)
    const services = await selectOrFail(read, names, flags)
    let measured: Awaited<ReturnType<typeof readTrafficFrom>> | undefined
    try {
      measured = prometheus === undefined ? undefined : await readTrafficFrom(prometheus, trafficFrom!, read.state, services)
    } finally {
      prometheus?.close()
    }

    const kubeVersion = flags['kube-version'] ?? read.state.serverVersion
    const report = plan(read.state, services, {
      kubeVersion,
      versionSource: flags['kube-version'] ? 'flag' : read.state.serverVersion ? 'server' : 'default',
      maxOverload,
      ...(traffic ? {traffic} : {}),
      ...(measured ? {measured: measured.measured} : {}),
      ...(cost ? {cost} : {}),
      ...(maxCounts ? {maxCounts} : {}),
    })
    if (measured !== undefined) report.warnings.push(...measured.warnings)
    for (const w of report.warnings) this.note(`Warning: ${w}`)

    const format: PlanFormat = flags.output
    if (report.services.length === 0 && format === 'table') {
      this.note(flags['all-namespaces'] ? 'No Services found.' : `No Services found in ${read.namespace ?? 'default'} namespace.`)
      return
    }
    this.out(renderPlan(report, {format, style: this.style(flags.color), noHeaders: flags['no-headers']}))
  }
}
