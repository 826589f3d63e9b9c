// kubectl topology nodes: the cluster-wide basis of the topology-mode Auto heuristic.
import {escapeTerminal} from '../render/escape.js'
import type {NodesFormat} from '../render/nodes.js'
import {TopologyCommand} from './base.js'
import {commonFlags, connectionFlags, fromFileFlag, noHeadersFlag, outputFlag} from './flags.js'

export default class Nodes extends TopologyCommand {
  static override summary = 'Show the nodes behind topology-mode Auto: zones, CPU shares, counted and ignored nodes, and the nodes that disable hints for every Service.'
  static override description =
    `The EndpointSlice controller computes each zone's share of allocatable CPU from the ready worker nodes (SetNodes): control-plane nodes and nodes that are not Ready are ignored; a ready worker without a topology.kubernetes.io/zone label or without allocatable CPU disables topology-mode Auto hints for every Service in the cluster; counted nodes in fewer than 2 zones do too.

Also lists "threshold cliffs": single nodes whose loss would leave counted nodes in fewer than 2 zones.`

  static override examples = [
    {description: 'The live cluster', command: '<%= config.bin %> nodes'},
    {description: 'From a snapshot file, as JSON', command: '<%= config.bin %> nodes --from-file examples/three-zones.yaml -o json'},
  ]

  static override flags = {
    ...connectionFlags,
    ...commonFlags,
    'from-file': fromFileFlag({description: 'Read a snapshot file instead of a live cluster ("-" for stdin).'}),
    output: outputFlag(['table', 'wide', 'json', 'yaml'], 'table'),
    'no-headers': noHeadersFlag(),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Nodes)
    const [{nodesReport}, {renderNodes}, {openSource}] = await Promise.all([import('../explain/nodes-report.js'), import('../render/nodes.js'), import('../cluster/source.js')])
    const state = await openSource({flags, read: 'nodes'})
    for (const w of state.inputNotes ?? []) this.note(`Warning: ${escapeTerminal(w)}`)
    const format: NodesFormat = flags.output
    this.out(renderNodes(nodesReport(state), {format, style: this.style(flags.color), noHeaders: flags['no-headers']}))
  }
}
