// kubectl topology apply: options -> validation -> read -> plan (engine) -> preview (render)
// -> permission check -> journal -> writes -> (--wait) check. docs/apply.md is the guide.
import type {Interfaces} from '@oclif/core'
import * as Flags from '@oclif/core/flags'
import {MODES, STRATEGIES} from '../apply/plan.js'
import {commonFlags, connectionFlags, TopologyCommand} from './base.js'
import {MAX_CONFLICT_RETRIES, writeFlags} from './write-flags.js'

export default class Apply extends TopologyCommand {
  static override summary = 'Turn topology-aware routing on or off for a Service, or write hints onto its EndpointSlices, safely.'
  static override usage = 'apply svc/NAME (--mode MODE | --hints) [flags]'
  static override description = `Service mode (the supported way): --mode sets or removes the service.kubernetes.io/topology-mode annotation and/or spec.trafficDistribution with server-side apply (field manager kubectl-topology), and removes the deprecated topology-aware-hints annotation when it would override the choice. Before writing it shows the change and the predicted outcome: explain's table for the Service as it will be.

Hints mode: --hints computes hints (--strategy) and writes them onto the Service's EndpointSlices. The EndpointSlice controller rewrites hints on the slices it manages at its next sync, so those are refused unless --force.

Nothing is written without --yes or a confirmation on a terminal. Every write carries the resourceVersion it read; on a conflict the plan is re-read, shown again and retried (up to ${MAX_CONFLICT_RETRIES} times). What was there before is recorded in a local journal, and \`kubectl topology reset\` puts it back. See docs/apply.md.`

  static override examples = [
    {description: 'Preview turning on same-zone routing', command: '<%= config.bin %> apply svc/web -n shop --mode PreferSameZone'},
    {description: 'Write it, and wait until the controller has written the predicted hints', command: '<%= config.bin %> apply svc/web -n shop --mode PreferSameZone --yes --wait'},
    {description: 'CI: let the API server validate, print the plan as JSON, exit 1 when something would change', command: '<%= config.bin %> apply svc/web --mode Auto --dry-run=server -o json --exit-code'},
    {description: 'Hints on hand-made EndpointSlices of a Service without a selector', command: '<%= config.bin %> apply svc/db --hints --strategy same-zone --yes'},
    {description: 'Preview against a snapshot file', command: '<%= config.bin %> apply svc/checkout -n shop --mode PreferSameZone --from-file examples/three-zones.yaml'},
    {description: 'Undo', command: '<%= config.bin %> reset svc/web -n shop --yes'},
  ]

  static override strict = false

  static override flags = {
    ...connectionFlags,
    namespace: Flags.string({char: 'n', description: 'Namespace (default: the context\'s namespace, else "default").', helpGroup: 'CLUSTER'}),
    'from-file': Flags.string({char: 'f', description: 'Preview against a snapshot file (implies --dry-run=client; writing needs a live cluster).'}),
    'kube-version': Flags.string({description: 'Predict as this Kubernetes version (default: the API server\'s).'}),
    mode: Flags.option({options: MODES, description: 'Service mode: Auto (topology-mode annotation), PreferSameZone, PreferSameNode, PreferClose (spec.trafficDistribution), or off.'})(),
    hints: Flags.boolean({description: 'Hints mode: write hints onto the Service\'s EndpointSlices.', default: false}),
    strategy: Flags.option({
      options: STRATEGIES,
      description: 'With --hints: upstream-auto (topology-mode Auto\'s CPU-proportional allocation), same-zone or same-node (the PreferSameZone / PreferSameNode heuristic). Default: same-zone.',
    })(),
    force: Flags.boolean({description: 'Service mode: take over fields another field manager set (server-side apply force). Hints mode: also write controller-managed EndpointSlices (until the controller\'s next sync).', default: false}),
    ...writeFlags,
    wait: Flags.boolean({description: 'Service mode: after writing, wait for the controller and check that the live hints equal the prediction (exit 1 with the difference if not).', default: false}),
    timeout: Flags.string({description: 'Bound for --wait.', default: '60s'}),
    ...commonFlags,
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Apply)
    // The engine, renderers, journal and cluster writes load only now (docs/design.md "Startup").
    const {runApply} = await import('./apply-run.js')
    await runApply(this, flags, argv as string[])
  }
}

export type ApplyFlags = Interfaces.InferredFlags<typeof Apply.flags>
