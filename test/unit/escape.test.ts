// Terminal injection (issue 14): text from the cluster reaches the terminal escaped in every
// text printer (src/render/escape.ts), exact in JSON and YAML.
import {describe, expect, it} from 'vitest'
import {parse as parseYaml, stringify as toYaml} from 'yaml'
import {escapeDeep, escapeLines, escapeTerminal, hasUnsafe} from '../../src/render/escape.js'
import {renderCheck} from '../../src/render/check.js'
import {renderExplain} from '../../src/render/explain.js'
import {renderNodes} from '../../src/render/nodes.js'
import {renderSimulate} from '../../src/render/simulate.js'
import {changeLine, eventLine, firstFrameLines, summaryLines, zoneTable} from '../../src/render/watch-lines.js'
import {renderChanges} from '../../src/render/apply.js'
import {check} from '../../src/check/check.js'
import {explain} from '../../src/explain/report.js'
import {nodesReport} from '../../src/explain/nodes-report.js'
import {simulateService} from '../../src/simulate/simulate.js'
import {makeStyle} from '../../src/render/style.js'
import {CONTROLLER_NAME, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, LABEL_ZONE, type EndpointSlice, type Node, type Service} from '../../src/upstream/api/types.js'
import type {ClusterState} from '../../src/state/cluster-state.js'

/** Characters no text output may carry raw: C0 (but LF between lines), DEL, C1, format characters, separators. */
const RAW_UNSAFE = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u206f\ufeff\ufff9-\ufffb]/u
/** The same, ignoring the SGR colour codes the printers add themselves. */
const rawUnsafe = (text: string) => RAW_UNSAFE.test(text.replace(/\x1b\[[0-9;]*m/g, ''))

const HOSTILE = [
  '\x1b[2J\x1b[H',
  'a\x00b',
  'x\ry',
  'tab\there',
  'line\nbreak',
  'bell\x07',
  'del\x7f',
  'csi\x9b31m',
  'rtl\u202eevil\u202c',
  'iso\u2066x\u2069',
  'zw\u200bsp',
  'ls\u2028ps\u2029',
  'bom\ufeff',
  'tag\u{e0041}',
  'lone\ud800',
]

describe('escapeTerminal', () => {
  it('writes ESC as ^[ and CR as \\r (kubectl EscapeTerminal), LF and TAB as \\n and \\t', () => {
    expect(escapeTerminal('\x1b[2Jx\ry')).toBe('^[[2Jx\\ry')
    expect(escapeTerminal('a\nb\tc')).toBe('a\\nb\\tc')
  })
  it('writes other C0, DEL and C1 controls as \\xHH', () => {
    expect(escapeTerminal('a\x00b\x07c\x7fd\x9be\x85')).toBe('a\\x00b\\x07c\\x7fd\\x9be\\x85')
  })
  it('writes bidi controls, zero-width and other format characters, separators and lone surrogates as \\uHHHH', () => {
    expect(escapeTerminal('\u202aa\u202bb\u202cc\u202dd\u202ee')).toBe('\\u202aa\\u202bb\\u202cc\\u202dd\\u202ee')
    expect(escapeTerminal('\u2066\u2067\u2068\u2069')).toBe('\\u2066\\u2067\\u2068\\u2069')
    expect(escapeTerminal('\u200b\u200d\u00ad\ufeff\u2028\u2029\u061c')).toBe('\\u200b\\u200d\\xad\\ufeff\\u2028\\u2029\\u061c')
    expect(escapeTerminal('\u{e0041}')).toBe('\\u{e0041}')
    expect(escapeTerminal('x\ud800y')).toBe('x\\ud800y')
  })
  it('keeps printable text as it is: ASCII, accents, CJK, emoji, combining marks', () => {
    for (const s of ['eu-west-1a', 'zone a', 'zürich', '東京-1', 'e\u0301', '🚀', 'back\\slash', '']) expect(escapeTerminal(s)).toBe(s)
  })
  it('leaves nothing unsafe and is idempotent', () => {
    for (const s of HOSTILE) {
      const e = escapeTerminal(s)
      expect(rawUnsafe(e)).toBe(false)
      expect(hasUnsafe(e)).toBe(false)
      expect(hasUnsafe(s)).toBe(true)
      expect(escapeTerminal(e)).toBe(e)
    }
  })
  it('escapeLines keeps line breaks, escapes the rest', () => {
    expect(escapeLines('Error: a\x1b[2J\n    at f (x.ts:1:1)')).toBe('Error: a^[[2J\n    at f (x.ts:1:1)')
  })
})

describe('escapeDeep', () => {
  it('escapes every string of plain data, keys included; returns the same object when nothing changes', () => {
    const clean = {a: ['x', 1, null, {b: true}], c: 'd'}
    expect(escapeDeep(clean)).toBe(clean)
    const dirty = {zones: {'a\x1b': 1}, list: ['ok', 'x\x00'], n: 2}
    expect(escapeDeep(dirty)).toEqual({zones: {'a^[': 1}, list: ['ok', 'x\\x00'], n: 2})
    expect(dirty.list[1]).toBe('x\x00') // the input is not changed
  })
  it('keeps a __proto__ key as data', () => {
    const v = JSON.parse('{"__proto__": "\\u001b", "x": 1}') as Record<string, unknown>
    const e = escapeDeep(v)
    expect(Object.getOwnPropertyDescriptor(e, '__proto__')?.value).toBe('^[')
    expect(Object.getPrototypeOf(e)).toBe(Object.prototype)
  })
})

// ---- the printers --------------------------------------------------------------------------

const Z1 = 'zone-\x1b[2J\x1b[31mred'
const Z2 = 'zone-\u202eb\u202c'
const node = (name: string, zone: string): Node => ({
  metadata: {name, labels: {[LABEL_ZONE]: zone}},
  status: {allocatable: {cpu: '4'}, conditions: [{type: 'Ready', status: 'True'}]},
})
const service: Service = {
  metadata: {name: 'web', namespace: 'shop', annotations: {'service.kubernetes.io/topology-mode': 'Auto\u202e'}},
  spec: {selector: {app: 'web'}, ports: [{port: 80}]},
}
const slice: EndpointSlice = {
  metadata: {name: 'web-1', namespace: 'shop', labels: {[LABEL_SERVICE_NAME]: 'web', [LABEL_MANAGED_BY]: CONTROLLER_NAME}},
  addressType: 'IPv4',
  endpoints: [Z1, Z1, Z2, Z2].map((zone, i) => ({addresses: [`10.0.0.${i + 1}`], zone, nodeName: `n\x00${i % 2 ? 2 : 1}${zone === Z1 ? 'a' : 'b'}`, conditions: {ready: true}})),
}
const state: ClusterState = {
  nodes: [
    node('n\x001a', Z1),
    node('n\x002a', Z1),
    node('n\x001b', Z2),
    node('n\x002b', Z2),
    {metadata: {name: 'bad\x1b]0;title\x07'}, status: {allocatable: {cpu: '2'}, conditions: [{type: 'Ready', status: 'True'}]}},
  ],
  services: [service],
  endpointSlices: [slice],
  events: [{metadata: {name: 'e', namespace: 'shop'}, reason: 'TopologyAwareHintsDisabled', message: 'evil\x1b[2J\rmessage', type: 'Warning'}],
}

describe('text printers escape what comes from the cluster; JSON and YAML keep it exactly', () => {
  const report = explain(state, [service], {perNode: true})
  const style = makeStyle(3)

  it('explain table, wide and per-node, with and without colour', () => {
    for (const s of [undefined, style]) {
      for (const format of ['table', 'wide'] as const) {
        const out = renderExplain(report, {format, perNode: true, style: s})
        expect(rawUnsafe(out), out).toBe(false)
        expect(out).toContain('zone-^[[2J^[[31mred')
      }
    }
    expect(renderExplain(report, {format: 'table', perNode: true})).toContain('n\\x001a')
  })
  it('explain json and yaml: exact (JSON.stringify and yaml escape C0 controls; DEL, C1 and format characters stay raw but exact)', () => {
    const json = renderExplain(report, {format: 'json'})
    expect(json).not.toMatch(/[\x00-\x09\x0b-\x1f]/)
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(report)))
    expect((JSON.parse(json) as typeof report).services[0]!.zones.map((z) => z.name)).toEqual([Z1, Z2])
    const yaml = renderExplain(report, {format: 'yaml'})
    expect(yaml).not.toMatch(/[\x00-\x09\x0b-\x1f]/)
    expect(parseYaml(yaml)).toEqual(JSON.parse(JSON.stringify(report)))
    // the encoders on every hostile string
    for (const s of HOSTILE.filter((h) => !/[\ud800-\udfff]/u.test(h.replace(/\u{e0041}/u, '')))) {
      expect(JSON.parse(JSON.stringify({s})).s).toBe(s)
      expect(JSON.stringify({s})).not.toMatch(/[\x00-\x1f]/)
      expect(parseYaml(toYaml({s}, {lineWidth: 0})).s).toBe(s)
      // a TAB stays raw in a plain scalar: it moves the cursor, it does not control the terminal
      expect(toYaml({s}, {lineWidth: 0})).not.toMatch(/[\x00-\x08\x0b-\x1f]/)
    }
  })
  it('nodes table and wide', () => {
    for (const format of ['table', 'wide'] as const) {
      const out = renderNodes(nodesReport(state), {format, style})
      expect(rawUnsafe(out), out).toBe(false)
      expect(out).toContain('bad^[]0;title\\x07')
    }
  })
  it('check table and JUnit', () => {
    const c = check(report, [service], {requireHints: true, noFallback: true, lint: true, maxOverload: 0.1, minEndpointsPerZone: 3})
    for (const format of ['table', 'junit'] as const) {
      const out = renderCheck(c, {format, style})
      expect(rawUnsafe(out), out).toBe(false)
    }
  })
  it('simulate table, wide and csv', () => {
    const sim = simulateService(state, service, {})
    for (const format of ['table', 'wide', 'csv'] as const) {
      const out = renderSimulate(
        {apiVersion: 'kubectl-topology.io/v1', kind: 'TopologySimulation', source: 'snapshot', trafficModel: 'zone-cpu', whatIf: ['without zone \x1b[2J'], services: [sim]},
        {format, style},
      )
      expect(rawUnsafe(out), out).toBe(false)
    }
  })
  it('watch lines and zone table', () => {
    const e = report.services[0]!
    const frame = {namespace: 'shop', name: 'web', exists: true, kubernetesVersion: '1.36', explanations: [e], cliffs: [], cluster: report.cluster} as unknown as Parameters<
      typeof summaryLines
    >[0]
    const lines = [
      ...summaryLines(frame),
      changeLine('12:00:00', {kind: 'zone-fallback', tone: 'bad', message: `kube-proxy falls back in ${Z1}`} as unknown as Parameters<typeof changeLine>[1]),
      eventLine('12:00:00', state.events![0]!),
      zoneTable(e, undefined, style),
    ]
    const hostileFrame = {
      ...frame,
      cliffs: [{kind: 'node-lost', effect: 'hints-dropped', zone: Z1, nodes: [], message: `losing a node in ${Z1} drops the hints`}],
      cluster: {...report.cluster, disablingNodes: [{name: 'n\x00', status: 'no-zone-label', fix: `label it ${Z2}`}]},
    } as unknown as typeof frame
    const first = firstFrameLines('12:00:00', hostileFrame)
    expect(first.length).toBe(summaryLines(frame).length + 2)
    expect(first.at(-2)).toBe('12:00:00  cliff: losing a node in zone-^[[2J^[[31mred drops the hints')
    expect(first.at(-1)).toBe('12:00:00  node n\\x00 (no-zone-label) disables hints for every Service: label it zone-\\u202eb\\u202c')
    lines.push(...first)
    for (const l of lines) expect(rawUnsafe(l), l).toBe(false)
    expect(eventLine('t', state.events![0]!)).toContain('evil^[[2J\\rmessage')
  })
  it('apply diff', () => {
    const out = renderChanges(
      {
        namespace: 'shop',
        service: 'web',
        serviceChanges: [{path: 'metadata.annotations["x"]', old: 'a\x1b[2J', new: null, reason: 'r\u202e'}],
        sliceChanges: [
          {
            name: 's\x00',
            addressType: 'IPv4',
            managedBy: 'm\x1b',
            endpointCount: 1,
            endpoints: [{addresses: ['10.0.0.1'], nodeName: 'n\x00', zone: Z1, ready: true, old: null, new: {forZones: [Z1], forNodes: []}}],
          },
        ],
      } as unknown as Parameters<typeof renderChanges>[0],
      style,
    )
    expect(rawUnsafe(out), out).toBe(false)
  })
})
