// The controller's "hints populated" mark read from a `kubectl get nodes,services,endpointslices
// -o json` List (no Events). Upstream (k8s.io/endpointslice reconciler.go reconcileByAddressType)
// sets the mark only on the Auto path (AddHints) and clears it at the first sync off Auto, which
// records the Warning "Topology Aware Hints has been disabled" there and only there; a Service
// update queues that sync. Own-zone hints that the next sync leaves as they are (steady) are then
// the current path's: no Event depends on the mark, and none is a "may". Own-zone hints the next
// sync changes (a sync is due: the path before it cannot be told) keep the "may" of issue 23.
import {describe, expect, it} from 'vitest'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {explain} from '../../src/explain/report.js'
import {renderExplain} from '../../src/render/explain.js'
import {watchFrame} from '../../src/watch/model.js'

const node = (name: string, zone: string) => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {name, labels: {'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})
const endpoint = (ip: string, nodeName: string, zone: string, hint: string | null) => ({
  addresses: [ip],
  conditions: {ready: true, serving: true, terminating: false},
  nodeName,
  zone,
  ...(hint === null ? {} : {hints: {forZones: [{name: hint}]}}),
})
/** The List, with the Service's annotations and spec.trafficDistribution as given. */
function list(svc: {annotations?: Record<string, string>; trafficDistribution?: string}, hints: (string | null)[] = ['zone-a', 'zone-a', 'zone-b', 'zone-b']): string {
  const spec: Record<string, unknown> = {
    clusterIP: '10.96.0.10',
    clusterIPs: ['10.96.0.10'],
    ipFamilies: ['IPv4'],
    ports: [{name: 'http', port: 80, protocol: 'TCP', targetPort: 8080}],
    selector: {app: 'web'},
    type: 'ClusterIP',
  }
  if (svc.trafficDistribution !== undefined) spec.trafficDistribution = svc.trafficDistribution
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    metadata: {resourceVersion: ''},
    items: [
      node('a-0', 'zone-a'),
      node('b-0', 'zone-b'),
      {apiVersion: 'v1', kind: 'Service', metadata: {name: 'web', namespace: 'default', ...(svc.annotations ? {annotations: svc.annotations} : {})}, spec},
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: {
          name: 'web-abc',
          namespace: 'default',
          labels: {'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io'},
        },
        addressType: 'IPv4',
        ports: [{name: 'http', port: 8080, protocol: 'TCP'}],
        endpoints: [
          endpoint('10.0.0.1', 'a-0', 'zone-a', hints[0]!),
          endpoint('10.0.0.2', 'a-0', 'zone-a', hints[1]!),
          endpoint('10.0.0.3', 'b-0', 'zone-b', hints[2]!),
          endpoint('10.0.0.4', 'b-0', 'zone-b', hints[3]!),
        ],
      },
    ],
  })
}
const DISABLED = {type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: 'Topology Aware Hints has been disabled, addressType: IPv4'}
const explainList = (text: string) => {
  const st = parseSnapshot(text, 'list.json')
  expect(st.events).toBeUndefined()
  const report = explain(st, st.services, {kubeVersion: '1.36'})
  return {st, report, c: report.services[0]!.controller}
}

describe('the populated mark from a List file (no Events)', () => {
  it('PreferSameZone, steady (its own-zone hints written, nothing to write): no Event, and no "may record Disabled"', () => {
    // Before: state {hintsPopulated: false, inferredFrom: 'unknown'} and mayRecord Disabled, an Event
    // the controller records only at the first sync after leaving Auto, which would have cleared the mark.
    const {st, report, c} = explainList(list({trafficDistribution: 'PreferSameZone'}))
    expect(c).toMatchObject({path: 'traffic-distribution', hintsSet: true, slicesToUpdate: [], event: null})
    expect(c.state).toEqual({hintsPopulated: false, inferredFrom: 'live-hints'})
    expect(c.mayRecord).toBeUndefined()
    expect(renderExplain(report, {format: 'table'})).not.toMatch(/may record/)
    // watch reads no Events either, and shows explain's controller.
    const w = watchFrame(st, 'default', 'web', {kubeVersion: '1.36'}).explanations[0]!.controller
    expect([w.state, w.event, w.mayRecord]).toEqual([{hintsPopulated: false, inferredFrom: 'live-hints'}, null, undefined])
  })

  it('topology-mode Auto and PreferSameZone, steady: AddHints keeps the hints and the mark, no "may record Enabled"', () => {
    // Before: mayRecord TopologyAwareHintsEnabled.
    const {c} = explainList(list({annotations: {'service.kubernetes.io/topology-mode': 'Auto'}, trafficDistribution: 'PreferSameZone'}))
    expect(c).toMatchObject({path: 'topology-mode-auto', hintsSet: true, slicesToUpdate: [], event: null, state: {hintsPopulated: true, inferredFrom: 'live-hints'}})
    expect(c.mayRecord).toBeUndefined()
  })

  it('issue 23 kept: own-zone hints and no mode (the controller removes them at its next sync, the path before is unknown): Disabled is a "may"', () => {
    const {report, c} = explainList(list({}))
    expect(c).toMatchObject({path: 'none', event: null, mayRecord: DISABLED, slicesToUpdate: ['web-abc'], state: {hintsPopulated: true, inferredFrom: 'unknown'}})
    expect(renderExplain(report, {format: 'table'})).toMatch(/may record Warning TopologyAwareHintsDisabled/)
  })

  it('PreferSameZone with an endpoint its next sync hints (a sync is due): Disabled stays a "may"', () => {
    const {c} = explainList(list({trafficDistribution: 'PreferSameZone'}, ['zone-a', 'zone-a', 'zone-b', null]))
    expect(c).toMatchObject({path: 'traffic-distribution', event: null, mayRecord: DISABLED, slicesToUpdate: ['web-abc'], state: {hintsPopulated: false, inferredFrom: 'unknown'}})
  })
})
