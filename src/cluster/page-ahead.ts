// The next page of a list asked for while this one is still arriving (issue 23: "a live -A read
// should overlap its list calls and decode as pages arrive").
//
// A list is read in pages (client.ts, LIST_PAGE_SIZE items a page, as kubectl): each page's
// request needs the continue token of the one before. The API server writes a list's metadata,
// and with it the continue token, before its items ({"kind":…,"metadata":{…,"continue":"…"},
// "items":[…]}), so the token is known from the first bytes of a page. Client.list then sends
// the next page's request at once, and the server works on it while this page's items are
// still on the way and being parsed, instead of after both. Measured on 2,000 Services
// (docs/design.md, "Reading a whole cluster").
//
// It is a guess checked afterwards: the next request is taken only when forEachPage asks for
// exactly that token (the one of the parsed page); any other (a head that did not say, or said
// something else) is aborted and the asked-for page sent as before. At most one page is asked
// ahead of the one being read, never a token sent before (a list whose token repeats gets the
// same requests, and the same error, as before) and never more than the page bound; what is
// asked ahead and not taken (the list failed or stopped) is aborted, so it neither holds the
// process nor reports anything.
//
// The transport (http.ts) sees the first bytes: the request is made inside `listHead.run`, whose
// store says whom to tell about the head of a 2xx answer, and with which signal to end it.
import {AsyncLocalStorage} from 'node:async_hooks'

/** What the transport is told, for a request made inside listHead.run. */
export interface HeadWatch {
  /** Called (once, in a later microtask) with the text of a 2xx answer before its `"items":`. */
  onHead: (head: string) => void
  /** Ends the request (one asked ahead and not taken). */
  signal: AbortSignal
}

export const listHead = new AsyncLocalStorage<HeadWatch>()

/** Bytes of an answer searched for the start of its items, at most. */
const HEAD_MAX = 64 * 1024

/** A Readable's state, as far as tapHead reads it: the chunks pushed and not read yet (from bufferIndex on, in Node 22+). */
interface BufferedState {
  buffer?: Iterable<unknown>
  bufferIndex?: number
  ended?: boolean
}

/**
 * Calls onHead with the text before `"items":` as soon as the stream's bytes hold it: those
 * already pushed and not yet read (the answer's first bytes can come with its headers, before
 * the caller has the stream), then each chunk pushed (undici's body stream: every chunk of the
 * answer goes through its push()). Gives up after HEAD_MAX bytes or at the end. The stream is
 * otherwise untouched (nothing is read from it): its consumer reads it as before.
 */
export function tapHead(stream: {push: (chunk: unknown, encoding?: BufferEncoding) => boolean; _readableState?: BufferedState}, onHead: (head: string) => void): void {
  const push = stream.push
  if (typeof push !== 'function') return
  let seen: Buffer[] = []
  let size = 0
  let found = false
  /** Takes a chunk; true when the search is over. */
  const take = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (!Buffer.isBuffer(chunk) && typeof chunk !== 'string') return false
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk
    seen.push(bytes)
    size += bytes.length
    const text = (seen.length === 1 ? bytes : Buffer.concat(seen, size)).toString('latin1')
    const at = text.indexOf('"items":')
    if (at >= 0) {
      found = true
      const head = text.slice(0, at)
      queueMicrotask(() => onHead(head))
    }
    return found || size >= HEAD_MAX
  }
  const state = stream._readableState
  // Node's private state of a Readable (an array from bufferIndex on in Node 22+, a list before):
  // of another shape, no page is asked ahead, and the stream is read as it is.
  let buffered: unknown[]
  try {
    buffered = state?.buffer === undefined ? [] : [...state.buffer].slice(state.bufferIndex ?? 0)
  } catch {
    return
  }
  for (const chunk of buffered) if (take(chunk)) return
  if (state?.ended) return
  stream.push = function (this: unknown, chunk: unknown, encoding?: BufferEncoding) {
    if (chunk === null || take(chunk, encoding)) {
      // The prototype's push again.
      delete (stream as {push?: unknown}).push
      seen = []
    }
    return push.call(this, chunk, encoding)
  }
}

/**
 * The continue token a list's head says, or undefined: `"continue":"…"` in its top-level
 * metadata, the token made of the characters Kubernetes' tokens (base64) use, without escapes.
 */
export function continueOf(head: string): string | undefined {
  const m = /^\s*\{(?:"kind":"\w*",|"apiVersion":"[\w./-]*",)*"metadata":\{(?:"[A-Za-z]+":(?:"[\w.+/=-]*"|\d+),)*"continue":"([\w.+/=-]+)"/.exec(head)
  return m?.[1]
}

/** A page's request, as its head watch knows it (not its answer: see send). */
interface Request {
  /** The continue token it was sent with (undefined: the first page). */
  cont: string | undefined
  controller: AbortController
  /** Its answer's next token, once its head said one. */
  next?: string
  /** forEachPage asked for it (not only asked ahead). */
  taken: boolean
}

/**
 * The pages of one list for forEachPage: fetch(cont) is the page from `cont`, already asked for
 * when the page before named it early. close() aborts what was asked ahead and not taken.
 */
export class PageAhead<R> {
  private ahead: {req: Request; res: Promise<R>} | undefined
  private readonly sent = new Set<string>()
  private count = 0

  constructor(
    private readonly call: (cont: string | undefined) => Promise<R>,
    /** The most requests of one list (forEachPage's bound): none is asked ahead beyond it. */
    private readonly maxPages: number,
  ) {}

  fetch(cont: string | undefined): Promise<R> {
    const ahead = this.ahead
    this.ahead = undefined
    if (ahead === undefined || ahead.req.cont !== cont) {
      ahead?.req.controller.abort()
      return this.send(cont, true).res
    }
    ahead.req.taken = true
    if (ahead.req.next !== undefined) this.askAhead(ahead.req.next)
    return ahead.res
  }

  close(): void {
    this.ahead?.req.controller.abort()
    this.ahead = undefined
  }

  private send(cont: string | undefined, taken: boolean): {req: Request; res: Promise<R>} {
    const controller = new AbortController()
    if (cont !== undefined) this.sent.add(cont)
    this.count++
    const req: Request = {cont, controller, taken}
    // The watch reaches req, not the answer: a connection opened by this request keeps the
    // async context it was made in (and so the watch) for its life, and must not keep a page.
    const onHead = (head: string) => {
      const next = continueOf(head)
      if (next === undefined || controller.signal.aborted) return
      req.next = next
      if (req.taken) this.askAhead(next)
    }
    const res = listHead.run({onHead, signal: controller.signal}, () => this.call(cont))
    // A page asked ahead may never be taken: its failure is nobody's (the taker awaits res itself).
    res.catch(() => {})
    return {req, res}
  }

  private askAhead(next: string): void {
    if (this.ahead !== undefined || this.sent.has(next) || this.count >= this.maxPages) return
    this.ahead = this.send(next, false)
  }
}
