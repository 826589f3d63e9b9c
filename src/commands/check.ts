// kubectl topology check: evaluates Services against policies (a CI gate). Options ->
// validation -> read -> explain -> check (pure, src/check/check.ts) -> render.
import * as Flags from '@oclif/core/flags'
import {ExitCode} from '../errors.js'
import type {CheckPolicies} from '../check/check.js'
import type {CheckFormat} from '../render/check.js'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {clientPathsFlag, commonFlags, dataPlaneFlag, noHeadersFlag, outputFlag, readFlags} from './flags.js'
import {checkKubeVersion, checkTrafficZones, parseCount, parseMaxOverload, parseTraffic} from './flag-values.js'
import {openTrafficSource, readTrafficFrom, trafficFromFlags, trafficFromOptions} from './traffic-from.js'
import {checkSelection, selectOrFail} from './select.js'
import {escapeTerminal} from '../render/escape.js'

export default class Check extends TopologyCommand {
  static override summary = 'Check Services against topology policies (exit 1 when one fails): a gate for CI.'
  static override usage = 'check [svc/NAME ...] [flags]'
  static override description = `Evaluates each selected Service (names, -l, -A, live or --from-file) with the same model as explain, against policies:

  --require-hints            a Service that asks for topology-aware routing gets hints at the controller's next sync
  --no-fallback              no zone with nodes has kube-proxy fall back to every endpoint (now or after the next sync)
  --max-overload RATIO       no zone's expected overload exceeds RATIO (0.2 or 20%)
  --min-endpoints-per-zone N every zone with counted nodes has at least N ready endpoints
  --no-drift                 live hints equal what the controller writes at its next sync
  --lint                     configuration lint: both annotations, ignored values (AUTO), annotation overriding trafficDistribution, a mode the version does not support, topology on a single-zone cluster, internalTrafficPolicy Local with topology
  --require-proxy-topology   clients do not reach a Service through a mesh or gateway proxy that ignores its topology setting (with --client-paths)
  --require-data-plane-hints a Service with hints (or asking for them) runs on a data plane that honours them (Cilium without service topology, kube-router, ... do not)
  --hints-over-range         (plan) the Service's mode keeps hints at every replica count of its HPA's range (without an HPA: 1 to 3x today)
  --hints-through-rollout    (plan) no step of the Deployment's or StatefulSet's rollout loses hints

The data plane is detected (kube-system DaemonSets), recorded in the snapshot, or named with --data-plane; see docs/dataplane.md.

Policies come from flags, a --policy-file (YAML, see docs/check.md), or both (flags add to the file). With none: --require-hints --no-fallback --lint --require-data-plane-hints (and --require-proxy-topology with --client-paths).

Exit codes: 0 every check passed, 1 a check failed, 2 usage, 3 unreadable snapshot or policy file, 4 Service or namespace not found, 5 kubeconfig, 6 API server unreachable, 7 forbidden, 70 internal error.`

  static override examples = [
    {description: 'Gate every Service in a snapshot (no cluster access needed)', command: '<%= config.bin %> check -A --from-file cluster.yaml'},
    {description: 'Frontend Services must keep hints and stay within 20% overload', command: '<%= config.bin %> check -l tier=frontend --require-hints --max-overload 0.2'},
    {
      description: "Hints must survive autoscaling and rollouts (plan's model; reads the workloads, HPAs and PDBs)",
      command: '<%= config.bin %> check -A --from-file cluster.yaml --hints-over-range --hints-through-rollout',
    },
    {description: 'JUnit report for the CI system', command: '<%= config.bin %> check -A --policy-file topology-policy.yaml -o junit > topology-junit.xml'},
  ]

  static override strict = false
  static override args = {}

  static override flags = {
    ...readFlags,
    'data-plane': dataPlaneFlag(),
    ...commonFlags,
    output: outputFlag(['table', 'json', 'yaml', 'junit'], 'table'),
    'no-headers': noHeadersFlag(),
    'require-hints': Flags.boolean({description: 'A Service that asks for topology-aware routing must get hints.', helpGroup: 'POLICY'}),
    'no-fallback': Flags.boolean({description: 'No zone may have kube-proxy fall back to every endpoint.', helpGroup: 'POLICY'}),
    'max-overload': Flags.string({description: 'Largest allowed expected overload of a zone, e.g. 0.2 or 20%.', helpGroup: 'POLICY'}),
    'min-endpoints-per-zone': Flags.string({description: 'Minimum ready endpoints in every zone with counted nodes.', helpGroup: 'POLICY'}),
    'no-drift': Flags.boolean({description: 'Live hints must equal what the controller writes at its next sync.', helpGroup: 'POLICY'}),
    lint: Flags.boolean({description: 'Configuration lint (annotations, trafficDistribution, version, single zone, internalTrafficPolicy).', helpGroup: 'POLICY'}),
    'require-data-plane-hints': Flags.boolean({
      description: 'A Service with hints (or asking for them) must run on a data plane that honours them (skipped when the data plane is unknown).',
      helpGroup: 'POLICY',
    }),
    'require-proxy-topology': Flags.boolean({
      description: 'Clients must not reach a Service through a mesh or gateway proxy that ignores its topology setting (needs --client-paths, or a snapshot taken with it).',
      helpGroup: 'POLICY',
    }),
    'client-paths': clientPathsFlag(),
    'hints-over-range': Flags.boolean({description: "The Service's mode keeps hints at every count of its HPA's range (plan's placement model).", helpGroup: 'POLICY'}),
    'hints-through-rollout': Flags.boolean({description: "No step of the workload's rollout loses hints (plan's rollout model).", helpGroup: 'POLICY'}),
    'policy-file': Flags.string({description: 'YAML file with the policies (kind: CheckPolicy; see docs/check.md). Flags add to it.', helpGroup: 'POLICY'}),
    traffic: Flags.string({description: 'Traffic share per zone for the overload estimate, e.g. zone-a=0.5,zone-b=0.5 (default: zone CPU share).'}),
    ...trafficFromFlags,
    prediction: Flags.option({
      options: ['next-sync', 'fresh'] as const,
      default: 'next-sync' as const,
      description: 'next-sync: what the controller does at its next sync; fresh: as if every EndpointSlice were rewritten.',
    })(),
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Check)
    // Loaded here, not with the command class (docs/design.md "Startup").
    const [{check, DEFAULT_POLICIES, hasAnyPolicy, mergePolicies, needsPlan}, {explainAdvisedEach}, {renderCheck}, {openSource}] = await Promise.all([
      import('../check/check.js'),
      import('../advise/report.js'),
      import('../render/check.js'),
      import('../cluster/source.js'),
    ])
    const names = parseServiceArgs(argv as string[])
    checkSelection(names, flags)
    const fromFlags: CheckPolicies = {}
    if (flags['require-hints']) fromFlags.requireHints = true
    if (flags['no-fallback']) fromFlags.noFallback = true
    if (flags['no-drift']) fromFlags.noDrift = true
    if (flags.lint) fromFlags.lint = true
    if (flags['require-data-plane-hints']) fromFlags.dataPlaneHonoursHints = true
    if (flags['require-proxy-topology']) fromFlags.proxyHonoursTopology = true
    if (flags['hints-over-range']) fromFlags.hintsOverRange = true
    if (flags['hints-through-rollout']) fromFlags.hintsThroughRollout = true
    if (flags['max-overload'] !== undefined) fromFlags.maxOverload = parseMaxOverload(flags['max-overload'])
    if (flags['min-endpoints-per-zone'] !== undefined) fromFlags.minEndpointsPerZone = parseCount(flags['min-endpoints-per-zone'])
    const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
    const trafficFrom = trafficFromOptions(flags)
    checkKubeVersion(flags['kube-version'])
    const file = flags['policy-file'] === undefined ? undefined : await (await import('../cluster/policy-file.js')).readPolicyFile(flags['policy-file'])
    let policies = mergePolicies(file, fromFlags)
    // The defaults, and proxy-topology when the meshes and gateways are read.
    if (!hasAnyPolicy(policies)) policies = {...DEFAULT_POLICIES, ...(flags['client-paths'] ? {proxyHonoursTopology: true} : {})}

    const planned = needsPlan(policies)
    const read = await openSource({
      flags,
      serviceNames: names,
      dataPlane: flags['data-plane'] ?? 'detect',
      clientPaths: flags['client-paths'],
      ...(planned ? {withWorkloads: 'optional', withScaling: 'optional'} : trafficFrom?.template.includes('{workloads}') ? {withWorkloads: 'optional'} : {}),
    })
    for (const w of read.warnings) this.note(`Warning: ${escapeTerminal(w)}`)
    checkTrafficZones(traffic, read.state)
    const services = await selectOrFail(read, names, flags)
    // --traffic-from: each Service's measured client mix, as explain and plan read it (docs/traffic.md).
    const prometheus = trafficFrom === undefined ? undefined : await openTrafficSource(trafficFrom, flags['request-timeout'])
    let measured: Awaited<ReturnType<typeof readTrafficFrom>> | undefined
    try {
      measured = prometheus === undefined ? undefined : await readTrafficFrom(prometheus, trafficFrom!, read.state, services)
    } finally {
      prometheus?.close()
    }

    const kubeVersion = flags['kube-version'] ?? read.state.serverVersion
    // Each Service is explained, advised and checked in turn, and only its check kept: at
    // thousands of Services the whole explained report is not held (as explain -o json).
    const {head, services: each} = explainAdvisedEach(
      read.state,
      services,
      {
        kubeVersion,
        versionSource: flags['kube-version'] ? 'flag' : read.state.serverVersion ? 'server' : 'default',
        traffic,
        ...(measured ? {measured: measured.measured} : {}),
        prediction: flags.prediction,
        ...(read.dataPlane ? {dataPlane: read.dataPlane} : {}),
        ...(read.state.routes ? {routes: {objects: read.state.routes, source: read.source === 'live' ? ('detected' as const) : ('snapshot' as const)}} : {}),
      },
      policies.maxOverload,
    )
    if (measured !== undefined) head.warnings.push(...measured.warnings)
    // Each Service planned when the check reaches it (the first Service of a name, as plan's
    // report lists them), and only its check kept: no plan of 2,000 Services held at once.
    let plans: Parameters<typeof check>[3] = []
    if (planned) {
      const {planForCheck} = await import('../plan/plan.js')
      const first = new Map<string, (typeof services)[number]>()
      for (const s of services) {
        const key = `${s.metadata.namespace ?? 'default'}/${s.metadata.name}`
        if (!first.has(key)) first.set(key, s)
      }
      const opts = {kubeVersion, ...(traffic ? {traffic} : {}), ...(measured ? {measured: measured.measured} : {})}
      plans = (namespace, name) => {
        const svc = first.get(`${namespace}/${name}`)
        return svc === undefined ? undefined : planForCheck(read.state, svc, opts)
      }
    }
    const result = check({...head, services: each}, services, policies, plans)

    // Warnings go to stderr in every format (kubectl's way); -o json and yaml also carry them.
    const errStyle = this.style(flags.color, process.stderr)
    for (const w of result.warnings) this.note(errStyle.warn(`Warning: ${escapeTerminal(w)}`))
    const format: CheckFormat = flags.output
    if (result.services.length === 0 && format === 'table') {
      this.note(flags['all-namespaces'] ? 'No Services found.' : `No Services found in ${read.namespace ?? 'default'} namespace.`)
    } else {
      this.out(renderCheck(result, {format, style: this.style(flags.color), noHeaders: flags['no-headers']}))
    }
    if (!result.passed) this.exit(ExitCode.FINDING)
  }
}
