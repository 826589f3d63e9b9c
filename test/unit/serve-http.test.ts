// serve's HTTP rules (Accept negotiation, --listen) and the exposition prom-client writes of
// serve's samples (render/metrics.ts).
import {describe, expect, it} from 'vitest'
import {negotiate, parseListen} from '../../src/serve/http-rules.js'
import {MetricsWriter} from '../../src/render/metrics.js'
import type {Row} from '../../src/serve/model.js'
import {CliError} from '../../src/errors.js'

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

describe('MetricsWriter', () => {
  const rows: Row[] = [
    ['kubectl_topology_service_hints_live', {labels: {namespace: 'shop', service: 'cart', address_type: 'IPv4'}, value: 1}],
    ['kubectl_topology_source_watch_restarts_total', {labels: {resource: 'nodes'}, value: 3}],
    ['kubectl_topology_counted_nodes', {labels: {zone: 'zone-a\u001b[2J"x'}, value: 2}],
  ]
  it('writes the Prometheus text format and OpenMetrics, counters with _total in both', async () => {
    const w = new MetricsWriter()
    const om = await w.write(only(rows), 'openmetrics')
    const text = await w.write(only(rows), 'text')
    expect(w.contentType('text')).toMatch(/^text\/plain; version=0\.0\.4/)
    expect(w.contentType('openmetrics')).toMatch(/^application\/openmetrics-text; version=1\.0\.0/)
    expect(text).toContain('kubectl_topology_service_hints_live{namespace="shop",service="cart",address_type="IPv4"} 1')
    expect(text).toContain('# TYPE kubectl_topology_source_watch_restarts_total counter')
    expect(text).toContain('kubectl_topology_source_watch_restarts_total{resource="nodes"} 3')
    expect(om).toContain('# TYPE kubectl_topology_source_watch_restarts counter')
    expect(om).toContain('kubectl_topology_source_watch_restarts_total{resource="nodes"} 3')
    expect(om.endsWith('# EOF\n')).toBe(true)
    // The text format again after an OpenMetrics write: the counter keeps its name.
    expect(await w.write(only(rows), 'text')).toBe(text)
  })
  it('escapes label values from the cluster and forgets samples no longer given', async () => {
    const w = new MetricsWriter(['cluster'])
    const text = await w.write([{labels: {cluster: 'eu'}, groups: [], rows}], 'text')
    expect(text).toContain('kubectl_topology_counted_nodes{cluster="eu",zone="zone-a^[[2J\\"x"} 2')
    expect(text).not.toContain('\u001b')
    const after = await w.write([{labels: {cluster: 'eu'}, groups: [], rows: [rows[0]!]}], 'text')
    expect(after).not.toContain('kubectl_topology_counted_nodes{')
    expect(after).toContain('kubectl_topology_service_hints_live{cluster="eu"')
  })
})
