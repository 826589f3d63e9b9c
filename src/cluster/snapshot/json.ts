// JSON text -> documents: JSON.parse, and when it fails a scanner that splits a stream of
// top-level values (`jq` prints one) or finds where the syntax error is.

import {displayName, inputError, type Parsed} from './format.js'
import {parseYamlText} from './yaml.js'

/** The 1-based line and column of an offset. */
function lineCol(text: string, offset: number): {line: number; col: number} {
  let line = 1
  let last = -1
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      last = i
    }
  }
  return {line, col: offset - last}
}

class JsonSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message)
  }
}

/**
 * Splits a JSON text into its top-level values (`jq` prints a stream of objects) and
 * finds the offset of the first syntax error. Only used when JSON.parse fails, whose
 * messages do not always carry a position.
 */
function scanJsonStream(text: string): [number, number][] {
  const n = text.length
  let i = 0
  const show = (c: string | undefined) => (c === undefined ? 'end of input' : JSON.stringify(c))
  const fail = (msg: string): never => {
    throw new JsonSyntaxError(i, i >= n ? 'unexpected end of JSON input' : msg)
  }
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i)
      if (c === 32 || c === 9 || c === 10 || c === 13) i++
      else break
    }
  }
  const str = () => {
    i++ // opening quote
    for (;;) {
      if (i >= n) fail('unterminated string')
      const c = text[i]!
      if (c === '"') {
        i++
        return
      }
      if (c === '\\') {
        const e = text[i + 1]
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            fail('invalid \\u escape in string')
          }
          i += 6
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          i += 2
        } else {
          fail(`invalid escape ${show(`\\${e ?? ''}`)} in string`)
        }
        continue
      }
      if (c < ' ') fail('control character in string')
      i++
    }
  }
  const num = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
  const value = (depth: number): void => {
    if (depth > 10_000) fail('nesting too deep')
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      ws()
      if (text[i] === '}') {
        i++
        return
      }
      for (;;) {
        ws()
        if (text[i] !== '"') fail(`expected a double-quoted property name, found ${show(text[i])}`)
        str()
        ws()
        if (text[i] !== ':') fail(`expected ':' after property name, found ${show(text[i])}`)
        i++
        value(depth + 1)
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === '}') {
          i++
          return
        }
        fail(`expected ',' or '}' after property value, found ${show(text[i])}`)
      }
    }
    if (c === '[') {
      i++
      ws()
      if (text[i] === ']') {
        i++
        return
      }
      for (;;) {
        value(depth + 1)
        ws()
        if (text[i] === ',') {
          i++
          continue
        }
        if (text[i] === ']') {
          i++
          return
        }
        fail(`expected ',' or ']' after array element, found ${show(text[i])}`)
      }
    }
    if (c === '"') return str()
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      num.lastIndex = i
      if (!num.exec(text)) fail(`invalid number`)
      i = num.lastIndex
      return
    }
    for (const lit of ['true', 'false', 'null']) {
      if (text.startsWith(lit, i)) {
        i += lit.length
        return
      }
    }
    fail(`unexpected ${show(c)}`)
  }
  const segments: [number, number][] = []
  ws()
  while (i < n) {
    const start = i
    value(0)
    segments.push([start, i])
    ws()
  }
  return segments
}

/** The documents of a JSON text (one value, or a stream of them); a syntax error is an INPUT error at file:line:col. */
export function parseJsonText(text: string, source: string): Parsed {
  let segments: [number, number][]
  let docs: unknown[]
  try {
    docs = [JSON.parse(text)]
    segments = [[0, text.length]]
  } catch (e) {
    try {
      segments = scanJsonStream(text)
    } catch (se) {
      if (!(se instanceof JsonSyntaxError)) throw se
      const pos = lineCol(text, se.offset)
      throw inputError(`${displayName(source)}:${pos.line}:${pos.col}: ${se.message}`)
    }
    if (segments.length <= 1) {
      // The scanner accepted what JSON.parse refused: report JSON.parse's own words.
      const m = /at position (\d+)/.exec((e as Error).message)
      const pos = lineCol(text, m ? Number(m[1]) : 0)
      throw inputError(`${displayName(source)}:${pos.line}:${pos.col}: ${(e as Error).message.replace(/\s*in JSON at position.*$/, '')}`)
    }
    docs = segments.map(([a, b]) => JSON.parse(text.slice(a, b)))
  }
  const located: (Parsed | undefined)[] = []
  return {
    docs,
    // JSON is YAML: positions are computed only when an error needs them.
    locate(doc, path) {
      const seg = segments[doc]
      if (!seg) return undefined
      try {
        const sub = (located[doc] ??= parseYamlText(text.slice(seg[0], seg[1]), source))
        const p = sub.locate(0, path)
        if (!p) return undefined
        const base = lineCol(text, seg[0])
        return p.line === 1 ? {line: base.line, col: base.col + p.col - 1} : {line: base.line + p.line - 1, col: p.col}
      } catch {
        return undefined
      }
    },
  }
}
