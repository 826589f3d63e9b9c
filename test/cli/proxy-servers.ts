// Proxies for tests of kubeconfig proxy-url, on 127.0.0.1 in the test process: an HTTP proxy
// (CONNECT tunnels and absolute-form forwarding, optionally over TLS) and a SOCKS5 proxy
// (RFC 1928, with RFC 1929 user/password when the client offers it). Credentials, when sent,
// must be `user`/`password`; what each proxy saw is appended to `seen`.
import http from 'node:http'
import net from 'node:net'

export interface ProxyLog {
  /** "CONNECT 127.0.0.1:6667", "GET http://127.0.0.1:6666/api/v1/nodes", "SOCKS5 user alice", "SOCKS5 CONNECT 127.0.0.1:6667". */
  seen: string[]
  /** Every socket the proxies hold (afterAll destroys them). */
  sockets: Set<net.Socket>
}

export function proxyLog(): ProxyLog {
  return {seen: [], sockets: new Set()}
}

function tracker(log: ProxyLog) {
  const track = (s: net.Socket) => {
    log.sockets.add(s)
    s.on('close', () => log.sockets.delete(s))
    s.on('error', () => s.destroy())
  }
  const pipeBoth = (a: net.Socket, b: net.Socket) => {
    track(b)
    a.pipe(b)
    b.pipe(a)
  }
  return {track, pipeBoth}
}

/** Makes `server` (http.Server or https.Server) an HTTP proxy. */
export function httpProxy<S extends http.Server>(server: S, log: ProxyLog, user: string, password: string): S {
  const {track, pipeBoth} = tracker(log)
  const basic = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
  const allowed = (h: string | undefined) => h === undefined || h === basic
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    log.seen.push(`${req.method} ${req.url}`)
    if (!allowed(req.headers['proxy-authorization'])) {
      res.writeHead(407, {'proxy-authenticate': 'Basic realm="test"'}).end()
      return
    }
    const u = new URL(req.url ?? '')
    const headers = {...req.headers}
    delete headers['proxy-authorization']
    const up = http.request({host: u.hostname, port: u.port, path: u.pathname + u.search, method: req.method, headers}, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers)
      r.pipe(res)
    })
    up.on('error', () => res.writeHead(502).end())
    req.pipe(up)
  })
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    track(client)
    log.seen.push(`CONNECT ${req.url}`)
    if (!allowed(req.headers['proxy-authorization'])) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\n\r\n')
      return
    }
    const [host, port] = (req.url ?? '').split(':')
    const up = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      up.write(head)
      pipeBoth(client, up)
    })
    up.on('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'))
  })
  return server
}

/** A SOCKS5 proxy. */
export function socks5Proxy(log: ProxyLog, user: string, password: string): net.Server {
  const {track, pipeBoth} = tracker(log)
  return net.createServer((c) => {
    track(c)
    c.once('data', (greeting: Buffer) => {
      const methods = [...greeting.subarray(2, 2 + (greeting[1] ?? 0))]
      const method = methods.includes(2) ? 2 : methods.includes(0) ? 0 : 0xff
      c.write(Buffer.from([5, method]))
      if (method === 0xff) return
      const onRequest = (r: Buffer) => {
        let host: string
        let at: number
        if (r[3] === 1) [host, at] = [[...r.subarray(4, 8)].join('.'), 8]
        else if (r[3] === 3) [host, at] = [r.subarray(5, 5 + (r[4] ?? 0)).toString(), 5 + (r[4] ?? 0)]
        else return void c.destroy()
        const port = r.readUInt16BE(at)
        log.seen.push(`SOCKS5 CONNECT ${host}:${port}`)
        const up = net.connect(port, host, () => {
          c.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]))
          pipeBoth(c, up)
        })
        up.on('error', () => c.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]))) // 5: connection refused
      }
      if (method === 0) return void c.once('data', onRequest)
      c.once('data', (a: Buffer) => {
        const ul = a[1] ?? 0
        const u = a.subarray(2, 2 + ul).toString()
        const p = a.subarray(3 + ul, 3 + ul + (a[2 + ul] ?? 0)).toString()
        log.seen.push(`SOCKS5 user ${u}`)
        if (u !== user || p !== password) return void c.end(Buffer.from([1, 1]))
        c.write(Buffer.from([1, 0]))
        c.once('data', onRequest)
      })
    })
  })
}

/** A server that accepts connections and never answers. */
export function silentServer(log: ProxyLog): net.Server {
  const {track} = tracker(log)
  return net.createServer(track)
}

/** Listens on 127.0.0.1, on the first free port of `ports`; returns the port. */
export async function listenOn(server: net.Server, ports: number[] = [0]): Promise<number> {
  for (const p of ports) {
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false))
      server.listen(p, '127.0.0.1', () => resolve(true))
    })
    if (ok) return (server.address() as net.AddressInfo).port
  }
  throw new Error(`none of the ports ${ports.join(', ')} is free on 127.0.0.1`)
}
