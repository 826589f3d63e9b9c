// kubectl topology simulate: options -> validation -> read (live, snapshot, synthetic, dataset) ->
// what-ifs -> engine -> render.
import type {Interfaces} from '@oclif/core'
import * as Flags from '@oclif/core/flags'
import {CliError, ExitCode} from '../errors.js'
import {CLUSTER_STRATEGIES, FAMILIES, RESEARCH_STRATEGIES} from '../simulate/names.js'
import type {ServiceReport, SimulateReport} from '../simulate/report.js'
import type {Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import {TopologyCommand} from './base.js'
import {features} from '../upstream/features.js'
import {checkTrafficZones, parseMaxOverload} from './flag-values.js'
import {commonFlags, noHeadersFlag, outputFlag, readFlags} from './flags.js'
import {escapeTerminal} from '../render/escape.js'

/** --replicas: Kubernetes' documented scale limit, 150,000 Pods in a cluster (kubernetes.io "Considerations for large clusters"). */
const MAX_REPLICAS = 150_000

export default class Simulate extends TopologyCommand {
  static override summary = 'Compare topology strategies and what-ifs (zone loss, drain, scale, rollout) before changing anything.'
  static override usage = 'simulate [svc/NAME ...] [flags]'
  static override description =
    `Scores the settings a Service can have on its real state (live, snapshot) or on synthetic clusters, with the KEP-2004 evaluation tool's measures: in-zone traffic, max and mean per-endpoint overload, number of EndpointSlices, zones where kube-proxy falls back, and the weighted score (45% in-zone, 20% max overload, 20% mean absolute deviation, 15% slices).

Settings: ${CLUSTER_STRATEGIES.join(', ')} (none: no topology-aware routing). Research, ranked only when asked for (--research, --keys or --strategies): ${RESEARCH_STRATEGIES.join(', ')}. See docs/simulate.md for the exact definitions.`

  static override examples = [
    {description: 'Rank the settings a Service can have', command: '<%= config.bin %> simulate svc/web'},
    {description: "Also rank KEP-2004's research strategies", command: '<%= config.bin %> simulate svc/web --research'},
    {
      description: 'From a snapshot, as if zone eu-west-1a were lost',
      command: '<%= config.bin %> simulate svc/checkout -n shop -f examples/three-zones.yaml --without-zone eu-west-1a',
    },
    {description: 'Step through a rolling update', command: '<%= config.bin %> simulate svc/web --rollout maxSurge=25%,maxUnavailable=0'},
    {
      description: 'Step through the rollout of the Deployment or StatefulSet behind the Service, as it is configured',
      command: '<%= config.bin %> simulate svc/web --rollout from-workload',
    },
    {description: 'How many pods each zone can lose', command: '<%= config.bin %> simulate svc/web --disruption'},
    {
      description: "KEP-536 topologyKeys: each client node's route (same node, else same zone, else none)",
      command: '<%= config.bin %> simulate svc/web --strategies topology-keys --keys kubernetes.io/hostname,topology.kubernetes.io/zone --per-node',
    },
    {description: 'One synthetic cluster', command: '<%= config.bin %> simulate --synthetic --seed 7'},
    {description: "Score every strategy over the evaluation tool's representative rows", command: '<%= config.bin %> simulate --dataset representative -o csv'},
  ]

  static override strict = false
  static override args = {}

  static override flags = {
    ...readFlags,
    ...commonFlags,
    output: outputFlag(['table', 'wide', 'json', 'yaml', 'csv'], 'table'),
    'no-headers': noHeadersFlag('Omit table and CSV headers.'),
    plain: Flags.boolean({description: 'Plain text tables even on a terminal (no bars view).', default: false}),
    strategies: Flags.string({
      description: "Strategies to compare, comma-separated (default: the settings the server's version offers: Auto, PreferSameZone, PreferSameNode or PreferClose, none).",
    }),
    'max-overload': Flags.string({
      description: "The advisor's bound for the recommendation line (as explain, plan and check): worst expected per-endpoint overload, e.g. 0.2 or 20%.",
      default: '20%',
    }),
    research: Flags.boolean({
      description: 'Also rank the KEP-2004 research strategies (local, local-shared, local-weighted, local-opt): no cluster setting produces them. --keys adds topology-keys.',
      default: false,
    }),
    'traffic-model': Flags.option({
      options: ['cpu', 'nodes', 'uniform'] as const,
      default: 'cpu' as const,
      description: "Where traffic comes from: zone allocatable CPU (upstream's assumption), node count (the evaluation tool's), or uniform per zone.",
    })(),
    traffic: Flags.string({description: 'Traffic share per zone, e.g. zone-a=0.5,zone-b=0.3,zone-c=0.2 (overrides --traffic-model).'}),
    keys: Flags.string({description: 'topology-keys: ordered node label keys, "*" last for "anywhere" (default kubernetes.io/hostname,topology.kubernetes.io/zone,*).'}),
    'per-node': Flags.boolean({
      description: 'topology-keys: list each client node, the key that matched and the endpoints it routes to (a table after the ranking; "clients" in JSON/YAML).',
      default: false,
    }),
    'previous-mode': Flags.option({options: ['subsetting', 'disabled'] as const, description: "local: apply KEP-2004's padding (hysteresis) given the mode the Service was in."})(),
    padding: Flags.integer({description: 'local with --previous-mode: the padding (default: the number of zones).', min: 0}),
    'without-zone': Flags.string({description: 'What-if: the zone is lost (its nodes and endpoints are gone). Repeatable.', multiple: true}),
    drain: Flags.string({description: 'What-if: drain this node (its pods are recreated elsewhere). Repeatable.', multiple: true}),
    'drain-selector': Flags.string({description: 'What-if: drain the nodes matching this label selector.'}),
    replicas: Flags.integer({description: 'What-if: scale to N ready endpoints (0 to 150000), placed as plan places N replicas (zone-balanced).', min: 0, max: MAX_REPLICAS}),
    'add-node': Flags.string({description: 'What-if: add a Ready node, zone=Z,cpu=C[,name=N]. Repeatable.', multiple: true}),
    rollout: Flags.string({
      description:
        'Step through a rollout: from-workload (the Deployment/StatefulSet behind the Service) and/or KEY=VALUE overrides, e.g. maxSurge=25%,maxUnavailable=0[,replicas=N], partition=N, type=Recreate.',
    }),
    workload: Flags.string({description: 'With --rollout: the workload to read when several are behind the Service, deployment/NAME or statefulset/NAME.'}),
    disruption: Flags.boolean({
      description: 'Per zone: how many pods it can lose before hints drop, a zone has no local endpoint, or the first strategy falls back.',
      default: false,
    }),
    synthetic: Flags.boolean({description: 'Simulate a synthetic cluster from --seed (or, with --dataset, a generated dataset).', default: false}),
    dataset: Flags.string({description: `Score the strategies over a dataset: a CSV file in the evaluation tool's format, or a family (${FAMILIES.join(', ')}).`}),
    seed: Flags.string({description: 'Seed for synthetic clusters and seeded dataset families.', default: '1'}),
    clusters: Flags.integer({description: 'Rows to generate for seeded families (default 1000); a cap for the others.', min: 1}),
    zones: Flags.integer({description: 'Zones per synthetic cluster (default 3).', min: 1, max: 26}),
    'per-cluster': Flags.boolean({description: "With --dataset -o csv: one row per cluster and strategy (the tool's output columns) instead of aggregates.", default: false}),
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Simulate)
    // The simulator loads here, not with the command class (docs/design.md "Startup").
    const {simulateOptions} = await import('./simulate-options.js')
    const o = simulateOptions(flags, argv as string[])
    const maxOverload = parseMaxOverload(flags['max-overload'])
    for (const w of o.warnings) this.note(`Warning: ${w}`)
    if (o.dataset !== undefined) {
      const {runDataset} = await import('./simulate-dataset.js')
      const {seed, clusters, zones, output} = flags
      return runDataset(this.io(), {...o.dataset, topologyKeys: o.keys, seed, clusters, zones, output, noHeaders: flags['no-headers'], perCluster: flags['per-cluster']})
    }
    const [{simulateServices, whatIfLabels}, {SimulateInputError}, {WhatIfError}, {SelectorError}, {chooseSimulateView, renderSimulate}] = await Promise.all([
      import('../simulate/run.js'),
      import('../simulate/simulate.js'),
      import('../simulate/whatif.js'),
      import('../upstream/apimachinery/labels.js'),
      import('../render/simulate.js'),
    ])
    const {readInput} = await import('./simulate-input.js')
    const {state, services, source} = await readInput(this.io(), flags, o)
    checkTrafficZones(o.engine.traffic, state)
    // As explain: a Kubernetes version outside the modelled range is a warning, on stderr.
    const versionWarning = features(o.engine.kubeVersion).warning
    if (versionWarning) this.note(`Warning: ${escapeTerminal(versionWarning)}`)
    if (o.workload !== undefined && services.length > 1) throw new CliError('--workload names the workload of one Service: name one Service (svc/NAME)', ExitCode.USAGE)
    let reports: ServiceReport[]
    try {
      const ro = o.rollout === undefined ? undefined : await import('./simulate-rollout.js')
      const rollout =
        ro && o.rollout
          ? (s: ClusterState, svc: Service, readyEndpoints: number) =>
              ro.resolveRollout(s, svc, o.rollout!, o.workload, {readyEndpoints, manyServices: services.length > 1, source})
          : undefined
      reports = simulateServices(state, services, o.engine, o.whatIfs, {
        rollout,
        disruption: flags.disruption,
        onWarning: (w) => this.note(`Warning: ${escapeTerminal(w)}`),
        advise: {maxOverload},
      })
    } catch (e) {
      if (e instanceof WhatIfError || e instanceof SimulateInputError) throw new CliError(e.message, ExitCode.USAGE)
      if (e instanceof SelectorError) throw new CliError(`--drain-selector: ${e.message}`, ExitCode.USAGE)
      throw e
    }
    const trafficModel = o.engine.traffic !== undefined ? 'custom' : flags['traffic-model']
    const report: SimulateReport = {apiVersion: 'kubectl-topology.io/v1', kind: 'TopologySimulation', source, trafficModel, whatIf: whatIfLabels(o.whatIfs), services: reports}
    if (reports.length === 0 && (flags.output === 'table' || flags.output === 'wide')) return this.note('No Services found.')
    const style = this.style(flags.color)
    const plain = flags.plain || flags['per-node']
    if (chooseSimulateView({format: flags.output, isTTY: Boolean(process.stdout.isTTY), noHeaders: flags['no-headers'], plain, env: process.env}) === 'ink') {
      // On a terminal: the ink view, drawn once (its own chunk: pipes never load ink).
      const {renderSimulateView} = await import('../render/simulate-view.js')
      return this.out(renderSimulateView({report, style, columns: process.stdout.columns || 80, allStrategies: o.strategies !== undefined || o.keys !== undefined}))
    }
    this.out(renderSimulate(report, {format: flags.output, style, noHeaders: flags['no-headers']}))
  }
}

export type SimulateFlags = Interfaces.InferredFlags<typeof Simulate.flags>
