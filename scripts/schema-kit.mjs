// Building blocks shared by the JSON Schema generators (gen-schema.mjs, gen-check-schemas.mjs,
// gen-apply-schema.mjs). Each schema is written by hand from these, so a change of an output
// shape is a deliberate, reviewed change of its generator.
import {writeFileSync} from 'node:fs'

export const nullable = (s) => ({anyOf: [s, {type: 'null'}]})
export const num = {type: 'number'}
export const int = {type: 'integer', minimum: 0}
export const str = {type: 'string'}
export const bool = {type: 'boolean'}
export const strings = {type: 'array', items: str}
export const obj = (properties, required = Object.keys(properties), extra = false) => ({type: 'object', properties, required, additionalProperties: extra})

/** Writes schema/NAME as indented JSON with a trailing newline. */
export function writeSchema(name, schema) {
  writeFileSync(new URL(`../schema/${name}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`)
}

/** The data plane the commands assumed (src/dataplane/describe.ts DataPlaneReport); explain's and check's `dataPlane`. */
const tristate = {enum: [true, false, 'unknown']}
const planeName = {enum: ['kube-proxy', 'cilium', 'calico', 'antrea', 'kube-router', 'ovn-kubernetes', 'kube-ovn', 'unknown']}
export const dataPlane = obj({
  name: planeName,
  version: nullable(str),
  description: str,
  honoursZoneHints: tristate,
  honoursNodeHints: tristate,
  selection: nullable({enum: ['kube-proxy', 'cilium', 'calico-annotation', 'calico-tar-td', 'kube-ovn', 'all-endpoints']}),
  proxyVersion: nullable(str),
  // Each node's kube-proxy, from its Pod (src/dataplane/proxy-nodes.ts); null when the Pods were not read.
  proxyNodes: nullable({
    type: 'array',
    items: obj({node: str, version: nullable(str), image: nullable(str), from: {enum: ['pod', 'static-pod', 'daemonset']}, object: str}),
  }),
  source: {enum: ['detected', 'flag', 'snapshot']},
  message: nullable(str),
  fix: nullable(str),
  settings: {type: 'object', additionalProperties: str},
  paths: {type: 'array', items: obj({traffic: {enum: ['pods', 'host']}, by: planeName, honoursZoneHints: tristate})},
  alsoFound: {type: 'array', items: planeName},
  evidence: strings,
  warnings: strings,
})

/** Who routes each request (src/dataplane/routes/types.ts): explain's `routes` and each Service's `clientPaths`. */
const proxyName = {enum: ['istio-sidecar', 'istio-ztunnel', 'istio-waypoint', 'istio-gateway', 'linkerd', 'ingress-nginx', 'envoy-gateway', 'gateway-api']}
export const routesFound = obj({
  proxies: {type: 'array', items: obj({name: proxyName, version: str, settings: {type: 'object', additionalProperties: str}, evidence: strings}, ['name', 'settings', 'evidence'])},
  warnings: strings,
  source: {enum: ['detected', 'snapshot']},
})
export const clientPaths = obj({
  setting: str,
  paths: {
    type: 'array',
    items: obj(
      {
        via: {enum: [...proxyName.enum, 'node']},
        clients: str,
        version: str,
        bypassesNode: bool,
        zoneHints: tristate,
        nodeHints: tristate,
        verdict: {enum: ['honours', 'partial', 'ignores', 'not-asked', 'unknown']},
        does: str,
        source: str,
        evidence: strings,
      },
      ['via', 'clients', 'bypassesNode', 'zoneHints', 'nodeHints', 'verdict', 'does', 'source', 'evidence'],
    ),
  },
  unknown: strings,
})

/** The rules of a configuration finding (explain's `lint`, check's lint policy, plan's `lint`). */
export const lintRule = {
  enum: [
    'both-annotations',
    'deprecated-annotation',
    'ignored-value',
    'annotation-overrides-traffic-distribution',
    'unsupported-at-version',
    'deprecated-value',
    'single-zone',
    'internal-traffic-policy-local',
  ],
}

/** The advisor's recommendation (src/advise/types.ts): the same object in explain, plan and check. */
const topologyMode = {enum: ['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'none']}
const figureProps = {
  hints: bool,
  reason: str,
  inZone: nullable(num),
  worstOverload: nullable(num),
  worstZone: nullable(str),
  fallbackZones: strings,
}
const figures = obj(figureProps)
const option = obj({...figureProps, mode: topologyMode, withinBound: bool})
/**
 * explain's traffic.measured and plan's measured (--traffic-from, src/explain/report-types.ts
 * MeasuredTrafficReport): present only for a Service whose traffic was measured.
 */
export const measuredTraffic = obj({
  source: str,
  query: str,
  clientMix: {type: 'object', additionalProperties: num},
  crossZoneShare: nullable(num),
  crossZoneSharePredicted: nullable(num),
  matrix: nullable({type: 'array', items: obj({from: str, to: str, share: num})}),
  ignored: obj({series: int, share: num}),
})

export const recommendation = obj({
  bound: num,
  current: topologyMode,
  now: figures,
  predicted: figures,
  options: {type: 'array', items: option},
  scaledAuto: nullable(obj({...figureProps, mode: topologyMode, withinBound: bool, replicas: int})),
  recommended: topologyMode,
  meetsBound: bool,
  reasons: strings,
  steps: {
    type: 'array',
    items: obj({command: str, alternative: nullable(str), expect: obj({mode: topologyMode, hints: bool, inZone: nullable(num)})}),
  },
})
