// Issue 14: the decoder refuses a value no API server returns with exit 3 and one line naming
// the file (line:column), the object and the field path; it keeps what an API server could
// store (src/cluster/snapshot/validate.ts, docs/snapshot.md "What a snapshot may hold").
import {describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {CliError, ExitCode} from '../../src/errors.js'
import {explain} from '../../src/explain/report.js'
import {selectServices} from '../../src/state/select.js'
import {rolloutSpecOf, workloadsBehind} from '../../src/simulate/workload.js'

type Doc = Record<string, unknown>

const base = (): Doc => ({
  apiVersion: 'kubectl-topology/v1',
  kind: 'Snapshot',
  nodes: [{metadata: {name: 'n1', labels: {'topology.kubernetes.io/zone': 'a'}}, status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]}}],
  services: [{metadata: {name: 'web', namespace: 'shop'}, spec: {selector: {app: 'web'}, ports: [{port: 80}]}}],
  endpointSlices: [
    {
      metadata: {name: 'web-1', namespace: 'shop', labels: {'kubernetes.io/service-name': 'web'}},
      addressType: 'IPv4',
      endpoints: [{addresses: ['10.0.0.1'], zone: 'a', nodeName: 'n1', conditions: {ready: true}}],
    },
  ],
})

/** The CliError parseSnapshot throws for the document changed by `edit`, as JSON and as YAML. */
function refusal(edit: (d: Doc & {services: Doc[]; nodes: Doc[]; endpointSlices: Doc[]}) => void, formats: ('json' | 'yaml')[] = ['json', 'yaml']): string[] {
  const d = base() as Doc & {services: Doc[]; nodes: Doc[]; endpointSlices: Doc[]}
  edit(d)
  return formats
    .map((f) => (f === 'json' ? JSON.stringify(d, null, 2) : toYaml(d)))
    .map((text) => {
      try {
        parseSnapshot(text, 'snap.yaml')
      } catch (e) {
        expect(e).toBeInstanceOf(CliError)
        expect((e as CliError).exitCode).toBe(ExitCode.INPUT)
        expect((e as CliError).message).not.toContain('\n')
        return (e as CliError).message
      }
      throw new Error('accepted')
    })
}

const spec = (d: {services: Doc[]}) => d.services[0]!.spec as Doc
const endpoint = (d: {endpointSlices: Doc[]}, i = 0) => (d.endpointSlices[0]!.endpoints as Doc[])[i]!

describe('refused, naming file:line:col, the object and the field', () => {
  it('spec.trafficDistribution: 42', () => {
    const [json, yaml] = refusal((d) => (spec(d).trafficDistribution = 42))
    expect(json).toMatch(/^snap\.yaml:\d+:\d+: Service "shop\/web": spec\.trafficDistribution must be a string, found a number \(42\)$/)
    expect(yaml).toMatch(/^snap\.yaml:\d+:\d+: Service "shop\/web": spec\.trafficDistribution must be a string, found a number \(42\)$/)
  })
  it('serverVersion: banana', () => {
    const [json] = refusal((d) => (d.serverVersion = 'banana'))
    expect(json).toMatch(/^snap\.yaml:\d+:\d+: serverVersion: invalid Kubernetes version "banana": expected MAJOR\.MINOR/)
  })
  it('lists, items and fields inside them, with the index', () => {
    expect(refusal((d) => (spec(d).ports = [null]))[0]).toMatch(/Service "shop\/web": spec\.ports\[0\] must be a mapping, found null$/)
    expect(refusal((d) => (spec(d).ports = [{port: 1.5}]))[0]).toMatch(/spec\.ports\[0\]\.port must be a port number \(an integer from 0 to 65535\), found a number \(1\.5\)$/)
    expect(refusal((d) => (spec(d).externalIPs = 'x'))[0]).toMatch(/spec\.externalIPs must be a list, found a string \("x"\)$/)
    expect(refusal((d) => (d.services[0]!.status = {loadBalancer: {ingress: {}}}))[0]).toMatch(/status\.loadBalancer\.ingress must be a list, found a mapping$/)
    expect(refusal((d) => (endpoint(d).zone = {toString: 1}))[0]).toMatch(
      /^snap\.yaml:\d+:\d+: EndpointSlice "shop\/web-1": endpoints\[0\]\.zone must be a string, found a mapping$/,
    )
    expect(refusal((d) => (endpoint(d).conditions = {ready: 'true'}))[0]).toMatch(/endpoints\[0\]\.conditions\.ready must be true or false, found a string \("true"\)$/)
    expect(refusal((d) => (endpoint(d).hints = {forZones: ['a']}))[0]).toMatch(/endpoints\[0\]\.hints\.forZones\[0\] must be a mapping, found a string \("a"\)$/)
    expect(refusal((d) => (d.endpointSlices[0]!.ports = [{port: -1}]))[0]).toMatch(/ports\[0\]\.port must be a port number/)
    expect(refusal((d) => ((d.nodes[0]!.status as Doc).conditions = [{type: 'Ready', status: true}]))[0]).toMatch(
      /^snap\.yaml:\d+:\d+: Node "n1": status\.conditions\[0\]\.status must be a string, found true$/,
    )
    expect(refusal((d) => ((d.nodes[0]!.metadata as Doc).namespace = 7))[0]).toMatch(
      /Node "7\/n1": metadata\.namespace must be a string|Node "n1": metadata\.namespace must be a string/,
    )
  })
  it('non-finite and out-of-range numbers (YAML can write .nan and .inf)', () => {
    const [yaml] = refusal((d) => ((d.nodes[0]!.status as Doc).allocatable = {cpu: Number.NaN}), ['yaml'])
    expect(yaml).toMatch(/Node "n1": status\.allocatable\.cpu must be a quantity such as "4" or "3500m", found a number \(NaN\)$/)
    expect(refusal((d) => (d.deployments = [{metadata: {name: 'w', namespace: 'shop'}, spec: {strategy: {rollingUpdate: {maxSurge: '1e400'}}}}]))[0]).toMatch(
      /Deployment "shop\/w": spec\.strategy\.rollingUpdate\.maxSurge must be a non-negative integer or a percentage such as "25%", found a string \("1e400"\)$/,
    )
    expect(refusal((d) => (d.events = [{metadata: {name: 'e', namespace: 'shop'}, count: 2 ** 40}]))[0]).toMatch(/Event "shop\/e": count must be an integer from 0 to 2147483647/)
  })
})

describe('kept, as an API server would have kept it', () => {
  it('an unknown trafficDistribution string, null fields', () => {
    const d = base() as Doc & {services: Doc[]}
    spec(d).trafficDistribution = 'PreferSomewhere'
    spec(d).ports = null
    const state = parseSnapshot(JSON.stringify(d), 'snap.json')
    const r = explain(state, state.services)
    expect(r.services[0]!.controller.hintsSet).toBe(false)
    expect(r.services[0]!.mode.why.join(' ')).toContain('PreferSomewhere')
  })
  it('scalar label values in a selector and a pod template are read as the strings the API server stores', () => {
    const text = `apiVersion: kubectl-topology/v1
kind: Snapshot
services:
  - metadata: {name: web, namespace: shop, labels: {tier: 1}}
    spec: {selector: {app: web, tier: 1}}
deployments:
  - metadata: {name: web, namespace: shop}
    spec:
      replicas: 3
      template: {metadata: {labels: {app: web, tier: 1}}}
`
    const state = parseSnapshot(text, 'snap.yaml', 'objects')
    expect(state.services[0]!.spec!.selector).toEqual({app: 'web', tier: '1'})
    expect(selectServices(state, {namespace: 'shop', labelSelector: 'tier=1'}).services.map((s) => s.metadata.name)).toEqual(['web'])
    const behind = workloadsBehind(state, state.services[0]!)
    expect(behind.map((w) => w.metadata.name)).toEqual(['web'])
    expect(rolloutSpecOf(behind[0]!).replicas).toBe(3)
  })
})
