// pkg/proxy/util/utils.go GetClusterIPByFamily and the port filter of
// pkg/proxy/endpointslicecache.go endpointInfoByServicePort (name and protocol), on literals.
import {describe, expect, it} from 'vitest'
import {proxyEndpointsFromSlices, sliceHasPort} from '../../src/upstream/kube-proxy/endpointslicecache.js'
import {getClusterIPByFamily} from '../../src/upstream/kube-proxy/serviceport.js'
import type {EndpointSlice, Service} from '../../src/upstream/api/types.js'

const svc = (spec: NonNullable<Service['spec']>): Service => ({metadata: {name: 's'}, spec})

describe('getClusterIPByFamily', () => {
  it('by spec.ipFamilies and spec.clusterIPs, index by index', () => {
    const dual = svc({ipFamilies: ['IPv6', 'IPv4'], clusterIPs: ['fd00::1', '10.96.0.1'], clusterIP: 'fd00::1'})
    expect(getClusterIPByFamily('IPv6', dual)).toBe('fd00::1')
    expect(getClusterIPByFamily('IPv4', dual)).toBe('10.96.0.1')
    const v4 = svc({ipFamilies: ['IPv4'], clusterIPs: ['10.96.0.1']})
    expect(getClusterIPByFamily('IPv6', v4)).toBe('')
    // a family listed without its ClusterIP gives none
    expect(getClusterIPByFamily('IPv6', svc({ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.1']}))).toBe('')
  })
  it('without ipFamilies: spec.clusterIP of that family, never None', () => {
    expect(getClusterIPByFamily('IPv4', svc({clusterIP: '10.96.0.1'}))).toBe('10.96.0.1')
    expect(getClusterIPByFamily('IPv6', svc({clusterIP: '10.96.0.1'}))).toBe('')
    expect(getClusterIPByFamily('IPv4', svc({clusterIP: 'None'}))).toBe('')
    expect(getClusterIPByFamily('IPv4', svc({}))).toBe('')
  })
})

describe('endpointInfoByServicePort: slices of a service port', () => {
  const slice = (name: string, ports: EndpointSlice['ports'], ip: string): EndpointSlice => ({
    metadata: {name},
    addressType: 'IPv4',
    ports,
    endpoints: [{addresses: [ip], conditions: {ready: true}}],
  })
  const tcp = slice('a', [{name: 'dns', port: 53, protocol: 'TCP'}], '10.0.0.1')
  const udp = slice('b', [{name: 'dns', port: 53, protocol: 'UDP'}], '10.0.0.2')
  const unset = slice('c', [{name: 'dns', port: 53}], '10.0.0.3')
  const zero = slice('d', [{name: 'dns', port: 0, protocol: 'TCP'}], '10.0.0.4')
  it('by name and protocol (unset protocol reads as TCP); a zero port number does not count', () => {
    expect(sliceHasPort(udp, 'dns', 'TCP')).toBe(false)
    expect(sliceHasPort(unset, 'dns', 'TCP')).toBe(true)
    expect(sliceHasPort(zero, 'dns')).toBe(false)
    const ips = (protocol: string) => proxyEndpointsFromSlices([tcp, udp, unset, zero], {preferSameGate: true, portName: 'dns', protocol}).map((e) => e.ip)
    expect(ips('TCP')).toEqual(['10.0.0.1', '10.0.0.3'])
    expect(ips('UDP')).toEqual(['10.0.0.2'])
  })
})
