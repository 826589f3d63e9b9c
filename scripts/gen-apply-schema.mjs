// Writes schema/apply.v1.json, the JSON Schema of `apply -o json` and `reset -o json`
// (kinds TopologyApply and TopologyReset). Written by hand (not derived from the TypeScript
// types) so that a change of the output shape is a deliberate, reviewed change of this file;
// test/unit/apply-schema.test.ts and the e2e tests validate real documents against it.
import {nullable, int, str, bool, strings, obj, writeSchema} from './schema-kit.mjs'

const field = {enum: ['topologyMode', 'topologyAwareHints', 'trafficDistribution']}
const hintNames = nullable(obj({forZones: strings, forNodes: strings}))
const ref = obj({kind: {enum: ['Service', 'EndpointSlice']}, name: str})

const schema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://kubectl-topology.io/schema/apply.v1.json',
  title: 'kubectl topology apply/reset -o json (TopologyApply / TopologyReset, v1)',
  ...obj(
    {
      apiVersion: {const: 'kubectl-topology.io/v1'},
      kind: {enum: ['TopologyApply', 'TopologyReset']},
      namespace: str,
      service: str,
      mode: nullable({enum: ['Auto', 'PreferSameZone', 'PreferSameNode', 'PreferClose', 'none']}),
      strategy: nullable({enum: ['Auto', 'PreferSameZone', 'PreferSameNode']}),
      dryRun: {enum: ['none', 'client', 'server']},
      changed: {description: 'true when the plan changes anything (--exit-code exits 1)', ...bool},
      changes: obj({
        service: {
          type: 'array',
          items: obj({field, path: str, old: nullable(str), new: nullable(str), reason: str}),
        },
        endpointSlices: {
          type: 'array',
          items: obj({
            name: str,
            uid: nullable(str),
            resourceVersion: nullable(str),
            addressType: {enum: ['IPv4', 'IPv6', 'FQDN']},
            managedBy: nullable(str),
            controllerManaged: bool,
            endpointCount: int,
            endpoints: {
              type: 'array',
              items: obj({index: int, addresses: strings, zone: nullable(str), nodeName: nullable(str), ready: bool, old: hintNames, new: hintNames}),
            },
          }),
        },
      }),
      prediction: {
        type: 'array',
        items: obj({
          addressType: str,
          path: {enum: ['topology-mode-auto', 'traffic-distribution', 'none', 'not-managed']},
          hintsSet: bool,
          reason: str,
          message: str,
          zones: {
            type: 'array',
            items: obj({name: str, readyEndpoints: int, hinted: int, liveHinted: int, kubeProxy: {enum: ['uses-hints', 'falls-back', 'no-hints']}, fallbackReason: nullable(str)}),
          },
        }),
      },
      warnings: strings,
      result: obj(
        {
          status: {enum: ['no-changes', 'hints-differ', 'preview', 'dry-run', 'applied', 'partial', 'interrupted', 'refused']},
          written: {type: 'array', items: ref},
          unknown: {description: 'sent, but the answer was lost: may have been written (present only when not empty; exit 9)', type: 'array', items: ref},
          failed: {type: 'array', items: obj({kind: {enum: ['Service', 'EndpointSlice']}, name: str, error: str})},
          notWritten: {type: 'array', items: ref},
          retries: int,
          message: str,
        },
        ['status', 'written', 'failed', 'notWritten', 'retries', 'message'],
      ),
      wait: obj({matched: bool, perZone: bool, differences: {type: 'array', items: obj({subject: str, expected: str, actual: str})}}),
    },
    ['apiVersion', 'kind', 'namespace', 'service', 'mode', 'strategy', 'dryRun', 'changed', 'changes', 'prediction', 'warnings', 'result'],
  ),
}

writeSchema('apply.v1.json', schema)
