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
  // By namespace, then name (the last Service of a name wins): a lookup hashes the explanation's
  // own strings, which are the Service's, instead of a new "namespace/name" string per Service.
  const svcOf = new Map<string, Map<string, Service>>()
  for (const svc of services) {
    const ns = svc.metadata.namespace ?? 'default'
    let byName = svcOf.get(ns)
    if (byName === undefined) svcOf.set(ns, (byName = new Map()))
    byName.set(svc.metadata.name, svc)
  }
  let last: {svc: Service; r: Recommendation} | undefined
  for (const s of explained) {
    const svc = svcOf.get(s.namespace)?.get(s.name)
    let r = svc !== undefined && last?.svc === svc ? last.r : undefined
    if (r === undefined && svc !== undefined) {
      // A measured Service: the advisor judges each mode under the same measured client mix.
      const m = measured?.get(`${s.namespace}/${s.name}`)
      r = adviseExplained(state, svc, s, m === undefined ? opts : {...opts, traffic: m.mix}, true)
      last = {svc, r}
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
