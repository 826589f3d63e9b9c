// The next page of a list asked for from the head of the one before (src/cluster/page-ahead.ts):
// the continue token read from a list's first bytes, the transport's tap on undici's body
// stream, and PageAhead's rules (one page ahead, taken only when forEachPage asks for exactly
// that token, never a token sent before, the rest aborted).
import {Readable} from 'node:stream'
import {describe, expect, it} from 'vitest'
import {continueOf, listHead, PageAhead, tapHead} from '../../src/cluster/page-ahead.js'

const TOKEN = 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6ODI2Miwic3RhcnQiOiJiZW5jaC1zY2FsZS0wNVx1MDAwMCJ9'

describe('continueOf', () => {
  it("reads the token of the API server's list head", () => {
    expect(
      continueOf(`{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","metadata":{"resourceVersion":"8262","continue":"${TOKEN}","remainingItemCount":1500},`),
    ).toBe(TOKEN)
    expect(continueOf('{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"20","continue":"page-1"},')).toBe('page-1')
  })

  it('says nothing when the head does not plainly say it', () => {
    // The last page, no metadata first, an escape in the token, the token elsewhere than the list's metadata.
    expect(continueOf('{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"8262"},')).toBeUndefined()
    expect(continueOf('{"kind":"NodeList",')).toBeUndefined()
    expect(continueOf('{"metadata":{"continue":"a\\u003db"},')).toBeUndefined()
    expect(continueOf('{"kind":"List","spec":{"continue":"x"},"metadata":{"resourceVersion":"1"},')).toBeUndefined()
    expect(continueOf('{"kind":"List","metadata":{"labels":{"continue":"x"}},')).toBeUndefined()
  })
})

/** A stream like undici's body: the answer's bytes go through push(). */
function body(): Readable {
  return new Readable({read() {}})
}

const flush = () => new Promise<void>((r) => setImmediate(r))

describe('tapHead', () => {
  it('gives the text before "items": once, the stream read as it was', async () => {
    const s = body()
    const heads: string[] = []
    tapHead(s as never, (h) => heads.push(h))
    const text = `{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc"},"items":[{"a":1}],"x":{"items":2}}`
    // Split inside "items": the head is known only with the second chunk.
    const cut = text.indexOf('"items"') + 3
    s.push(Buffer.from(text.slice(0, cut)))
    await flush()
    expect(heads).toEqual([])
    s.push(Buffer.from(text.slice(cut)))
    s.push(null)
    let read = ''
    for await (const c of s) read += String(c)
    expect(read).toBe(text)
    expect(heads).toEqual(['{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"7","continue":"abc"},'])
    // The prototype's push again.
    expect(Object.hasOwn(s, 'push')).toBe(false)
  })

  it('reads the bytes pushed before it was installed (they come with the headers)', async () => {
    const s = body()
    s.push(Buffer.from('{"kind":"List","metadata":{"continue":"a"},'))
    s.push(Buffer.from('"items":[]}'))
    const heads: string[] = []
    tapHead(s as never, (h) => heads.push(h))
    await flush()
    expect(heads).toEqual(['{"kind":"List","metadata":{"continue":"a"},'])
    expect(Object.hasOwn(s, 'push')).toBe(false)
    let read = ''
    s.push(null)
    for await (const c of s) read += String(c)
    expect(read).toBe('{"kind":"List","metadata":{"continue":"a"},"items":[]}')
  })

  it('a Readable whose private state is of another shape is left alone: no head, no error, read as before', async () => {
    const s = body()
    ;(s as unknown as {_readableState: {buffer: unknown}})._readableState.buffer = 42
    const heads: string[] = []
    expect(() => tapHead(s as never, (h) => heads.push(h))).not.toThrow()
    ;(s as unknown as {_readableState: {buffer: unknown[]}})._readableState.buffer = []
    s.push('{"metadata":{},"items":[]}')
    s.push(null)
    await flush()
    expect(heads).toEqual([])
    expect(Buffer.concat(await s.toArray()).toString()).toBe('{"metadata":{},"items":[]}')
  })

  it('gives up after 64 KiB without "items":', async () => {
    const s = body()
    const heads: string[] = []
    tapHead(s as never, (h) => heads.push(h))
    s.push(Buffer.alloc(70 * 1024, 'x'))
    expect(Object.hasOwn(s, 'push')).toBe(false)
    s.push(Buffer.from('"items":[]'))
    await flush()
    expect(heads).toEqual([])
  })
})

/** A scripted list: each call is a request whose head and answer the test releases. */
function lister() {
  const requests: {cont: string | undefined; signal: AbortSignal; head: (next?: string) => void; answer: (next?: string) => void; fail: (e: Error) => void}[] = []
  const call = (cont: string | undefined) =>
    new Promise<{next?: string}>((resolve, reject) => {
      const watch = listHead.getStore()!
      requests.push({
        cont,
        signal: watch.signal,
        head: (next) => watch.onHead(`{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"${next ? `,"continue":"${next}"` : ''}},`),
        answer: (next) => resolve(next === undefined ? {} : {next}),
        fail: reject,
      })
    })
  return {requests, call}
}

describe('PageAhead', () => {
  it("sends the next page when this one's head names it, and hands it to the one who asks", async () => {
    const {requests, call} = lister()
    const pages = new PageAhead(call, 10)
    const first = pages.fetch(undefined)
    expect(requests.map((r) => r.cont)).toEqual([undefined])
    requests[0]!.head('t1')
    // Page 2 is asked for while page 1 is still arriving.
    expect(requests.map((r) => r.cont)).toEqual([undefined, 't1'])
    // Page 2's head says t2: not sent before page 2 is taken (one page ahead at most).
    requests[1]!.head('t2')
    expect(requests).toHaveLength(2)
    requests[0]!.answer('t1')
    expect(await first).toEqual({next: 't1'})
    const second = pages.fetch('t1')
    expect(requests.map((r) => r.cont)).toEqual([undefined, 't1', 't2'])
    requests[1]!.answer('t2')
    expect(await second).toEqual({next: 't2'})
    const third = pages.fetch('t2')
    requests[2]!.head()
    requests[2]!.answer()
    expect(await third).toEqual({})
    expect(requests).toHaveLength(3)
    expect(requests.some((r) => r.signal.aborted)).toBe(false)
  })

  it('aborts a guess that was not the token asked for, and sends that one', async () => {
    const {requests, call} = lister()
    const pages = new PageAhead(call, 10)
    void pages.fetch(undefined)
    requests[0]!.head('guess')
    requests[0]!.answer('other')
    void pages.fetch('other')
    expect(requests.map((r) => [r.cont, r.signal.aborted])).toEqual([
      [undefined, false],
      ['guess', true],
      ['other', false],
    ])
  })

  it('never sends a token twice, nor more than the page bound', async () => {
    const {requests, call} = lister()
    const pages = new PageAhead(call, 3)
    void pages.fetch(undefined)
    requests[0]!.head('same')
    void pages.fetch('same')
    requests[1]!.head('same')
    expect(requests).toHaveLength(2)
    // One request allowed for the list: nothing is asked ahead.
    const l = lister()
    const one = new PageAhead(l.call, 1)
    void one.fetch(undefined)
    l.requests[0]!.head('next')
    expect(l.requests).toHaveLength(1)
  })

  it("close() aborts the page asked ahead; its failure is nobody's", async () => {
    const {requests, call} = lister()
    const pages = new PageAhead(call, 10)
    const first = pages.fetch(undefined)
    requests[0]!.head('t1')
    requests[0]!.fail(new Error('cut short'))
    await expect(first).rejects.toThrow('cut short')
    pages.close()
    expect(requests[1]!.signal.aborted).toBe(true)
    // Rejected and never awaited: not an unhandled rejection (vitest fails the run on one).
    requests[1]!.fail(new Error('aborted'))
    await flush()
  })
})
