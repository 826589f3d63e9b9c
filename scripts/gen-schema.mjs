// Writes schema/explain.v1.json, the JSON Schema of `explain -o json` (kind TopologyExplanation).
// The schema is written by hand here (not derived from the TypeScript types) so that a change
// of the output shape is a deliberate, reviewed change of this file; test/unit/schema.test.ts
// validates real reports against it.
import {nullable, num, int, str, bool, strings, obj, writeSchema, dataPlane, lintRule, measuredTraffic, recommendation, routesFound, clientPaths} from './schema-kit.mjs'

const fallbackReason = nullable({
  enum: [
    'no-endpoints',
    'no-ready-endpoints',
    'unhinted-ready-endpoint',
    'no-hint-for-zone',
    'no-hint-for-node',
    'node-has-no-zone',
    'annotation-required',
    'local-traffic-policy-only',
    'not-proxied',
    'no-nodes',
    'ignored-by-data-plane',
    'not-topology-aware-for-data-plane',
  ],
})
const proxyMode = {enum: ['', 'PreferSameZone', 'PreferSameNode']}
const kubeProxy = obj({mode: proxyMode, fallback: bool, reason: fallbackReason, routedEndpoints: int, nodesPreferSameNode: int})
const hints = nullable(obj({forZones: strings, forNodes: strings}))
const event = nullable(obj({type: {enum: ['Normal', 'Warning']}, reason: {enum: ['TopologyAwareHintsEnabled', 'TopologyAwareHintsDisabled']}, message: str}))

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://kubectl-topology.io/schema/explain.v1.json',
  title: 'kubectl topology explain -o json (TopologyExplanation, v1)',
  ...obj(
    {
      apiVersion: {const: 'kubectl-topology.io/v1'},
      kind: {const: 'TopologyExplanation'},
      kubernetesVersion: {type: 'string', pattern: '^\\d+\\.\\d+$'},
      versionSource: {enum: ['server', 'flag', 'default']},
      warnings: strings,
      nodesReadable: bool,
      cluster: obj({
        sufficientNodeInfo: bool,
        zones: {type: 'array', items: obj({name: str, counted: int, ignored: int, cpuMilli: num, cpuRatio: nullable(num)})},
        nodes: {
          type: 'array',
          items: obj(
            {
              name: str,
              zone: nullable(str),
              milliCPU: num,
              status: {enum: ['counted', 'control-plane', 'not-ready', 'no-zone-label', 'no-cpu']},
              disablesHints: bool,
              processed: bool,
              cpuError: str,
            },
            ['name', 'zone', 'milliCPU', 'status', 'disablesHints', 'processed'],
          ),
        },
        disablingNodes: {type: 'array', items: obj({name: str, status: str, fix: str})},
      }),
      dataPlane,
      routes: routesFound,
      services: {
        type: 'array',
        items: obj(
          {
            namespace: str,
            name: str,
            addressType: {enum: ['IPv4', 'IPv6']},
            mode: obj(
              {
                path: {enum: ['topology-mode-auto', 'traffic-distribution', 'none']},
                annotationKey: str,
                annotationValue: str,
                trafficDistribution: str,
                why: strings,
                warnings: {
                  type: 'array',
                  items: obj(
                    {
                      rule: {
                        enum: [
                          'both-annotations',
                          'deprecated-annotation',
                          'ignored-value',
                          'annotation-overrides-traffic-distribution',
                          'unsupported-at-version',
                          'deprecated-value',
                        ],
                      },
                      severity: {enum: ['error', 'warning']},
                      message: str,
                    },
                    ['rule', 'severity', 'message'],
                  ),
                },
                managedByController: bool,
              },
              ['path', 'why', 'warnings', 'managedByController'],
            ),
            controller: obj(
              {
                path: {enum: ['topology-mode-auto', 'traffic-distribution', 'none', 'not-managed']},
                hintsSet: bool,
                reason: str,
                message: str,
                event,
                totalReadyEndpoints: int,
                prediction: {enum: ['next-sync', 'fresh']},
                slicesToUpdate: strings,
                randomChoices: obj({tieBreaks: int, receiverChoices: int, sliceOrder: int, unchangedOrder: bool, uncertainEndpoints: int, countsCertain: bool}),
                state: obj({hintsPopulated: bool, inferredFrom: {enum: ['events', 'live-hints', 'assumed', 'unknown']}}),
                mayRecord: event,
              },
              ['path', 'hintsSet', 'reason', 'message', 'event', 'totalReadyEndpoints', 'prediction', 'slicesToUpdate', 'randomChoices', 'state'],
            ),
            zones: {
              type: 'array',
              items: obj({
                name: str,
                nodes: obj({counted: int, ignored: int}),
                cpuMilli: num,
                cpuRatio: nullable(num),
                trafficShare: nullable(num),
                readyEndpoints: int,
                desired: nullable(num),
                minimum: nullable(int),
                target: nullable(num),
                maximum: nullable({type: 'integer'}),
                assigned: int,
                expectedOverload: nullable(num),
                donatedIn: int,
                donatedOut: int,
                liveHints: int,
                kubeProxy,
                kubeProxyPredicted: kubeProxy,
              }),
            },
            totals: obj({readyEndpoints: int, endpoints: int, assigned: int, liveHints: int, donated: int, cpuMilli: num}),
            endpoints: {
              type: 'array',
              items: obj({
                addresses: {type: 'array', items: str, minItems: 1},
                nodeName: nullable(str),
                zone: nullable(str),
                slice: str,
                conditions: obj({ready: nullable(bool), serving: nullable(bool), terminating: nullable(bool)}),
                controllerReady: bool,
                liveHints: hints,
                predictedHints: hints,
                alternatives: nullable(strings),
                donatedTo: nullable(str),
                drift: bool,
              }),
            },
            nodes: {
              type: 'array',
              items: obj(
                {
                  name: str,
                  zone: nullable(str),
                  // Only when the data plane's kube-proxy Pods were read: this node's version (null: unknown).
                  kubeProxyVersion: nullable(str),
                  mode: proxyMode,
                  fallback: bool,
                  reason: fallbackReason,
                  endpoints: strings,
                  clusterEndpoints: strings,
                  localEndpoints: strings,
                  ports: {type: 'array', items: obj({name: str, protocol: str, mode: proxyMode, fallback: bool, reason: fallbackReason, endpoints: strings})},
                },
                ['name', 'zone', 'mode', 'fallback', 'reason', 'endpoints', 'clusterEndpoints', 'localEndpoints', 'ports'],
              ),
            },
            traffic: obj(
              {
                model: {enum: ['zone-cpu', 'custom', 'measured', 'none']},
                inZoneShareLive: nullable(num),
                inZoneSharePredicted: nullable(num),
                maxEndpointOverloadPredicted: nullable(num),
                maxEndpointOverloadLive: nullable(num),
                worstZoneLive: nullable(str),
                worstZonePredicted: nullable(str),
                measured: measuredTraffic,
              },
              ['model', 'inZoneShareLive', 'inZoneSharePredicted', 'maxEndpointOverloadPredicted', 'maxEndpointOverloadLive', 'worstZoneLive', 'worstZonePredicted'],
            ),
            drift: obj({endpoints: int, zoneCounts: bool}),
            findings: {type: 'array', items: {enum: ['hints-refused', 'fallback', 'drift', 'no-endpoints-zone', 'data-plane-ignores-hints']}},
            advice: {type: 'array', items: obj({code: str, message: str, command: str}, ['code', 'message'])},
            lint: {
              type: 'array',
              items: obj({
                rule: lintRule,
                severity: {enum: ['error', 'warning']},
                message: str,
              }),
            },
            applicability: obj({
              type: {enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName', 'Headless']},
              proxied: bool,
              slices: obj({managed: int, foreign: {type: 'array', items: obj({manager: str, slices: int, readyEndpoints: int})}, fqdn: int}),
              statement: nullable(str),
            }),
            withoutZone: nullable(obj({endpoints: int, readyEndpoints: int, nodes: int})),
            dataPlane: nullable(obj({ignoresHints: bool, message: str, fix: nullable(str)})),
            // Only when the data plane's kube-proxy Pods were read: the nodes whose older kube-proxy treats this Service differently.
            kubeProxySkew: {
              type: 'array',
              items: obj({
                proxyVersion: str,
                zone: nullable(str),
                nodes: strings,
                effect: {enum: ['ignores-node-hints', 'ignores-hints-without-annotation', 'ignores-hints-without-zone']},
                message: str,
              }),
            },
            recommendation,
            clientPaths,
          },
          ['namespace', 'name', 'addressType', 'mode', 'controller', 'zones', 'totals', 'endpoints', 'traffic', 'drift', 'findings', 'advice'],
        ),
      },
    },
    ['apiVersion', 'kind', 'kubernetesVersion', 'versionSource', 'warnings', 'nodesReadable', 'cluster', 'services'],
  ),
}
writeSchema('explain.v1.json', schema)
