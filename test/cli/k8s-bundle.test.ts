// dist/k8s.cjs (client-node and undici, loaded by every live command) evaluates only what a live
// read uses (scripts/esbuild-k8s.mjs, scripts/undici-slim.cjs): undici's Agent, ProxyAgent and
// request() when it loads, its fetch() and the rest of undici on first use; none of client-node's
// exec, attach, port-forward, cp, log, metrics or informer modules. docs/design.md "Reading a
// whole cluster (issue 23)", fourth round.
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from './run-cli.js'

const K8S = join(ROOT, 'dist', 'k8s.cjs')

/** Runs `code` (CommonJS, with K8S in scope) in a fresh Node and returns what it printed as JSON. */
function inNode(code: string): unknown {
  const r = spawnSync(process.execPath, ['-e', `const K8S = ${JSON.stringify(K8S)};\n${code}`], {encoding: 'utf8', timeout: 60_000})
  expect(r.stderr).toBe('')
  expect(r.status).toBe(0)
  return JSON.parse(r.stdout)
}

describe('dist/k8s.cjs', () => {
  it('loads neither undici’s fetch, WebSocket and cache modules nor client-node’s exec and cp (their Node built-ins stay unloaded)', () => {
    const loaded = inNode(`
      const before = new Set(process.moduleLoadList)
      const k8s = require(K8S)
      const builtins = process.moduleLoadList.filter((m) => !before.has(m) && m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length))
      console.log(JSON.stringify({builtins, exports: [typeof k8s.KubeConfig, typeof k8s.UndiciAgent, typeof k8s.undiciRequest]}))
    `) as {builtins: string[]; exports: string[]}
    expect(loaded.exports).toEqual(['function', 'function', 'function'])
    // What a live read needs is there (the transport: TLS, HTTP/2)...
    expect(loaded.builtins).toEqual(expect.arrayContaining(['tls', 'http2']))
    // ...and what it does not is not: zlib (undici's decompress interceptor, the old build loaded
    // it), worker_threads and the web streams (undici's fetch and WebSocket).
    for (const m of ['zlib', 'worker_threads', 'stream/web']) expect(loaded.builtins).not.toContain(m)
  })

  it('gives client-node’s Watch undici’s fetch, loaded on its first call', () => {
    const out = inNode(`
      const http = require('node:http')
      const k8s = require(K8S)
      const srv = http.createServer((req, res) => {
        res.writeHead(200, {'content-type': 'application/json'})
        res.end(JSON.stringify({type: 'ADDED', object: {kind: 'Node', metadata: {name: 'n1'}}}) + '\\n')
      })
      srv.listen(0, '127.0.0.1', async () => {
        const kc = new k8s.KubeConfig()
        kc.loadFromOptions({
          clusters: [{name: 'c', server: 'http://127.0.0.1:' + srv.address().port, skipTLSVerify: true}],
          users: [{name: 'u'}],
          contexts: [{name: 'x', cluster: 'c', user: 'u'}],
          currentContext: 'x',
        })
        const seen = []
        const zlibBefore = process.moduleLoadList.includes('NativeModule zlib')
        await new k8s.Watch(kc).watch('/api/v1/nodes', {}, (type, obj) => seen.push(type + ' ' + obj.metadata.name), (err) => {
          console.log(JSON.stringify({seen, err: err ? String(err) : null, zlibBefore, zlibAfter: process.moduleLoadList.includes('NativeModule zlib')}))
          srv.close()
        })
      })
    `)
    // The whole of undici (its decompress interceptor's zlib among it) once fetch is first called.
    expect(out).toEqual({seen: ['ADDED n1'], err: null, zlibBefore: false, zlibAfter: true})
  })
})
