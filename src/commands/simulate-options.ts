// simulate's options: the flags parsed and checked before any I/O, in the order simulate has
// always reported them. Loaded by simulate's run(), not with the command class.
import {CliError, ExitCode} from '../errors.js'
import {DATASET_DEFAULT_STRATEGIES, STRATEGIES, STRATEGY_ALIASES, type StrategyName} from '../simulate/names.js'
import type {SimulateOptions} from '../simulate/simulate.js'
import {validateTopologyKeys} from '../simulate/strategies/topology-keys.js'
import type {WhatIfs} from '../simulate/run.js'
import {parseServiceArgs} from './base.js'
import {checkKubeVersion, parseTraffic} from './flag-values.js'
import type {SimulateFlags} from './simulate.js'
import {parseRolloutFlag, parseWorkloadFlag, type RolloutFlag} from './simulate-rollout.js'
import type {WorkloadKind} from '../simulate/workload.js'

export interface SimulateRequest {
  names: string[]
  /** --strategies as given (undefined: the default set). */
  strategies: StrategyName[] | undefined
  keys: string[] | undefined
  whatIfs: WhatIfs
  rollout: RolloutFlag | undefined
  workload: {kind: WorkloadKind; name: string} | undefined
  /** The engine's options, before the server version is known. */
  engine: SimulateOptions
  /** --dataset: the dataset and the strategies to score over it. */
  dataset?: {spec: string; strategies: StrategyName[] | undefined}
  /** One line each, for stderr: an old strategy name was given (its new name is used). */
  warnings: string[]
}

export function simulateOptions(flags: SimulateFlags, argv: string[]): SimulateRequest {
  const names = parseServiceArgs(argv)
  const warnings: string[] = []
  const strategies = parseStrategies(flags.strategies, warnings)
  const traffic = flags.traffic === undefined ? undefined : parseTraffic(flags.traffic)
  const keys = flags.keys === undefined ? undefined : flags.keys.split(',').map((k) => k.trim())
  if (keys !== undefined) {
    const problem = validateTopologyKeys(keys)
    if (problem !== null) throw new CliError(`--keys: ${problem}`, ExitCode.USAGE)
  }
  checkKubeVersion(flags['kube-version'])
  if (flags.padding !== undefined && flags['previous-mode'] === undefined) throw new CliError('--padding needs --previous-mode subsetting|disabled', ExitCode.USAGE)
  const addNodes = (flags['add-node'] ?? []).map(parseAddNode)
  const rollout = flags.rollout === undefined ? undefined : parseRolloutFlag(flags.rollout)
  const workload = flags.workload === undefined ? undefined : parseWorkloadFlag(flags.workload)
  if (workload !== undefined && rollout === undefined)
    throw new CliError('--workload picks the workload whose rollout --rollout steps through: add --rollout from-workload', ExitCode.USAGE)
  if (rollout !== undefined && flags.replicas !== undefined && rollout.overrides.replicas === undefined) {
    // Scaled first: the rollout is of the scaled workload.
    rollout.overrides.replicas = flags.replicas
    rollout.keys.push('replicas')
  }
  if (strategies !== undefined && flags.research) throw new CliError('--research adds the research strategies to the default set: drop it, or drop --strategies', ExitCode.USAGE)
  // Without --strategies the engine picks the default set for the server's version (simulate.ts
  // strategiesFor): --research adds KEP-2004's strategies, --keys adds topology-keys.
  const chosen = strategies
  const whatIfs: WhatIfs = {withoutZones: flags['without-zone'] ?? [], drain: flags.drain ?? [], drainSelector: flags['drain-selector'], addNodes, replicas: flags.replicas}
  const engine: SimulateOptions = {
    trafficModel: flags['traffic-model'],
    traffic,
    kubeVersion: flags['kube-version'],
    topologyKeys: keys,
    previousMode: flags['previous-mode'],
    padding: flags.padding,
  }
  if (flags['per-node']) {
    const scoresKeys = chosen === undefined ? keys !== undefined : chosen.includes('topology-keys')
    if (!scoresKeys) throw new CliError('--per-node lists the routes of topology-keys: add --keys k1,k2,* (or topology-keys to --strategies)', ExitCode.USAGE)
    if (flags.dataset !== undefined) throw new CliError('--per-node lists the client nodes of a cluster, not of a dataset: drop --dataset', ExitCode.USAGE)
    engine.perNode = true
  }
  if (chosen !== undefined) engine.strategies = chosen
  if (flags.research) engine.research = true
  const request: SimulateRequest = {names, strategies, keys, whatIfs, rollout, workload, engine, warnings}
  if (flags.dataset !== undefined) {
    if (names.length > 0 || flags['from-file'] !== undefined) throw new CliError('--dataset scores a dataset: drop the Service names and --from-file', ExitCode.USAGE)
    for (const w of ['without-zone', 'drain', 'drain-selector', 'replicas', 'add-node', 'rollout', 'workload'] as const) {
      if (flags[w] !== undefined) throw new CliError(`--${w} works on a cluster, not on a dataset: use --synthetic without --dataset`, ExitCode.USAGE)
    }
    if (flags.disruption) throw new CliError('--disruption works on a cluster, not on a dataset', ExitCode.USAGE)
    // the rows are counts per zone: --dataset models the newest Kubernetes, traffic from node counts
    if (flags['kube-version'] !== undefined) throw new CliError('--kube-version applies to a cluster: --dataset models the newest Kubernetes', ExitCode.USAGE)
    if (flags.traffic !== undefined) throw new CliError("--traffic applies to a cluster: a dataset's traffic comes from its node counts", ExitCode.USAGE)
    request.dataset = {spec: flags.dataset, strategies: chosen ?? (keys !== undefined ? [...DATASET_DEFAULT_STRATEGIES, 'topology-keys'] : undefined)}
  }
  return request
}

/**
 * --strategies a,b,...: the names of docs/simulate.md. The names used before issue 19
 * (upstream-auto, same-zone, same-node, random) still work: each adds one warning line naming the
 * new name to `warnings`.
 */
export function parseStrategies(text: string | undefined, warnings: string[] = []): StrategyName[] | undefined {
  if (text === undefined) return undefined
  const out: StrategyName[] = []
  for (const raw of text.split(',')) {
    let s = raw.trim()
    if (s === '') continue
    const renamed = STRATEGY_ALIASES[s]
    if (renamed !== undefined) {
      warnings.push(`--strategies: "${s}" is now called "${renamed}" (the old name will be removed); using ${renamed}`)
      s = renamed
    }
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
  if (!/^\d+(\.\d+)?m?$/.test(cpu) || Number(cpu.replace('m', '')) <= 0)
    throw new CliError(`--add-node: cpu must be a positive quantity like 4 or 3500m, got "${cpu}"`, ExitCode.USAGE)
  const name = m.get('name')
  return name === undefined ? {zone, cpu} : {zone, cpu, name}
}
