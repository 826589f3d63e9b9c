// kubectl topology simulate: options -> validation -> read (live, snapshot, synthetic, dataset) ->
// what-ifs -> engine -> render.
import * as Flags from '@oclif/core/flags'
import {CliError, ExitCode} from '../errors.js'
import type {DatasetRow} from '../simulate/dataset.js'
import type {SimulateOptions} from '../simulate/simulate.js'
import {FAMILIES, STRATEGIES, type Family, type StrategyName} from '../simulate/names.js'
import type {Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {DatasetReport, ServiceReport, SimulateReport} from '../render/simulate.js'
import {commonFlags, parseServiceArgs, readFlags, readState, TopologyCommand} from './base.js'
import {checkKubeVersion, parseTraffic} from './flag-values.js'

export default class Simulate extends TopologyCommand {
  static override summary = 'Compare topology strategies and what-ifs (zone loss, drain, scale, rollout) before changing anything.'
  static override usage = 'simulate [svc/NAME ...] [flags]'
  static override description = `Scores every strategy on a Service's real state (live, snapshot) or on synthetic clusters, with the KEP-2004 evaluation tool's measures: in-zone traffic, max and mean per-endpoint overload, number of EndpointSlices, zones where kube-proxy falls back, and the weighted score (45% in-zone, 20% max overload, 20% mean absolute deviation, 15% slices).

Strategies: ${STRATEGIES.join(', ')}. See docs/simulate.md for the exact definitions.`

  static override examples = [
    {description: 'Rank every strategy for one Service', command: '<%= config.bin %> simulate svc/web'},
    {description: 'From a snapshot, as if zone eu-west-1a were lost', command: '<%= config.bin %> simulate svc/checkout -n shop -f examples/three-zones.yaml --without-zone eu-west-1a'},
    {description: 'Step through a rolling update', command: '<%= config.bin %> simulate svc/web --rollout maxSurge=25%,maxUnavailable=0'},
    {description: 'Step through the rollout of the Deployment or StatefulSet behind the Service, as it is configured', command: '<%= config.bin %> simulate svc/web --rollout from-workload'},
    {description: 'How many pods each zone can lose', command: '<%= config.bin %> simulate svc/web --disruption'},
    {description: 'KEP-536 topologyKeys with a rack label', command: '<%= config.bin %> simulate svc/web --strategies topology-keys --keys example.com/rack,topology.kubernetes.io/zone'},
    {description: 'One synthetic cluster', command: '<%= config.bin %> simulate --synthetic --seed 7'},
    {description: 'Score every strategy over the evaluation tool\'s representative rows', command: '<%= config.bin %> simulate --dataset representative -o csv'},
  ]

  static override strict = false
  static override args = {}

  static override flags = {
    ...readFlags,
    ...commonFlags,
    output: Flags.option({char: 'o', options: ['table', 'wide', 'json', 'yaml', 'csv'] as const, default: 'table' as const, description: 'Output format.'})(),
    'no-headers': Flags.boolean({description: 'Omit table and CSV headers.', default: false}),
    plain: Flags.boolean({description: 'Plain text tables even on a terminal (no bars view).', default: false}),
    strategies: Flags.string({description: 'Strategies to compare, comma-separated (default: all but topology-keys; --keys adds it).'}),
    'traffic-model': Flags.option({options: ['cpu', 'nodes', 'uniform'] as const, default: 'cpu' as const, description: 'Where traffic comes from: zone allocatable CPU (upstream\'s assumption), node count (the evaluation tool\'s), or uniform per zone.'})(),
    traffic: Flags.string({description: 'Traffic share per zone, e.g. zone-a=0.5,zone-b=0.3,zone-c=0.2 (overrides --traffic-model).'}),
    keys: Flags.string({description: 'topology-keys: ordered node label keys, "*" last for "anywhere" (default kubernetes.io/hostname,topology.kubernetes.io/zone,*).'}),
    'previous-mode': Flags.option({options: ['subsetting', 'disabled'] as const, description: 'local: apply KEP-2004\'s padding (hysteresis) given the mode the Service was in.'})(),
    padding: Flags.integer({description: 'local with --previous-mode: the padding (default: the number of zones).', min: 0}),
    'without-zone': Flags.string({description: 'What-if: the zone is lost (its nodes and endpoints are gone). Repeatable.', multiple: true}),
    drain: Flags.string({description: 'What-if: drain this node (its pods are recreated elsewhere). Repeatable.', multiple: true}),
    'drain-selector': Flags.string({description: 'What-if: drain the nodes matching this label selector.'}),
    replicas: Flags.integer({description: 'What-if: scale to N ready endpoints, spread across zones as today.', min: 0}),
    'add-node': Flags.string({description: 'What-if: add a Ready node, zone=Z,cpu=C[,name=N]. Repeatable.', multiple: true}),
    rollout: Flags.string({description: 'Step through a rollout: from-workload (the Deployment/StatefulSet behind the Service) and/or KEY=VALUE overrides, e.g. maxSurge=25%,maxUnavailable=0[,replicas=N], partition=N, type=Recreate.'}),
    workload: Flags.string({description: 'With --rollout: the workload to read when several are behind the Service, deployment/NAME or statefulset/NAME.'}),
    disruption: Flags.boolean({description: 'Per zone: how many pods it can lose before hints drop, a zone has no local endpoint, or the first strategy falls back.', default: false}),
    synthetic: Flags.boolean({description: 'Simulate a synthetic cluster from --seed (or, with --dataset, a generated dataset).', default: false}),
    dataset: Flags.string({description: `Score the strategies over a dataset: a CSV file in the evaluation tool's format, or a family (${FAMILIES.join(', ')}).`}),
    seed: Flags.string({description: 'Seed for synthetic clusters and seeded dataset families.', default: '1'}),
    clusters: Flags.integer({description: 'Rows to generate for seeded families (default 1000); a cap for the others.', min: 1}),
    zones: Flags.integer({description: 'Zones per synthetic cluster (default 3).', min: 1, max: 26}),
    'per-cluster': Flags.boolean({description: 'With --dataset -o csv: one row per cluster and strategy (the tool\'s output columns) instead of aggregates.', default: false}),
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Simulate)
    // The simulator loads here, not with the command class (docs/design.md "Startup").
    const [{generate}, {selectOrFail}, {SelectorError}, sim, {rowToClusterState}, {validateTopologyKeys}, whatif, {chooseSimulateView, renderSimulate}] = await Promise.all([
      import('../simulate/dataset.js'),
      import('./select.js'),
      import('../upstream/apimachinery/labels.js'),
      import('../simulate/simulate.js'),
      import('../simulate/dataset-run.js'),
      import('../simulate/strategies/topology-keys.js'),
      import('../simulate/whatif.js'),
      import('../render/simulate.js'),
    ])
    const {disruption, evaluateSteps, simulateService, SimulateInputError} = sim
    const {addNode, drain, removeEndpoint, rollout, scaleReplicas, withoutZone, WhatIfError} = whatif
    const names = parseServiceArgs(argv as string[])
    const strategies = parseStrategies(flags.strategies)
    const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
    const keys = flags.keys === undefined ? undefined : flags.keys.split(',').map((k) => k.trim())
    if (keys !== undefined) {
      const problem = validateTopologyKeys(keys)
      if (problem !== null) throw new CliError(`--keys: ${problem}`, ExitCode.USAGE)
    }
    checkKubeVersion(flags['kube-version'])
    if (flags.padding !== undefined && flags['previous-mode'] === undefined) throw new CliError('--padding needs --previous-mode subsetting|disabled', ExitCode.USAGE)
    const addNodes = (flags['add-node'] ?? []).map(parseAddNode)
    const ro = flags.rollout === undefined && flags.workload === undefined ? undefined : await import('./simulate-rollout.js')
    const rolloutFlag = flags.rollout === undefined ? undefined : ro!.parseRolloutFlag(flags.rollout)
    const workloadFlag = flags.workload === undefined ? undefined : ro!.parseWorkloadFlag(flags.workload)
    if (workloadFlag !== undefined && rolloutFlag === undefined) throw new CliError('--workload picks the workload whose rollout --rollout steps through: add --rollout from-workload', ExitCode.USAGE)
    if (rolloutFlag !== undefined && flags.replicas !== undefined && rolloutFlag.overrides.replicas === undefined) {
      // Scaled first: the rollout is of the scaled workload.
      rolloutFlag.overrides.replicas = flags.replicas
      rolloutFlag.keys.push('replicas')
    }

    if (flags.dataset !== undefined) {
      if (names.length > 0 || flags['from-file'] !== undefined) throw new CliError('--dataset scores a dataset: drop the Service names and --from-file', ExitCode.USAGE)
      const whatIfs = ['without-zone', 'drain', 'drain-selector', 'replicas', 'add-node', 'rollout', 'workload'] as const
      for (const w of whatIfs) if (flags[w] !== undefined) throw new CliError(`--${w} works on a cluster, not on a dataset: use --synthetic without --dataset`, ExitCode.USAGE)
      if (flags.disruption) throw new CliError('--disruption works on a cluster, not on a dataset', ExitCode.USAGE)
      // the rows are counts per zone: --dataset models the newest Kubernetes, traffic from node counts
      if (flags['kube-version'] !== undefined) throw new CliError('--kube-version applies to a cluster: --dataset models the newest Kubernetes', ExitCode.USAGE)
      if (flags.traffic !== undefined) throw new CliError('--traffic applies to a cluster: a dataset\'s traffic comes from its node counts', ExitCode.USAGE)
      const chosen = strategies ?? (keys !== undefined ? [...STRATEGIES] : undefined)
      await this.runDataset(flags.dataset, chosen, keys, flags)
      return
    }

    const opts: SimulateOptions = {
      trafficModel: flags['traffic-model'],
      traffic,
      kubeVersion: flags['kube-version'],
      topologyKeys: keys,
      previousMode: flags['previous-mode'],
      padding: flags.padding,
    }
    if (strategies !== undefined) opts.strategies = strategies
    else if (keys !== undefined) opts.strategies = [...STRATEGIES]

    let state: ClusterState
    let services: Service[]
    let source: SimulateReport['source']
    if (flags.synthetic) {
      if (flags['from-file'] !== undefined) throw new CliError('--synthetic and --from-file are two different inputs: pick one', ExitCode.USAGE)
      const row = [...generate('unbalanced', {seed: flags.seed, count: 1, zones: flags.zones ?? 3})][0] as DatasetRow
      state = rowToClusterState(row)
      services = state.services
      source = 'synthetic'
    } else {
      if (names.length === 0 && !flags['all-namespaces'] && flags.selector === undefined) {
        throw new CliError('name a Service (svc/NAME), select Services with -l SELECTOR or -A, or use --synthetic / --dataset', ExitCode.USAGE)
      }
      if (names.length > 0 && flags.selector !== undefined) throw new CliError('Service names cannot be combined with -l: use one or the other', ExitCode.USAGE)
      const read = await readState({flags, serviceNames: names, withWorkloads: rolloutFlag?.fromWorkload || workloadFlag !== undefined ? 'required' : undefined})
      for (const w of read.warnings) this.note(`Warning: ${w}`)
      state = read.state
      source = read.source
      if (opts.kubeVersion === undefined && state.serverVersion !== undefined) opts.kubeVersion = state.serverVersion
      services = await selectOrFail({...read, state}, names, flags)
    }
    if (workloadFlag !== undefined && services.length > 1) throw new CliError('--workload names the workload of one Service: name one Service (svc/NAME)', ExitCode.USAGE)

    const whatIf: string[] = []
    const reports: ServiceReport[] = []
    try {
      for (const svc of services) {
        let s = state
        for (const z of flags['without-zone'] ?? []) s = withoutZone(s, z)
        if ((flags.drain ?? []).length > 0 || flags['drain-selector'] !== undefined) s = drain(s, svc, {nodes: flags.drain, selector: flags['drain-selector']})
        for (const n of addNodes) s = addNode(s, n)
        if (flags.replicas !== undefined) s = scaleReplicas(s, svc, flags.replicas)
        const report: ServiceReport = simulateService(s, svc, opts)
        if (rolloutFlag !== undefined) {
          const r = ro!.resolveRollout(s, svc, rolloutFlag, workloadFlag, {readyEndpoints: report.input.readyEndpoints, manyServices: services.length > 1, source})
          if ('warning' in r) this.note(`Warning: ${r.warning}`)
          else {
            report.rolloutParameters = r.plan
            report.rollout = evaluateSteps(rollout(s, svc, r.spec), svc, opts)
          }
        }
        if (flags.disruption) {
          const primary = opts.strategies?.[0] ?? 'upstream-auto'
          report.disruption = disruption(s, svc, opts, primary, (st, zone) => {
            const next = structuredClone(st)
            removeEndpoint(next, svc, (e) => e.zone === zone && e.conditions?.ready === true)
            return next
          })
        }
        reports.push(report)
      }
    } catch (e) {
      if (e instanceof WhatIfError || e instanceof SimulateInputError) throw new CliError(e.message, ExitCode.USAGE)
      if (e instanceof SelectorError) throw new CliError(`--drain-selector: ${e.message}`, ExitCode.USAGE)
      throw e
    }
    for (const z of flags['without-zone'] ?? []) whatIf.push(`without zone ${z}`)
    for (const n of flags.drain ?? []) whatIf.push(`drain ${n}`)
    if (flags['drain-selector'] !== undefined) whatIf.push(`drain nodes ${flags['drain-selector']}`)
    for (const n of addNodes) whatIf.push(`add node zone=${n.zone},cpu=${n.cpu}`)
    if (flags.replicas !== undefined) whatIf.push(`replicas ${flags.replicas}`)

    const report: SimulateReport = {
      apiVersion: 'kubectl-topology.io/v1',
      kind: 'TopologySimulation',
      source,
      trafficModel: traffic !== undefined ? 'custom' : flags['traffic-model'],
      whatIf,
      services: reports,
    }
    if (reports.length === 0 && (flags.output === 'table' || flags.output === 'wide')) {
      this.note('No Services found.')
      return
    }
    const style = this.style(flags.color)
    if (chooseSimulateView({format: flags.output, isTTY: Boolean(process.stdout.isTTY), noHeaders: flags['no-headers'], plain: flags.plain, env: process.env}) === 'ink') {
      // On a terminal: the ink view, drawn once (its own chunk: pipes never load ink).
      const {renderSimulateView} = await import('../render/simulate-view.js')
      this.out(renderSimulateView({report, style, columns: process.stdout.columns || 80, allStrategies: strategies !== undefined || keys !== undefined}))
      return
    }
    this.out(renderSimulate(report, {format: flags.output, style, noHeaders: flags['no-headers']}))
  }

  private async runDataset(
    spec: string,
    chosen: StrategyName[] | undefined,
    topologyKeys: string[] | undefined,
    flags: {seed: string; clusters?: number; zones?: number; output: 'table' | 'wide' | 'json' | 'yaml' | 'csv'; 'no-headers': boolean; 'per-cluster': boolean},
  ): Promise<void> {
    const [{readFile}, {DatasetParseError, generate, parseDatasetCsv}, {Aggregator, DATASET_DEFAULT_STRATEGIES, DATASET_NOTES, scoreRow}, {ROW_CSV_HEADER, renderDataset, rowCsv}] = await Promise.all([
      import('node:fs/promises'),
      import('../simulate/dataset.js'),
      import('../simulate/dataset-run.js'),
      import('../render/simulate.js'),
    ])
    let rows: Iterable<DatasetRow>
    let seeded = false
    if ((FAMILIES as readonly string[]).includes(spec)) {
      seeded = spec === 'balanced' || spec === 'unbalanced'
      rows = generate(spec as Family, {seed: flags.seed, count: flags.clusters, zones: flags.zones})
    } else {
      let text: string
      try {
        text = await readFile(spec, 'utf8')
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code
        throw new CliError(
          code === 'ENOENT' ? `--dataset: "${spec}" is neither a file nor a dataset family (${FAMILIES.join(', ')})` : `--dataset: cannot read ${spec}: ${(e as Error).message}`,
          ExitCode.INPUT,
        )
      }
      try {
        rows = parseDatasetCsv(text)
      } catch (e) {
        if (e instanceof DatasetParseError) throw new CliError(`${spec}:${e.line}: ${e.message}`, ExitCode.INPUT)
        throw e
      }
      if (flags.clusters !== undefined) rows = [...rows].slice(0, flags.clusters)
    }
    const strategies = chosen ?? [...DATASET_DEFAULT_STRATEGIES]
    const notes = strategies.flatMap((s) => (DATASET_NOTES[s] !== undefined ? [`${s}: ${DATASET_NOTES[s]}`] : []))
    const agg = new Aggregator(strategies)
    const perCluster = flags['per-cluster']
    if (perCluster && flags.output !== 'csv') throw new CliError('--per-cluster needs -o csv', ExitCode.USAGE)
    const buf: string[] = perCluster && !flags['no-headers'] ? [ROW_CSV_HEADER.join(',')] : []
    let count = 0
    for (const row of rows) {
      let scores
      try {
        scores = scoreRow(row, strategies, {topologyKeys})
      } catch (e) {
        throw new CliError(`--dataset: row "${row.name}": ${(e as Error).message}`, ExitCode.INPUT)
      }
      count++
      for (const r of scores) {
        agg.add(r)
        if (perCluster) buf.push(rowCsv(r))
      }
      if (perCluster && buf.length >= 4096) {
        process.stdout.write(buf.join('\n') + '\n')
        buf.length = 0
      }
    }
    if (flags.output !== 'json' && flags.output !== 'yaml') for (const n of notes) this.note(`Note: ${n}`)
    if (perCluster) {
      if (buf.length > 0) process.stdout.write(buf.join('\n') + '\n')
      return
    }
    const report: DatasetReport = {
      apiVersion: 'kubectl-topology.io/v1',
      kind: 'TopologySimulationDataset',
      dataset: spec,
      seed: seeded ? flags.seed : null,
      clusters: count,
      notes,
      aggregates: agg.result(),
    }
    this.out(renderDataset(report, {format: flags.output, noHeaders: flags['no-headers']}))
  }
}

export function parseStrategies(text: string | undefined): StrategyName[] | undefined {
  if (text === undefined) return undefined
  const out: StrategyName[] = []
  for (const raw of text.split(',')) {
    const s = raw.trim()
    if (s === '') continue
    if (!(STRATEGIES as readonly string[]).includes(s)) throw new CliError(`--strategies: unknown strategy "${s}" (known: ${STRATEGIES.join(', ')})`, ExitCode.USAGE)
    if (!out.includes(s as StrategyName)) out.push(s as StrategyName)
  }
  if (out.length === 0) throw new CliError('--strategies: name at least one strategy', ExitCode.USAGE)
  return out
}

function keyValues(text: string, flag: string): Map<string, string> {
  const m = new Map<string, string>()
  for (const part of text.split(',')) {
    const kv = part.trim().match(/^([a-zA-Z]+)=(.+)$/)
    if (!kv) throw new CliError(`${flag}: invalid entry "${part.trim()}": expected KEY=VALUE`, ExitCode.USAGE)
    m.set(kv[1]!, kv[2]!.trim())
  }
  return m
}

export function parseAddNode(text: string): {zone: string; cpu: string; name?: string} {
  const m = keyValues(text, '--add-node')
  for (const k of m.keys()) if (!['zone', 'cpu', 'name'].includes(k)) throw new CliError(`--add-node: unknown key "${k}" (use zone=Z,cpu=C[,name=N])`, ExitCode.USAGE)
  const zone = m.get('zone')
  const cpu = m.get('cpu')
  if (!zone || !cpu) throw new CliError('--add-node: zone= and cpu= are both needed, e.g. zone=zone-a,cpu=4', ExitCode.USAGE)
  if (!/^\d+(\.\d+)?m?$/.test(cpu) || Number(cpu.replace('m', '')) <= 0) throw new CliError(`--add-node: cpu must be a positive quantity like 4 or 3500m, got "${cpu}"`, ExitCode.USAGE)
  const name = m.get('name')
  return name === undefined ? {zone, cpu} : {zone, cpu, name}
}
