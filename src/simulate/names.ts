// The names of simulate's strategies and dataset families: what the command's flags list,
// apart from the engine, so that loading the command class does not load the simulator.
export const STRATEGIES = ['upstream-auto', 'same-zone', 'same-node', 'random', 'local', 'local-shared', 'local-weighted', 'local-opt', 'topology-keys'] as const
export type StrategyName = (typeof STRATEGIES)[number]
export const KEP2004_STRATEGIES = ['random', 'local', 'local-shared', 'local-weighted', 'local-opt'] as const
export type Kep2004Strategy = (typeof KEP2004_STRATEGIES)[number]

export const FAMILIES = ['representative', 'range', 'range-a', 'range-high', 'balanced', 'unbalanced'] as const
export type Family = (typeof FAMILIES)[number]
