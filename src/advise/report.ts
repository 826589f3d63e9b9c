// explain's report with the advisor's recommendation on every Service (what explain, check and
// watch print): one recommendation per Service, the same object on each of its address types.
import {explainEach, type ExplainOptions, type ExplainParts, type ExplainReport, type ServiceExplanation} from '../explain/report.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'
import {adviseExplained} from './advisor.js'
import type {AdviseOptions, Recommendation} from './types.js'

/** The advisor's options that go with explain's (the same version, traffic and data plane). */
const adviseOptionsOf = (o: ExplainOptions, maxOverload?: number): AdviseOptions => ({
  kubeVersion: o.kubeVersion,
  traffic: o.traffic,
  ...(o.dataPlane ? {dataPlane: o.dataPlane} : {}),
  ...(maxOverload !== undefined ? {maxOverload} : {}),
})

/**
 * Adds the advisor's recommendation to each Service of explain's (new objects; the input is not
 * changed), as the iteration reaches it. A Service's address types come one after the other and
 * share the recommendation made on the first (the advisor is pure: a Service met again later gets
 * the same one, made again).
 */
function* withRecommendations(
  explained: Iterable<ServiceExplanation>,
  state: ClusterState,
  services: readonly Service[],
  opts: AdviseOptions,
  measured?: ExplainOptions['measured'],
): Generator<ServiceExplanation> {
  const keyOf = (ns: string, name: string) => `${ns}/${name}`
  const svcOf = new Map(services.map((s) => [keyOf(s.metadata.namespace ?? 'default', s.metadata.name), s]))
  let last: {key: string; r: Recommendation} | undefined
  for (const s of explained) {
    const key = keyOf(s.namespace, s.name)
    let r = last?.key === key ? last.r : undefined
    const svc = svcOf.get(key)
    if (r === undefined && svc !== undefined) {
      // A measured Service: the advisor judges each mode under the same measured client mix.
      const m = measured?.get(key)
      r = adviseExplained(state, svc, s, m === undefined ? opts : {...opts, traffic: m.mix})
      last = {key, r}
    }
    yield r === undefined ? s : {...s, recommendation: r}
  }
}

/** explain() with the advisor's recommendation on each Service. */
export function explainAdvised(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}, maxOverload?: number): ExplainReport {
  const {head, services: each} = explainAdvisedEach(state, services, opts, maxOverload)
  return {...head, services: [...each]}
}

/** explainAdvised() in two parts, each Service explained and advised as the iteration reaches it (explain/report.ts explainEach). */
export function explainAdvisedEach(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}, maxOverload?: number): ExplainParts {
  const {head, services: each} = explainEach(state, services, opts)
  return {head, services: withRecommendations(each, state, services, adviseOptionsOf(opts, maxOverload), opts.measured)}
}
