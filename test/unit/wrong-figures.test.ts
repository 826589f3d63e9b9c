// Issue 20, class 7 (wrong or unclear figures) and the YAML alias bound of class 4: each case
// with the input that gave the wrong answer.
import {describe, expect, it} from 'vitest'
import {normalizeServerVersion} from '../../src/cluster/client.js'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {parseTraffic} from '../../src/commands/flag-values.js'
import {CliError, ExitCode} from '../../src/errors.js'
import {explain} from '../../src/explain/report.js'
import {renderExplain} from '../../src/render/explain.js'
import {nodesIn, service, slice, state} from './builders.js'

const refusal = (f: () => unknown): CliError => {
  try {
    f()
  } catch (e) {
    if (e instanceof CliError) return e
    throw e
  }
  throw new Error('expected a CliError')
}

describe('--traffic shares that overflow', () => {
  it('1e308 per zone: equal shares, not 0 each (the sum was Infinity)', () => {
    const t = parseTraffic('a=1e308,b=1e308,c=5e307')
    const sum = Object.values(t).reduce((x, y) => x + y, 0)
    expect(Number.isFinite(sum)).toBe(true)
    expect(t.a! / sum).toBeCloseTo(0.4)
    expect(t.c! / sum).toBeCloseTo(0.2)
  })
  it('ordinary shares are kept as given', () => {
    expect(parseTraffic('a=0.5,b=1.5')).toEqual({a: 0.5, b: 1.5})
  })
})

describe("the server's version, strictly", () => {
  it.each([
    [{major: '1', minor: '33\x1b[2J'}, undefined],
    [{major: '1', minor: '3x3'}, undefined],
    [{major: '1\x9b', minor: '33'}, undefined],
    [{major: '1', minor: '33+'}, '1.33'],
    [{major: '1', minor: '033'}, '1.33'],
    [{gitVersion: 'v1.36.3'}, '1.36.3'],
  ])('%j -> %s', (info, v) => {
    expect(normalizeServerVersion(info)).toBe(v)
  })
})

const NODE_WITH_MERGE = `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Node
    metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}}
    status:
      allocatable: &alloc
        cpu: "4"
      conditions: [{type: Ready, status: "True"}]
  - apiVersion: v1
    kind: Node
    metadata: {name: n2, labels: {topology.kubernetes.io/zone: b}}
    status:
      allocatable:
        <<: *alloc
        memory: 1Gi
      conditions: [{type: Ready, status: "True"}]
  - apiVersion: v1
    kind: Node
    metadata: {name: n3, labels: {topology.kubernetes.io/zone: c}}
    status:
      allocatable:
        <<: {cpu: "2"}
      conditions: [{type: Ready, status: "True"}]
`

describe('YAML merge keys (<<), as kubectl reads them', () => {
  it("a Node's allocatable cpu given by a merge key is its CPU", () => {
    const state = parseSnapshot(NODE_WITH_MERGE, 'merge.yaml', 'nodes')
    expect(state.nodes.map((n) => n.status?.allocatable?.cpu)).toEqual(['4', '4', '2'])
  })
})

describe('a Service of an apiVersion the API server does not serve', () => {
  it('apiVersion v2: said, not "not found"', () => {
    const e = refusal(() => parseSnapshot('apiVersion: v2\nkind: Service\nmetadata: {name: web, namespace: shop}\n', 'v2.yaml'))
    expect(e.message).toBe('v2.yaml:1:13: Service: unknown apiVersion "v2": the API server serves Services as "v1"')
    expect(e.exitCode).toBe(ExitCode.INPUT)
  })
  it("another group's Service (Knative) is not ours: skipped", () => {
    const text =
      'apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: api, namespace: shop}\n'
    expect(parseSnapshot(text, 'k.yaml', 'objects').services.map((s) => s.metadata.name)).toEqual(['api'])
  })
})

describe('YAML aliases are counted by the size they expand to', () => {
  it('one long string aliased 2,000 times is refused (it became GBs of output)', () => {
    const long = 'x'.repeat(100_000)
    const refs = Array.from({length: 2_000}, (_, i) => `    k${i}: *big`).join('\n')
    const text = `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  labels: {a: &big "${long}"}\n  annotations:\n${refs}\n`
    const e = refusal(() => parseSnapshot(text, 'alias.yaml'))
    expect(e.message).toMatch(/^alias\.yaml: its aliases expand to more than 1048576 characters \(the file has \d+\): a file's aliases may add at most its own size/)
    expect(e.exitCode).toBe(ExitCode.INPUT)
  })
  it('a "billion laughs" document is measured, not expanded', () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i)
      const cur = String.fromCharCode(97 + i)
      levels.push(`${cur}: &${cur} [${Array(9).fill(`*${prev}`).join(',')}]`)
    }
    const e = refusal(() => parseSnapshot(`${levels.join('\n')}\n`, 'laughs.yaml'))
    expect(e.message).toMatch(/^laughs\.yaml: its aliases expand to more than/)
  })
  it('a few ordinary aliases are read', () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: shop\n  labels: &l {app: web}\nspec:\n  selector: *l\n'
    expect(parseSnapshot(text, 'ok.yaml', 'objects').services[0]!.spec?.selector).toEqual({app: 'web'})
  })
})

describe("explain's zone table: a hint naming a zone that has no node", () => {
  // Before: a row `ghost 0/0 ... LIVE HINTS 1 ... no nodes`, and TOTAL's LIVE HINTS (4) above READY (3).
  const st = state(
    nodesIn(['a', 'b']),
    [service('web', {trafficDistribution: 'PreferSameZone'})],
    [
      slice('web', [
        {zone: 'a', hint: ['a']},
        {zone: 'a', hint: ['a', 'ghost']},
        {zone: 'b', hint: ['b']},
      ]),
    ],
  )
  const report = explain(st, st.services)
  const table = renderExplain(report, {format: 'table'})
  const lines = table.split('\n')
  const header = lines.findIndex((l) => l.startsWith('ZONE '))
  const cols = (l: string) => l.trim().split(/\s{2,}/)
  // The cell under a header (columns are left-aligned at the header's offsets; TOTAL leaves some empty).
  const at = (l: string, name: string) => l.slice(lines[header]!.indexOf(name)).split(/\s/)[0]

  it('is not a row; the rows add up to TOTAL and LIVE HINTS does not exceed READY', () => {
    const rows = lines.slice(
      header + 1,
      lines.findIndex((l) => l.startsWith('TOTAL')),
    )
    expect(rows.map((l) => cols(l)[0])).toEqual(['a', 'b'])
    const total = lines.find((l) => l.startsWith('TOTAL'))!
    expect(at(total, 'LIVE HINTS')).toBe('3')
    expect(at(total, 'READY')).toBe('3')
    expect(rows.reduce((a, l) => a + Number(at(l, 'LIVE HINTS')), 0)).toBe(3)
  })
  it('is named on a labelled line below the table', () => {
    expect(table).toContain('Live hints also name zones without nodes or endpoints, not counted above: ghost (1 ready endpoint); no node there routes by them.')
  })
  it('JSON keeps its documented meaning: the zone row is there, totals.liveHints counts every (endpoint, zone) pair', () => {
    const s = report.services[0]!
    expect(s.zones.find((z) => z.name === 'ghost')).toMatchObject({nodes: {counted: 0, ignored: 0}, readyEndpoints: 0, liveHints: 1})
    expect(s.totals.liveHints).toBe(4)
  })
})
