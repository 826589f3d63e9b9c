// simulate's what-if views: a rollout's steps and each zone's disruption budget, each step or loss
// scored by simulateService (simulate.ts) as a Service's real state is.

import type {Service} from '../upstream/api/types.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {StrategyName} from './names.js'
import {simulateService} from './simulate.js'
import type {RolloutStepResult, ServiceSimulation, SimulateOptions, StrategyResult, ZoneDisruption} from './simulate-types.js'

export function evaluateSteps(
  steps: readonly {step: number; action: string; oldPods: number; newReady: number; newNotReady: number; state: ClusterState}[],
  svc: Service,
  opts: SimulateOptions,
): RolloutStepResult[] {
  const wanted = opts.strategies ?? ['Auto']
  const strategies: StrategyName[] = wanted.includes('Auto') ? [...wanted] : ['Auto', ...wanted]
  return steps.map((s) => {
    const sim = simulateService(s.state, svc, {...opts, strategies, trafficZonesKnown: true})
    const auto = sim.strategies.find((r) => r.strategy === 'Auto') as StrategyResult
    return {
      step: s.step,
      action: s.action,
      oldPods: s.oldPods,
      newReady: s.newReady,
      newNotReady: s.newNotReady,
      readyByZone: sim.input.endpointsByZone,
      hints: auto.fallback === null ? 'hold' : 'refused',
      hintsReason: auto.fallback,
      strategies: sim.strategies
        .filter((r) => wanted.includes(r.strategy))
        .map((r) => ({strategy: r.strategy, inZoneTraffic: r.inZoneTraffic, maxOverload: r.maxOverload, fallbackZones: r.fallbackZones, score: r.score})),
    }
  })
}

/**
 * Per zone, remove that zone's ready endpoints one at a time (from the node with the most) and
 * find the first loss that makes hints drop / a zone fall back.
 */
export function disruption(
  state: ClusterState,
  svc: Service,
  opts: SimulateOptions,
  strategy: StrategyName,
  remove: (s: ClusterState, zone: string) => ClusterState,
): ZoneDisruption[] {
  const base = simulateService(state, svc, {...opts, strategies: ['Auto', strategy]})
  const out: ZoneDisruption[] = []
  const holds = (sim: ServiceSimulation) => ({
    hints: (sim.strategies[0] as StrategyResult).fallback === null,
    strat:
      (sim.strategies[strategy === 'Auto' ? 0 : 1] as StrategyResult).fallbackZones.length === 0 &&
      (sim.strategies[strategy === 'Auto' ? 0 : 1] as StrategyResult).fallback === null,
  })
  const now = holds(base)
  for (const zone of base.input.zones) {
    if (zone === '') continue
    const n = base.input.endpointsByZone[zone] ?? 0
    let hintsAt: number | null = now.hints ? n : null
    let stratAt: number | null = now.strat ? n : null
    let cur = state
    for (let k = 1; k <= n && (hintsAt === n || stratAt === n); k++) {
      cur = remove(cur, zone)
      const h = holds(simulateService(cur, svc, {...opts, strategies: ['Auto', strategy]}))
      if (hintsAt === n && !h.hints) hintsAt = k - 1
      if (stratAt === n && !h.strat) stratAt = k - 1
    }
    out.push({
      zone,
      readyEndpoints: n,
      canLoseBeforeHintsDrop: hintsAt,
      canLoseBeforeNoLocalEndpoint: Math.max(0, n - 1),
      canLoseBeforeFallback: stratAt,
      strategy,
    })
  }
  return out
}
