// explain() with a data plane (ExplainOptions.dataPlane): the report states it, a Service whose
// hints it ignores or alters says so, and the zone / node verdicts and the in-zone estimate
// follow its rules (src/explain/dataplane-views.ts over src/dataplane/selection.ts). Without
// one, the report is the kube-proxy report it always was. Also --per-node's separate sets.
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {dataPlaneFromFlag, detectDataPlane} from '../../src/dataplane/detect.js'
import {dataPlaneLine, describeDataPlane, unknownDataPlane, NOT_IN_SNAPSHOT} from '../../src/dataplane/describe.js'
import {check} from '../../src/check/check.js'
import {explain} from '../../src/explain/report.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {parseAllDocuments} from 'yaml'

const ROOT = path.resolve(import.meta.dirname, '../..')
const state: ClusterState = parseSnapshot(readFileSync(path.join(ROOT, 'examples/three-zones.yaml'), 'utf8'), 'three-zones.yaml')
const svc = (name: string) => state.services.filter((s) => s.metadata.name === name)
const fixture = (file: string) => {
  const docs = parseAllDocuments(readFileSync(path.join(ROOT, 'test/unit/data/dataplane', file), 'utf8')).map((d) => d.toJSON())
  return {daemonSets: docs.filter((d) => d?.kind === 'DaemonSet'), configMaps: docs.filter((d) => d?.kind === 'ConfigMap')}
}

describe('explain with a data plane', () => {
  it('without one the report has no dataPlane field and kube-proxy verdicts', () => {
    const r = explain(state, svc('checkout'), {kubeVersion: '1.36'})
    expect('dataPlane' in r).toBe(false)
    expect('dataPlane' in r.services[0]!).toBe(false)
    expect(r.services[0]!.zones.every((z) => z.kubeProxy.mode === 'PreferSameZone')).toBe(true)
  })

  it('unknown (a snapshot without data-plane information) keeps every figure of kube-proxy', () => {
    const base = explain(state, state.services, {kubeVersion: '1.36'})
    const r = explain(state, state.services, {kubeVersion: '1.36', dataPlane: unknownDataPlane(NOT_IN_SNAPSHOT)})
    expect(r.dataPlane!.name).toBe('unknown')
    expect(dataPlaneLine(r.dataPlane!)).toBe("Data plane: not recorded in the snapshot; kube-proxy's rules assumed")
    for (const [i, s] of r.services.entries()) {
      expect(s.zones).toEqual(base.services[i]!.zones)
      expect(s.traffic).toEqual(base.services[i]!.traffic)
      expect(s.dataPlane).toBeNull()
    }
  })

  it('Cilium without service topology: every zone ignores the hints, traffic spreads, the Service says so with the fix', () => {
    const plane = detectDataPlane(fixture('cilium-kpr-v1.18.4.yaml'))
    expect(describeDataPlane(plane)).toBe('Cilium 1.18.4 kube-proxy replacement without service topology')
    const r = explain(state, svc('checkout'), {kubeVersion: '1.36', dataPlane: plane})
    const s = r.services[0]!
    expect(s.zones.map((z) => [z.kubeProxy.reason, z.kubeProxy.routedEndpoints])).toEqual([
      ['ignored-by-data-plane', 9],
      ['ignored-by-data-plane', 9],
      ['ignored-by-data-plane', 9],
    ])
    expect(s.traffic.inZoneShareLive).toBeCloseTo(3 / 9, 10)
    expect(s.dataPlane).toEqual({ignoresHints: true, message: plane.message, fix: plane.fix})
    expect(s.findings).toContain('data-plane-ignores-hints')
    expect(s.findings).not.toContain('fallback')
    const c = check(r, svc('checkout'), {dataPlaneHonoursHints: true, noFallback: true})
    expect(c.services[0]!.results.map((x) => [x.policy, x.status])).toEqual([
      ['no-fallback', 'pass'],
      ['data-plane-hints', 'fail'],
    ])
    expect(c.dataPlane!.name).toBe('cilium')
  })

  it('a Service that asks for hints but has none: "hints are requested"', () => {
    const r = explain(state, svc('cart'), {kubeVersion: '1.36', dataPlane: dataPlaneFromFlag('kube-router')})
    expect(r.services[0]!.controller.hintsSet).toBe(false)
    expect(r.services[0]!.dataPlane!.message).toMatch(/^hints are requested, but kube-router's IPVS service proxy/)
  })

  it('Cilium with service topology and Calico eBPF 3.32 use the zone hints: same routes as kube-proxy here', () => {
    for (const file of ['cilium-kpr-topology-v1.18.4.yaml', 'calico-bpf-v3.32.1.yaml']) {
      const plane = detectDataPlane(fixture(file) as never)
      const r = explain(state, svc('checkout'), {kubeVersion: '1.36', dataPlane: plane, perNode: true})
      const s = r.services[0]!
      expect(
        s.zones.map((z) => [z.kubeProxy.mode, z.kubeProxy.fallback, z.kubeProxy.routedEndpoints]),
        file,
      ).toEqual([
        ['PreferSameZone', false, 3],
        ['PreferSameZone', false, 3],
        ['PreferSameZone', false, 3],
      ])
      expect(s.traffic, file).toEqual(explain(state, svc('checkout'), {kubeVersion: '1.36'}).services[0]!.traffic)
      expect(s.dataPlane?.ignoresHints ?? false, file).toBe(false)
      for (const n of s.nodes!) expect(n.clusterEndpoints).toEqual(n.endpoints)
    }
  })

  it('--data-plane kube-proxy is the kube-proxy of the modelled version (its PreferSame gate included)', () => {
    for (const kubeVersion of ['1.33', '1.36']) {
      const base = explain(state, state.services, {kubeVersion})
      const r = explain(state, state.services, {kubeVersion, dataPlane: dataPlaneFromFlag('kube-proxy')})
      expect(r.services.map((s) => [s.zones, s.traffic])).toEqual(base.services.map((s) => [s.zones, s.traffic]))
    }
  })

  it('--data-plane unknown: the header says so once; the policy is not checked, one warning says so (no SKIP row per Service)', () => {
    const both = [...svc('checkout'), ...svc('cart')]
    const r = explain(state, both, {kubeVersion: '1.36', dataPlane: dataPlaneFromFlag('unknown')})
    expect(dataPlaneLine(r.dataPlane!)).toBe("Data plane: unknown (named with --data-plane); kube-proxy's rules assumed")
    const c = check(r, both, {dataPlaneHonoursHints: true})
    expect(c.services).toHaveLength(2)
    expect(c.services.flatMap((s) => s.results)).toEqual([])
    expect(c.warnings.filter((w) => w.startsWith('data-plane-hints'))).toEqual([
      "data-plane-hints not checked (data plane: unknown (named with --data-plane); kube-proxy's rules assumed): name the data plane with --data-plane to check that nodes honour the hints",
    ])
  })
})

describe('--per-node: the sets kube-proxy keeps', () => {
  it('cluster and local endpoints apart, their union in endpoints', () => {
    const base = svc('checkout')[0]!
    // internalTrafficPolicy Local: no cluster set, each node its own endpoints.
    const local = {...base, spec: {...base.spec, internalTrafficPolicy: 'Local' as const}}
    const r = explain({...state, services: [local]}, [local], {kubeVersion: '1.36', perNode: true})
    const nodes = r.services[0]!.nodes!
    const withLocal = nodes.filter((n) => n.localEndpoints.length > 0)
    expect(withLocal.length).toBeGreaterThan(0)
    // Every ready endpoint is local to exactly one node.
    expect(nodes.reduce((a, n) => a + n.localEndpoints.length, 0)).toBe(r.services[0]!.totals.readyEndpoints)
    const byNode = new Map(r.services[0]!.endpoints.map((e) => [e.addresses[0], e.nodeName]))
    for (const n of nodes) {
      expect(n.clusterEndpoints).toEqual([])
      expect(n.endpoints).toEqual(n.localEndpoints)
      for (const ip of n.localEndpoints) expect(byNode.get(ip)).toBe(n.name)
    }
    // Without a Local policy there is no local set.
    const plain = explain(state, svc('checkout'), {kubeVersion: '1.36', perNode: true})
    expect(plain.services[0]!.nodes!.every((n) => n.localEndpoints.length === 0 && n.clusterEndpoints.length === n.endpoints.length)).toBe(true)
  })
})
