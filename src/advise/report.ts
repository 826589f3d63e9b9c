// explain's report with the advisor's recommendation on every Service (what explain, check and
// watch print): one recommendation per Service, the same object on each of its address types.
import {explain, type ExplainOptions, type ExplainReport, type ServiceExplanation} from '../explain/report.js'
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

/** Adds the advisor's recommendation to each Service of an explain report (a new report; the input is not changed). */
function withRecommendations(report: ExplainReport, state: ClusterState, services: readonly Service[], opts: AdviseOptions, measured?: ExplainOptions['measured']): ExplainReport {
  const byKey = new Map<string, Recommendation>()
  const keyOf = (ns: string, name: string) => `${ns}/${name}`
  const svcOf = new Map(services.map((s) => [keyOf(s.metadata.namespace ?? 'default', s.metadata.name), s]))
  const out: ServiceExplanation[] = report.services.map((s) => {
    const key = keyOf(s.namespace, s.name)
    let r = byKey.get(key)
    const svc = svcOf.get(key)
    if (r === undefined && svc !== undefined) {
      // A measured Service: the advisor judges each mode under the same measured client mix.
      const m = measured?.get(key)
      r = adviseExplained(state, svc, s, m === undefined ? opts : {...opts, traffic: m.mix})
      byKey.set(key, r)
    }
    return r === undefined ? s : {...s, recommendation: r}
  })
  return {...report, services: out}
}

/** explain() with the advisor's recommendation on each Service. */
export function explainAdvised(state: ClusterState, services: readonly Service[], opts: ExplainOptions = {}, maxOverload?: number): ExplainReport {
  return withRecommendations(explain(state, services, opts), state, services, adviseOptionsOf(opts, maxOverload), opts.measured)
}
