// Writes schema/check.v1.json (`check -o json`, kind TopologyCheck) and schema/nodes.v1.json
// (`nodes -o json`, kind TopologyNodes). Written by hand, like scripts/gen-schema.mjs, so an
// output change is a reviewed change of this file; test/unit/check-schema.test.ts validates
// real reports against both.
import {nullable, num, int, str, bool, strings, obj, writeSchema, dataPlane, lintRule, recommendation} from './schema-kit.mjs'

const policyName = {
  enum: [
    'require-hints',
    'no-fallback',
    'max-overload',
    'min-endpoints-per-zone',
    'no-drift',
    'lint',
    'data-plane-hints',
    'proxy-topology',
    'hints-over-range',
    'hints-through-rollout',
  ],
}

const check = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://kubectl-topology.io/schema/check.v1.json',
  title: 'kubectl topology check -o json (TopologyCheck, v1)',
  ...obj(
    {
      apiVersion: {const: 'kubectl-topology.io/v1'},
      kind: {const: 'TopologyCheck'},
      kubernetesVersion: {type: 'string', pattern: '^\\d+\\.\\d+$'},
      versionSource: {enum: ['server', 'flag', 'default']},
      warnings: strings,
      policies: obj({
        requireHints: bool,
        noFallback: bool,
        maxOverload: nullable({type: 'number', minimum: 0}),
        minEndpointsPerZone: nullable(int),
        noDrift: bool,
        lint: bool,
        dataPlaneHonoursHints: bool,
        proxyHonoursTopology: bool,
        hintsOverRange: bool,
        hintsThroughRollout: bool,
      }),
      dataPlane,
      summary: obj({services: int, passed: int, failed: int, checks: int, failures: int, skipped: int}),
      passed: bool,
      services: {
        type: 'array',
        items: obj({
          namespace: str,
          name: str,
          addressType: {enum: ['IPv4', 'IPv6', 'FQDN']},
          path: {enum: ['topology-mode-auto', 'traffic-distribution', 'none']},
          managedByController: bool,
          hintsSet: bool,
          passed: bool,
          results: {
            type: 'array',
            items: obj(
              {
                policy: policyName,
                status: {enum: ['pass', 'fail', 'skip']},
                message: str,
                details: strings,
                issues: {type: 'array', items: obj({rule: lintRule, severity: {enum: ['error', 'warning']}, message: str})},
              },
              ['policy', 'status', 'message', 'details'],
            ),
          },
          recommendation: nullable(recommendation),
        }),
      },
    },
    ['apiVersion', 'kind', 'kubernetesVersion', 'versionSource', 'warnings', 'policies', 'summary', 'passed', 'services'],
  ),
}

const nodeStatus = {enum: ['counted', 'control-plane', 'not-ready', 'no-zone-label', 'no-cpu']}
const cliff = obj({
  kind: {enum: ['endpoint-fewer', 'endpoint-more', 'node-lost', 'zone-last-endpoint']},
  effect: {enum: ['hints-refused', 'hints-set', 'zone-falls-back', 'hints-disabled-cluster']},
  zone: nullable(str),
  nodes: strings,
  endpoints: nullable(int),
  message: str,
})
const nodes = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://kubectl-topology.io/schema/nodes.v1.json',
  title: 'kubectl topology nodes -o json (TopologyNodes, v1)',
  ...obj({
    apiVersion: {const: 'kubectl-topology.io/v1'},
    kind: {const: 'TopologyNodes'},
    nodesReadable: bool,
    auto: obj({possible: bool, reason: {enum: ['ok', 'disabling-nodes', 'single-zone', 'no-counted-nodes', 'nodes-unreadable']}, message: str}),
    totals: obj({nodes: int, counted: int, ignored: obj({'control-plane': int, 'not-ready': int, 'no-zone-label': int, 'no-cpu': int}), cpuMilli: num}),
    zones: {type: 'array', items: obj({name: str, counted: int, ignored: int, cpuMilli: num, cpuRatio: nullable(num)})},
    nodes: {
      type: 'array',
      items: obj({name: str, zone: nullable(str), milliCPU: num, status: nodeStatus, disablesHints: bool, processed: bool, cpuError: str}, [
        'name',
        'zone',
        'milliCPU',
        'status',
        'disablesHints',
        'processed',
      ]),
    },
    disablingNodes: {type: 'array', items: obj({name: str, status: nodeStatus, fix: str})},
    cliffs: {type: 'array', items: cliff},
  }),
}

writeSchema('check.v1.json', check)
writeSchema('nodes.v1.json', nodes)
