// Issue 20, class 6: the machine-readable encoders (render/encode.ts) write no raw control or
// format character (JSON.stringify leaves DEL, C1 such as U+009B, bidi overrides and U+2028 raw;
// the yaml package writes C1 raw inside double quotes), yet read back to exactly the same values.
// CSV cells are terminal-safe and a formula prefix is neutralised.
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {belowDel, csvText, escapeEncoded, jsonText, yamlText} from '../../src/render/encode.js'

/** C0 but LF, DEL, C1, format characters, separators, lone surrogates. */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u

const value = {
  'zone\u009b2J': ['a\u009b2Jb', 'a\x1b[2Jb', 'a\u202eb', 'a\x7fb', 'a\u2028b', 'tab\there', 'multi\nline\u0085', 'plain', 'tag\u{e0001}s', 'bad\ud800'],
  nested: {n: 1, t: true, z: null, s: '\x1b]52;c;cHduZWQ=\x07'},
}

describe('jsonText', () => {
  it('escapes DEL, C1, format characters and separators as \\uXXXX; JSON.parse gives the same value', () => {
    const text = jsonText(value)
    expect(RAW.exec(text.replaceAll('\n', ''))).toBeNull()
    expect(text).toContain('"zone\\u009b2J"')
    expect(text).toContain('a\\u202eb')
    expect(text).toContain('tag\\udb40\\udc01s')
    expect(JSON.parse(text)).toEqual(value)
  })
  it('is JSON.stringify(v, null, 2) for text without such characters', () => {
    const plain = {a: ['x', 1, null], b: {c: 'é ü 日本'}}
    expect(jsonText(plain)).toBe(JSON.stringify(plain, null, 2))
  })
  it('escapes a piece of JSON text the same as the whole (json-stream writes pieces)', () => {
    const text = JSON.stringify(value, null, 2)
    const cut = text.indexOf('\u009b') + 1
    expect(escapeEncoded(text.slice(0, cut)) + escapeEncoded(text.slice(cut))).toBe(escapeEncoded(text))
  })
})

describe("belowDel (escapeEncoded's fast path)", () => {
  // Code units around every boundary the predicate and the escapes have: C0 and LF, DEL, C1,
  // U+00AD (the first format character), 2- and 3-byte UTF-8, U+2028/U+2029, lone surrogates
  // both ways round, astral characters (a format one among them), and plain ASCII.
  const unit = fc.oneof(
    fc.constantFrom(
      '\x00',
      '\n',
      '\x1b',
      '\x1f',
      ' ',
      'a',
      '"',
      '\\',
      '~',
      '\x7f',
      '\x80',
      '\x85',
      '\x9b',
      '\x9f',
      '\xa0',
      '\xad',
      'é',
      '\u0600',
      '\u200b',
      '\u2028',
      '\u2029',
      '\u202e',
      '\ufeff',
      '\uffff',
    ),
    fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\u{1f600}', '\u{e0001}', '\u{10ffff}'),
    fc.integer({min: 0, max: 0xffff}).map((u) => String.fromCharCode(u)),
    fc.integer({min: 0x20, max: 0x7e}).map((u) => String.fromCharCode(u)),
  )
  const text = fc.oneof(fc.string({unit, maxLength: 40}), fc.string({unit: 'binary', maxLength: 40}), fc.string({unit: 'grapheme-ascii', maxLength: 40}))
  /** escapeEncoded's slow path, taken always: each unit of a matched character as \\uXXXX. */
  const slow = (s: string) =>
    s.replace(/[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => Array.from({length: ch.length}, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''))

  it('is true exactly when every code unit is below U+007F (property)', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(belowDel(s)).toBe([...Array(s.length).keys()].every((i) => s.charCodeAt(i) < 0x7f))
      }),
      {numRuns: 2000},
    )
  })

  it('escapeEncoded gives what the escapes alone give, for any text (property)', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(escapeEncoded(s)).toBe(slow(s))
        expect(escapeEncoded(JSON.stringify(s))).toBe(slow(JSON.stringify(s)))
      }),
      {numRuns: 2000},
    )
    expect(belowDel('')).toBe(true)
    expect(belowDel('a\x7fb')).toBe(false)
    expect(belowDel('\ud800')).toBe(false)
    expect(escapeEncoded('tag\u{e0001}s \x9b\x7f')).toBe('tag\\udb40\\udc01s \\u009b\\u007f')
  })
})

describe('yamlText', () => {
  it('double-quotes and escapes strings with controls; yaml reads back the same value', () => {
    const text = yamlText(value, {lineWidth: 0})
    expect(RAW.exec(text.replaceAll('\n', ''))).toBeNull()
    expect(text).toContain('"zone\\u009b2J"')
    expect(parseYaml(text)).toEqual(value)
  })
  it('is yaml stringify for plain text', () => {
    expect(yamlText({a: ['x', 'multi\nline'], b: 1}, {lineWidth: 0})).toBe('a:\n  - x\n  - |-\n    multi\n    line\nb: 1\n')
  })
})

describe('csvText', () => {
  it('escapes controls visibly (an OSC 52 clipboard write is inert)', () => {
    expect(csvText('\x1b]52;c;cHduZWQ=\x07')).toBe('^[]52;c;cHduZWQ=\\x07')
    expect(csvText('a\u009bb')).toBe('a\\x9bb')
  })
  it('neutralises formula prefixes, keeps numbers', () => {
    expect(csvText('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`)
    expect(csvText('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvText('-2+3')).toBe("'-2+3")
    expect(csvText('-3')).toBe('-3')
    expect(csvText('-1.5000%')).toBe('-1.5000%')
    expect(csvText('zone-a')).toBe('zone-a')
  })
  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(csvText('a,b')).toBe('"a,b"')
    expect(csvText('say "x"')).toBe('"say ""x"""')
  })
})
