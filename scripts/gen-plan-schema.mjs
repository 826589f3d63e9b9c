// Writes schema/plan.v1.json (`plan -o json`, kind TopologyPlan). Written by hand, like the
// other generators, so an output change is a reviewed change of this file;
// test/unit/plan.engine.test.ts validates real reports against it.
import {nullable, num, int, str, bool, strings, obj, writeSchema, lintRule, measuredTraffic, recommendation} from './schema-kit.mjs'

const mode = {enum: ['Auto', 'PreferClose', 'PreferSameZone', 'PreferSameNode', 'none']}
const figures = obj({hints: bool, reason: str, inZone: nullable(num), maxOverload: nullable(num), fallbackZones: strings})
const modeFigures = {
  type: 'object',
  propertyNames: mode,
  additionalProperties: figures,
}
const at = {enum: ['today', 'hpa-min', 'hpa-max']}
const costLine = obj({mode, crossZoneShare: nullable(num), monthlyCost: nullable(num)})

const plan = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://kubectl-topology.io/schema/plan.v1.json',
  title: 'kubectl topology plan -o json (TopologyPlan, v1)',
  ...obj({
    apiVersion: {const: 'kubectl-topology.io/v1'},
    kind: {const: 'TopologyPlan'},
    kubernetesVersion: {type: 'string', pattern: '^\\d+\\.\\d+$'},
    versionSource: {enum: ['server', 'flag', 'default']},
    maxOverload: {type: 'number', minimum: 0},
    placementModel: {const: 'zone-balanced'},
    warnings: strings,
    services: {
      type: 'array',
      items: obj({
        namespace: str,
        name: str,
        currentMode: mode,
        readyEndpoints: int,
        modes: {type: 'array', items: mode},
        workload: nullable(
          obj({
            kind: {enum: ['Deployment', 'StatefulSet']},
            name: str,
            replicas: int,
            zoneSpread: nullable(obj({maxSkew: int, whenUnsatisfiable: str})),
            hpa: nullable(obj({name: str, minReplicas: int, maxReplicas: int})),
            pdb: nullable(obj({name: str, allowedDisruptions: int})),
          }),
        ),
        range: obj({
          from: int,
          to: int,
          source: {enum: ['hpa', 'default']},
          rows: {type: 'array', items: obj({replicas: int, zones: {type: 'object', additionalProperties: int}, modes: modeFigures})},
        }),
        rollouts: {
          type: 'array',
          items: obj({
            replicas: int,
            at,
            steps: {type: 'array', items: obj({step: int, action: str, readyEndpoints: int, modes: modeFigures})},
            worst: modeFigures,
          }),
        },
        zoneLosses: {type: 'array', items: obj({replicas: int, at, zone: str, immediate: modeFigures, rescheduled: nullable(modeFigures)})},
        disruption: nullable(obj({evicted: int, zone: str, modes: modeFigures})),
        recommendation,
        extended: obj({
          mode,
          meetsBound: bool,
          settings: {type: 'array', items: obj({kind: {enum: ['mode', 'min-replicas', 'replicas', 'zone-spread']}, value: str, why: str})},
          commands: strings,
          why: strings,
          differsFromToday: nullable(str),
        }),
        cost: obj({volumeBytes: nullable(num), pricePerGiB: nullable(num), now: costLine, recommended: costLine, byMode: {type: 'array', items: costLine}}),
        notes: strings,
        lint: {type: 'array', items: obj({rule: lintRule, severity: {enum: ['error', 'warning']}, message: str})},
        measured: measuredTraffic,
      }),
    },
  }),
}

// measured: only with --traffic-from, for a Service whose traffic was measured.
const service = plan.properties.services.items
service.required = service.required.filter((k) => k !== 'measured')

writeSchema('plan.v1.json', plan)
