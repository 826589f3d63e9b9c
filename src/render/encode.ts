// The machine-readable encoders (-o json, -o yaml, -o csv, `snapshot`): exact values, and no raw
// control byte in their text (issue 20, class 6). JSON.stringify escapes C0 (\u001b) but writes
// DEL, the C1 controls (U+0080-U+009F: U+009B is a CSI on terminals that read 8-bit controls),
// bidi overrides and the line/paragraph separators raw, and the yaml package writes C1 raw inside
// double quotes and bidi overrides in plain scalars: `kubectl topology explain -o json` of a
// snapshot holding a zone "a\u009b2J" cleared the screen of whoever looked at the output.
//
// JSON and YAML: those characters are written as \uXXXX escapes, which both formats read back as
// the same character (RFC 8259 section 7; YAML 1.2 section 5.7, in double-quoted scalars): the
// value is exact, the text is inert. YAML strings holding any of them (or a C0 control, a tab
// included) are written double-quoted, where the escapes are valid. CSV has no escapes: cells
// are made terminal-safe as the text printers make them (escape.ts: "\x9b", visible and not
// reversible) and a cell a spreadsheet would run as a formula (=, +, -, @ first; OWASP "CSV
// Injection") gets a leading single quote.
import {Document, Scalar, visit, type CreateNodeOptions, type ToStringOptions} from 'yaml'
import {escapeTerminal} from './escape.js'

/** What JSON.stringify leaves raw that must not reach a terminal: DEL, C1, format characters, separators. */
const RAW_AFTER_JSON = /[\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}]/gu
/** Strings YAML must double-quote: those, or a C0 control but LF. */
const NEEDS_QUOTES = /[\x00-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u
const ASCII_SAFE = /^[\x0a\x20-\x7e]*$/

/**
 * Whether every UTF-16 code unit of text is below U+007F (ASCII without DEL), so that no
 * character RAW_AFTER_JSON names (all at U+007F or above) can be in it. A UTF-8 length equal to
 * the length means every unit is below U+0080 (any other unit is 2 or 3 bytes, a lone surrogate
 * 3, a pair 4), and DEL is looked for: two native scans, about ten times faster than a regular
 * expression over the 26.6 MB that `explain -A -o json` writes for 2,000 Services (docs/design.md,
 * "Reading a whole cluster").
 */
export function belowDel(text: string): boolean {
  return Buffer.byteLength(text, 'utf8') === text.length && !text.includes('\x7f')
}

const u4 = (unit: number) => `\\u${unit.toString(16).padStart(4, '0')}`
/** A character as \uXXXX (a surrogate pair as two). */
const escapeUnits = (ch: string) => (ch.length === 1 ? u4(ch.charCodeAt(0)) : u4(ch.charCodeAt(0)) + u4(ch.charCodeAt(1)))

/**
 * JSON text (or YAML text whose strings holding these characters are double-quoted) with DEL, C1,
 * format characters and separators written as \uXXXX. Such characters only occur inside strings,
 * where the escape means the same character: safe on the whole text, and on any piece of it.
 */
export function escapeEncoded(text: string): string {
  if (belowDel(text)) return text
  return text.replace(RAW_AFTER_JSON, escapeUnits)
}

/** `JSON.stringify(value, null, 2)` with the escapes of escapeEncoded. */
export function jsonText(value: unknown): string {
  return escapeEncoded(JSON.stringify(value, null, 2))
}

/** YAML of plain data (as yaml's stringify with these options), strings with control or format characters double-quoted and escaped. */
export function yamlText(value: unknown, opts: CreateNodeOptions & ToStringOptions = {}): string {
  const doc = new Document(value, opts)
  let quoted = false
  visit(doc, {
    Scalar(_, node: Scalar) {
      if (typeof node.value === 'string' && !ASCII_SAFE.test(node.value) && NEEDS_QUOTES.test(node.value)) {
        node.type = Scalar.QUOTE_DOUBLE
        quoted = true
      }
    },
  })
  const text = doc.toString(opts)
  return quoted ? escapeEncoded(text) : text
}

const NUMBER = /^[+-]?\d+(\.\d+)?(e[+-]?\d+)?%?$/i

/** A CSV cell (RFC 4180): terminal-safe, a formula prefix neutralised, quoted when it holds a comma, quote or line break. */
export function csvText(v: string): string {
  let s = escapeTerminal(v)
  if (/^[=+\-@]/.test(s) && !NUMBER.test(s)) s = `'${s}`
  return /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s
}
