// A recording reverse proxy between the CLI under test and the real API server, on
// 127.0.0.1: it counts and records every request (method, path, content type, body), and lets
// a test act at the moment a request arrives (a concurrent write, deleting an object, a
// changed body, a delay) before the request goes on to the API server. The CLI talks to it
// through a kubeconfig whose server is the proxy's http:// URL (same contexts and tokens).
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import https from 'node:https'
import {listenWithKubeconfig, localUpstream} from './proxy-upstream.js'
import {BIN, ROOT} from '../cli/run-cli.js'

export interface Recorded {
  method: string
  /** Path and query, e.g. /api/v1/namespaces/x/services/web?fieldManager=kubectl-topology */
  url: string
  contentType: string
  body: string
  status?: number
}

export interface HookResult {
  /** Send this body upstream instead. */
  body?: string
  /** Answer directly, without the API server. */
  respond?: {status: number; body: string}
  /** Wait this long after the API server answered, before answering the client. */
  delayResponseMs?: number
}

export class ApiProxy {
  readonly requests: Recorded[] = []
  hook: ((r: Recorded) => Promise<HookResult | void> | HookResult | void) | undefined
  /** Called once the upstream answer to a request is known (before any delay). */
  onResponse: ((r: Recorded) => void) | undefined
  private constructor(
    private readonly server: http.Server,
    readonly kubeconfig: string,
    private readonly dir: string,
  ) {}

  static async start(): Promise<ApiProxy> {
    const {kc, url: upstream, agent} = localUpstream()
    let self: ApiProxy | undefined
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        void (async () => {
          const rec: Recorded = {
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            contentType: String(req.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }
          self!.requests.push(rec)
          let hr: HookResult | void
          try {
            hr = self!.hook ? await self!.hook(rec) : undefined
          } catch (e) {
            hr = {respond: {status: 500, body: JSON.stringify({kind: 'Status', status: 'Failure', message: `test hook failed: ${(e as Error).message}`, code: 500})}}
          }
          if (hr && hr.respond) {
            rec.status = hr.respond.status
            res.writeHead(hr.respond.status, {'content-type': 'application/json'})
            res.end(hr.respond.body)
            return
          }
          const body = hr && hr.body !== undefined ? hr.body : rec.body
          const headers = {...req.headers, host: upstream.host}
          delete headers['content-length']
          if (body.length > 0) headers['content-length'] = String(Buffer.byteLength(body))
          const up = https.request({host: upstream.hostname, port: upstream.port, path: rec.url, method: rec.method, headers, agent}, (ur) => {
            const out: Buffer[] = []
            ur.on('data', (c: Buffer) => out.push(c))
            ur.on('end', () => {
              rec.status = ur.statusCode
              self!.onResponse?.(rec)
              const send = () => {
                res.writeHead(ur.statusCode ?? 502, ur.headers)
                res.end(Buffer.concat(out))
              }
              if (hr && hr.delayResponseMs) setTimeout(send, hr.delayResponseMs)
              else send()
            })
          })
          up.on('error', (e) => {
            res.writeHead(502)
            res.end(String(e))
          })
          if (body.length > 0) up.write(body)
          up.end()
        })()
      })
    })
    const {file, dir} = await listenWithKubeconfig(server, kc, 'kt-proxy-')
    self = new ApiProxy(server, file, dir)
    return self
  }

  reset(): void {
    this.requests.length = 0
    this.hook = undefined
    this.onResponse = undefined
  }

  /** Requests that change something: every method but GET, without SelfSubjectAccessReviews (which store nothing). */
  writes(): Recorded[] {
    return this.requests.filter((r) => r.method !== 'GET' && !r.url.includes('selfsubjectaccessreviews'))
  }

  async close(): Promise<void> {
    await new Promise<void>((r) => this.server.close(() => r()))
    this.server.closeAllConnections()
    fs.rmSync(this.dir, {recursive: true, force: true})
  }
}

export interface AsyncResult {
  stdout: string
  stderr: string
  code: number | null
}

/**
 * Runs the built CLI without blocking the event loop (the proxy lives in this process).
 * `onStart` gets the child, e.g. to send it a signal; bounded by timeoutMs.
 */
export function runCliAsync(args: string[], opts: {env?: Record<string, string | undefined>; timeoutMs?: number; onStart?: (pid: number) => void} = {}): Promise<AsyncResult> {
  const env: Record<string, string | undefined> = {...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...opts.env}
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {cwd: ROOT, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`CLI timed out: ${args.join(' ')}\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, opts.timeoutMs ?? 90_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({stdout, stderr, code})
    })
    if (child.pid) opts.onStart?.(child.pid)
  })
}
