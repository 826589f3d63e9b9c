// serve's HTTP server: /metrics, /healthz, /readyz. What each answers is given by the caller;
// this file only listens and writes.
import {createServer, type Server, type ServerResponse} from 'node:http'
import {createGzip} from 'node:zlib'
import {CliError, ExitCode} from '../errors.js'
import {acceptsGzip} from '../serve/http-rules.js'

export interface Exposition {
  contentType: string
  /** A Body (or Buffer) given again, the same object, for the same content is made and compressed once. */
  body: string | Buffer | Body
}

/** Bodies smaller than this are sent as they are (compressing them saves nothing worth the time). */
const GZIP_FROM_BYTES = 8 * 1024
/** Parts are compressed and sent this many bytes at a time (copied into one scratch Buffer). */
const BATCH_BYTES = 256 * 1024

/**
 * A body made of parts (serve's cached lines), made on demand and kept for as long as the
 * caller keeps this object: the parts once, and their gzip (level 1, in zlib's thread pool,
 * streamed from the parts) only when a scraper asks for it. The parts are never joined into
 * one Buffer: a plain response is sent in batches of them (pour). Prometheus asks for gzip on every
 * scrape: /metrics of 2,000 Services is ~7 MB of text and ~0.2 MB compressed; a 7 MB Buffer
 * made per change is memory malloc keeps (docs/design.md "serve at scale").
 */
export class Body {
  private made: Promise<readonly Buffer[]> | undefined
  private zipped: Promise<Buffer | null> | undefined

  constructor(private readonly make: () => Promise<readonly Buffer[]>) {}

  /** The parts, in order. */
  parts(): Promise<readonly Buffer[]> {
    this.made ??= this.make()
    return this.made
  }

  /** The gzip of the body, or null when it is too small to be worth it. */
  compressed(): Promise<Buffer | null> {
    this.zipped ??= this.parts().then((parts) => (size(parts) < GZIP_FROM_BYTES ? null : gzipParts(parts)))
    return this.zipped
  }
}

const size = (parts: readonly Buffer[]): number => parts.reduce((n, p) => n + p.length, 0)
const join = (parts: readonly Buffer[]): Buffer => (parts.length === 1 ? parts[0]! : Buffer.concat(parts))

/**
 * Writes the parts in batches of up to BATCH_BYTES, copied into one scratch Buffer that is
 * filled again once `write` calls back (the batch taken). One allocation per body rather than
 * one per batch: each freed batch is memory malloc keeps (docs/design.md "serve at scale").
 * A part of a batch or more is written as it is.
 */
async function pour(parts: readonly Buffer[], write: (chunk: Buffer) => Promise<void>): Promise<void> {
  if (parts.length === 1 || size(parts) <= BATCH_BYTES) return write(join(parts))
  const scratch = Buffer.allocUnsafeSlow(BATCH_BYTES)
  let n = 0
  for (const p of parts) {
    if (n > 0 && n + p.length > BATCH_BYTES) {
      await write(scratch.subarray(0, n))
      n = 0
    }
    if (p.length >= BATCH_BYTES) await write(p)
    else n += p.copy(scratch, n)
  }
  if (n > 0) await write(scratch.subarray(0, n))
}

/** The gzip of these parts joined, written in batches: no copy of the whole input is made. */
async function gzipParts(parts: readonly Buffer[]): Promise<Buffer> {
  const z = createGzip({level: 1})
  const out: Buffer[] = []
  z.on('data', (c: Buffer) => out.push(c))
  const done = new Promise<void>((resolve, reject) => {
    z.once('end', resolve)
    z.once('error', reject)
  })
  // zlib calls back once it has compressed the chunk.
  await pour(parts, (chunk) => new Promise<void>((resolve, reject) => z.write(chunk, (e) => (e ? reject(e) : resolve()))))
  z.end()
  await done
  return Buffer.concat(out)
}

/** Writes a chunk to the response; resolves once it is handed to the socket, or the response is closed. */
const send = (res: ServerResponse, chunk: Buffer): Promise<void> =>
  new Promise((resolve) => {
    if (res.destroyed) return resolve()
    const done = () => {
      res.off('close', done)
      resolve()
    }
    res.on('close', done)
    res.write(chunk, done)
  })

export interface ServeRoutes {
  /** The metrics for this Accept header. */
  metrics(accept: string | undefined): Promise<Exposition>
  /** null: ready; otherwise why not (503). */
  notReady(): string | null
}

export interface Listening {
  /** The address actually bound ("127.0.0.1:9780"; the port chosen when 0 was asked). */
  address: string
  close(): Promise<void>
}

export function listen(host: string, port: number, routes: ServeRoutes): Promise<Listening> {
  // The Body of each Buffer given (compressed once per object).
  const bodies = new WeakMap<Buffer, Body>()
  const asBody = (b: string | Buffer | Body): Body => {
    if (b instanceof Body) return b
    if (typeof b === 'string') return new Body(async () => [Buffer.from(b)])
    let body = bodies.get(b)
    if (!body) {
      body = new Body(async () => [b])
      bodies.set(b, body)
    }
    return body
  }
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    const text = (status: number, body: string) => {
      res.writeHead(status, {'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(body)})
      res.end(body)
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'method not allowed\n')
    if (path === '/healthz') return text(200, 'ok\n')
    if (path === '/readyz') {
      const why = routes.notReady()
      return why === null ? text(200, 'ok\n') : text(503, `${why}\n`)
    }
    if (path === '/metrics') {
      routes
        .metrics(req.headers.accept)
        .then(async (e) => {
          const b = asBody(e.body)
          const zipped = acceptsGzip(req.headers['accept-encoding']) ? await b.compressed() : null
          const parts = zipped ? [zipped] : await b.parts()
          res.writeHead(200, {
            'Content-Type': e.contentType,
            'Content-Length': size(parts),
            Vary: 'Accept, Accept-Encoding',
            ...(zipped ? {'Content-Encoding': 'gzip'} : {}),
          })
          if (req.method === 'HEAD') return res.end()
          // In batches, each written when the socket has taken the one before (a slow or gone
          // scraper holds one batch).
          await pour(parts, (chunk) => send(res, chunk))
          res.end()
        })
        .catch((err: unknown) => text(500, `${(err as Error)?.message ?? String(err)}\n`))
      return
    }
    text(404, 'not found: try /metrics, /healthz or /readyz\n')
  })
  server.keepAliveTimeout = 65_000
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      const where = `${host.includes(':') ? `[${host}]` : host}:${port}`
      const why =
        e.code === 'EADDRINUSE'
          ? 'the address is in use'
          : e.code === 'EACCES'
            ? 'permission denied'
            : e.code === 'EADDRNOTAVAIL'
              ? 'no such local address'
              : (e.message ?? String(e))
      reject(new CliError(`--listen ${where}: cannot listen: ${why}: choose another HOST:PORT`, ExitCode.USAGE))
    })
    server.listen(port, host, () => {
      const a = server.address()
      const bound = a && typeof a === 'object' ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : `${host}:${port}`
      resolve({
        address: bound,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r())
            server.closeAllConnections()
          }),
      })
    })
  })
}
