// serve's HTTP server: /metrics, /healthz, /readyz. What each answers is given by the caller;
// this file only listens and writes.
import {createServer, type Server} from 'node:http'
import {createGzip} from 'node:zlib'
import {CliError, ExitCode} from '../errors.js'
import {acceptsGzip} from '../serve/http-rules.js'

export interface Exposition {
  contentType: string
  /** A Body given again (the same object) for the same content is joined or compressed once. */
  body: string | Buffer | Body
}

/** Bodies smaller than this are sent as they are (compressing them saves nothing worth the time). */
const GZIP_FROM_BYTES = 8 * 1024
/** Parts are compressed this many bytes at a time. */
const GZIP_BATCH_BYTES = 256 * 1024

/**
 * A body made of parts (serve's cached lines), made on demand and kept for as long as the
 * caller keeps this object: the plain body (the parts joined) only when a scraper asks for
 * it, the gzip (level 1, in zlib's thread pool, streamed from the parts) only when one asks
 * for that. Prometheus asks for gzip on every scrape: /metrics of 2,000 Services is ~7 MB of
 * text and ~0.2 MB compressed, and the 7 MB are never held for it (docs/design.md "serve at
 * scale").
 */
export class Body {
  private plain: Promise<Buffer> | undefined
  private zipped: Promise<{body: Buffer; gzip: boolean}> | undefined

  constructor(private readonly make: () => Promise<readonly Buffer[]>) {}

  /** The parts joined. */
  joined(): Promise<Buffer> {
    this.plain ??= this.make().then(join)
    return this.plain
  }

  /** The gzip of the body, or the body itself (gzip false) when it is too small to be worth it. */
  compressed(): Promise<{body: Buffer; gzip: boolean}> {
    this.zipped ??= (this.plain ? this.plain.then((b) => [b]) : this.make()).then(async (parts) => {
      let size = 0
      for (const p of parts) size += p.length
      return size < GZIP_FROM_BYTES ? {body: join(parts), gzip: false} : {body: await gzipParts(parts), gzip: true}
    })
    return this.zipped
  }
}

const join = (parts: readonly Buffer[]): Buffer => (parts.length === 1 ? parts[0]! : Buffer.concat(parts))

/** The gzip of these parts joined, written in batches (backpressure respected): no copy of the whole input is made. */
async function gzipParts(parts: readonly Buffer[]): Promise<Buffer> {
  const z = createGzip({level: 1})
  const out: Buffer[] = []
  z.on('data', (c: Buffer) => out.push(c))
  const done = new Promise<void>((resolve, reject) => {
    z.once('end', resolve)
    z.once('error', reject)
  })
  const send = async (batch: Buffer[]) => {
    if (!z.write(join(batch))) await new Promise((r) => z.once('drain', r))
  }
  let batch: Buffer[] = []
  let bytes = 0
  for (const p of parts) {
    batch.push(p)
    bytes += p.length
    if (bytes >= GZIP_BATCH_BYTES) {
      await send(batch)
      batch = []
      bytes = 0
    }
  }
  if (batch.length > 0) await send(batch)
  z.end()
  await done
  return Buffer.concat(out)
}

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
  // The Body of each Buffer or string given (joined and compressed once per object).
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
          const {body, gzip: zip} = acceptsGzip(req.headers['accept-encoding']) ? await b.compressed() : {body: await b.joined(), gzip: false}
          res.writeHead(200, {
            'Content-Type': e.contentType,
            'Content-Length': body.length,
            Vary: 'Accept, Accept-Encoding',
            ...(zip ? {'Content-Encoding': 'gzip'} : {}),
          })
          res.end(req.method === 'HEAD' ? undefined : body)
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
