// A streaming reverse proxy on 127.0.0.1 in front of the test control plane, for `watch`:
// unlike apiproxy.ts it passes responses through as they arrive (watches are long-lived
// streams), records every request, can answer a request itself (a 410, a 503, a watch that
// sends one ERROR event) and can cut the watch streams that are open (the client then
// watches again).
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import {listenWithKubeconfig, localUpstream} from './proxy-upstream.js'

export interface Seen {
  method: string
  url: string
  watch: boolean
}

export type Answer = {status: number; body: string} | undefined

export class StreamProxy {
  readonly requests: Seen[] = []
  hook: ((r: Seen) => Answer) | undefined
  private readonly open = new Set<{url: string; res: http.ServerResponse}>()

  private constructor(
    private readonly server: http.Server,
    readonly kubeconfig: string,
    private readonly dir: string,
  ) {}

  static async start(): Promise<StreamProxy> {
    const {kc, url: upstream, agent} = localUpstream()
    let self: StreamProxy | undefined
    const server = http.createServer((req, res) => {
      const url = req.url ?? '/'
      const seen: Seen = {method: req.method ?? 'GET', url, watch: /[?&]watch=(true|1)/.test(url)}
      self!.requests.push(seen)
      const answer = self!.hook?.(seen)
      if (answer) {
        res.writeHead(answer.status, {'content-type': 'application/json'})
        res.end(answer.body)
        return
      }
      const headers = {...req.headers, host: upstream.host}
      const up = https.request({host: upstream.hostname, port: upstream.port, path: url, method: seen.method, headers, agent}, (ur) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers)
        ur.pipe(res)
        if (seen.watch) {
          const entry = {url, res}
          self!.open.add(entry)
          const drop = () => {
            self!.open.delete(entry)
            ur.destroy()
          }
          res.on('close', drop)
          ur.on('end', () => self!.open.delete(entry))
        }
      })
      up.on('error', () => {
        if (!res.headersSent) res.writeHead(502)
        res.end()
      })
      req.pipe(up)
    })
    const {file, dir} = await listenWithKubeconfig(server, kc, 'kt-stream-proxy-')
    self = new StreamProxy(server, file, dir)
    return self
  }

  /** Ends the open watch streams whose URL matches: the client sees the server close them. */
  cutWatches(match: RegExp): number {
    let n = 0
    for (const e of [...this.open]) {
      if (!match.test(e.url)) continue
      e.res.end()
      this.open.delete(e)
      n++
    }
    return n
  }

  count(pred: (r: Seen) => boolean): number {
    return this.requests.filter(pred).length
  }

  async close(): Promise<void> {
    for (const e of this.open) e.res.destroy()
    this.server.closeAllConnections()
    await new Promise<void>((r) => this.server.close(() => r()))
    fs.rmSync(this.dir, {recursive: true, force: true})
  }
}

/** A Status body as the API server sends it. */
export const status = (code: number, reason: string, message: string) => JSON.stringify({kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code})
