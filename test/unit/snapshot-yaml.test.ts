// The js-yaml fast path of snapshot parsing (src/cluster/snapshot/yaml.ts fastYamlDocs) must give
// exactly what `yaml` gives (the reference: parseAllDocuments + toJS, as the slow path does),
// or leave the text to `yaml` (undefined).
import fs from 'node:fs'
import fc from 'fast-check'
import {dump} from 'js-yaml'
import {describe, expect, it} from 'vitest'
import {parseAllDocuments, stringify} from 'yaml'
import {fastYamlDocs} from '../../src/cluster/snapshot/yaml.js'

function reference(text: string): unknown[] | 'error' {
  const docs = parseAllDocuments(text)
  const list = Array.isArray(docs) ? docs : []
  if (list.some((d) => d.errors.length > 0)) return 'error'
  try {
    return list.map((d) => d.toJS({maxAliasCount: 10_000}))
  } catch {
    return 'error'
  }
}

function expectSame(text: string, part?: number): unknown[] | undefined {
  const fast = fastYamlDocs(text, part)
  if (fast !== undefined) expect(fast).toStrictEqual(reference(text))
  return fast
}

// Generated documents: keys and scalars where YAML and its two readers are tricky.
const key = fc.oneof(
  fc.constantFrom(
    'name',
    'namespace',
    'topology.kubernetes.io/zone',
    'cpu',
    'y',
    'no',
    '1',
    '0x1F',
    '1e3',
    'a b',
    'a:b',
    'a #b',
    '-x',
    '"q"',
    "'q'",
    '[x]',
    '{x}',
    '&x',
    '*x',
    '!x',
    '%x',
    '?x',
    '|',
    '>',
    '@',
    '`',
  ),
  fc.string({maxLength: 8}),
)
const scalar = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'true',
    'False',
    'yes',
    'Off',
    '~',
    'null',
    'NULL',
    '0',
    '-0',
    '010',
    '0o7',
    '0x1f',
    '1e400',
    '.5',
    '5.',
    '+1',
    '1_0',
    '.inf',
    '.NaN',
    '2026-11-21T12:10:52Z',
    '12:30',
    '1930m',
    '16Gi',
    '"',
    "'",
    '#',
    ' # ',
    ': ',
    '- ',
    'a\nb',
    'a\n\nb\n',
    '\t',
    '\u00e9',
    '\u{1f600}',
    '\\',
    '\u0085',
    '\u2028',
  ),
  fc.string({maxLength: 12}),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
)
const value = fc.letrec((tie) => ({
  node: fc.oneof({depthSize: 'small'}, scalar, tie('list'), tie('map')),
  list: fc.array(tie('node'), {maxLength: 4}),
  map: fc.dictionary(key, tie('node'), {maxKeys: 5}),
})).node
const yamlOptions = fc.record({
  defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED') as fc.Arbitrary<'PLAIN'>,
  collectionStyle: fc.constantFrom('any', 'block', 'flow') as fc.Arbitrary<'any'>,
  lineWidth: fc.constantFrom(0, 20, 80),
  indent: fc.constantFrom(2, 4),
  indentSeq: fc.boolean(),
})

describe('fastYamlDocs', () => {
  it('reads the shipped examples like yaml does', () => {
    for (const f of fs.readdirSync('examples').filter((n) => n.endsWith('.yaml'))) {
      expect(expectSame(fs.readFileSync(`examples/${f}`, 'utf8')), f).toBeDefined()
    }
  })

  it.each([
    ['a YAML 1.1 directive', '%YAML 1.1\n---\nk: yes\n'],
    ['a TAG directive', '%TAG !e! tag:example.com,2000:\n---\nk: !e!foo x\n'],
    ['an explicit tag', 'k: !!float 1\n'],
    ['a local tag', 'k: !foo x\n'],
    ['an alias', 'k: &a 1\nj: *a\n'],
    ['a null key', '~: a\n'],
    ['a "null" key', 'null: a\n'],
    ['a collection key', '? [a, b]\n: c\n'],
    ['a flow collection key', '{a: b}: c\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['invalid YAML', 'k: "a" b\n'],
    ['tabs as indentation', '\tk: 1\n'],
    ['a block scalar document', '|1-\n # \n'],
    ['a block scalar among documents', 'a: 1\n--- >\n x\n'],
  ])('leaves %s to yaml', (_, text) => {
    expect(fastYamlDocs(text)).toBeUndefined()
  })

  it.each([
    'k: 1e400\n',
    'k: -.5\nj: +.INF\nl: .NaN\nm: 0o17\nn: 0x1F\no: 0b101\np: 1_000\nq: -0\n',
    'k: ~\nj: Null\nl: NULL\nm: nUll\nn:\n',
    'k: true\nj: TRUE\nl: yes\nm: off\nn: tRue\n',
    'k: 2026-11-21T12:10:52Z\nj: 12:30:00\n',
    '1: a\n1.5: b\ntrue: c\n.inf: d\n0x10: e\n__proto__: f\nconstructor: g\n',
    'a: 1\n...\n---\nb: 2\n---\n',
    "k: \"\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\"\nj: 'it''s'\n",
    'k: >-\n  a\n  b\n\n  c\nj: |+\n  a\n\n',
    'k: a\n  b\n  c\nj: [a\n  , b]\nl: {a: , b}\n',
    'k: &anchor 1\n',
  ])('reads %j like yaml', (text) => {
    expect(expectSame(text)).toBeDefined()
  })

  it('reads what yaml writes like yaml does (property)', () => {
    fc.assert(
      fc.property(fc.array(value, {minLength: 1, maxLength: 3}), yamlOptions, (docs, opts) => {
        const text = docs.map((d) => stringify(d, opts)).join('---\n')
        expectSame(text)
      }),
      {numRuns: 1000},
    )
  })

  it('reads what js-yaml writes like yaml does (property)', () => {
    fc.assert(
      fc.property(value, fc.boolean(), fc.constantFrom(-1, 1, 40), (doc, flow, flowLevel) => {
        expectSame(dump(doc, {flowLevel: flow ? flowLevel : -1} as never))
      }),
      {numRuns: 1000},
    )
  })
})

// A big List is read in parts of a few items (yaml.ts inParts); the tests cut parts of a few
// characters, so that every item is a part of its own. test/unit/snapshot-yaml-parts.test.ts
// shows which texts are read in parts.
describe('fastYamlDocs on a List, in parts', () => {
  it.each([
    ['a second items:', 'items:\n- a\nkind: List\nitems:\n- b\n'],
    ['items of another document', 'a: 1\n---\nitems:\n- a: 1\n- b: 2\n'],
    ['items: not a block sequence', 'kind: List\nitems: [a,\n  b]\nc: 1\n'],
    ['items: a mapping', 'kind: List\nitems:\n  a: 1\n  b: 2\n'],
    ['a tab in an indentation', 'items:\n- a: 1\n\t- b: 2\n'],
    ['an entry that is not "- "', 'items:\n- a: 1\n-b: 2\n'],
    ['a quoted scalar across an entry line', 'items:\n- a: "x\n- b"\n'],
    ['a flow collection across an entry line', 'items:\n- a: [x,\n- y]\n'],
    ['a quoted key holding items:', 'k: "x\nitems:\n- a"\nz: "y"\n'],
    ['a less indented line inside the items', 'items:\n  - a: 1\n - b: 2\n  - c: 3\n'],
    ['an alias across entries', 'items:\n- &x a\n- *x\n'],
    ['invalid YAML in an entry', 'items:\n- a: 1\n- b: "x" y\n- c: 3\n'],
  ])('reads %s like yaml or leaves it to yaml', (_, text) => {
    for (const part of [1, 8]) expect(fastYamlDocs(text, part) ?? 'left').toStrictEqual(fastYamlDocs(text, 1 << 30) ?? 'left')
    for (const part of [1, 8]) expectSame(text, part)
  })

  it('reads the Lists yaml writes like yaml does, cut anywhere (property)', () => {
    const list = fc.record({head: fc.dictionary(key, value, {maxKeys: 3}), items: fc.array(value, {minLength: 1, maxLength: 6}), tail: fc.dictionary(key, value, {maxKeys: 3})})
    fc.assert(
      fc.property(list, yamlOptions, fc.integer({min: 1, max: 200}), ({head, items, tail}, opts, part) => {
        const doc = {...head, items, ...tail}
        expectSame(stringify(doc, opts), part)
      }),
      {numRuns: 1000},
    )
  })

  it('reads Lists edited by hand (lines doubled, dropped, moved, characters put in) in parts as it reads them whole (property)', () => {
    const edit = fc.record({
      line: fc.nat(),
      op: fc.constantFrom('dup', 'del', 'indent', 'dedent', 'insert'),
      what: fc.constantFrom('"', "'", '[', ']', '{', '}', '- ', '-', '#', ': ', '|', '>', '\t', '---', '...', 'items:', '&a ', '*a', '!t ', '%Y'),
    })
    fc.assert(
      fc.property(fc.array(value, {minLength: 1, maxLength: 5}), fc.boolean(), fc.array(edit, {maxLength: 4}), fc.integer({min: 1, max: 40}), (items, indentSeq, edits, part) => {
        const lines = stringify({kind: 'List', items, metadata: {a: 1}}, {indentSeq}).split('\n')
        for (const e of edits) {
          const i = e.line % lines.length
          const l = lines[i]!
          if (e.op === 'dup') lines.splice(i, 0, l)
          else if (e.op === 'del') lines.splice(i, 1)
          else if (e.op === 'indent') lines[i] = ` ${l}`
          else if (e.op === 'dedent') lines[i] = l.replace(/^ /, '')
          else {
            const at = l.length ? (e.line >> 3) % (l.length + 1) : 0
            lines[i] = l.slice(0, at) + e.what + l.slice(at)
          }
        }
        const text = lines.join('\n')
        expect(fastYamlDocs(text, part) ?? 'left to yaml').toStrictEqual(fastYamlDocs(text, 1 << 30) ?? 'left to yaml')
      }),
      {numRuns: 1000},
    )
  })
})
