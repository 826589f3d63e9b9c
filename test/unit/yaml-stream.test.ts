import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parse} from 'yaml'
import {yamlText} from '../../src/render/encode.js'
import {yamlChunks} from '../../src/render/yaml-stream.js'

/** What `explain -o yaml` printed before it was streamed (render/explain.ts). */
const whole = (doc: unknown) => yamlText(doc, {aliasDuplicateObjects: false, lineWidth: 0})

// Strings yaml writes in every style: plain, quoted (numbers, booleans, leading spaces, "- ",
// ": ", "#"), block literals with empty lines and indentation indicators, C0/C1 controls and
// format characters (double-quoted and escaped by yamlText).
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '',
    ' ',
    '1',
    'true',
    'null',
    '- a',
    'a: b',
    '# c',
    ' lead\n\nx\n',
    'a\n\n\nb',
    '\n',
    'x\u009b2J',
    'bidi\u202e',
    'tab\there',
    '---',
    '...',
    '? q',
    '[x]',
    '{y}',
    '"q"',
    "'s'",
    '1.5',
    '0x1F',
    '0o7',
    '1e5',
    '.5',
    '+1',
    '-',
    '?',
    '~',
    'Null',
    '.inf',
    '-.NaN',
    '10.0.0.1',
    'a:b',
    'a #b',
    'x'.repeat(1030),
    'k8s.io/x',
    '%x',
    '@x',
    '*x',
    '&x',
    '!x',
    '|',
    '>',
  ),
  fc.string({unit: fc.constantFrom('a', ' ', '\n', ':', '-', '#', '\u0085', '\u2028', 'é', '\t', '"')}),
  fc.string({unit: fc.constantFrom('0', '1', '.', 'e', 'x', '+', '-', 'o', 'n', 'a', 'N', 'I', 'f')}),
)
const value = fc.letrec((tie) => ({
  v: fc.oneof({depthSize: 'small'}, tricky, fc.integer(), fc.double({noNaN: true}), fc.boolean(), fc.constant(null), tie('arr'), tie('obj')),
  arr: fc.array(tie('v'), {maxLength: 5}),
  obj: fc.dictionary(tricky, tie('v'), {maxKeys: 5}),
})).v

describe('yamlChunks', () => {
  it("yields exactly yamlText(doc) (explain -o yaml's text), split anywhere (property)", () => {
    // over 0..3: every object and array of more than that many entries is gone into.
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(tricky, value, {maxKeys: 6}), fc.array(value, {maxLength: 6})), fc.integer({min: 0, max: 3}), (doc, piece) => {
        expect([...yamlChunks(doc, piece)].join('')).toBe(whole(doc))
      }),
      {numRuns: 500},
    )
  })

  it("names, words and addresses (the fast tests for plain strings) as keys and values: yamlText's text (property)", () => {
    const near = fc.oneof(
      fc.string({unit: fc.constantFrom('a', 'Z', '0', '9', '.', '_', '/', '-', ':', ' ', '#', 'e', 'x', 'o'), maxLength: 8}),
      fc.constantFrom('null', 'Null', 'NULL', 'nULL', 'true', 'True', 'TRUE', 'tRUE', 'false', 'False', 'FALSE', 'yes', 'no', 'on', 'off', 'y', 'n', 'x-', 'a/', 'a:', 'a.b'),
      fc.tuple(fc.nat(999), fc.nat(999), fc.nat(999), fc.nat(999), fc.nat(3)).map(([a, b, c, d, n]) => [a, b, c, d].slice(0, n + 1).join('.')),
    )
    fc.assert(
      fc.property(near, near, (k, v) => {
        const doc = {[k]: v, list: [v, k]}
        expect([...yamlChunks(doc, 0)].join('')).toBe(whole(doc))
      }),
      {numRuns: 2000},
    )
  })

  it('nested sequences and maps in sequences keep their compact "- - " and "- key:" lines', () => {
    const doc = {a: [1, {b: [2, 3], c: 'x\n\ny'}], d: [[1, 2], [3]], e: {}, f: [], g: [[{h: 1, i: []}]], s: ' lead\n\nx', top: [[[{deep: [[1]]}]]]}
    for (const piece of [0, 1, 2, 3, 64]) expect([...yamlChunks(doc, piece)].join('')).toBe(whole(doc))
  })

  it('leaves out undefined values in objects and writes null for them in arrays, as yaml does', () => {
    const doc = {a: undefined, b: [undefined, 2], c: {d: undefined}, f: {g: undefined, h: 1}, i: undefined}
    for (const piece of [0, 1, 2, 64]) expect([...yamlChunks(doc, piece)].join('')).toBe(whole(doc))
  })

  it('splits one big element deep inside (a Service of 5,000 endpoints): many pieces, none big, the same text', () => {
    const row = (i: number) => ({
      addresses: [`10.0.${i >> 8}.${i & 255}`],
      nodeName: `node-${i % 5000}`,
      zone: `zone-${'abcdef'[i % 6]}`,
      conditions: {ready: true, serving: true, terminating: false},
      liveHints: {forZones: [`zone-${'abcdef'[i % 6]}`], forNodes: []},
      alternatives: null,
    })
    const doc = {apiVersion: 'v1', services: [{name: 'big', endpoints: Array.from({length: 5000}, (_, i) => row(i)), drift: {endpoints: 0}}]}
    const chunks = [...yamlChunks(doc)]
    const text = chunks.join('')
    expect(text).toBe(whole(doc))
    expect(parse(text)).toEqual(doc)
    expect(chunks.length).toBeGreaterThan(20)
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(100_000)
  })
})
