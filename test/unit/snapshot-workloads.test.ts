// Deployments and StatefulSets in snapshot files: read from real `kubectl get ... -o yaml`
// output (test/unit/data/kubectl-get-workloads.yaml) and from our Snapshot, written trimmed.
import fs from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {fastYamlDocs, parseSnapshot, serializeSnapshot, snapshotYaml} from '../../src/cluster/snapshot/snapshot.js'
import {CliError, ExitCode} from '../../src/errors.js'
import type {Deployment, StatefulSet} from '../../src/upstream/api/types.js'
import {rolloutSpecOf, workloadsBehind} from '../../src/simulate/workload.js'

const KUBECTL = fs.readFileSync(new URL('./data/kubectl-get-workloads.yaml', import.meta.url), 'utf8')

describe('kubectl get services,endpointslices,deployments,statefulsets -o yaml', () => {
  const state = parseSnapshot(KUBECTL, 'kubectl.yaml', 'objects')
  it('reads the workloads, on the fast path', () => {
    expect(fastYamlDocs(KUBECTL)).toBeDefined()
    expect(state.deployments!.map((d) => [d.kind, d.metadata.name])).toEqual([['Deployment', 'api']])
    expect(state.statefulSets!.map((s) => [s.kind, s.metadata.name])).toEqual([['StatefulSet', 'db']])
  })
  it('the StatefulSet behind Service db and its parameters, with the defaults the API server wrote', () => {
    const svc = state.services.find((s) => s.metadata.name === 'db')!
    const behind = workloadsBehind(state, svc)
    expect(behind.map((w) => w.metadata.name)).toEqual(['db'])
    expect(rolloutSpecOf(behind[0]!)).toEqual({kind: 'StatefulSet', type: 'RollingUpdate', name: 'db', replicas: 6, partition: 1, maxUnavailable: 1})
    expect(rolloutSpecOf(state.deployments![0]!)).toEqual({kind: 'Deployment', type: 'RollingUpdate', replicas: 6, maxSurge: '25%', maxUnavailable: '25%'})
  })
})

describe('our Snapshot keeps what simulate reads of a workload', () => {
  const state = parseSnapshot(KUBECTL, 'kubectl.yaml', 'objects')
  it('replicas, selector, strategy and template labels; never the pod template spec, status or annotations', () => {
    const withAnnotation = {
      ...state,
      deployments: state.deployments!.map((d) => ({
        ...d,
        metadata: {
          ...d.metadata,
          annotations: {'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"template":{"spec":{"containers":[{"env":[{"name":"TOKEN","value":"s3cr3t"}]}]}}}}'},
        },
      })),
    }
    for (const redact of [false, true]) {
      const snap = serializeSnapshot(withAnnotation, {redact})
      expect(snap.deployments).toEqual([
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {name: 'api', namespace: state.deployments![0]!.metadata.namespace},
          spec: {
            replicas: 6,
            selector: {matchLabels: {app: 'api'}},
            strategy: {rollingUpdate: {maxSurge: '25%', maxUnavailable: '25%'}, type: 'RollingUpdate'},
            template: {metadata: {labels: {app: 'api'}}},
          },
        },
      ])
      expect((snap.statefulSets![0] as StatefulSet).spec).toEqual({
        replicas: 6,
        selector: {matchLabels: {app: 'db'}},
        serviceName: 'db',
        podManagementPolicy: 'OrderedReady',
        updateStrategy: {rollingUpdate: {partition: 1}, type: 'RollingUpdate'},
        template: {metadata: {labels: {app: 'db'}}},
      })
      expect(snapshotYaml(snap)).not.toContain('s3cr3t')
    }
  })
  it('round trip: the Snapshot reads back to the same parameters; listed but empty stays empty, absent stays absent', () => {
    const back = parseSnapshot(snapshotYaml(serializeSnapshot(state)), 'snap.yaml')
    expect(back.deployments!.map(rolloutSpecOf)).toEqual(state.deployments!.map(rolloutSpecOf))
    expect(back.statefulSets!.map(rolloutSpecOf)).toEqual(state.statefulSets!.map(rolloutSpecOf))
    const none = parseSnapshot(snapshotYaml(serializeSnapshot({...state, deployments: [], statefulSets: []})), 'snap.yaml')
    expect(none.deployments).toEqual([])
    expect(none.statefulSets).toEqual([])
    const {deployments: _d, statefulSets: _s, ...without} = state
    const old = parseSnapshot(snapshotYaml(serializeSnapshot(without)), 'snap.yaml')
    expect(old.deployments).toBeUndefined()
    expect(old.statefulSets).toBeUndefined()
    expect(parseYaml(snapshotYaml(serializeSnapshot(without)))).not.toHaveProperty('deployments')
  })
  it('a malformed workload names the file, line and field (exit 3)', () => {
    const bad = KUBECTL.replace('maxSurge: 25%', 'maxSurge: [1]')
    let err: unknown
    try {
      parseSnapshot(bad, 'kubectl.yaml')
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CliError)
    expect((err as CliError).exitCode).toBe(ExitCode.INPUT)
    const line = bad.split('\n').findIndex((l) => l.includes('maxSurge: [1]')) + 1
    expect((err as CliError).message).toBe(
      `kubectl.yaml:${line}:19: Deployment "${(parseSnapshot(KUBECTL, 'k', 'objects').deployments![0] as Deployment).metadata.namespace}/api": spec.strategy.rollingUpdate.maxSurge must be an integer or a percentage`,
    )
  })
})
