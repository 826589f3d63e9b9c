// serve's HTTP rules (Accept negotiation, --listen) and the exposition prom-client writes of
// serve's samples (render/metrics.ts).
import {Counter, Gauge, Registry} from 'prom-client'
import {describe, expect, it, vi} from 'vitest'
import {acceptsGzip, negotiate, parseListen} from '../../src/serve/http-rules.js'
import {MetricsWriter, type Format, type Section} from '../../src/render/metrics.js'
import {indexState, ServeModel, type Row} from '../../src/serve/model.js'
import {sourceRows} from '../../src/serve/source.js'
import {FAMILIES} from '../../src/serve/catalogue.js'
import {CliError} from '../../src/errors.js'
import {Body, listen} from '../../src/cluster/serve-http.js'
import http from 'node:http'
import {gunzipSync} from 'node:zlib'
import {nodesIn, service, slice, spread, state} from './builders.js'

describe('negotiate', () => {
  it('gives OpenMetrics to the scrapers that prefer it, the text format to the others', () => {
    // Prometheus 2.42's scrape Accept header.
    expect(negotiate('application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1')).toBe('openmetrics')
    expect(negotiate('text/plain;version=0.0.4;q=0.9,application/openmetrics-text;q=0.5')).toBe('text')
    expect(negotiate('application/openmetrics-text;q=0')).toBe('text')
    expect(negotiate(undefined)).toBe('text')
    expect(negotiate('*/*')).toBe('text')
  })
})

describe('acceptsGzip', () => {
  it('takes gzip when the header names it (or *) with a q above 0', () => {
    // Prometheus's scrape and Node's fetch.
    expect(acceptsGzip('gzip')).toBe(true)
    expect(acceptsGzip('gzip, deflate, br')).toBe(true)
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true)
    expect(acceptsGzip('*')).toBe(true)
    expect(acceptsGzip('gzip;q=0, *')).toBe(false)
    expect(acceptsGzip('identity')).toBe(false)
    expect(acceptsGzip('')).toBe(false)
    expect(acceptsGzip(undefined)).toBe(false)
  })
})

describe('parseListen', () => {
  it('reads HOST:PORT, [IPv6]:PORT and :PORT', () => {
    expect(parseListen('127.0.0.1:9780')).toEqual({host: '127.0.0.1', port: 9780})
    expect(parseListen('[::1]:0')).toEqual({host: '::1', port: 0})
    expect(parseListen(':9780')).toEqual({host: '0.0.0.0', port: 9780})
    expect(parseListen('localhost:80')).toEqual({host: 'localhost', port: 80})
  })
  it('refuses anything else with a usage error', () => {
    for (const bad of ['9780', '127.0.0.1', '1.2.3.4:70000', '::1:9780', 'a:b']) {
      expect(() => parseListen(bad)).toThrow(CliError)
      expect(() => parseListen(bad)).toThrow(/--listen: invalid value/)
    }
  })
})

/** One section without a cluster label: every row written on each call. */
const only = (rows: readonly Row[]) => [{labels: {}, groups: [], rows}]

/** The exposition as text (write gives the body's bytes). */
const written = async (w: MetricsWriter, ...args: Parameters<MetricsWriter['write']>) => String(await w.write(...args))

describe('MetricsWriter', () => {
  const rows: Row[] = [
    ['kubectl_topology_service_hints_live', {labels: {namespace: 'shop', service: 'cart', address_type: 'IPv4'}, value: 1}],
    ['kubectl_topology_source_watch_restarts_total', {labels: {resource: 'nodes'}, value: 3}],
    ['kubectl_topology_counted_nodes', {labels: {zone: 'zone-a\u001b[2J"x'}, value: 2}],
  ]
  it('writes the Prometheus text format and OpenMetrics, counters with _total in both', async () => {
    const w = new MetricsWriter()
    const om = await written(w, only(rows), 'openmetrics')
    const text = await written(w, only(rows), 'text')
    expect(w.contentType('text')).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(w.contentType('openmetrics')).toMatch(/^application\/openmetrics-text; version=1\.0\.0/)
    expect(text).toContain('kubectl_topology_service_hints_live{namespace="shop",service="cart",address_type="IPv4"} 1')
    expect(text).toContain('# TYPE kubectl_topology_source_watch_restarts_total counter')
    expect(text).toContain('kubectl_topology_source_watch_restarts_total{resource="nodes"} 3')
    expect(om).toContain('# TYPE kubectl_topology_source_watch_restarts counter')
    expect(om).toContain('kubectl_topology_source_watch_restarts_total{resource="nodes"} 3')
    expect(om.endsWith('# EOF\n')).toBe(true)
    // The text format again after an OpenMetrics write: the counter keeps its name.
    expect(await written(w, only(rows), 'text')).toBe(text)
  })
  it('escapes label values from the cluster and forgets samples no longer given', async () => {
    const w = new MetricsWriter(['cluster'])
    const text = await written(w, [{labels: {cluster: 'eu'}, groups: [], rows}], 'text')
    expect(text).toContain('kubectl_topology_counted_nodes{cluster="eu",zone="zone-a^[[2J\\"x"} 2')
    expect(text).not.toContain('\u001b')
    const after = await written(w, [{labels: {cluster: 'eu'}, groups: [], rows: [rows[0]!]}], 'text')
    expect(after).not.toContain('kubectl_topology_counted_nodes{')
    expect(after).toContain('kubectl_topology_service_hints_live{cluster="eu"')
  })
})

/** What prom-client's own registry writes of every sample of these sections, set in order (the exposition before groups were cached). */
async function reference(sections: readonly {labels: Record<string, string>; rows: readonly Row[]}[], format: Format): Promise<string> {
  type ContentType = typeof Registry.PROMETHEUS_CONTENT_TYPE | typeof Registry.OPENMETRICS_CONTENT_TYPE
  const registry = new Registry<ContentType>()
  registry.setContentType(format === 'openmetrics' ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE)
  const extra = Object.keys(sections[0]!.labels)
  const metrics = new Map(
    FAMILIES.map((f) => {
      const config = {name: f.name, help: f.help, labelNames: [...extra, ...f.labels], registers: [registry]}
      return [f.name, f.type === 'counter' ? new Counter(config) : new Gauge(config)] as const
    }),
  )
  // prom-client gives a family without labels a 0 sample of its own; serve writes a sample only
  // when it has one (the --traffic-from families stay empty without --traffic-from, rather than
  // saying their source is down).
  for (const m of metrics.values()) if ((m as unknown as {labelNames: string[]}).labelNames.length === 0) m.remove({})
  for (const {labels, rows} of sections)
    for (const [f, sample] of rows) {
      const m = metrics.get(f)!
      if (m instanceof Counter) m.inc({...labels, ...sample.labels}, sample.value)
      else m.set({...labels, ...sample.labels}, sample.value)
    }
  return registry.metrics()
}

const AUTO = {'service.kubernetes.io/topology-mode': 'Auto'}
function model(): ServeModel {
  const m = new ServeModel({})
  const st = state(
    nodesIn(['zone-a', 'zone-b', 'zone-c']),
    [service('web', {annotations: AUTO}), service('few', {annotations: AUTO}), service('plain')],
    [slice('web', spread({'zone-a': 3, 'zone-b': 3, 'zone-c': 3}, true)), slice('few', spread({'zone-a': 1, 'zone-b': 1})), slice('plain', spread({'zone-a': 1, 'zone-b': 1}))],
  )
  m.update(indexState(st), {all: true})
  return m
}
const health = sourceRows([{resource: 'nodes', up: true, lastSyncSeconds: 1764300000, watchRestarts: 2, relists: 1, errors: 0}])

describe('MetricsWriter with groups (each Service written once)', () => {
  it("writes what prom-client's registry writes of the same samples, in both formats, with and without a cluster label", async () => {
    const a = model()
    const b = model()
    for (const format of ['text', 'openmetrics'] as const) {
      const one: Section[] = [{labels: {}, groups: a.groups(), rows: [...a.clusterRows(), ...health]}]
      expect(String(await new MetricsWriter().write(one, format))).toBe(await reference([{labels: {}, rows: [...a.rows(), ...health]}], format))
      const two: Section[] = [
        {labels: {cluster: 'eu'}, groups: a.groups(), rows: [...a.clusterRows(), ...health]},
        {labels: {cluster: 'us'}, groups: b.groups(), rows: b.clusterRows()},
      ]
      const w = new MetricsWriter(['cluster'])
      const want = await reference(
        [
          {labels: {cluster: 'eu'}, rows: [...a.rows(), ...health]},
          {labels: {cluster: 'us'}, rows: b.rows()},
        ],
        format,
      )
      expect(await written(w, two, format)).toBe(want)
      // Again from the cached lines: the same text.
      expect(await written(w, two, format)).toBe(want)
    }
  })

  it('writes a group once, and again only when a new array takes its place; a group no longer given is gone', async () => {
    const w = new MetricsWriter()
    const labels = {namespace: 'shop', service: 'cart', address_type: 'IPv4'}
    const cart: Row[] = [['kubectl_topology_service_ready_endpoints', {labels, value: 3}]]
    const other: Row[] = [['kubectl_topology_service_ready_endpoints', {labels: {...labels, service: 'web'}, value: 5}]]
    const line = (text: string, svc: string) => text.split('\n').find((l) => l.includes(`service="${svc}"`))
    expect(line(await written(w, [{labels: {}, groups: [cart, other], rows: []}], 'text'), 'cart')).toMatch(/ 3$/)
    // The same array (changed in place here, which the model never does): its cached line.
    cart[0] = ['kubectl_topology_service_ready_endpoints', {labels, value: 4}]
    expect(line(await written(w, [{labels: {}, groups: [cart, other], rows: []}], 'openmetrics'), 'cart')).toMatch(/ 3$/)
    // A new array (the Service explained again): written again.
    const text = await written(w, [{labels: {}, groups: [[...cart], other], rows: []}], 'text')
    expect(line(text, 'cart')).toMatch(/ 4$/)
    expect(line(text, 'web')).toMatch(/ 5$/)
    // cart deleted: none of its samples.
    expect(await written(w, [{labels: {}, groups: [other], rows: []}], 'text')).not.toContain('cart')
  })

  it('two writes in flight: the second never writes a group whose rows were shed once the first wrote it', async () => {
    const w = new MetricsWriter()
    // More than one batch of groups, so the writes interleave.
    const groups: Row[][] = Array.from({length: 600}, (_, i) => [
      ['kubectl_topology_service_ready_endpoints', {labels: {namespace: 'shop', service: `svc-${i}`, address_type: 'IPv4'}, value: i}],
    ])
    // The second write (all 600, in three batches) starts first; the first (the last 100,
    // one batch) is done before the second reaches them.
    const om = w.write([{labels: {}, groups, rows: []}], 'openmetrics')
    await w.write([{labels: {}, groups: groups.slice(500), rows: []}], 'text')
    // What serve-flow does once a write is done (ServeModel.shed).
    for (const g of groups) if (w.written(g, {})) g.length = 0
    const body = String(await om)
    for (let i = 0; i < 600; i++) expect(body).toContain(`service="svc-${i}",address_type="IPv4"} ${i}\n`)
  })

  it('refuses a counter in a group (a group is written once for both formats)', async () => {
    const w = new MetricsWriter()
    const group: Row[] = [['kubectl_topology_source_errors_total', {labels: {resource: 'nodes'}, value: 1}]]
    await expect(w.write([{labels: {}, groups: [group], rows: []}], 'text')).rejects.toThrow(/is a counter/)
  })
})

describe('listen: /metrics', () => {
  const get = (address: string, headers: Record<string, string>) =>
    new Promise<{headers: http.IncomingHttpHeaders; raw: Buffer}>((resolve, reject) => {
      http
        .get(`http://${address}/metrics`, {headers}, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({headers: res.headers, raw: Buffer.concat(chunks)}))
        })
        .on('error', reject)
    })

  it('sends gzip to a scraper that takes it (as Prometheus does), the plain body to the others', async () => {
    let body = Buffer.from('kubectl_topology_zones 3\n'.repeat(2000))
    const server = await listen('127.0.0.1', 0, {metrics: async () => ({contentType: 'text/plain; version=0.0.4; charset=utf-8', body}), notReady: () => null})
    try {
      const zipped = await get(server.address, {'accept-encoding': 'gzip'})
      expect(zipped.headers['content-encoding']).toBe('gzip')
      expect(zipped.headers.vary).toBe('Accept, Accept-Encoding')
      expect(Number(zipped.headers['content-length'])).toBe(zipped.raw.length)
      expect(zipped.raw.length).toBeLessThan(body.length / 10)
      expect(gunzipSync(zipped.raw).equals(body)).toBe(true)
      const plain = await get(server.address, {})
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(plain.raw.equals(body)).toBe(true)
      // A new body: compressed again, never the old one's gzip.
      body = Buffer.from('kubectl_topology_zones 2\n'.repeat(2000))
      expect(gunzipSync((await get(server.address, {'accept-encoding': 'gzip'})).raw).equals(body)).toBe(true)
      // A small body goes as it is.
      body = Buffer.from('kubectl_topology_zones 2\n')
      const small = await get(server.address, {'accept-encoding': 'gzip'})
      expect(small.headers['content-encoding']).toBeUndefined()
      expect(small.raw.equals(body)).toBe(true)
    } finally {
      await server.close()
    }
  })

  it('compresses a Body from its parts, made once, and never joins them into one Buffer, gzip or plain', async () => {
    // ~700 kB in 7,000 parts: several batches through the compressor.
    const parts = Array.from({length: 7000}, (_, i) => Buffer.from(`kubectl_topology_zone_ready_endpoints{zone="zone-${i}"} ${i}\n`))
    const whole = Buffer.concat(parts)
    const made: Buffer[][] = []
    const make = vi.fn(async () => {
      const copy = [...parts]
      made.push(copy)
      return copy
    })
    const body = new Body(make)
    const concat = vi.spyOn(Buffer, 'concat')
    try {
      const server = await listen('127.0.0.1', 0, {metrics: async () => ({contentType: 'text/plain; version=0.0.4; charset=utf-8', body}), notReady: () => null})
      try {
        const zipped = [await get(server.address, {'accept-encoding': 'gzip'}), await get(server.address, {'accept-encoding': 'gzip'})]
        expect(make).toHaveBeenCalledTimes(1)
        // Never one Buffer of the whole plain body: batches of the parts only.
        expect(concat.mock.calls.filter(([list]) => list === made[0]).length).toBe(0)
        expect(concat.mock.results.every((r) => (r.value as Buffer).length < whole.length)).toBe(true)
        // Nor a fresh Buffer per batch (they are copied into one scratch Buffer).
        expect(concat.mock.results.filter((r) => (r.value as Buffer).length >= 64 * 1024)).toHaveLength(0)
        for (const z of zipped) {
          expect(z.headers['content-encoding']).toBe('gzip')
          expect(gunzipSync(z.raw).equals(whole)).toBe(true)
        }
        concat.mockClear()
        const plain = [await get(server.address, {}), await get(server.address, {})]
        expect(concat.mock.calls.filter(([list]) => list === made[0]).length).toBe(0)
        const served = concat.mock.results.filter((r) => (r.value as Buffer).length >= whole.length)
        // (the test's own client joins what it received, once per response)
        expect(served).toHaveLength(2)
        for (const p of plain) {
          expect(p.headers['content-encoding']).toBeUndefined()
          expect(Number(p.headers['content-length'])).toBe(whole.length)
          expect(p.raw.equals(whole)).toBe(true)
        }
        expect(make).toHaveBeenCalledTimes(1)
      } finally {
        await server.close()
      }
    } finally {
      concat.mockRestore()
    }
  })

  it('a Body too small to be worth compressing is sent as it is, and one that fails answers 500', async () => {
    let body = new Body(async () => [Buffer.from('kubectl_topology_zones 3\n'), Buffer.from('kubectl_topology_hints_disabling_nodes 0\n')])
    const server = await listen('127.0.0.1', 0, {metrics: async () => ({contentType: 'text/plain; version=0.0.4; charset=utf-8', body}), notReady: () => null})
    try {
      const small = await get(server.address, {'accept-encoding': 'gzip'})
      expect(small.headers['content-encoding']).toBeUndefined()
      expect(String(small.raw)).toBe('kubectl_topology_zones 3\nkubectl_topology_hints_disabling_nodes 0\n')
      body = new Body(async () => {
        throw new Error('metrics: broken')
      })
      const failed = await get(server.address, {'accept-encoding': 'gzip'})
      expect(String(failed.raw)).toBe('metrics: broken\n')
    } finally {
      await server.close()
    }
  })
})
