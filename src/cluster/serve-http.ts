// serve's HTTP server: /metrics, /healthz, /readyz. What each answers is given by the caller;
// this file only listens and writes.
import {createServer, type Server} from 'node:http'
import {CliError, ExitCode} from '../errors.js'

export interface Exposition {
  contentType: string
  body: string
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
      routes.metrics(req.headers.accept).then(
        (e) => {
          res.writeHead(200, {'Content-Type': e.contentType, 'Content-Length': Buffer.byteLength(e.body)})
          res.end(req.method === 'HEAD' ? undefined : e.body)
        },
        (err: unknown) => text(500, `${(err as Error)?.message ?? String(err)}\n`),
      )
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
