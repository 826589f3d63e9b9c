// kubectl topology nodes: the cluster-wide basis of the topology-mode Auto heuristic.
import * as Flags from '@oclif/core/flags'
import {CliError, ExitCode} from '../errors.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {NodesFormat} from '../render/nodes.js'
import {commonFlags, connectionFlags, TopologyCommand} from './base.js'

export default class Nodes extends TopologyCommand {
  static override summary = 'Show the nodes behind topology-mode Auto: zones, CPU shares, counted and ignored nodes, and the nodes that disable hints for every Service.'
  static override description = `The EndpointSlice controller computes each zone's share of allocatable CPU from the ready worker nodes (SetNodes): control-plane nodes and nodes that are not Ready are ignored; a ready worker without a topology.kubernetes.io/zone label or without allocatable CPU disables topology-mode Auto hints for every Service in the cluster; counted nodes in fewer than 2 zones do too.

Also lists "threshold cliffs": single nodes whose loss would leave counted nodes in fewer than 2 zones.`

  static override examples = [
    {description: 'The live cluster', command: '<%= config.bin %> nodes'},
    {description: 'From a snapshot file, as JSON', command: '<%= config.bin %> nodes --from-file examples/three-zones.yaml -o json'},
  ]

  static override flags = {
    ...connectionFlags,
    ...commonFlags,
    'from-file': Flags.string({char: 'f', description: 'Read a snapshot file instead of a live cluster ("-" for stdin).'}),
    output: Flags.option({char: 'o', options: ['table', 'wide', 'json', 'yaml'] as const, default: 'table' as const, description: 'Output format.'})(),
    'no-headers': Flags.boolean({description: 'Omit table headers.', default: false}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Nodes)
    const [{nodesReport}, {renderNodes}] = await Promise.all([import('../explain/nodes-report.js'), import('../render/nodes.js')])
    let state: Pick<ClusterState, 'nodes' | 'nodesReadable'>
    if (flags['from-file'] !== undefined) {
      if (flags.kubeconfig || flags.context) {
        throw new CliError('--from-file reads a snapshot; --kubeconfig and --context apply only to a live cluster', ExitCode.USAGE)
      }
      const {readSnapshotFile} = await import('../cluster/snapshot/snapshot.js')
      state = await readSnapshotFile(flags['from-file'])
    } else {
      const [{loadKubeConfig, parseDuration}, {readNodes}] = await Promise.all([import('../cluster/kubeconfig.js'), import('../cluster/nodes.js')])
      const ctx = await loadKubeConfig({
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        requestTimeoutMs: parseDuration(flags['request-timeout'] ?? '30s'),
      })
      state = await readNodes(ctx)
    }
    const report = nodesReport(state)
    const format: NodesFormat = flags.output
    this.out(renderNodes(report, {format, style: this.style(flags.color), noHeaders: flags['no-headers']}))
  }
}
