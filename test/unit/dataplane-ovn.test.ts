// ovn-kubernetes and kube-ovn (src/dataplane/ovn.ts): detection from their published manifests
// (test/unit/data/dataplane/ovn-kubernetes-v1.3.0.yaml, kube-ovn-v1.16.2.yaml), the decision
// order next to kube-proxy and the other planes, kube-ovn's version boundary (v1.17,
// kubeovn/kube-ovn#7378 / #7457) on both sides, --enable-lb, and kube-ovn's endpoint choice.
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {dataPlaneFromFlag, detectDataPlane, parseDataPlaneFlag} from '../../src/dataplane/detect.js'
import {describeDataPlane, unknownDataPlane} from '../../src/dataplane/describe.js'
import {KUBE_OVN_FIX, KUBE_OVN_SEMANTICS, OVN_KUBERNETES_FIX, OVN_KUBERNETES_MESSAGE} from '../../src/dataplane/ovn.js'
import {endpointsForNode, kubeOvnSelectBackends} from '../../src/dataplane/selection.js'
import type {ConfigMap, DaemonSet, DataPlaneObjects, Deployment} from '../../src/dataplane/types.js'
import type {Service} from '../../src/upstream/api/types.js'
import type {ProxyEndpoint} from '../../src/upstream/kube-proxy/endpoint.js'

const DIR = path.join(import.meta.dirname, 'data', 'dataplane')

function load(...files: string[]): Required<Pick<DataPlaneObjects, 'daemonSets' | 'configMaps' | 'deployments'>> {
  const out = {daemonSets: [] as DaemonSet[], configMaps: [] as ConfigMap[], deployments: [] as Deployment[]}
  for (const f of files) {
    for (const doc of parseAllDocuments(fs.readFileSync(path.join(DIR, f), 'utf8'))) {
      const o = doc.toJS() as {kind?: string} | null
      if (o?.kind === 'DaemonSet') out.daemonSets.push(o as DaemonSet)
      else if (o?.kind === 'ConfigMap') out.configMaps.push(o as ConfigMap)
      else if (o?.kind === 'Deployment') out.deployments.push(o as Deployment)
    }
  }
  return out
}

/** The kube-ovn fixture with another image tag (both objects), or another --enable-lb. */
function kubeOvn(opts: {tag?: string; enableLb?: string; withController?: boolean} = {}): DataPlaneObjects {
  const o = load('kube-ovn-v1.16.2.yaml')
  const retag = (s: string | undefined) => (s && opts.tag !== undefined ? s.replace(':v1.16.2', `:${opts.tag}`) : s)
  for (const x of [...o.daemonSets, ...o.deployments]) {
    for (const c of x.spec?.template?.spec?.containers ?? []) {
      c.image = retag(c.image)
      if (opts.enableLb !== undefined) c.args = c.args?.map((a) => (a.startsWith('--enable-lb=') ? `--enable-lb=${opts.enableLb}` : a))
    }
  }
  return opts.withController === false ? {daemonSets: o.daemonSets, configMaps: o.configMaps} : o
}

describe('ovn-kubernetes (helm/ovn-kubernetes v1.3.0)', () => {
  it('detected from ovnkube-node in its own namespace: hints ignored for pods and hosts, untagged image', () => {
    const d = detectDataPlane(load('ovn-kubernetes-v1.3.0.yaml'))
    expect(d).toMatchObject({
      name: 'ovn-kubernetes',
      honoursZoneHints: false,
      honoursNodeHints: false,
      selection: 'all-endpoints',
      alsoFound: [],
      message: OVN_KUBERNETES_MESSAGE,
      fix: OVN_KUBERNETES_FIX,
      paths: [
        {traffic: 'pods', by: 'ovn-kubernetes', honoursZoneHints: false},
        {traffic: 'host', by: 'ovn-kubernetes', honoursZoneHints: false},
      ],
    })
    // The chart publishes the tag "master": no version.
    expect(d.version).toBeUndefined()
    expect(d.evidence[0]).toBe('DaemonSet ovn-kubernetes/ovnkube-node: image ghcr.io/ovn-kubernetes/ovn-kubernetes/ovn-kube-ubuntu:master')
    expect(describeDataPlane(d)).toBe('ovn-kubernetes (OVN load balancers)')
  })

  it('a tagged image gives the version; no version honours hints (ovn-kubernetes#6888 open)', () => {
    for (const tag of ['v1.2.0', 'v1.3.0']) {
      const o = load('ovn-kubernetes-v1.3.0.yaml')
      for (const c of o.daemonSets[0]!.spec!.template!.spec!.containers!) c.image = `ghcr.io/ovn-kubernetes/ovn-kubernetes/ovn-kube-ubuntu:${tag}`
      const d = detectDataPlane(o)
      expect(d.version).toBe(tag.slice(1))
      expect(d.honoursZoneHints).toBe(false)
      expect(describeDataPlane(d)).toBe(`ovn-kubernetes ${tag} (OVN load balancers)`)
    }
  })

  it('next to kube-proxy: ovn-kubernetes is named, kube-proxy also found, pods translated by OVN first', () => {
    const d = detectDataPlane(load('ovn-kubernetes-v1.3.0.yaml', 'kube-proxy-kubeadm-1.34.yaml'))
    expect(d.name).toBe('ovn-kubernetes')
    expect(d.alsoFound).toEqual(['kube-proxy'])
    expect(d.evidence.at(-1)).toContain("pod traffic to ClusterIPs is translated by OVN's logical switch load balancers before kube-proxy's rules")
  })

  it('Cilium (e.g. chained) still wins over it', () => {
    expect(detectDataPlane(load('ovn-kubernetes-v1.3.0.yaml', 'cilium-kpr-v1.18.4.yaml')).name).toBe('cilium')
  })
})

describe('kube-ovn (dist/images/install.sh v1.16.2)', () => {
  it('v1.16.2 with --enable-lb=true next to kube-proxy: kube-ovn for pods (hints ignored), kube-proxy for hosts', () => {
    const o = load('kube-ovn-v1.16.2.yaml', 'kube-proxy-kubeadm-1.34.yaml')
    const d = detectDataPlane(o)
    expect(d).toMatchObject({
      name: 'kube-ovn',
      version: '1.16.2',
      honoursZoneHints: false,
      honoursNodeHints: false,
      selection: 'all-endpoints',
      alsoFound: ['kube-proxy'],
      fix: KUBE_OVN_FIX,
      settings: {'enable-lb': 'true'},
      paths: [
        {traffic: 'pods', by: 'kube-ovn', honoursZoneHints: false},
        {traffic: 'host', by: 'kube-proxy', honoursZoneHints: true},
      ],
    })
    expect(d.message).toContain('kube-ovn v1.16.2 load-balances ClusterIPs in OVN with every endpoint')
    expect(d.evidence).toContain('Deployment kube-system/kube-ovn-controller: --enable-lb=true')
    expect(d.evidence.at(-1)).toContain('host-network clients go through kube-proxy (kubeovn/kube-ovn#53)')
    expect(describeDataPlane(d)).toBe('kube-ovn v1.16.2 (OVN load balancers, kube-proxy for host traffic)')
  })

  it('the version boundary: v1.16.x ignores hints, v1.17.0 follows trafficDistribution with node hints', () => {
    const before = detectDataPlane(kubeOvn({tag: 'v1.16.9'}))
    expect(before).toMatchObject({honoursZoneHints: false, honoursNodeHints: false, selection: 'all-endpoints'})
    const after = detectDataPlane(kubeOvn({tag: 'v1.17.0'}))
    expect(after).toMatchObject({
      name: 'kube-ovn',
      version: '1.17.0',
      honoursZoneHints: true,
      honoursNodeHints: true,
      selection: 'kube-ovn',
      preferSameGate: true,
      message: KUBE_OVN_SEMANTICS,
    })
    expect(after.fix).toBeUndefined()
    // Without kube-proxy, nobody known takes host-network traffic.
    expect(after.paths[1]).toEqual({traffic: 'host', by: 'unknown', honoursZoneHints: 'unknown'})
  })

  it('an untagged image: unknown, with the boundary in the message', () => {
    const d = detectDataPlane(kubeOvn({tag: 'latest'}))
    expect(d).toMatchObject({name: 'kube-ovn', honoursZoneHints: 'unknown', honoursNodeHints: 'unknown'})
    expect(d.selection).toBeUndefined()
    expect(d.message).toContain('from v1.17 (kubeovn/kube-ovn#7378)')
  })

  it('--enable-lb=false: Services are left to kube-proxy; kube-ovn is also found', () => {
    const d = detectDataPlane({...kubeOvn({enableLb: 'false'}), daemonSets: [...kubeOvn({enableLb: 'false'}).daemonSets, ...load('kube-proxy-kubeadm-1.34.yaml').daemonSets]})
    expect(d.name).toBe('kube-proxy')
    expect(d.alsoFound).toEqual(['kube-ovn'])
    expect(d.evidence).toContain('kube-ovn runs with --enable-lb=false: Services are left to kube-proxy')
    // Without kube-proxy: unknown, saying why.
    const alone = detectDataPlane(kubeOvn({enableLb: 'false'}))
    expect(alone.name).toBe('unknown')
    expect(alone.evidence).toContain('kube-ovn runs with --enable-lb=false, and no kube-proxy DaemonSet was found')
  })

  it("the controller's Deployment unread or absent: --enable-lb at its default (true)", () => {
    const unread = detectDataPlane(kubeOvn({withController: false}))
    expect(unread.name).toBe('kube-ovn')
    expect(unread.settings['enable-lb']).toBe('true (default, assumed)')
    expect(unread.evidence).toContain('Deployment kube-system/kube-ovn-controller was not read: --enable-lb assumed at its default (true)')
    const absent = detectDataPlane({...kubeOvn({withController: false}), deployments: []})
    expect(absent.evidence).toContain('Deployment kube-system/kube-ovn-controller not found: --enable-lb assumed at its default (true)')
  })
})

describe('--data-plane ovn-kubernetes|kube-ovn', () => {
  it('accepts both names and their spellings', () => {
    expect(parseDataPlaneFlag('ovn-kubernetes')).toBe('ovn-kubernetes')
    expect(parseDataPlaneFlag('OVN_Kubernetes')).toBe('ovn-kubernetes')
    expect(parseDataPlaneFlag('kube-ovn')).toBe('kube-ovn')
    expect(parseDataPlaneFlag('kubeovn')).toBe('kube-ovn')
    expect(() => parseDataPlaneFlag('ovn')).toThrow(/expected one of kube-proxy, cilium, calico, antrea, kube-router, ovn-kubernetes, kube-ovn, unknown/)
  })

  it('ovn-kubernetes ignores hints; kube-ovn is assumed at v1.17 or later', () => {
    expect(dataPlaneFromFlag('ovn-kubernetes')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints', source: 'flag', message: OVN_KUBERNETES_MESSAGE})
    expect(dataPlaneFromFlag('kube-ovn')).toMatchObject({honoursZoneHints: true, honoursNodeHints: true, selection: 'kube-ovn', source: 'flag'})
  })

  it('the unknown answer names every accepted value in its fix', () => {
    expect(unknownDataPlane('x').fix).toBe('name it with --data-plane kube-proxy|cilium|calico|antrea|kube-router|ovn-kubernetes|kube-ovn')
    expect(detectDataPlane({daemonSets: [], configMaps: []}).evidence).toEqual([
      'no kube-proxy, cilium, calico-node, antrea-agent, ovnkube-node, kube-ovn-cni or kube-router DaemonSet found',
    ])
  })
})

// ---- kube-ovn's endpoint choice (kubeovn/kube-ovn#7378, #7457) ----------------------------------

const set = (...xs: string[]): ReadonlySet<string> | null => (xs.length === 0 ? null : new Set(xs))
function ep(ip: string, o: {ready?: boolean; node?: string; zones?: string[]; nodes?: string[]} = {}): ProxyEndpoint {
  const ready = o.ready ?? true
  return {
    ip,
    ready,
    serving: ready,
    terminating: !ready,
    nodeName: o.node ?? null,
    zone: null,
    zoneHints: set(...(o.zones ?? [])),
    nodeHints: set(...(o.nodes ?? [])),
    sliceName: 's',
  }
}
const svc = (spec: Service['spec'] = {}, annotations: Record<string, string> = {}): Service => ({metadata: {name: 'web', namespace: 'default', annotations}, spec})
const nodeA1 = {name: 'a1', labels: {'topology.kubernetes.io/zone': 'zone-a'}}
const ips = (eps: readonly ProxyEndpoint[]) => eps.map((e) => e.ip)

describe('kube-ovn endpoint choice', () => {
  const eps = [
    ep('10.0.0.1', {node: 'a1', zones: ['zone-a'], nodes: ['a1']}),
    ep('10.0.0.2', {node: 'a2', zones: ['zone-a'], nodes: ['a2']}),
    ep('10.0.0.3', {node: 'b1', zones: ['zone-b'], nodes: ['b1']}),
  ]

  it('PreferSameNode: node hints first, then zone, then all', () => {
    expect(kubeOvnSelectBackends(eps, svc({trafficDistribution: 'PreferSameNode'}), nodeA1)).toEqual({endpoints: [eps[0]], topology: 'node'})
    const a3 = {name: 'a3', labels: {'topology.kubernetes.io/zone': 'zone-a'}}
    expect(ips(kubeOvnSelectBackends(eps, svc({trafficDistribution: 'PreferSameNode'}), a3).endpoints)).toEqual(['10.0.0.1', '10.0.0.2'])
    const c1 = {name: 'c1', labels: {'topology.kubernetes.io/zone': 'zone-c'}}
    expect(kubeOvnSelectBackends(eps, svc({trafficDistribution: 'PreferSameNode'}), c1)).toMatchObject({topology: 'none'})
  })

  it('#7457: one backend without a node hint switches node selection off (zone rule instead)', () => {
    const partial = [eps[0]!, ep('10.0.0.2', {node: 'a2', zones: ['zone-a']}), eps[2]!]
    expect(kubeOvnSelectBackends(partial, svc({trafficDistribution: 'PreferSameNode'}), nodeA1)).toMatchObject({topology: 'zone'})
    expect(ips(kubeOvnSelectBackends(partial, svc({trafficDistribution: 'PreferSameNode'}), nodeA1).endpoints)).toEqual(['10.0.0.1', '10.0.0.2'])
  })

  it('PreferSameZone and PreferClose: zone hints, node hints not used', () => {
    for (const td of ['PreferSameZone', 'PreferClose']) {
      expect(kubeOvnSelectBackends(eps, svc({trafficDistribution: td}), nodeA1)).toMatchObject({topology: 'zone'})
    }
  })

  it('no trafficDistribution (the topology-mode annotation alone) or internalTrafficPolicy Local: no topology', () => {
    expect(kubeOvnSelectBackends(eps, svc({}, {'service.kubernetes.io/topology-mode': 'Auto'}), nodeA1)).toEqual({endpoints: eps, topology: 'none'})
    const local = kubeOvnSelectBackends(eps, svc({trafficDistribution: 'PreferSameZone', internalTrafficPolicy: 'Local'}), nodeA1)
    expect(local).toEqual({endpoints: [eps[0]], topology: 'none'})
  })

  it('only ready endpoints are backends (endpoint_slice.go endpointReady)', () => {
    const withTerminating = [...eps, ep('10.0.0.4', {ready: false, node: 'a1', zones: ['zone-a'], nodes: ['a1']})]
    expect(ips(kubeOvnSelectBackends(withTerminating, svc({trafficDistribution: 'PreferSameNode'}), nodeA1).endpoints)).toEqual(['10.0.0.1'])
    expect(ips(kubeOvnSelectBackends(withTerminating, svc({}), nodeA1).endpoints)).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3'])
  })

  it('endpointsForNode dispatches on the detected plane: v1.17 narrows, v1.16 does not', () => {
    const s = svc({trafficDistribution: 'PreferSameZone'})
    expect(endpointsForNode(detectDataPlane(kubeOvn({tag: 'v1.17.0'})), eps, s, nodeA1).topology).toBe('zone')
    expect(endpointsForNode(detectDataPlane(kubeOvn()), eps, s, nodeA1)).toEqual({endpoints: eps, topology: 'none'})
    expect(endpointsForNode(detectDataPlane(load('ovn-kubernetes-v1.3.0.yaml')), eps, s, nodeA1)).toEqual({endpoints: eps, topology: 'none'})
  })
})
