// serve's HTTP server: /metrics, /healthz, /readyz. What each answers is given by the caller;
// this file only listens and writes.
import {createServer, type Server} from 'node:http'
import {gzip} from 'node:zlib'
import {CliError, ExitCode} from '../errors.js'
import {acceptsGzip} from '../serve/http-rules.js'

export interface Exposition {
  contentType: string
  /** A Buffer given again (the same object) for the same content is compressed once. */
  body: string | Buffer
}

/** Bodies smaller than this are sent as they are (compressing them saves nothing worth the time). */
const GZIP_FROM_BYTES = 8 * 1024

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
  // The gzip of each body Buffer, made once (zlib's thread pool: the event loop stays free) and
  // dropped with its body. Prometheus asks for gzip on every scrape; /metrics of 2,000 Services
  // is ~7 MB of text and ~0.2 MB compressed (level 1).
  const gzipped = new WeakMap<Buffer, Promise<Buffer>>()
  const compressed = (body: Buffer): Promise<Buffer> => {
    let z = gzipped.get(body)
    if (!z) {
      z = new Promise<Buffer>((resolve, reject) => gzip(body, {level: 1}, (err, out) => (err ? reject(err) : resolve(out))))
      gzipped.set(body, z)
    }
    return z
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
          const plain = typeof e.body === 'string' ? Buffer.from(e.body) : e.body
          const zip = plain.length >= GZIP_FROM_BYTES && acceptsGzip(req.headers['accept-encoding'])
          const body = zip ? await compressed(plain) : plain
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
