// Who routes each request, through the commands' models: explain's clientPaths and routes,
// their rendering, check's proxy-topology policy, the snapshot round trip and the JSON schema.
import fs from 'node:fs'
import {Ajv2020} from 'ajv/dist/2020.js'
import {describe, expect, it} from 'vitest'
import {explain} from '../../src/explain/report.js'
import {check} from '../../src/check/check.js'
import {renderExplain} from '../../src/render/explain.js'
import {parseSnapshot, serializeSnapshot, snapshotYaml} from '../../src/cluster/snapshot/snapshot.js'
import {trimRoutes} from '../../src/dataplane/routes/trim.js'
import type {RoutesObjects} from '../../src/dataplane/routes/types.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const routes: RoutesObjects = {
  deployments: [
    {
      kind: 'Deployment',
      metadata: {name: 'envoy-gateway', namespace: 'envoy-gateway-system'},
      spec: {template: {spec: {containers: [{name: 'envoy-gateway', image: 'docker.io/envoyproxy/gateway:v1.9.0', env: [{name: 'SECRET', value: 'x'}]} as never]}}},
    },
  ],
  daemonSets: [],
  namespaces: [{metadata: {name: 'shop'}}],
  pods: [],
  ingresses: [],
  ingressClasses: [],
  gatewayClasses: [{metadata: {name: 'eg'}, spec: {controllerName: 'gateway.envoyproxy.io/gatewayclass-controller'}}],
  gateways: [{metadata: {name: 'eg', namespace: 'shop'}, spec: {gatewayClassName: 'eg'}}],
  httpRoutes: [{kind: 'HTTPRoute', metadata: {name: 'web', namespace: 'shop'}, spec: {parentRefs: [{name: 'eg'}], rules: [{backendRefs: [{name: 'web', port: 80}]}]}}],
  grpcRoutes: [],
}

function cluster(td = 'PreferSameNode') {
  const svc = service('web', {namespace: 'shop', trafficDistribution: td})
  const st = state(nodesIn(['zone-a', 'zone-b']), [svc], [slice('web', spread({'zone-a': 2, 'zone-b': 2}, true), {namespace: 'shop'})])
  st.routes = trimRoutes(routes)
  return {svc, st}
}

describe('explain with the meshes and gateways read', () => {
  it('names the Envoy Gateway path and its #9537 verdict; the header names what was found', () => {
    const {svc, st} = cluster()
    const report = explain(st, [svc], {kubeVersion: '1.36', routes: {objects: st.routes!, source: 'detected'}})
    expect(report.routes?.proxies.map((p) => `${p.name} ${p.version}`)).toEqual(['envoy-gateway 1.9.0'])
    const cp = report.services[0]!.clientPaths!
    expect(cp.setting).toBe('trafficDistribution: PreferSameNode')
    expect(cp.paths).toHaveLength(1)
    expect(cp.paths[0]).toMatchObject({via: 'envoy-gateway', verdict: 'partial', clients: 'Gateway shop/eg (HTTPRoute web)'})
    const text = renderExplain(report, {format: 'table'})
    expect(text).toContain('Meshes and gateways: Envoy Gateway 1.9.0 (detected)')
    expect(text).toContain('Clients:     Envoy Gateway 1.9.0, Gateway shop/eg (HTTPRoute web): honours it in part: PreferSameNode acts as PreferSameZone')
    expect(text).toContain('every other client: the node data plane')
  })
  it('without the routes option the report has neither field (the old output)', () => {
    const {svc, st} = cluster()
    const report = explain(st, [svc], {kubeVersion: '1.36'})
    expect(report.routes).toBeUndefined()
    expect(report.services[0]!.clientPaths).toBeUndefined()
  })
  it('validates against schema/explain.v1.json', () => {
    const {svc, st} = cluster()
    const report = explain(st, [svc], {kubeVersion: '1.36', routes: {objects: st.routes!, source: 'detected'}})
    const schema = JSON.parse(fs.readFileSync(new URL('../../schema/explain.v1.json', import.meta.url), 'utf8'))
    const validate = new Ajv2020({allErrors: true, strict: false}).compile(schema)
    validate(JSON.parse(JSON.stringify(report)))
    expect(validate.errors ?? []).toEqual([])
  })
  it('cluster text is escaped in the table', () => {
    const {svc, st} = cluster()
    st.routes!.gateways![0]!.metadata.name = 'eg\u001b[31m'
    st.routes!.httpRoutes![0]!.spec!.parentRefs![0]!.name = 'eg\u001b[31m'
    const text = renderExplain(explain(st, [svc], {kubeVersion: '1.36', routes: {objects: st.routes!, source: 'detected'}}), {format: 'table'})
    expect(text).not.toContain('\u001b')
  })
})

describe('check: proxy-topology', () => {
  it('fails when a gateway keeps PreferSameNode to the zone, passes for PreferSameZone', () => {
    const {svc, st} = cluster()
    const r = check(explain(st, [svc], {kubeVersion: '1.36', routes: {objects: st.routes!, source: 'detected'}}), [svc], {proxyHonoursTopology: true})
    const res = r.services[0]!.results.find((x) => x.policy === 'proxy-topology')!
    expect(res.status).toBe('fail')
    expect(res.message).toContain('clients reach this Service through a proxy that honours only part of its topology setting (trafficDistribution: PreferSameNode)')
    expect(r.policies.proxyHonoursTopology).toBe(true)
    const ok = cluster('PreferSameZone')
    const r2 = check(explain(ok.st, [ok.svc], {kubeVersion: '1.36', routes: {objects: ok.st.routes!, source: 'detected'}}), [ok.svc], {proxyHonoursTopology: true})
    expect(r2.services[0]!.results.find((x) => x.policy === 'proxy-topology')!.status).toBe('pass')
  })
  it('not read: one warning, no row', () => {
    const {svc, st} = cluster()
    const r = check(explain(st, [svc], {kubeVersion: '1.36'}), [svc], {proxyHonoursTopology: true})
    expect(r.services[0]!.results.some((x) => x.policy === 'proxy-topology')).toBe(false)
    expect(r.warnings).toContain('proxy-topology not checked: the meshes and gateways were not read (add --client-paths, or use a snapshot taken with it)')
  })
})

describe('snapshot round trip of the routes objects', () => {
  it('records the trimmed objects (no pod-spec environment) and reads them back equal', () => {
    const {st} = cluster()
    const text = snapshotYaml(serializeSnapshot(st))
    expect(text).toContain('routes:')
    expect(text).not.toContain('SECRET')
    const back = parseSnapshot(text, 'snap.yaml')
    expect(back.routes).toEqual(st.routes)
  })
  it('--redact renames the Pods', () => {
    const {st} = cluster()
    st.routes!.pods = [{metadata: {name: 'client-7d9', namespace: 'shop', labels: {'linkerd.io/control-plane-ns': 'linkerd'}}}]
    const text = snapshotYaml(serializeSnapshot(st, {redact: true}))
    expect(text).not.toContain('client-7d9')
    expect(parseSnapshot(text, 's.yaml').routes?.pods?.[0]?.metadata).toEqual({name: 'pod-1', namespace: 'shop', labels: {'linkerd.io/control-plane-ns': 'linkerd'}})
  })
  it('a routes value that is not a mapping is an input error', () => {
    expect(() => parseSnapshot('apiVersion: kubectl-topology/v1\nkind: Snapshot\nnodes: []\nservices: []\nendpointSlices: []\nroutes: [1]\n', 'bad.yaml')).toThrow(
      /routes must be a mapping/,
    )
  })
})
