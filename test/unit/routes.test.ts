// Who routes each request: detection of meshes and gateways from literal objects, and each
// project's rule by version (src/dataplane/routes/).
import {describe, expect, it} from 'vitest'
import {findProxies, pathsIgnoringSetting, serviceRoutes, OTHER_CLUSTERS} from '../../src/dataplane/routes/routes.js'
import {linkerdVersion} from '../../src/dataplane/routes/linkerd.js'
import type {ControlPlaneDeployment, RoutesObjects} from '../../src/dataplane/routes/types.js'
import {service} from './builders.js'

const deploy = (namespace: string, name: string, container: string, image: string, args: string[] = []): ControlPlaneDeployment => ({
  kind: 'Deployment',
  metadata: {namespace, name},
  spec: {template: {spec: {containers: [{name: container, image, args}]}}},
})
const istiod = (v: string) => deploy('istio-system', 'istiod', 'discovery', `docker.io/istio/pilot:${v}`)
const ns = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}) => ({metadata: {name, labels, annotations}})

function routesOf(o: RoutesObjects, svc = service('web', {namespace: 'shop', trafficDistribution: 'PreferSameNode'})) {
  const full: RoutesObjects = {
    deployments: [],
    daemonSets: [],
    namespaces: [],
    pods: [],
    ingresses: [],
    ingressClasses: [],
    gatewayClasses: [],
    gateways: [],
    httpRoutes: [],
    grpcRoutes: [],
    ...o,
  }
  return serviceRoutes(findProxies(full), full, svc)
}

describe('Istio sidecars (Envoy): trafficDistribution by version, hints never', () => {
  const objs = (v: string): RoutesObjects => ({deployments: [istiod(v)], namespaces: [ns('shop', {'istio-injection': 'enabled'}), ns('other')]})
  it('1.27 honours PreferSameNode: node, subzone, zone, region, network', () => {
    const r = routesOf(objs('1.27.1'))
    expect(r.setting).toBe('trafficDistribution: PreferSameNode')
    expect(r.paths).toHaveLength(1)
    const p = r.paths[0]!
    expect(p).toMatchObject({via: 'istio-sidecar', version: '1.27.1', bypassesNode: true, zoneHints: false, nodeHints: false, verdict: 'honours'})
    expect(p.clients).toBe('Pods with an Istio sidecar in namespace shop')
    expect(p.does).toContain('node, subzone, zone, region, network')
    expect(pathsIgnoringSetting(r)).toEqual([])
  })
  it('1.26 ignores PreferSameNode (1.27+), 1.25 honours PreferClose, 1.24 ignores it', () => {
    expect(routesOf(objs('1.26.3')).paths[0]!.verdict).toBe('ignores')
    const close = service('web', {namespace: 'shop', trafficDistribution: 'PreferClose'})
    expect(routesOf(objs('1.25.0'), close).paths[0]!.verdict).toBe('honours')
    expect(routesOf(objs('1.24.2'), close).paths[0]!.verdict).toBe('ignores')
  })
  it('topology-mode Auto alone is ignored: Istio reads no hints', () => {
    const r = routesOf(objs('1.28.0'), service('web', {namespace: 'shop', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}))
    expect(r.paths[0]).toMatchObject({verdict: 'ignores'})
    expect(r.paths[0]!.does).toContain('reads neither EndpointSlice hints nor topology-mode')
    expect(pathsIgnoringSetting(r)).toHaveLength(1)
  })
  it("Istio's own annotation counts from 1.24, the namespace's from 1.30", () => {
    const svc = service('web', {namespace: 'shop', annotations: {'networking.istio.io/traffic-distribution': 'PreferClose'}})
    expect(routesOf(objs('1.25.0'), svc).paths[0]!.verdict).toBe('honours')
    const nsAnn: RoutesObjects = {
      deployments: [istiod('1.29.0')],
      namespaces: [ns('shop', {'istio-injection': 'enabled'}, {'networking.istio.io/traffic-distribution': 'PreferClose'})],
    }
    expect(routesOf(nsAnn, service('web', {namespace: 'shop'})).paths[0]!.verdict).toBe('not-asked')
    const ns130 = {...nsAnn, deployments: [istiod('1.30.0')]}
    expect(routesOf(ns130, service('web', {namespace: 'shop'})).paths[0]!.verdict).toBe('honours')
  })
  it('sidecar Pods found by label add their namespaces', () => {
    const r = routesOf({
      deployments: [istiod('1.27.0')],
      namespaces: [ns('shop')],
      pods: [{metadata: {name: 'a', namespace: 'jobs', labels: {'security.istio.io/tlsMode': 'istio'}}}],
    })
    expect(r.paths[0]!.clients).toBe('Pods with an Istio sidecar in namespace jobs')
  })
  it('Pods not readable: says so instead of guessing', () => {
    const r = routesOf({deployments: [istiod('1.27.0')], namespaces: [ns('shop', {'istio-injection': 'enabled'})], pods: undefined})
    expect(r.unknown).toContain('Pods could not be read: meshed clients are known by their namespace labels only')
    expect(r.unknown).toContain(OTHER_CLUSTERS)
  })
})

describe('Istio ambient: ztunnel and waypoints', () => {
  const ztunnel = {
    kind: 'DaemonSet' as const,
    metadata: {namespace: 'istio-system', name: 'ztunnel'},
    spec: {template: {spec: {containers: [{name: 'istio-proxy', image: 'docker.io/istio/ztunnel:1.23.2'}]}}},
  }
  it('ztunnel 1.23 honours PreferClose (network, region, zone, subzone) and ignores PreferSameNode', () => {
    const o: RoutesObjects = {deployments: [istiod('1.23.2')], daemonSets: [ztunnel], namespaces: [ns('shop', {'istio.io/dataplane-mode': 'ambient'})]}
    const close = routesOf(o, service('web', {namespace: 'shop', trafficDistribution: 'PreferClose'}))
    expect(close.paths[0]).toMatchObject({via: 'istio-ztunnel', version: '1.23.2', verdict: 'honours'})
    expect(close.paths[0]!.does).toContain('subzone, zone, region, network')
    expect(routesOf(o).paths[0]!.verdict).toBe('ignores')
  })
  it('a Service labelled istio.io/use-waypoint goes through the waypoint (Envoy rules: PreferClose from 1.25)', () => {
    const o: RoutesObjects = {deployments: [istiod('1.24.1')], daemonSets: [ztunnel], namespaces: [ns('shop', {'istio.io/dataplane-mode': 'ambient'})]}
    const svc = service('web', {namespace: 'shop', trafficDistribution: 'PreferClose'})
    svc.metadata.labels = {'istio.io/use-waypoint': 'waypoint'}
    const r = routesOf(o, svc)
    expect(r.paths[0]).toMatchObject({via: 'istio-waypoint', version: '1.24.1', verdict: 'ignores'})
    expect(r.paths[0]!.clients).toContain('through waypoint waypoint')
  })
})

describe('Linkerd: zone hints from stable-2.12, never node hints', () => {
  const objs = (image: string): RoutesObjects => ({
    deployments: [deploy('linkerd', 'linkerd-destination', 'destination', image)],
    namespaces: [ns('shop', {}, {'linkerd.io/inject': 'enabled'})],
  })
  it('reads its tags', () => {
    expect(linkerdVersion('cr.l5d.io/linkerd/controller:stable-2.14.10')).toBe('2.14.10')
    expect(linkerdVersion('cr.l5d.io/linkerd/controller:edge-24.11.8')).toBe('edge-24.11.8')
    expect(linkerdVersion('ghcr.io/buoyantio/controller:enterprise-2.16.1')).toBe('2.16.1')
    expect(linkerdVersion('cr.l5d.io/linkerd/controller')).toBeUndefined()
  })
  it('PreferSameNode acts as PreferSameZone; PreferClose is honoured; 2.11 reads no hints', () => {
    const r = routesOf(objs('cr.l5d.io/linkerd/controller:edge-24.11.8'))
    expect(r.paths[0]).toMatchObject({via: 'linkerd', zoneHints: true, nodeHints: false, verdict: 'partial'})
    expect(r.paths[0]!.does).toContain('PreferSameNode acts as PreferSameZone')
    expect(pathsIgnoringSetting(r)).toHaveLength(1)
    const close = service('web', {namespace: 'shop', trafficDistribution: 'PreferClose'})
    expect(routesOf(objs('cr.l5d.io/linkerd/controller:stable-2.14.10'), close).paths[0]!.verdict).toBe('honours')
    expect(routesOf(objs('cr.l5d.io/linkerd/controller:stable-2.11.5'), close).paths[0]!.verdict).toBe('ignores')
  })
})

describe('ingress-nginx: flag, annotation, PreferClose from v1.13.0, 503 on an empty zone', () => {
  const ctl = (v: string, on = true) =>
    deploy('ingress-nginx', 'ingress-nginx-controller', 'controller', `registry.k8s.io/ingress-nginx/controller:v${v}`, [
      '/nginx-ingress-controller',
      '--controller-class=k8s.io/ingress-nginx',
      ...(on ? ['--enable-topology-aware-routing=true'] : []),
    ])
  const ing = (annotations: Record<string, string> = {}) => ({
    metadata: {name: 'web', namespace: 'shop', annotations},
    spec: {ingressClassName: 'nginx', rules: [{http: {paths: [{path: '/', backend: {service: {name: 'web', port: {number: 80}}}}]}}]},
  })
  const cls = [{metadata: {name: 'nginx'}, spec: {controller: 'k8s.io/ingress-nginx'}}]
  const close = service('web', {namespace: 'shop', trafficDistribution: 'PreferClose'})
  it('without --enable-topology-aware-routing (the default) hints are ignored', () => {
    const r = routesOf({deployments: [ctl('1.13.0', false)], ingresses: [ing()], ingressClasses: cls}, close)
    expect(r.paths[0]).toMatchObject({via: 'ingress-nginx', clients: 'Ingress shop/web (ingress-nginx)', verdict: 'ignores', zoneHints: false})
  })
  it('PreferClose is read from v1.13.0 only; PreferSameNode never', () => {
    expect(routesOf({deployments: [ctl('1.13.0')], ingresses: [ing()], ingressClasses: cls}, close).paths[0]!.verdict).toBe('honours')
    expect(routesOf({deployments: [ctl('1.12.1')], ingresses: [ing()], ingressClasses: cls}, close).paths[0]!.verdict).toBe('ignores')
    const r = routesOf({deployments: [ctl('1.13.0')], ingresses: [ing()], ingressClasses: cls})
    expect(r.paths[0]!.verdict).toBe('ignores')
    expect(r.paths[0]!.does).toContain('PreferClose only, not PreferSameNode')
  })
  it('topology-mode auto with a zone left without hinted endpoints: 503 there (#11342)', () => {
    const svc = service('web', {namespace: 'shop', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}})
    const full: RoutesObjects = {deployments: [ctl('1.11.2')], ingresses: [ing()], ingressClasses: cls, namespaces: [], pods: [], gatewayClasses: [], gateways: [], httpRoutes: []}
    const r = serviceRoutes(findProxies(full), full, svc, {zonesWithoutEndpoints: ['zone-c']})
    expect(r.paths[0]).toMatchObject({verdict: 'partial'})
    expect(r.paths[0]!.does).toContain('a controller in zone-c finds none and answers 503')
  })
  it('service-upstream: the node data plane decides', () => {
    const r = routesOf({deployments: [ctl('1.13.0', false)], ingresses: [ing({'nginx.ingress.kubernetes.io/service-upstream': 'true'})], ingressClasses: cls}, close)
    expect(r.paths[0]).toMatchObject({bypassesNode: false, verdict: 'honours'})
    expect(pathsIgnoringSetting(r)).toEqual([])
  })
  it('an Ingress of another controller is named as not modelled', () => {
    const other = {...ing(), spec: {...ing().spec, ingressClassName: 'traefik'}}
    const r = routesOf({deployments: [], ingresses: [other], ingressClasses: []}, close)
    expect(r.paths).toEqual([])
    expect(r.unknown).toContain('Ingress shop/web (class traefik) sends to this Service through a controller the tool does not model')
  })
})

describe('Gateway API: Envoy Gateway (#9537), Istio, others', () => {
  const eg = (v: string) => deploy('envoy-gateway-system', 'envoy-gateway', 'envoy-gateway', `docker.io/envoyproxy/gateway:v${v}`)
  const gw: RoutesObjects = {
    gatewayClasses: [
      {metadata: {name: 'eg'}, spec: {controllerName: 'gateway.envoyproxy.io/gatewayclass-controller'}},
      {metadata: {name: 'other'}, spec: {controllerName: 'example.com/gateway'}},
    ],
    gateways: [{metadata: {name: 'eg', namespace: 'infra'}, spec: {gatewayClassName: 'eg'}}],
    httpRoutes: [
      {kind: 'HTTPRoute', metadata: {name: 'web', namespace: 'shop'}, spec: {parentRefs: [{name: 'eg', namespace: 'infra'}], rules: [{backendRefs: [{name: 'web', port: 80}]}]}},
    ],
  }
  it('v1.5+: any value forces the zone, so PreferSameNode acts as PreferSameZone', () => {
    const r = routesOf({...gw, deployments: [eg('1.9.0')]})
    expect(r.paths[0]).toMatchObject({via: 'envoy-gateway', clients: 'Gateway infra/eg (HTTPRoute web)', version: '1.9.0', verdict: 'partial', zoneHints: false})
    expect(r.paths[0]!.does).toContain('#9537')
  })
  it('v1.4: PreferClose only (weighted); v1.3: nothing', () => {
    const close = service('web', {namespace: 'shop', trafficDistribution: 'PreferClose'})
    expect(routesOf({...gw, deployments: [eg('1.4.1')]}, close).paths[0]!.verdict).toBe('honours')
    expect(routesOf({...gw, deployments: [eg('1.4.1')]}).paths[0]!.verdict).toBe('ignores')
    expect(routesOf({...gw, deployments: [eg('1.3.2')]}, close).paths[0]!.verdict).toBe('ignores')
  })
  it('a route to another Service or namespace does not count; an unknown controller is unknown', () => {
    expect(routesOf({...gw, deployments: [eg('1.9.0')]}, service('api', {namespace: 'shop', trafficDistribution: 'PreferClose'})).paths).toEqual([])
    const o = {...gw, gateways: [{metadata: {name: 'eg', namespace: 'infra'}, spec: {gatewayClassName: 'other'}}]}
    expect(routesOf(o).paths[0]).toMatchObject({via: 'gateway-api', verdict: 'unknown'})
  })
  it('routes not readable: says so', () => {
    expect(routesOf({httpRoutes: undefined}).unknown).toContain('Gateway API routes could not be read: clients entering through a Gateway are not known')
  })
})

describe('the projects own manifests (test/fixtures/routes/) are detected', () => {
  const load = async (file: string) => {
    const {readFileSync} = await import('node:fs')
    const {parseAllDocuments} = await import('yaml')
    const docs = parseAllDocuments(readFileSync(new URL(`../fixtures/routes/${file}`, import.meta.url), 'utf8')).map((d) => d.toJSON() as {kind?: string} | null)
    return docs.filter((d): d is {kind: string} => d !== null && typeof d === 'object')
  }
  it('istiod and ztunnel 1.27.0, linkerd edge-25.4.4, ingress-nginx v1.15.0 (flag off), Envoy Gateway v1.9.0', async () => {
    const all = [
      ...(await load('istio-1.27.0.yaml')),
      ...(await load('linkerd-edge-25.4.4.yaml')),
      ...(await load('ingress-nginx-v1.15.0.yaml')),
      ...(await load('envoy-gateway-v1.9.0.yaml')),
    ]
    const objs = {deployments: all.filter((d) => d.kind === 'Deployment'), daemonSets: all.filter((d) => d.kind === 'DaemonSet')} as RoutesObjects
    const found = findProxies(objs)
    expect(found.proxies.map((p) => [p.name, p.version, p.settings])).toEqual([
      ['istio-sidecar', '1.27.0', {revision: 'default'}],
      ['istio-ztunnel', '1.27.0', {}],
      ['linkerd', 'edge-25.4.4', {}],
      [
        'ingress-nginx',
        '1.15.0',
        {'enable-topology-aware-routing': 'false', 'controller-class': 'k8s.io/ingress-nginx', 'ingress-class': 'nginx', 'watch-ingress-without-class': 'false'},
      ],
      ['envoy-gateway', '1.9.0', {}],
    ])
  })
})
