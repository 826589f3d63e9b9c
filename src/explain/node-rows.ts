// The --per-node rows of one Service's explanation, for report.ts: each node's kube-proxy (or
// data plane) choice on the live hints, under the node's own kube-proxy rules when versions
// differ, per Service port. Pure.

import {categorizeEndpoints} from '../upstream/kube-proxy/topology.js'
import type {ProxyEndpoint} from '../upstream/kube-proxy/endpoint.js'
import {proxyEndpointsFromSlices} from '../upstream/kube-proxy/endpointslicecache.js'
import {serviceTrafficFlags} from '../upstream/kube-proxy/serviceport.js'
import {LABEL_ZONE, type EndpointSlice, type Node, type Service} from '../upstream/api/types.js'
import {planeNodeChoice} from './dataplane-views.js'
import {categorizeOptions, mergesLocalCopy, sameRules} from './proxy-skew.js'
import {forPort, type ProxyLists} from './proxy-views.js'
import type {NodeProxyRow} from './report-types.js'

export function nodeRows(lists: ProxyLists, service: Service, slices: EndpointSlice[], sorted: Node[], proxied: boolean): NodeProxyRow[] {
  const {plane, planeRules, servicePorts, uniformPorts, firstPort, flags, liveProxy, categorizeOpts, baseRules, skew, skewed, epsOf} = lists
  // Ports whose slices differ from the node-level view's: their own endpoints and flags.
  const ownPortsFor = (gate: boolean) =>
    uniformPorts
      ? []
      : servicePorts.map((p, i) =>
          i === 0 ? null : {eps: proxyEndpointsFromSlices(forPort(slices, p), {preferSameGate: gate}), flags: serviceTrafficFlags(service, {portName: p.name})},
        )
  const ownPortsByGate = new Map<boolean, ReturnType<typeof ownPortsFor>>()
  // Some address is in several slices (kube-proxy merges the copies; the rule changed in 1.36).
  let addresses = 0
  for (const s of forPort(slices, firstPort)) for (const e of s.endpoints ?? []) if (e.addresses?.[0] !== undefined) addresses++
  const duplicated = skew !== null && liveProxy.length < addresses
  // Each node's kube-proxy version, when the Pods were read (null: not known for that node).
  const versionOf = (name: string) => (skew === null ? {} : {kubeProxyVersion: skew.versions.get(name) ?? null})
  return sorted.map((node) => {
    const zone = node.metadata.labels?.[LABEL_ZONE] ?? null
    if (!proxied) {
      const none = {mode: '' as const, fallback: false, reason: 'not-proxied' as const, endpoints: [] as string[]}
      return {
        name: node.metadata.name,
        zone,
        ...versionOf(node.metadata.name),
        ...none,
        clusterEndpoints: [],
        localEndpoints: [],
        ports: servicePorts.map((p) => ({...p, ...none, endpoints: []})),
      }
    }
    if (planeRules) {
      const c = planeNodeChoice(plane!, liveProxy, service, {name: node.metadata.name, labels: node.metadata.labels ?? {}})
      const v = {mode: c.mode, fallback: c.reason !== null, reason: c.reason, endpoints: c.endpoints}
      return {
        name: node.metadata.name,
        zone,
        ...versionOf(node.metadata.name),
        ...v,
        clusterEndpoints: [...c.endpoints],
        localEndpoints: [],
        ports: servicePorts.map((p) => ({...p, ...v, endpoints: [...v.endpoints]})),
      }
    }
    // The node's own kube-proxy rules (the cluster-wide ones without skew).
    const rules = skewed ? skewed.rulesOf(node.metadata.name) : baseRules
    const nodeOpts = sameRules(rules, baseRules) ? categorizeOpts : categorizeOptions(rules, service)
    const categorize = (eps: readonly ProxyEndpoint[], f: typeof flags) => categorizeEndpoints(eps, f, {name: node.metadata.name, labels: node.metadata.labels ?? {}}, nodeOpts)
    const viewOf = (c: ReturnType<typeof categorize>) => ({
      mode: c.topologyMode,
      fallback: c.fallbackReason !== null,
      reason: c.fallbackReason,
      endpoints: c.allReachableEndpoints.map((e) => e.ip),
    })
    // One address in several slices, on a kube-proxy before 1.36: its own merge rule (the local copy wins).
    const legacy = duplicated && mergesLocalCopy(skew, node.metadata.name)
    const c0 = categorize(
      legacy ? proxyEndpointsFromSlices(forPort(slices, firstPort), {preferSameGate: rules.preferSameGate, localCopyWins: node.metadata.name}) : epsOf(rules, true),
      flags,
    )
    const v = viewOf(c0)
    let ownPorts = ownPortsByGate.get(rules.preferSameGate)
    if (ownPorts === undefined) ownPortsByGate.set(rules.preferSameGate, (ownPorts = ownPortsFor(rules.preferSameGate)))
    return {
      name: node.metadata.name,
      zone: node.metadata.labels?.[LABEL_ZONE] ?? null,
      ...versionOf(node.metadata.name),
      ...v,
      clusterEndpoints: c0.clusterEndpoints.map((e) => e.ip),
      localEndpoints: c0.localEndpoints.map((e) => e.ip),
      ports: servicePorts.map((p, i) => {
        const own = ownPorts[i]
        return {...p, ...(own ? viewOf(categorize(own.eps, own.flags)) : {...v, endpoints: [...v.endpoints]})}
      }),
    }
  })
}
