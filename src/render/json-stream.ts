// Large JSON documents written in pieces: the same bytes as `jsonText(doc) + "\n"` (encode.ts),
// without the whole text (and its Buffer copy) in memory at once. `explain -A -o json` on
// thousands of Services has one big array; `explain svc/big -o json` on a Service of 50,000
// endpoints has one element that is big (issue 14, "Size": 28 MB of text from one Service).
// So the writer goes down into whatever is big, at any depth, and hands each run of small
// values to JSON.stringify at once. bench/size.mjs and bench/scale.mjs measure it.
//
// For plain data (what the engines return): objects and arrays, strings, numbers, booleans,
// null; undefined, functions and symbols are left out of objects and are null in arrays, as
// JSON.stringify does. A value with a toJSON method is serialised by JSON.stringify, whole.

import {escapeEncoded} from './encode.js'

/** About how many values (each object, array and scalar counts one) go to JSON.stringify at a time. */
export const PIECE = 4096

type Container = Record<string, unknown> | unknown[]

/** An array, or an object of the kind JSON.stringify walks itself (no toJSON). */
export function isContainer(v: unknown): v is Container {
  if (typeof v !== 'object' || v === null) return false
  if (Array.isArray(v)) return true
  const proto = Object.getPrototypeOf(v)
  return (proto === Object.prototype || proto === null) && typeof (v as {toJSON?: unknown}).toJSON !== 'function'
}

/** How many values v holds (itself included), counting no further than `limit`. */
export function weight(v: unknown, limit: number): number {
  if (typeof v !== 'object' || v === null) return 1
  let n = 1
  // Scalars are counted here, not by a call each (50,000 endpoint rows are a million values).
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && n < limit; i++) {
      const x: unknown = v[i]
      n += typeof x === 'object' && x !== null ? weight(x, limit - n) : 1
    }
  } else {
    for (const k in v) {
      if (n >= limit) break
      const x = (v as Record<string, unknown>)[k]
      n += typeof x === 'object' && x !== null ? weight(x, limit - n) : 1
    }
  }
  return n
}

const pad = (depth: number) => '  '.repeat(depth)

/** `value` wrapped in `times` one-element arrays: JSON.stringify then indents it for that depth. */
function nest(value: unknown, times: number): unknown {
  let w = value
  for (let i = 0; i < times; i++) w = [w]
  return w
}

/**
 * The text of `values` as the elements of an array at `depth` print (the array's own depth; its
 * elements are one deeper): each on its lines, indented, separated by ",\n", without the
 * brackets. The array is nested `depth` times for JSON.stringify and its `depth + 1` opening
 * lines ("[\n", "  [\n", …, d(d+1) characters for d = depth + 1) and closing lines cut off.
 */
function elementsText(values: unknown[], depth: number): string {
  const text = JSON.stringify(nest(values, depth), null, 2)
  const cut = (depth + 1) * (depth + 2)
  return text.slice(cut, text.length - cut)
}

/** The text of a value at `depth` (its inner lines indented for that depth), without the indentation of its first line. */
function valueText(v: unknown, depth: number): string {
  if (typeof v !== 'object' || v === null || depth === 0) return JSON.stringify(v, null, 2)
  // One element at depth `depth`: the elements of an array at depth - 1, less their indentation.
  return elementsText([v], depth - 1).slice(2 * depth)
}

/** Yields the text of `v` at `depth` (see valueText) in pieces of about `piece` values; v is not undefined, a function or a symbol. */
function* pieces(v: unknown, depth: number, piece: number): Generator<string> {
  if (!isContainer(v) || weight(v, piece) < piece) {
    yield valueText(v, depth)
    return
  }
  if (Array.isArray(v)) yield* arrayPieces(v, depth, piece)
  else yield* objectPieces(v, depth, piece)
}

/**
 * The text of an array at `depth` in pieces, its elements taken from `values` as they are
 * reached: only the current run of small elements is held (jsonStreamChunks' array is never
 * whole). The elements are what an array of JSON.stringify holds (undefined is written null).
 */
function* arrayPieces(values: Iterable<unknown>, depth: number, piece: number): Generator<string> {
  const inner = pad(depth + 1)
  let first = true
  let run: unknown[] = []
  let runWeight = 0
  const flush = () => {
    const text = `${first ? '[\n' : ',\n'}${elementsText(run, depth)}`
    first = false
    run = []
    runWeight = 0
    return text
  }
  for (const x of values) {
    const w = weight(x, piece)
    if (w >= piece && isContainer(x)) {
      if (run.length > 0) yield flush()
      yield `${first ? '[\n' : ',\n'}${inner}`
      first = false
      yield* pieces(x, depth + 1, piece)
    } else {
      run.push(x)
      runWeight += w
      if (runWeight >= piece) yield flush()
    }
  }
  if (run.length > 0) yield flush()
  yield first ? '[]' : `\n${pad(depth)}]`
}

/** The text of an object at `depth` in pieces; `last`: one more key, after the object's own, whose value is an array given as its elements (arrayPieces). */
function* objectPieces(v: Record<string, unknown>, depth: number, piece: number, last?: {key: string; values: Iterable<unknown>}): Generator<string> {
  const inner = pad(depth + 1)
  let first = true
  for (const k of Object.keys(v)) {
    const x = v[k]
    // As JSON.stringify: these are not written at all.
    if (x === undefined || typeof x === 'function' || typeof x === 'symbol') continue
    yield `${first ? '{\n' : ',\n'}${inner}${JSON.stringify(k)}: `
    first = false
    yield* pieces(x, depth + 1, piece)
  }
  if (last !== undefined) {
    yield `${first ? '{\n' : ',\n'}${inner}${JSON.stringify(last.key)}: `
    first = false
    yield* arrayPieces(last.values, depth + 1, piece)
  }
  yield first ? '{}' : `\n${pad(depth)}}`
}

/**
 * Yields the text of `JSON.stringify(doc, null, 2) + "\n"` (doc: an object or array) in pieces
 * of about `piece` values, a few tens of kilobytes (but for long strings). The tests make
 * `piece` small, to split small documents everywhere.
 */
export function* jsonChunks(doc: object, piece = PIECE): Generator<string> {
  // Each piece with DEL, C1 and format characters escaped as \uXXXX (encode.ts: jsonText's
  // text, which is the same bytes for text without them).
  for (const c of pieces(doc, 0, piece)) yield escapeEncoded(c)
  yield '\n'
}

/**
 * jsonStreamChunks' pieces: a run of 1,024 values of explain's Services is some 30 kB of text, a
 * string V8 keeps with the young objects (over 128 kB, each run's text went to the large-object
 * space: about 20 MB of it alive at once, and 20 MB more peak RSS for explain -A on 2,000
 * Services, with the same CPU time; docs/design.md, "Reading a whole cluster").
 */
const STREAM_PIECE = 1024

/**
 * jsonChunks of `{...head, [key]: [...values]}`, the array's elements taken from `values` as the
 * writer reaches them, so that at most a run of them (a few tens of kilobytes of text) is alive
 * at once: `explain -A -o json` explains each Service as it is written. `key` must not be one of
 * head's own.
 */
export function* jsonStreamChunks(head: Record<string, unknown>, key: string, values: Iterable<unknown>, piece = STREAM_PIECE): Generator<string> {
  for (const c of objectPieces(head, 0, piece, {key, values})) yield escapeEncoded(c)
  yield '\n'
}

/**
 * Writes chunks to a stream: joined into writes of 64 kB or more, each encoded into one Buffer
 * kept from write to write (the next write waits for the last one's callback, which also waits
 * for a full pipe). A Buffer per write (what `stream.write(text)` makes for a file or /dev/null)
 * was 35 MB of external memory for svc/big, whose pressure set off full garbage collections:
 * ~50 ms more CPU. After a failed write (a reader gone), nothing more is written; the stream
 * reports the error as it does for any write.
 */
export async function writeChunks(stream: NodeJS.WritableStream, chunks: Iterable<string>): Promise<void> {
  let buffer: Buffer | undefined
  let failed = false
  const write = (text: string) =>
    new Promise<void>((resolve) => {
      // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4).
      if (buffer === undefined || buffer.length < 3 * text.length) buffer = Buffer.allocUnsafe(Math.max(1 << 16, 3 * text.length))
      const n = buffer.write(text)
      stream.write(buffer.subarray(0, n), (e) => {
        if (e) failed = true
        resolve()
      })
    })
  let pending = ''
  for (const c of chunks) {
    pending += c
    if (pending.length < 1 << 16) continue
    await write(pending)
    pending = ''
    if (failed) return
  }
  if (pending) await write(pending)
}
