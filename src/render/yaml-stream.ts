// Large YAML documents written in pieces: the same bytes as `yamlText(doc, {aliasDuplicateObjects:
// false, lineWidth: 0})` (encode.ts), without the whole document's node tree and text in memory at
// once. `explain svc/big -o yaml` (50,000 endpoint rows) built yaml's Document of the whole report
// (a node object per value, millions of them), visited it and wrote its 30 MB of text: 7.7 s and
// ~590 MB where `-o json`, streamed by json-stream.ts, took under 1 s (issue 23). A profile
// (`node --cpu-prof`) of yamlText on the report: the yaml package's node creation, its visit and
// its per-scalar stringify (each string tested against every tag of the schema) are the time;
// cutting the document into pieces alone saves the memory, not the time.
//
// So the writer goes down the document and writes what it can tell yaml would write the same way
// itself: block mappings and sequences (a sequence under a key indented by 2, yaml's indentSeq; a
// collection that is an element of a sequence starts on its "- " line, the compact form), `[]`,
// `{}`, null, booleans, finite numbers (yaml's stringifyNumber: JSON.stringify, "-0"), and strings
// yaml writes plain: printable ASCII on one line, none of the indicators its plainString refuses,
// no document marker, nothing another tag of the core schema would read (a number, a boolean,
// null). Anything else (a quoted or block string, a key yaml would write as an explicit "? " key,
// a value of another kind) is handed to yamlText with the smallest unit around it (one map entry
// or one sequence element) written where it belongs: nested in one-key maps to its column (yaml's
// choices depend on the column: a "---" value is written differently at column 0 and 2 than
// deeper), the wrapper's lines cut off. With lineWidth 0 nothing is folded, so a unit's text does
// not depend on what is around it. A property test compares the text with yamlText's.
//
// For plain data (what the engines return): objects and arrays, strings, numbers, booleans, null;
// undefined values are left out of objects and are null in arrays, as yaml writes them.

import {yamlText} from './encode.js'
import {isContainer, PIECE, weight} from './json-stream.js'

const OPTS = {aliasDuplicateObjects: false, lineWidth: 0} as const

/** About how many characters each yielded piece holds (more when one unit is longer). */
const PIECE_CHARS = 1 << 16

const pads: string[] = []
const pad = (n: number) => (pads[n] ??= ' '.repeat(n))

// yaml's plainString (stringify/stringifyString.js): what it refuses to write plain, and the core
// schema's tests (null, bool, int, float) that make it quote a string that would read as another type.
const INDICATORS = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/
const OTHER_TYPE = [
  /^(?:~|[Nn]ull|NULL)?$/,
  /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
  /^0o[0-7]+$/,
  /^[-+]?[0-9]+$/,
  /^0x[0-9a-fA-F]+$/,
  /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
  /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
]
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/

// Strings that are plain whatever the tests below say, found with one test: a letter then letters,
// digits and . _ / - (no indicator can match: none of those characters is one, and the first is a
// letter), except the core schema's null and boolean words (every other type's text starts with a
// digit, a sign, a dot or "~"); and dotted quads (an IPv4 address: two dots or more is no number).
// Most of a report's strings are one or the other: names, zones, keys and addresses.
const SIMPLE = /^[A-Za-z][A-Za-z0-9._/-]*$/
const DOTTED_QUAD = /^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$/
const WORDS = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE'])

/** The string as yaml writes it plain (a key or a value), or null when yaml would quote it or write it otherwise. */
function plain(s: string): string | null {
  if (s.length <= 1000 && (SIMPLE.test(s) ? !WORDS.has(s) : DOTTED_QUAD.test(s))) return s
  // Keys longer than 1,024 characters are written as explicit keys; no value that long is taken either.
  if (s.length > 1000 || !PRINTABLE_ASCII.test(s) || INDICATORS.test(s) || DOCUMENT_MARKER.test(s)) return null
  for (const t of OTHER_TYPE) if (t.test(s)) return null
  return s
}

/**
 * A value string yaml cannot write plain but writes double-quoted as it is: printable ASCII on one
 * line without `"` or `\\`, no document marker ("4", "True", "", ": x"...). yaml's plainString hands
 * a one-line string its indicators refuse, or one another tag would read, to quotedString, which
 * takes doubleQuotedString when the string has no `"` (stringify/stringifyString.js); that is
 * JSON.stringify's text, here `"s"` with nothing to escape, and with lineWidth 0 nothing is folded.
 * A string with a document marker may be written as a block instead: left to yamlText. Snapshots
 * are full of these (CPU "4", condition "True", ports' names): without this, every Node, Service
 * and EndpointSlice went to yamlText whole.
 */
function quoted(s: string): string | null {
  if (s === '') return '""'
  if (s.length > 1000 || !PRINTABLE_ASCII.test(s) || s.includes('"') || s.includes('\\') || DOCUMENT_MARKER.test(s)) return null
  return `"${s}"`
}

/** A scalar's text, or null when it is not one this writer writes (or is a collection). */
function scalar(v: unknown): string | null {
  switch (typeof v) {
    case 'string':
      return plain(v) ?? quoted(v)
    case 'number':
      return Number.isFinite(v) ? (Object.is(v, -0) ? '-0' : JSON.stringify(v)) : null
    case 'boolean':
      return v ? 'true' : 'false'
    case 'object':
      return v === null ? 'null' : null
    default:
      return null
  }
}

type Container = Record<string, unknown> | unknown[]

/** Whether a plain object has an entry yaml writes (undefined values are left out). */
function hasEntries(o: Record<string, unknown>): boolean {
  for (const k in o) if (o[k] !== undefined) return true
  return false
}

/**
 * The text of one unit written where it belongs (col: the column of its "key:" or "- "; lead: the
 * first line's indentation, or the "- " of the sequences it starts) by yamlText: `unit` (a one-entry
 * object or one-element array) nested in col / 2 one-key maps, whose lines ("a:\n" at columns 0,
 * 2, ...: levels * (levels + 2) characters) are cut off with the unit's own first indentation.
 */
function yamlUnit(unit: Container, col: number, lead: string): string {
  const levels = col / 2
  let doc: unknown = unit
  for (let i = 0; i < levels; i++) doc = {a: doc}
  return lead + yamlText(doc, OPTS).slice(levels * (levels + 2) + col)
}

/** An entry's text ("key: value" and the lines of a nested collection), or null: not this writer's. */
function entryText(k: string, x: unknown, col: number, lead: string): string | null {
  const key = plain(k)
  if (key === null) return null
  if (isContainer(x)) {
    if (Array.isArray(x)) {
      if (x.length === 0) return `${lead}${key}: []\n`
      const inner = seqText(x, col + 2, pad(col + 2))
      return inner === null ? null : `${lead}${key}:\n${inner}`
    }
    if (!hasEntries(x)) return `${lead}${key}: {}\n`
    const inner = mapText(x, col + 2, pad(col + 2))
    return inner === null ? null : `${lead}${key}:\n${inner}`
  }
  const s = scalar(x)
  return s === null ? null : `${lead}${key}: ${s}\n`
}

/** A sequence element's text ("- value"), or null: not this writer's. */
function elementText(x: unknown, col: number, lead: string): string | null {
  if (x === undefined) return `${lead}- null\n`
  if (isContainer(x)) {
    if (Array.isArray(x)) return x.length === 0 ? `${lead}- []\n` : seqText(x, col + 2, `${lead}- `)
    return hasEntries(x) ? mapText(x, col + 2, `${lead}- `) : `${lead}- {}\n`
  }
  const s = scalar(x)
  return s === null ? null : `${lead}- ${s}\n`
}

/** The entries of a map with at least one (entries at `col`, the first line's indentation `lead`), or null. */
function mapText(o: Record<string, unknown>, col: number, lead: string): string | null {
  let out = ''
  for (const k in o) {
    const x = o[k]
    if (x === undefined) continue
    const t = entryText(k, x, col, out === '' ? lead : pad(col))
    if (t === null) return null
    out += t
  }
  return out
}

/** The elements of a non-empty sequence (at `col`, the first line's indentation `lead`), or null. */
function seqText(a: unknown[], col: number, lead: string): string | null {
  let out = ''
  for (let i = 0; i < a.length; i++) {
    const t = elementText(a[i], col, i === 0 ? lead : pad(col))
    if (t === null) return null
    out += t
  }
  return out
}

/** A one-entry object holding key k (own data property, also for "__proto__"). */
function oneEntry(k: string, x: unknown): Record<string, unknown> {
  const o: Record<string, unknown> = {}
  Object.defineProperty(o, k, {value: x, enumerable: true, writable: true, configurable: true})
  return o
}

/** Whether the writer goes down into x (a plain collection of `over` values or more, json-stream's weight) rather than writing it as one unit. */
function big(x: unknown, over: number): x is Container {
  return isContainer(x) && weight(x, over) >= over
}

/**
 * Yields the text of container `v` (non-empty) whose entries start at column `col`, the first
 * line's indentation `lead`, in pieces of about PIECE_CHARS characters. Each entry or element is
 * written by this writer, gone into when it is a big collection (its "key:" line then written as
 * yaml writes it), or handed to yamlUnit.
 */
function* pieces(v: Container, col: number, lead: string, over: number): Generator<string> {
  let out = ''
  let first = lead
  if (Array.isArray(v)) {
    for (const x of v) {
      const at = first
      first = pad(col)
      if (big(x, over) && (Array.isArray(x) ? x.length > 0 : hasEntries(x))) {
        if (out !== '') yield out
        out = ''
        yield* pieces(x, col + 2, `${at}- `, over)
        continue
      }
      out += elementText(x, col, at) ?? yamlUnit([x], col, at)
      if (out.length >= PIECE_CHARS) {
        yield out
        out = ''
      }
    }
  } else {
    for (const k in v) {
      const x = v[k]
      if (x === undefined) continue
      const at = first
      first = pad(col)
      const key = plain(k)
      if (key !== null && big(x, over) && (Array.isArray(x) ? x.length > 0 : hasEntries(x))) {
        yield `${out}${at}${key}:\n`
        out = ''
        yield* pieces(x, col + 2, pad(col + 2), over)
        continue
      }
      out += entryText(k, x, col, at) ?? yamlUnit(oneEntry(k, x), col, at)
      if (out.length >= PIECE_CHARS) {
        yield out
        out = ''
      }
    }
  }
  if (out !== '') yield out
}

/**
 * Yields the text of `yamlText(doc, {aliasDuplicateObjects: false, lineWidth: 0})` (doc: an
 * object or array) in pieces of about 64 K characters. Collections of `over` values or more are
 * gone into (the tests make it small, to go into every one).
 */
export function* yamlChunks(doc: object, over = PIECE): Generator<string> {
  if (!isContainer(doc) || (Array.isArray(doc) ? doc.length === 0 : !hasEntries(doc))) {
    yield yamlText(doc, OPTS)
    return
  }
  yield* pieces(doc, 0, '', over)
}
