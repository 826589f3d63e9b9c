// Issue 14 "Bad, odd and big input": no snapshot file makes any command fail with an internal
// error (exit 70). Kubernetes-shaped documents (test/unit/explain-arbitrary.ts's clusters, with
// an Event and a Deployment) are mutated at random places: right keys with wrong types,
// missing and extra fields, huge, negative and non-finite numbers, odd strings, lists where
// mappings belong and mappings where lists belong. Each is written as JSON or YAML and run
// through the decoder (parseSnapshot) and every engine a command calls on it, and the text
// printers. Every outcome is either a result or a CliError with exit code 3 (INPUT) and a
// one-line message naming the file; nothing else may be thrown (but the engines' own errors
// that the commands turn into usage errors). FUZZ_RUNS=5000 runs longer. Reproducible: a fixed
// seed (FUZZ_SEED=<n> draws others); on failure fast-check prints the seed and the path to
// replay the counterexample. The seed once drew a Deployment of 175,008,532 replicas whose
// rollout() spun (issue 20): rollouts are now bounded (simulate/rollout.ts MAX_ROLLOUT_REPLICAS).
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {planHints, planServiceMode, STRATEGIES as HINT_STRATEGIES} from '../../src/apply/plan.js'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {check} from '../../src/check/check.js'
import {CliError, ExitCode} from '../../src/errors.js'
import {nodesReport} from '../../src/explain/nodes-report.js'
import {explain} from '../../src/explain/report.js'
import {renderCheck} from '../../src/render/check.js'
import {renderExplain} from '../../src/render/explain.js'
import {renderNodes} from '../../src/render/nodes.js'
import {renderSimulate, type SimulateReport} from '../../src/render/simulate.js'
import {SimulateInputError, simulateService} from '../../src/simulate/simulate.js'
import {evaluateSteps} from '../../src/simulate/whatif-steps.js'
import {rollout} from '../../src/simulate/rollout.js'
import {WhatIfError} from '../../src/simulate/whatif.js'
import {RolloutSpecError, rolloutSpecOf, workloadsBehind} from '../../src/simulate/workload.js'
import type {ClusterState} from '../../src/state/cluster-state.js'
import {LABEL_SERVICE_NAME, type Service} from '../../src/upstream/api/types.js'
import {clusterArb} from './explain-arbitrary.js'

const RUNS = Number(process.env.FUZZ_RUNS ?? 200)
const SEED = Number(process.env.FUZZ_SEED ?? 20_2020)
const FILE = 'fuzz.yaml'

type Json = unknown

/** Values that replace a field: wrong types, odd numbers and strings, empty and nested collections. */
const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(null, true, false, 0, -1, 42, 1.5, -0.5, 1e308, -1e308, 2 ** 53 + 1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
  fc.constantFrom<Json>('', 'banana', '-1', '1e400', '0x10', '∞', 'PreferClose', 'Auto', 'True', 'IPv4', '4', '1500m', '1.36.3', 'v1', '__proto__', 'constructor', 'toString'),
  fc.constantFrom<Json>([], {}, [null], [1, 2], ['a'], [{}], {a: 1}, {toString: 1}, [[]], {'': ''}),
  fc.integer(),
  fc.double(),
  fc.string({maxLength: 8}),
  fc.array(fc.oneof(fc.string({maxLength: 4}), fc.integer(), fc.constant(null)), {maxLength: 3}),
  fc.dictionary(fc.string({maxLength: 4}), fc.oneof(fc.string({maxLength: 4}), fc.integer(), fc.constant(null)), {maxKeys: 3}),
)

/** One change at a place chosen by `steps` (each picks a key or index on the way down). */
interface Mutation {
  steps: number[]
  op: 'replace' | 'delete' | 'add'
  value: Json
  key: string
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  steps: fc.array(fc.nat(), {minLength: 1, maxLength: 8}),
  op: fc.constantFrom<Mutation['op']>('replace', 'replace', 'replace', 'delete', 'add'),
  value: hostileValue,
  key: fc.constantFrom('extra', 'zone', 'nodeName', 'hints', 'conditions', 'labels', 'spec', 'status', 'metadata', 'endpoints', 'items', 'kind'),
})

function mutate(doc: Json, mutation: Mutation): void {
  const m = {...mutation, value: structuredClone(mutation.value)}
  let parent: Json = doc
  for (let d = 0; d < m.steps.length; d++) {
    if (typeof parent !== 'object' || parent === null) return
    const keys: (string | number)[] = Array.isArray(parent) ? parent.map((_, i) => i) : Object.keys(parent)
    if (keys.length === 0) break
    const key = keys[m.steps[d]! % keys.length]!
    const child = (parent as Record<string | number, Json>)[key]
    const last = d === m.steps.length - 1 || typeof child !== 'object' || child === null
    if (last) {
      const p = parent as Record<string | number, Json>
      if (m.op === 'replace') p[key] = m.value
      else if (m.op === 'delete') {
        if (Array.isArray(p)) (p as Json[]).splice(key as number, 1)
        else delete p[key]
      } else if (typeof child === 'object' && child !== null && !Array.isArray(child)) (child as Record<string, Json>)[m.key] = m.value
      else p[key] = m.value
      return
    }
    parent = child
  }
}

/** A Snapshot document of a generated cluster, with an Event and a Deployment behind the first Service. */
function snapshotDoc(state: ClusterState, serverVersion: string | undefined): Record<string, Json> {
  const first = state.services[0]!
  const ns = first.metadata.namespace ?? 'default'
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'kubectl-topology/v1',
      kind: 'Snapshot',
      ...(serverVersion === undefined ? {} : {serverVersion}),
      nodes: state.nodes,
      services: state.services,
      endpointSlices: state.endpointSlices,
      events: [
        {
          metadata: {name: 'ev1', namespace: ns},
          involvedObject: {kind: 'Service', name: first.metadata.name, namespace: ns},
          reason: 'TopologyAwareHintsDisabled',
          message: 'Insufficient Node information',
          type: 'Warning',
          count: 2,
        },
      ],
      deployments: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: {name: 'web', namespace: ns},
          spec: {
            replicas: 3,
            strategy: {type: 'RollingUpdate', rollingUpdate: {maxSurge: '25%', maxUnavailable: 1}},
            template: {metadata: {labels: {...(first.spec?.selector ?? {})}}},
          },
        },
      ],
      statefulSets: [],
    }),
  )
}

/** The same objects as `kubectl get nodes,services,endpointslices,events,deployments -A -o json` prints them: a v1 List. */
function kubectlList(snap: Record<string, Json>): Record<string, Json> {
  const kinds: [string, string, string][] = [
    ['nodes', 'Node', 'v1'],
    ['services', 'Service', 'v1'],
    ['endpointSlices', 'EndpointSlice', 'discovery.k8s.io/v1'],
    ['events', 'Event', 'v1'],
    ['deployments', 'Deployment', 'apps/v1'],
  ]
  const items = kinds.flatMap(([field, kind, apiVersion]) => (snap[field] as Record<string, Json>[]).map((o) => ({...o, apiVersion, kind})))
  return {apiVersion: 'v1', kind: 'List', items}
}

const docArb = fc
  .record({
    cluster: clusterArb,
    version: fc.constantFrom(undefined, '1.31', '1.33.2', '1.36.3', 'v1.35.0-eks-1'),
    mutations: fc.array(mutationArb, {minLength: 1, maxLength: 4}),
    format: fc.constantFrom<'json' | 'yaml'>('json', 'yaml'),
    shape: fc.constantFrom<'snapshot' | 'list'>('snapshot', 'snapshot', 'list'),
  })
  .map(({cluster, version, mutations, format, shape}) => {
    const doc = shape === 'snapshot' ? snapshotDoc(cluster.state, version) : kubectlList(snapshotDoc(cluster.state, version))
    for (const m of mutations) mutate(doc, m)
    return {text: format === 'json' ? JSON.stringify(doc) : toYaml(doc), format, mutations}
  })

/** What the commands do with a decoded snapshot: every engine, then the text printers. */
function runEngines(state: ClusterState): void {
  const services: Service[] = state.services
  const report = explain(state, services, {kubeVersion: state.serverVersion, versionSource: state.serverVersion ? 'server' : 'default', perNode: true})
  renderExplain(report, {format: 'table', perNode: true})
  renderExplain(report, {format: 'wide'})
  const checked = check(report, services, {requireHints: true, noFallback: true, maxOverload: 0.2, minEndpointsPerZone: 1, noDrift: true, lint: true})
  renderCheck(checked, {format: 'table'})
  renderCheck(checked, {format: 'junit'})
  renderNodes(nodesReport(state), {format: 'wide'})
  const sims: SimulateReport['services'] = []
  for (const svc of services) {
    const opts = {kubeVersion: state.serverVersion}
    let sim
    try {
      sim = simulateService(state, svc, opts)
    } catch (e) {
      // simulate turns it into a usage error: the traffic model needs what the cluster lacks
      if (e instanceof SimulateInputError) continue
      throw e
    }
    sims.push(sim)
    for (const w of workloadsBehind(state, svc)) {
      try {
        evaluateSteps(rollout(state, svc, rolloutSpecOf(w)), svc, opts)
      } catch (e) {
        // simulate --rollout from-workload turns these into usage errors (exit 2)
        if (!(e instanceof RolloutSpecError || e instanceof WhatIfError)) throw e
      }
    }
    const slices = state.endpointSlices.filter(
      (s) => (s.metadata.namespace ?? 'default') === (svc.metadata.namespace ?? 'default') && s.metadata.labels?.[LABEL_SERVICE_NAME] === svc.metadata.name,
    )
    for (const strategy of HINT_STRATEGIES) planHints(state, svc, slices, strategy)
    planServiceMode(svc, 'Auto')
  }
  renderSimulate({apiVersion: 'kubectl-topology.io/v1', kind: 'TopologySimulation', source: 'snapshot', trafficModel: 'zone-cpu', whatIf: [], services: sims}, {format: 'wide'})
}

/** Decode + engines: undefined when it ran, the CliError when the input was refused; anything else thrown fails. */
function decodeAndRun(text: string): CliError | undefined {
  let state: ClusterState
  try {
    state = parseSnapshot(text, FILE)
  } catch (e) {
    if (e instanceof CliError) return e
    throw e
  }
  runEngines(state)
  return undefined
}

/** Any text, controls, format characters and lone surrogates included. */
const anyText = fc.oneof(
  fc.string({unit: 'binary', maxLength: 12}),
  fc.constantFrom('\x1b[2J', '\x1b]0;t\x07', '\x00', '\r', '\x9b1m', '\u202e', '\u2066', '\u200b', '\ufeff', '\u2028'),
)
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u
const unsafe = (text: string) => UNSAFE.test(text.replace(/\n/g, ''))

describe('snapshot fuzzing (issue 14): decode + engines never fail with an internal error', () => {
  it(`${RUNS} mutated Kubernetes-shaped documents: a result, or a one-line CliError (exit 3) naming the file`, {timeout: 120_000}, () => {
    fc.assert(
      fc.property(docArb, ({text}) => {
        const refused = decodeAndRun(text)
        if (refused === undefined) return
        expect(refused.exitCode).toBe(ExitCode.INPUT)
        expect(refused.message).not.toContain('\n')
        expect(refused.message.startsWith(FILE)).toBe(true)
      }),
      {numRuns: RUNS, seed: SEED},
    )
  })

  it(`${RUNS / 4} clusters with any text in zone labels, node names and annotations: no text output carries it raw`, {timeout: 120_000}, () => {
    fc.assert(
      fc.property(clusterArb, fc.array(anyText, {minLength: 1, maxLength: 6}), ({state}, texts) => {
        const pick = (i: number) => texts[i % texts.length]!
        state.nodes.forEach((n, i) => {
          if (n.metadata.labels?.['topology.kubernetes.io/zone'] !== undefined) n.metadata.labels['topology.kubernetes.io/zone'] = `z${pick(i)}`
          n.metadata.name = `${n.metadata.name}${pick(i + 1)}`
        })
        for (const s of state.endpointSlices) for (const e of s.endpoints ?? []) if (typeof e.zone === 'string') e.zone = `z${pick(e.zone.length)}`
        for (const s of state.services) s.metadata.annotations = {...s.metadata.annotations, 'service.kubernetes.io/topology-mode': `Auto${pick(2)}`}
        const services: Service[] = state.services
        const report = explain(state, services, {perNode: true})
        for (const format of ['table', 'wide'] as const) expect(unsafe(renderExplain(report, {format, perNode: true}))).toBe(false)
        const checked = check(report, services, {requireHints: true, noFallback: true, lint: true})
        expect(unsafe(renderCheck(checked, {format: 'table'}))).toBe(false)
        expect(unsafe(renderCheck(checked, {format: 'junit'}))).toBe(false)
        expect(unsafe(renderNodes(nodesReport(state), {format: 'wide'}))).toBe(false)
        // JSON keeps the exact strings
        expect(JSON.parse(renderExplain(report, {format: 'json'}))).toEqual(JSON.parse(JSON.stringify(report)))
      }),
      {numRuns: Math.ceil(RUNS / 4), seed: SEED},
    )
  })
})
