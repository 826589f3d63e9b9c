// The cluster simulate works on: a synthetic one from --seed, or the selected Services, live or
// from a snapshot (cluster/source.ts), with the Deployments/StatefulSets when --rollout needs them.
import {CliError, ExitCode} from '../errors.js'
import type {SimulateReport} from '../simulate/report.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'
import type {CommandIO} from './base.js'
import type {SimulateFlags} from './simulate.js'
import type {SimulateRequest} from './simulate-options.js'
import {escapeTerminal} from '../render/escape.js'

export async function readInput(io: CommandIO, flags: SimulateFlags, o: SimulateRequest): Promise<{state: ClusterState; services: Service[]; source: SimulateReport['source']}> {
  if (flags.synthetic) {
    if (flags['from-file'] !== undefined) throw new CliError('--synthetic and --from-file are two different inputs: pick one', ExitCode.USAGE)
    const [{generate}, {rowToClusterState}] = await Promise.all([import('../simulate/dataset.js'), import('../simulate/dataset-run.js')])
    const state = rowToClusterState([...generate('unbalanced', {seed: flags.seed, count: 1, zones: flags.zones ?? 3})][0]!)
    return {state, services: state.services, source: 'synthetic'}
  }
  const [{openSource}, {checkSelection, selectOrFail}] = await Promise.all([import('../cluster/source.js'), import('./select.js')])
  // Nothing named: every Service in the namespace, as explain, plan and check take it.
  checkSelection(o.names, flags)
  const read = await openSource({flags, serviceNames: o.names, withWorkloads: o.rollout?.fromWorkload || o.workload !== undefined ? 'required' : undefined})
  for (const w of read.warnings) io.err(`Warning: ${escapeTerminal(w)}`)
  // The server's version, unless --kube-version.
  if (o.engine.kubeVersion === undefined && read.state.serverVersion !== undefined) o.engine.kubeVersion = read.state.serverVersion
  return {state: read.state, services: await selectOrFail(read, o.names, flags), source: read.source}
}
