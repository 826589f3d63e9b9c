// kubectl topology snapshot: save what explain needs (Nodes, Services, EndpointSlices, the
// server version, and the Deployments/StatefulSets behind the Services) to a file, so explain/check/simulate can run later without the cluster.
import * as Flags from '@oclif/core/flags'
import {parseServiceArgs, TopologyCommand} from './base.js'
import {allNamespacesFlag, clientPathsFlag, commonFlags, connectionFlags, namespaceFlag, outputFlag, selectorFlag} from './flags.js'
import {escapeTerminal} from '../render/escape.js'

export default class Snapshot extends TopologyCommand {
  static override summary = 'Save Nodes, Services and EndpointSlices to a file for explain --from-file.'
  static override usage = 'snapshot [svc/NAME ...] [flags]'
  static override description =
    "Writes a kubectl-topology Snapshot (YAML by default) to stdout, with what kubectl-topology reads: a Node's nodeInfo, images, addresses and condition heartbeats and the Pods' uids are left out; of the Deployments and StatefulSets behind the Services (for simulate --rollout from-workload), only replicas, selector, update strategy and pod template labels are kept (without permission to list them: a warning, and none). With --redact, IP addresses, node and pod names are replaced by stable pseudonyms and non-topology annotations are dropped; zones, CPU, conditions and hints are kept."
  static override examples = [
    {description: 'Snapshot every namespace', command: '<%= config.bin %> snapshot -A > cluster.yaml'},
    {description: 'One Service, redacted, to share in a bug report', command: '<%= config.bin %> snapshot svc/web -n shop --redact > web.yaml'},
    {description: 'Use it later', command: '<%= config.bin %> explain svc/web -n shop --from-file web.yaml'},
  ]
  static override strict = false
  static override flags = {
    ...connectionFlags,
    namespace: namespaceFlag({helpGroup: undefined}),
    'all-namespaces': allNamespacesFlag({description: 'All namespaces.'}),
    selector: selectorFlag({description: 'Label selector for Services.'}),
    redact: Flags.boolean({default: false, description: 'Replace addresses and names with stable pseudonyms.'}),
    'client-paths': clientPathsFlag({
      description:
        'Also record the meshes and gateways (control-plane Deployments with their images and flags, the ztunnel DaemonSet, Namespaces, the Pods carrying a proxy, Ingresses, Gateway API classes, Gateways and routes), so explain --from-file says who routes each request.',
    }),
    output: outputFlag(['yaml', 'json'], 'yaml'),
    debug: commonFlags.debug,
  }

  async run(): Promise<void> {
    const {flags, argv} = await this.parse(Snapshot)
    const names = parseServiceArgs(argv as string[])
    const [{checkSelection}, {openSource}] = await Promise.all([import('./select.js'), import('../cluster/source.js')])
    checkSelection(names, flags)
    const read = await openSource({
      flags,
      liveOnly: true,
      serviceNames: names,
      withEvents: true,
      withWorkloads: 'optional',
      withScaling: 'optional',
      dataPlane: 'detect',
      clientPaths: flags['client-paths'],
    })
    for (const w of read.warnings) this.note(`Warning: ${escapeTerminal(w)}`)
    const {serializeSnapshot} = await import('../cluster/snapshot/snapshot.js')
    const [{jsonChunks, writeChunks}, {yamlChunks}] = await Promise.all([import('../render/json-stream.js'), import('../render/yaml-stream.js')])
    const doc = serializeSnapshot(read.state, {redact: flags.redact})
    // Written in pieces as explain's -o json and -o yaml are (render/json-stream.ts,
    // render/yaml-stream.ts): control and format characters escaped (\u009b), the values exact,
    // and no YAML document of the whole cluster in memory (`snapshot -A` of 2,000 Services
    // built one of millions of nodes). No anchors or aliases: an object met twice is written twice.
    await writeChunks(process.stdout, flags.output === 'json' ? jsonChunks(doc) : yamlChunks(doc))
  }
}
