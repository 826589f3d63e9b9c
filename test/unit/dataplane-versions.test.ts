// Every version boundary the node data planes are modelled with, tested on both sides, each
// with the upstream source that sets it (docs/dataplane.md, "Version boundaries"). The images
// are the published fixtures of test/unit/data/dataplane/ with only the tag changed.
import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parseAllDocuments} from 'yaml'
import {CILIUM_1180_FIX, CILIUM_SEMANTICS, CILIUM_SEMANTICS_120, CALICO_ANNOTATION_NOTE, CALICO_IGNORES, detectDataPlane} from '../../src/dataplane/detect.js'
import {ciliumSelectBackends, endpointsForNode} from '../../src/dataplane/selection.js'
import type {ConfigMap, DaemonSet, DataPlaneObjects} from '../../src/dataplane/types.js'
import type {Service} from '../../src/upstream/api/types.js'
import type {ProxyEndpoint} from '../../src/upstream/kube-proxy/endpoint.js'

const DIR = path.join(import.meta.dirname, 'data', 'dataplane')

/** The fixture with `container`'s image tag replaced by `tag`. */
function retagged(file: string, container: string, tag: string): DataPlaneObjects {
  const out: DataPlaneObjects = {daemonSets: [], configMaps: [], felixConfigurations: [], installations: []}
  for (const doc of parseAllDocuments(fs.readFileSync(path.join(DIR, file), 'utf8'))) {
    const o = doc.toJS() as {kind?: string} | null
    if (o?.kind === 'DaemonSet') out.daemonSets.push(o as DaemonSet)
    else if (o?.kind === 'ConfigMap') out.configMaps.push(o as ConfigMap)
  }
  for (const ds of out.daemonSets) {
    for (const c of ds.spec?.template?.spec?.containers ?? []) if (c.name === container && c.image) c.image = `${c.image.split(':')[0]}:${tag}`
  }
  return out
}

const set = (...xs: string[]): ReadonlySet<string> | null => (xs.length === 0 ? null : new Set(xs))
const be = (ip: string, zones: string[]): ProxyEndpoint => ({
  ip,
  ready: true,
  serving: true,
  terminating: false,
  nodeName: null,
  zone: null,
  zoneHints: set(...zones),
  nodeHints: null,
  sliceName: 's',
})
const ips = (eps: readonly ProxyEndpoint[]) => eps.map((e) => e.ip)
const auto: Service = {metadata: {name: 'echo', annotations: {'service.kubernetes.io/topology-mode': 'Auto'}}, spec: {type: 'ClusterIP'}}
const nodeFoo = {name: 'testnode', labels: {'topology.kubernetes.io/zone': 'foo'}}

describe('Cilium', () => {
  const cilium = (tag: string) => detectDataPlane(retagged('cilium-kpr-topology-v1.18.4.yaml', 'cilium-agent', tag))

  it('service topology from 1.11 (cilium/cilium#17929): 1.10.20 ignores hints, 1.11.0 honours them', () => {
    expect(cilium('v1.10.20')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints'})
    expect(cilium('v1.10.20').message).toContain('predates service topology (1.11)')
    expect(cilium('v1.11.0')).toMatchObject({honoursZoneHints: true, selection: 'cilium'})
  })

  it('safeguards missing in 1.18.0 only (fixed in 1.18.1 by cilium/cilium#41116): the message and fix say so', () => {
    expect(cilium('v1.17.9').message).toBe(CILIUM_SEMANTICS)
    expect(cilium('v1.18.0').message).toContain('Cilium 1.18.0 applies zone hints backend by backend')
    expect(cilium('v1.18.0').fix).toBe(CILIUM_1180_FIX)
    expect(cilium('v1.18.1').message).toBe(CILIUM_SEMANTICS)
    expect(cilium('v1.18.1').fix).toBeUndefined()
  })

  it('1.18.0 endpoint choice: no fallback when no backend is hinted for the zone, unhinted backends kept; 1.17.9 and 1.18.1 fall back to all', () => {
    const otherZones = [be('10.244.1.1', ['bar']), be('10.244.2.1', ['quux'])]
    const oneUnhinted = [be('10.244.1.1', ['foo']), be('10.244.2.1', ['quux']), be('10.244.3.1', [])]
    const pick = (version: string, eps: ProxyEndpoint[]) => endpointsForNode({...cilium(`v${version}`)}, eps, auto, nodeFoo)
    // 1.18.0: the zone gets no backend at all; the unhinted backend stays next to the zone's own.
    expect(pick('1.18.0', otherZones).endpoints).toEqual([])
    expect(ips(pick('1.18.0', oneUnhinted).endpoints)).toEqual(['10.244.1.1', '10.244.3.1'])
    for (const v of ['1.17.9', '1.18.1']) {
      expect(ips(pick(v, otherZones).endpoints)).toEqual(['10.244.1.1', '10.244.2.1'])
      expect(ips(pick(v, oneUnhinted).endpoints)).toEqual(['10.244.1.1', '10.244.2.1', '10.244.3.1'])
    }
    // The direct call: safeguards off is 1.18.0's rule.
    expect(ciliumSelectBackends(otherZones, auto, nodeFoo, true, {safeguards: false})).toEqual({endpoints: [], topology: 'zone'})
  })

  it('PreferSameZone / PreferSameNode from 1.20.0 (cilium/cilium#44771, v1.20.0 release notes): 1.19.9 no, 1.20.0 yes', () => {
    expect(cilium('v1.19.9')).toMatchObject({honoursNodeHints: false, message: CILIUM_SEMANTICS})
    expect(cilium('v1.20.0')).toMatchObject({honoursNodeHints: true, message: CILIUM_SEMANTICS_120})
    const psz: Service = {metadata: {name: 'echo'}, spec: {type: 'ClusterIP', trafficDistribution: 'PreferSameZone'}}
    const eps = [be('10.244.1.1', ['foo']), be('10.244.2.1', ['quux'])]
    expect(endpointsForNode(cilium('v1.19.9'), eps, psz, nodeFoo).topology).toBe('none')
    expect(endpointsForNode(cilium('v1.20.0'), eps, psz, nodeFoo).topology).toBe('zone')
  })
})

describe('Calico eBPF (felix/bpf/proxy history)', () => {
  const calico = (tag: string) => detectDataPlane(retagged('calico-bpf-v3.32.1.yaml', 'calico-node', tag))

  it('v3.26.0 (projectcalico/calico#7241): v3.25.2 ignores hints, v3.26.0 the annotation only', () => {
    expect(calico('v3.25.2')).toMatchObject({honoursZoneHints: false, message: CALICO_IGNORES})
    expect(calico('v3.26.0')).toMatchObject({honoursZoneHints: true, honoursNodeHints: false, selection: 'calico-annotation', message: CALICO_ANNOTATION_NOTE})
  })

  it('v3.31.0 regression (calico#10715): v3.30.5 annotation rule, v3.31.0 and v3.31.4 ignore hints', () => {
    expect(calico('v3.30.5').selection).toBe('calico-annotation')
    expect(calico('v3.31.0')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints'})
    expect(calico('v3.31.4')).toMatchObject({honoursZoneHints: false, selection: 'all-endpoints'})
  })

  it('v3.31.5 (backport #11859): zone hints, not node hints; v3.32.0 (#11751, v3.32.0 release notes): both', () => {
    expect(calico('v3.31.5')).toMatchObject({honoursZoneHints: true, honoursNodeHints: false, selection: 'calico-tar-td'})
    expect(calico('v3.31.9')).toMatchObject({honoursNodeHints: false})
    expect(calico('v3.32.0')).toMatchObject({honoursZoneHints: true, honoursNodeHints: true, selection: 'calico-tar-td'})
  })
})

describe('Antrea', () => {
  const antrea = (tag: string) => detectDataPlane(retagged('antrea-v2.5.3.yaml', 'antrea-agent', tag))

  it('TopologyAwareHints gate: alpha off in v1.8, beta on in v1.12 (docs/feature-gates.md)', () => {
    expect(antrea('v1.7.2').honoursZoneHints).toBe(false)
    expect(antrea('v1.8.0').honoursZoneHints).toBe(false)
    expect(antrea('v1.11.6').honoursZoneHints).toBe(false)
    expect(antrea('v1.12.0').honoursZoneHints).toBe(true)
  })

  it('trafficDistribution from v2.2.0 (antrea-io/antrea#6604, CHANGELOG-2.2): v2.1.x the "Auto" annotation only', () => {
    expect(antrea('v2.1.2').message).toContain('uses zone hints only for Services annotated')
    expect(antrea('v2.1.2').fix).toBe('upgrade Antrea to v2.2 or later for trafficDistribution support')
    const psz: Service = {metadata: {name: 'echo'}, spec: {type: 'ClusterIP', trafficDistribution: 'PreferSameZone'}}
    const eps = [be('10.244.1.1', ['foo']), be('10.244.2.1', ['quux'])]
    expect(endpointsForNode(antrea('v2.1.2'), eps, psz, nodeFoo).topology).toBe('none')
    expect(antrea('v2.2.0').message).not.toContain('annotated')
    expect(endpointsForNode(antrea('v2.2.0'), eps, psz, nodeFoo).topology).toBe('zone')
  })

  it('node hints only with PreferSameTrafficDistribution, a gate from v2.5 (off by default)', () => {
    expect(antrea('v2.4.3').honoursNodeHints).toBe(false)
    expect(antrea('v2.5.0').honoursNodeHints).toBe(false)
  })
})

describe('kube-router', () => {
  it('no version reads hints (cloudnativelabs/kube-router#1005): v1.0.0 and v2.6.1 alike', () => {
    for (const tag of ['v1.0.0', 'v2.6.1']) {
      expect(detectDataPlane(retagged('kube-router-all-features.yaml', 'kube-router', tag))).toMatchObject({honoursZoneHints: false, honoursNodeHints: false})
    }
  })
})
