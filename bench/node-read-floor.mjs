#!/usr/bin/env node
// The Node read floor of bench/scale.mjs (issue 23): the least a Node program does to hold the
// four lists `explain -A` reads as objects. It starts, opens one HTTP/2 connection with node:http2
// (no client-node, no kubeconfig parsing: the bench passes the server, CA and credentials in a
// file), GETs the same four lists as the raw fetch floor, concurrently, and JSON.parse-s each
// answer; it prints nothing but a count. `--page N` reads each list in pages of N items (the
// tool pages with 500, kubectl's chunk size) one after another; without it, one request per list,
// as `kubectl get --raw` in the floor. Only the bench's own local control plane is contacted.
//
//   node bench/node-read-floor.mjs CONNECTION_FILE [--page 500]

import {readFileSync} from 'node:fs'
import http2 from 'node:http2'

const [file, ...rest] = process.argv.slice(2)
const page = rest[0] === '--page' ? Number(rest[1]) : 0
const conn = JSON.parse(readFileSync(file, 'utf8'))
if (!/^https:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/?$/.test(conn.server)) {
  process.stderr.write(`refusing ${conn.server}: only a local control plane (127.0.0.1)\n`)
  process.exit(2)
}
const session = http2.connect(conn.server, {ca: conn.ca, ...(conn.cert ? {cert: conn.cert, key: conn.key} : {})})
session.on('error', (e) => {
  process.stderr.write(`node read floor: ${e.message}\n`)
  process.exit(1)
})
const headers = conn.token ? {authorization: `Bearer ${conn.token}`} : {}

function get(path) {
  return new Promise((resolve, reject) => {
    const req = session.request({':path': path, accept: 'application/json', ...headers})
    const chunks = []
    let status = 0
    req.on('response', (h) => {
      status = h[':status']
    })
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => (status === 200 ? resolve(Buffer.concat(chunks).toString('utf8')) : reject(new Error(`${path}: HTTP ${status}`))))
    req.on('error', reject)
    req.end()
  })
}

async function list(path) {
  const sep = path.includes('?') ? '&' : '?'
  let items = 0
  let cont = ''
  for (let pages = 0; pages < 10_000; pages++) {
    const query = page > 0 ? `${sep}limit=${page}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}` : ''
    const doc = JSON.parse(await get(path + query))
    items += doc.items.length
    cont = doc.metadata?.continue ?? ''
    if (!cont) break
  }
  return items
}

const RAW = ['/api/v1/services', '/apis/discovery.k8s.io/v1/endpointslices', '/api/v1/nodes', '/api/v1/events?fieldSelector=involvedObject.kind%3DService']
const counts = await Promise.all(RAW.map(list))
session.close()
process.stdout.write(`${counts.join(' ')}\n`)
