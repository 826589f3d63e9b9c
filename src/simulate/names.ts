// The names of simulate's strategies and dataset families: what the command's flags list,
// apart from the engine, so that loading the command class does not load the simulator.
//
// One vocabulary with apply, plan and explain (issue 19): a strategy a cluster setting produces
// carries that setting's name (topology-mode Auto, spec.trafficDistribution PreferClose /
// PreferSameZone / PreferSameNode, and `none` for no topology-aware routing). The others are
// research: KEP-2004's subsetting variants and KEP-536's topologyKeys (removed in 1.22); no
// cluster setting produces them, so they are scored only when asked for.

/** Strategies a Service can be set to, in the order ties rank. */
export const CLUSTER_STRATEGIES = ['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'none'] as const
/** KEP-2004 (subsetting) and KEP-536 (topologyKeys) research strategies. */
export const RESEARCH_STRATEGIES = ['local', 'local-shared', 'local-weighted', 'local-opt', 'topology-keys'] as const
export const STRATEGIES = [...CLUSTER_STRATEGIES, ...RESEARCH_STRATEGIES] as const
export type StrategyName = (typeof STRATEGIES)[number]

/** The strategies the KEP-2004 evaluation tool runs at count level; `none` is its baseline ("Original", every endpoint from everywhere). */
export const KEP2004_STRATEGIES = ['none', 'local', 'local-shared', 'local-weighted', 'local-opt'] as const
export type Kep2004Strategy = (typeof KEP2004_STRATEGIES)[number]

/**
 * A dataset is the KEP-2004 evaluation: its default set is the cluster settings (newest Kubernetes)
 * and the tool's strategies, research included; topology-keys only with --keys or --strategies.
 */
export const DATASET_DEFAULT_STRATEGIES: readonly StrategyName[] = ['Auto', 'PreferSameZone', 'PreferSameNode', ...KEP2004_STRATEGIES]

/** The names simulate used before issue 19, still accepted with a warning naming the new one. */
export const STRATEGY_ALIASES: Readonly<Record<string, StrategyName>> = {
  'upstream-auto': 'Auto',
  'same-zone': 'PreferSameZone',
  'same-node': 'PreferSameNode',
  random: 'none',
}

/** What tables and JSON say about a research strategy. */
export const RESEARCH_NOTE = 'no cluster setting produces this'

export const isResearch = (s: StrategyName): boolean => (RESEARCH_STRATEGIES as readonly string[]).includes(s)

export const FAMILIES = ['representative', 'range', 'range-a', 'range-high', 'balanced', 'unbalanced'] as const
export type Family = (typeof FAMILIES)[number]
