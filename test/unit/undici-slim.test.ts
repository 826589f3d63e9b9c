// scripts/undici-slim.cjs, the `undici` of dist/k8s.cjs (scripts/esbuild-k8s.mjs): every name
// client-node and src/cluster/k8s.ts import from undici is there and is undici's own, so an
// upgrade of either that imports one more name fails here instead of reading undefined at run
// time; request() behaves as undici's.
import {readdirSync, readFileSync} from 'node:fs'
import {createServer} from 'node:http'
import {createRequire} from 'node:module'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const require = createRequire(import.meta.url)
const slim = require(join(ROOT, 'scripts', 'undici-slim.cjs')) as Record<string, unknown>
const undici = require('undici') as Record<string, unknown>

/** The names `text` imports or re-exports from 'undici' (`A as B`: A). */
function undiciNames(text: string): string[] {
  const names: string[] = []
  for (const m of text.matchAll(/(?:import|export)\s*\{([^}]*)\}\s*from\s*['"]undici['"]/g)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().split(/\s+as\s+/)[0]
      if (name) names.push(name)
    }
  }
  return names
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, {withFileTypes: true}).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? jsFiles(p) : e.name.endsWith('.js') ? [p] : []
  })
}

describe('scripts/undici-slim.cjs', () => {
  it('has every name client-node and src/cluster/k8s.ts import from undici, as undici exports it', () => {
    const clientNode = join(ROOT, 'node_modules', '@kubernetes', 'client-node', 'dist')
    const names = new Set([...jsFiles(clientNode), join(ROOT, 'src', 'cluster', 'k8s.ts')].flatMap((f) => undiciNames(readFileSync(f, 'utf8'))))
    expect([...names].sort()).toEqual(['Agent', 'ProxyAgent', 'fetch', 'request'])
    for (const name of ['Agent', 'ProxyAgent']) expect(slim[name], name).toBe(undici[name])
    for (const name of names) expect(typeof slim[name], name).toBe('function')
  })

  it('request(): undici’s, on the dispatcher given; fetch(): undici’s', async () => {
    const srv = createServer((req, res) => {
      res.writeHead(200, {'content-type': 'application/json'})
      res.end(JSON.stringify({method: req.method, url: req.url}))
    })
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`
    const Agent = slim.Agent as new () => {close(): Promise<void>}
    const dispatcher = new Agent()
    try {
      const request = slim.request as (url: string, opts: object) => Promise<{statusCode: number; body: {json(): Promise<unknown>}}>
      const res = await request(`${base}/api/v1/nodes?limit=500`, {method: 'GET', dispatcher})
      expect(res.statusCode).toBe(200)
      expect(await res.body.json()).toEqual({method: 'GET', url: '/api/v1/nodes?limit=500'})
      // No method: GET, as undici's request().
      expect(await (await request(`${base}/version`, {dispatcher})).body.json()).toEqual({method: 'GET', url: '/version'})
      const fetch = slim.fetch as (url: string, init: object) => Promise<{status: number; json(): Promise<unknown>}>
      const got = await fetch(`${base}/healthz`, {dispatcher})
      expect(got.status).toBe(200)
      expect(await got.json()).toEqual({method: 'GET', url: '/healthz'})
    } finally {
      await dispatcher.close()
      await new Promise((resolve) => srv.close(resolve))
    }
  })
})
