// serve's model (src/serve/model.ts): the samples of each Service come from explain's engine,
// only the Services a change touches are explained again, and what disappears from the cluster
// disappears from the samples.
import {describe, expect, it} from 'vitest'
import {explainAdvised} from '../../src/advise/report.js'
import {indexState, nodeSignature, ServeModel, type Row, type StateIndex} from '../../src/serve/model.js'
import {sourceRows} from '../../src/serve/source.js'
import {FAMILIES} from '../../src/serve/catalogue.js'
import {MetricsWriter} from '../../src/render/metrics.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
const ZONES = ['zone-a', 'zone-b', 'zone-c']

/** The value of one sample, by family and labels (undefined when absent). */
function value(rows: readonly Row[], family: string, labels: Record<string, string>): number | undefined {
  const hit = rows.filter(([f, s]) => f === family && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (hit.length > 1) throw new Error(`${family} ${JSON.stringify(labels)}: ${hit.length} samples`)
  return hit[0]?.[1].value
}
const labelsOf = (rows: readonly Row[], family: string) => rows.filter(([f]) => f === family).map(([, s]) => s.labels)

function cluster(): ClusterState {
  return state(
    nodesIn(ZONES),
    [service('web', {annotations: AUTO}), service('few', {annotations: AUTO}), service('plain')],
    [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true)), slice('few', spread({'zone-a': 1, 'zone-b': 1})), slice('plain', spread({'zone-a': 1, 'zone-b': 1}))],
  )
}

describe('serve model', () => {
  it("gives each Service explain's figures", () => {
    const st = cluster()
    const model = new ServeModel({})
    expect(model.update(indexState(st), {all: true})).toBe(3)
    const rows = model.rows()
    const web = {namespace: 'default', service: 'web', address_type: 'IPv4'}
    const few = {namespace: 'default', service: 'few', address_type: 'IPv4'}
    const plain = {namespace: 'default', service: 'plain', address_type: 'IPv4'}
    const report = explainAdvised(st, st.services)
    const ex = (name: string) => report.services.find((s) => s.name === name)!

    expect(value(rows, 'kubectl_topology_service_info', {...web, mode: 'topology-mode-auto'})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_hints_requested', web)).toBe(1)
    expect(value(rows, 'kubectl_topology_service_hints_live', web)).toBe(1)
    expect(value(rows, 'kubectl_topology_service_hints_predicted', web)).toBe(1)
    expect(value(rows, 'kubectl_topology_service_controller_reason_info', {...web, reason: 'TopologyAwareHintsEnabled'})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_accepted_endpoints_distance', web)).toBe(0)
    expect(value(rows, 'kubectl_topology_service_predicted_in_zone_traffic_ratio', web)).toBe(ex('web').traffic.inZoneSharePredicted)
    expect(value(rows, 'kubectl_topology_service_predicted_in_zone_traffic_ratio', web)).toBe(1)
    expect(value(rows, 'kubectl_topology_service_live_max_endpoint_overload_ratio', web)).toBe(ex('web').traffic.maxEndpointOverloadLive)
    expect(value(rows, 'kubectl_topology_zone_ready_endpoints', {...web, zone: 'zone-b'})).toBe(3)
    expect(value(rows, 'kubectl_topology_zone_expected_overload_ratio', {...web, zone: 'zone-b'})).toBe(ex('web').zones[1]!.expectedOverload)
    // The advisor's figures and recommendation, as explain prints them.
    const rec = ex('web').recommendation!
    expect(value(rows, 'kubectl_topology_service_live_in_zone_traffic_ratio', web)).toBe(rec.now.inZone)
    expect(value(rows, 'kubectl_topology_service_predicted_max_endpoint_overload_ratio', web)).toBe(rec.predicted.worstOverload)
    expect(value(rows, 'kubectl_topology_service_recommended_mode_info', {...web, mode: rec.recommended})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_recommendation_meets_bound', web)).toBe(rec.meetsBound ? 1 : 0)
    expect(value(rows, 'kubectl_topology_service_change_recommended', web)).toBe(rec.steps.length > 0 ? 1 : 0)
    // few is refused: the advisor recommends a change.
    expect(value(rows, 'kubectl_topology_service_change_recommended', few)).toBe(1)
    expect(ex('few').recommendation!.recommended).not.toBe('Auto')
    expect(value(rows, 'kubectl_topology_service_recommended_mode_info', {...few, mode: ex('few').recommendation!.recommended})).toBe(1)

    // 2 ready endpoints over 3 zones of equal CPU: refused; 3 is the nearest count accepted.
    expect(value(rows, 'kubectl_topology_service_hints_predicted', few)).toBe(0)
    expect(value(rows, 'kubectl_topology_service_controller_reason_info', {...few, reason: 'InsufficientNumberOfEndpoints'})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_accepted_endpoints_distance', few)).toBe(1)
    expect(value(rows, 'kubectl_topology_zone_expected_overload_ratio', {...few, zone: 'zone-a'})).toBeUndefined()

    expect(value(rows, 'kubectl_topology_service_info', {...plain, mode: 'none'})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_hints_requested', plain)).toBe(0)
    expect(value(rows, 'kubectl_topology_service_controller_reason_info', {...plain, reason: 'TopologyNotRequested'})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_accepted_endpoints_distance', plain)).toBeUndefined()

    expect(value(rows, 'kubectl_topology_counted_nodes', {zone: 'zone-c'})).toBe(1)
    expect(value(rows, 'kubectl_topology_zones', {})).toBe(3)
    expect(value(rows, 'kubectl_topology_services', {})).toBe(3)
    // Every sample belongs to a family of the catalogue, with exactly its labels.
    for (const [f, s] of rows) {
      const fam = FAMILIES.find((x) => x.name === f)!
      expect(Object.keys(s.labels).sort()).toEqual([...fam.labels].sort())
    }
  })

  it('explains again only the Services named by the change', () => {
    const st = cluster()
    const model = new ServeModel({})
    model.update(indexState(st), {all: true})
    // web loses two endpoints and few gains one, but only few is named: web keeps its figures.
    st.endpointSlices = [slice('web', spread({'zone-a': 1, 'zone-b': 3, 'zone-c': 3}, true)), slice('few', spread({'zone-a': 1, 'zone-b': 1, 'zone-c': 1})), st.endpointSlices[2]!]
    const asked: string[] = []
    const base = indexState(st)
    const spy: StateIndex = {
      ...base,
      service: (k) => {
        asked.push(k)
        return base.service(k)
      },
    }
    expect(model.update(spy, {all: false, services: new Set(['default/few'])})).toBe(1)
    expect(asked.every((k) => k === 'default/few')).toBe(true)
    const rows = model.rows()
    expect(value(rows, 'kubectl_topology_zone_ready_endpoints', {service: 'web', zone: 'zone-a'})).toBe(3)
    expect(value(rows, 'kubectl_topology_service_hints_predicted', {service: 'few'})).toBe(1)
    expect(value(rows, 'kubectl_topology_service_accepted_endpoints_distance', {service: 'few'})).toBe(0)
    // Now web is named.
    model.update(indexState(st), {all: false, services: new Set(['default/web'])})
    expect(value(model.rows(), 'kubectl_topology_zone_ready_endpoints', {service: 'web', zone: 'zone-a'})).toBe(1)
  })

  it('drops a deleted Service and a zone without nodes', () => {
    const st = cluster()
    const model = new ServeModel({})
    model.update(indexState(st), {all: true})
    st.services = st.services.filter((s) => s.metadata.name !== 'plain')
    st.endpointSlices = [slice('web', spread({'zone-a': 3, 'zone-b': 3}, true)), st.endpointSlices[1]!]
    model.update(indexState(st), {all: false, services: new Set(['default/plain', 'default/web'])})
    let rows = model.rows()
    expect(rows.some(([, s]) => s.labels.service === 'plain')).toBe(false)
    expect(value(rows, 'kubectl_topology_services', {})).toBe(2)
    // A zone with nodes but no endpoints of the Service stays, at 0 (explain lists it so).
    expect(value(rows, 'kubectl_topology_zone_ready_endpoints', {service: 'web', zone: 'zone-c'})).toBe(0)
    // zone-c's node leaves: a Node change recomputes everything.
    st.nodes = st.nodes.filter((n) => !n.metadata.name.startsWith('zone-c'))
    model.update(indexState(st), {all: true})
    rows = model.rows()
    expect(labelsOf(rows, 'kubectl_topology_counted_nodes').map((l) => l.zone)).toEqual(['zone-a', 'zone-b'])
    expect(value(rows, 'kubectl_topology_zones', {})).toBe(2)
    expect(
      labelsOf(rows, 'kubectl_topology_zone_ready_endpoints')
        .filter((l) => l.service === 'web')
        .map((l) => l.zone),
    ).toEqual(['zone-a', 'zone-b'])
  })
})

describe('serve model and exposition, change by change', () => {
  const expose = async (w: MetricsWriter, model: ServeModel) => String(await w.write([{labels: {}, groups: model.groups(), rows: model.clusterRows()}], 'text'))

  it('keeps the samples (the same arrays) of the Services a change does not name, so they are not written again', () => {
    const st = cluster()
    const model = new ServeModel({})
    model.update(indexState(st), {all: true})
    const before = model.groups()
    expect(before).toHaveLength(3)
    model.update(indexState(st), {all: false, services: new Set(['default/few'])})
    const after = model.groups()
    const name = (g: readonly Row[]) => g[0]![1].labels.service
    expect(after.map(name)).toEqual(['web', 'few', 'plain'])
    expect(after[0]).toBe(before[0])
    expect(after[2]).toBe(before[2])
    expect(after[1]).not.toBe(before[1])
  })

  it('sheds the rows of the Services whose lines are written, and serves the same text without them', async () => {
    const st = cluster()
    const model = new ServeModel({})
    const w = new MetricsWriter()
    model.update(indexState(st), {all: true})
    const full = await expose(w, model)
    // few explained again after the write: its new rows are not written yet, so they stay.
    model.update(indexState(st), {all: false, services: new Set(['default/few'])})
    const groups = model.groups()
    expect(model.shed((g) => w.written(g, {}))).toBe(2)
    expect(groups.map((g) => g.length === 0)).toEqual([true, false, true])
    // The same arrays (their cached lines), the Service count kept.
    expect(model.groups()[0]).toBe(groups[0])
    expect(model.clusterRows().find(([f]) => f === 'kubectl_topology_services')?.[1].value).toBe(3)
    expect(await expose(w, model)).toBe(full)
    // Lines written for other section labels (another cluster) are not this section's.
    expect(model.shed((g) => w.written(g, {cluster: 'eu'}))).toBe(0)
    // Now few's lines are written too; a shed Service explained again has rows again.
    expect(model.shed((g) => w.written(g, {}))).toBe(1)
    model.update(indexState(st), {all: false, services: new Set(['default/web'])})
    expect(value(model.rows(), 'kubectl_topology_service_ready_endpoints', {service: 'web'})).toBe(9)
    expect(await expose(w, model)).toBe(full)
    // A deleted shed Service: the count follows.
    st.services = st.services.filter((s) => s.metadata.name !== 'plain')
    model.update(indexState(st), {all: false, services: new Set(['default/plain'])})
    expect(model.clusterRows().find(([f]) => f === 'kubectl_topology_services')?.[1].value).toBe(2)
  })

  it('a deleted Service: none of its series is served any more', async () => {
    const st = cluster()
    const model = new ServeModel({})
    const w = new MetricsWriter()
    model.update(indexState(st), {all: true})
    expect(await expose(w, model)).toContain('service="plain"')
    st.services = st.services.filter((s) => s.metadata.name !== 'plain')
    st.endpointSlices = st.endpointSlices.filter((s) => !s.metadata.name.startsWith('plain'))
    model.update(indexState(st), {all: false, services: new Set(['default/plain'])})
    const text = await expose(w, model)
    expect(text).not.toContain('service="plain"')
    expect(text).toContain('service="web"')
    expect(text).toContain('kubectl_topology_services 2\n')
  })

  it('a zone that loses its nodes: none of its series is served any more', async () => {
    const st = cluster()
    const model = new ServeModel({})
    const w = new MetricsWriter()
    model.update(indexState(st), {all: true})
    expect(await expose(w, model)).toContain('zone="zone-c"')
    // zone-c's node leaves and its endpoints with it (a Node change recomputes every Service).
    st.nodes = st.nodes.filter((n) => !n.metadata.name.startsWith('zone-c'))
    st.endpointSlices = [slice('web', spread({'zone-a': 3, 'zone-b': 3}, true)), st.endpointSlices[1]!, st.endpointSlices[2]!]
    model.update(indexState(st), {all: true})
    const text = await expose(w, model)
    expect(text).not.toContain('zone="zone-c"')
    expect(text).toContain('kubectl_topology_zone_ready_endpoints{namespace="default",service="web",address_type="IPv4",zone="zone-b"} 3')
    expect(text).toContain('kubectl_topology_zones 2\n')
  })
})

describe('serve source health', () => {
  it('is up only when every resource is up', () => {
    const ok = {resource: 'nodes', up: true, lastSyncSeconds: 1700000000, watchRestarts: 2, relists: 1, errors: 0}
    expect(value(sourceRows([ok, {...ok, resource: 'services'}]), 'kubectl_topology_source_up', {})).toBe(1)
    const rows = sourceRows([ok, {...ok, resource: 'services', up: false, lastSyncSeconds: null, errors: 3}])
    expect(value(rows, 'kubectl_topology_source_up', {})).toBe(0)
    expect(value(rows, 'kubectl_topology_source_errors_total', {resource: 'services'})).toBe(3)
    expect(value(rows, 'kubectl_topology_source_last_sync_timestamp_seconds', {resource: 'services'})).toBeUndefined()
    expect(value(sourceRows([]), 'kubectl_topology_source_up', {})).toBe(0)
  })
})

describe('nodeSignature', () => {
  it('ignores what kubelets rewrite and sees what the engine reads', () => {
    const n = nodesIn(['zone-a'])[0]!
    const beat = (t: string) => ({...n, status: {...n.status, conditions: [{type: 'Ready', status: 'True', lastHeartbeatTime: t}]}})
    expect(nodeSignature(beat('2026-11-28T05:00:00Z'))).toBe(nodeSignature(beat('2026-11-28T05:00:10Z')))
    const notReady = {...n, status: {...n.status, conditions: [{type: 'Ready', status: 'False'}]}}
    expect(nodeSignature(notReady)).not.toBe(nodeSignature(n))
    const moved = {...n, metadata: {...n.metadata, labels: {...n.metadata.labels, 'topology.kubernetes.io/zone': 'zone-b'}}}
    expect(nodeSignature(moved)).not.toBe(nodeSignature(n))
    const cpu = {...n, status: {...n.status, allocatable: {cpu: '8'}}}
    expect(nodeSignature(cpu)).not.toBe(nodeSignature(n))
  })
})
