// Terminal-safe text (issue 14). Zone names, labels, annotations, Event messages and error
// texts come from the cluster or a snapshot file and may hold anything: an ESC sequence that
// clears the screen or moves the cursor, a carriage return or NUL that hides what came before,
// C1 controls (U+009B is a CSI on some terminals), bidi overrides that print a line backwards,
// invisible format characters. kubectl escapes ESC as "^[" and CR as "\r" in its table printer
// and describe output (k8s.io/cli-runtime pkg/printers/terminal.go EscapeTerminal, used by
// tableprinter.go printRows and kubectl's describe); this does the same and goes further:
// every character that is not printable is written as a visible escape:
//
//   ESC -> ^[ (as kubectl)   CR -> \r   LF -> \n   TAB -> \t
//   other C0 controls, DEL and C1 controls -> \xHH
//   format characters (bidi embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069,
//   zero-width spaces and joiners, soft hyphen, BOM, ...), line and paragraph separators and
//   lone surrogates -> \uHHHH (\u{HHHHH} beyond U+FFFF)
//
// The escape is human-readable and not reversible (a backslash is left alone), like kubectl's.
// Text printers (table, wide, per-node, nodes, check table and JUnit, simulate text and view,
// watch lines and view, apply diffs) pass the model they format through escapeDeep before
// adding colour; JSON and YAML are written exactly (their encoders escape control characters:
// test/unit/escape.test.ts). Errors are escaped where they are printed (entry/report-error.ts).

const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu
const SAFE_ASCII = /^[\x20-\x7e]*$/

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

function escapeChar(ch: string): string {
  switch (ch) {
    case '\x1b':
      return '^['
    case '\r':
      return '\\r'
    case '\n':
      return '\\n'
    case '\t':
      return '\\t'
  }
  const cp = ch.codePointAt(0)!
  if (cp <= 0xff) return `\\x${hex(cp, 2)}`
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`
  return `\\u{${hex(cp, 5)}}`
}

/** The text with every non-printable character replaced by a visible escape (see above). */
export function escapeTerminal(text: string): string {
  if (SAFE_ASCII.test(text)) return text
  return text.replace(UNSAFE, escapeChar)
}

/** Whether the text holds a character escapeTerminal replaces. */
export function hasUnsafe(text: string): boolean {
  if (SAFE_ASCII.test(text)) return false
  UNSAFE.lastIndex = 0
  return UNSAFE.test(text)
}

/**
 * A copy of plain data (objects, arrays) with every string, keys included, passed through
 * escapeTerminal; the same value when nothing needed escaping. What a text printer formats.
 * Two keys that escape to the same text keep the later value (only hostile input does that).
 */
export function escapeDeep<T>(value: T): T {
  return deep(value) as T
}

function deep(v: unknown): unknown {
  if (typeof v === 'string') return escapeTerminal(v)
  if (typeof v !== 'object' || v === null) return v
  if (Array.isArray(v)) {
    let out: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const x = deep(v[i])
      if (x !== v[i]) (out ??= v.slice())[i] = x
    }
    return out ?? v
  }
  const proto = Object.getPrototypeOf(v) as unknown
  if (proto !== Object.prototype && proto !== null) return v
  const o = v as Record<string, unknown>
  const keys = Object.keys(o)
  let out: Record<string, unknown> | undefined
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!
    const x = o[k]
    const k2 = escapeTerminal(k)
    const x2 = deep(x)
    if (out === undefined) {
      if (k2 === k && x2 === x) continue
      out = Object.create(proto) as Record<string, unknown>
      for (let j = 0; j < i; j++) define(out, keys[j]!, o[keys[j]!])
    }
    define(out, k2, x2)
  }
  return out ?? v
}

/** Sets a property as data, even "__proto__". */
const define = (o: Record<string, unknown>, k: string, value: unknown) => Object.defineProperty(o, k, {value, enumerable: true, writable: true, configurable: true})

/** Multi-line text (a stack trace) escaped line by line: the line breaks stay. */
export function escapeLines(text: string): string {
  return text
    .split('\n')
    .map((l) => escapeTerminal(l))
    .join('\n')
}
