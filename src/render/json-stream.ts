// Large JSON documents (explain -A -o json on thousands of Services) written in pieces: the
// same bytes as `JSON.stringify(doc, null, 2) + "\n"`, but the array under `key` (the
// document's last key) is stringified one element at a time, so the whole text (and its
// Buffer copy) never sits in memory at once. bench/scale.mjs measures the difference.

/** Yields the text of JSON.stringify(doc, null, 2) + "\n" in pieces; `key` must be doc's last key and hold an array. */
export function* jsonChunks(doc: Record<string, unknown>, key: string): Generator<string> {
  const keys = Object.keys(doc)
  const items = doc[key]
  if (keys.at(-1) !== key || !Array.isArray(items) || items.length === 0) {
    yield `${JSON.stringify(doc, null, 2)}\n`
    return
  }
  const head = JSON.stringify({...doc, [key]: []}, null, 2)
  // head ends with `"key": []\n}`: open the array instead.
  const marker = `${JSON.stringify(key)}: []\n}`
  if (!head.endsWith(marker)) {
    yield `${JSON.stringify(doc, null, 2)}\n`
    return
  }
  yield `${head.slice(0, -marker.length)}${JSON.stringify(key)}: [\n`
  for (let i = 0; i < items.length; i++) {
    const text = JSON.stringify(items[i], null, 2).replace(/\n/g, '\n    ')
    yield `    ${text}${i < items.length - 1 ? ',' : ''}\n`
  }
  yield '  ]\n}\n'
}

/** Writes chunks to a stream, waiting for 'drain' when its buffer is full (pipes). */
export async function writeChunks(stream: NodeJS.WritableStream, chunks: Iterable<string>): Promise<void> {
  let pending = ''
  for (const c of chunks) {
    pending += c
    if (pending.length < 1 << 16) continue
    const ok = stream.write(pending)
    pending = ''
    if (!ok) await new Promise<void>((resolve) => stream.once('drain', resolve))
  }
  if (pending) stream.write(pending)
}
