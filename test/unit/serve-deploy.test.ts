// serve's deploy/ files: the kustomize base and overlay are the plain YAML of deploy/kubernetes/
// (byte for byte); the Deployment, its Service, ServiceMonitor, the Dockerfile and the package
// agree on the image, the port, the uid, the ServiceAccount and the labels; the Grafana
// dashboard's queries read only metrics serve exports (docs/metrics.md, src/serve/catalogue.ts),
// with a label filter only where the metric has that label, and parse as PromQL (promtool).
// The objects are created on a real API server by test/e2e/serve-deploy.test.ts and every
// dashboard query is evaluated in a real Prometheus by test/e2e/serve.test.ts.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {parse, parseAllDocuments, stringify} from 'yaml'
import {FAMILIES} from '../../src/serve/catalogue.js'
import {parseListen} from '../../src/serve/http-rules.js'
import {panelQueries, readDashboard, substitute} from '../fixtures/dashboard.js'
// @ts-expect-error: a test script in plain JavaScript, without types.
import {ensurePrometheus} from '../../scripts/prometheus.mjs'

const ROOT = path.join(import.meta.dirname, '../..')
const DEPLOY = path.join(ROOT, 'deploy')
const read = (p: string) => readFileSync(path.join(DEPLOY, p), 'utf8')
// biome-ignore lint/suspicious/noExplicitAny: Kubernetes objects read from YAML.
type Obj = any
const docs = (p: string): Obj[] => parseAllDocuments(read(p)).map((d) => d.toJS())
const one = (p: string, kind: string): Obj => {
  const found = docs(p).filter((o) => o.kind === kind)
  expect(found, `${p}: one ${kind}`).toHaveLength(1)
  return found[0]
}
const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string

describe('the kustomize base and overlay', () => {
  it('are the plain YAML of deploy/kubernetes/, byte for byte', () => {
    const base = parse(read('kustomize/base/kustomization.yaml'))
    expect(base.resources).toEqual(['rbac.yaml', 'deployment.yaml', 'service.yaml'])
    for (const f of base.resources) expect(read(`kustomize/base/${f}`), f).toBe(read(`kubernetes/${f}`))
    const overlay = parse(read('kustomize/overlays/prometheus-operator/kustomization.yaml'))
    expect(overlay.resources).toEqual(['../../base', 'servicemonitor.yaml', 'prometheusrule.yaml'])
    expect(read('kustomize/overlays/prometheus-operator/servicemonitor.yaml')).toBe(read('kubernetes/servicemonitor.yaml'))
    expect(read('kustomize/overlays/prometheus-operator/prometheusrule.yaml')).toBe(read('prometheus/prometheusrule.yaml'))
    // Nothing in deploy/kubernetes/ is left out of the base or the overlay.
    expect(readdirSync(path.join(DEPLOY, 'kubernetes')).sort()).toEqual(['deployment.yaml', 'rbac.yaml', 'service.yaml', 'servicemonitor.yaml'])
    // No `namespace:` transformer: it would move the Role that must stay in kube-system.
    expect(base.namespace).toBeUndefined()
    expect(overlay.namespace).toBeUndefined()
  })

  it('name the image the Deployment names, at the package version, for users to override', () => {
    const container = one('kubernetes/deployment.yaml', 'Deployment').spec.template.spec.containers[0]
    expect(container.image).toBe(`kubectl-topology:${VERSION}`)
    expect(parse(read('kustomize/base/kustomization.yaml')).images).toEqual([{name: 'kubectl-topology', newTag: VERSION}])
    const [entry] = parse(read('kustomize/overlays/prometheus-operator/kustomization.yaml')).images
    expect(entry).toMatchObject({name: 'kubectl-topology', newTag: VERSION})
  })
})

describe('the Deployment, its Service and ServiceMonitor', () => {
  const deployment = one('kubernetes/deployment.yaml', 'Deployment')
  const pod = deployment.spec.template.spec
  const container = pod.containers[0]
  const service = one('kubernetes/service.yaml', 'Service')
  const monitor = one('kubernetes/servicemonitor.yaml', 'ServiceMonitor')
  const rbac = docs('kubernetes/rbac.yaml')

  it('runs serve on every address of the port the Service, the annotations and the probes name', () => {
    expect(container.args.slice(0, 2)).toEqual(['serve', '--listen'])
    const listen = parseListen(container.args[2])
    expect(listen.host).toBe('0.0.0.0')
    expect(container.ports).toEqual([{name: 'metrics', containerPort: listen.port, protocol: 'TCP'}])
    expect(service.spec.ports).toEqual([{name: 'metrics', port: listen.port, targetPort: 'metrics', protocol: 'TCP'}])
    expect(service.metadata.annotations).toEqual({'prometheus.io/scrape': 'true', 'prometheus.io/port': String(listen.port), 'prometheus.io/path': '/metrics'})
    expect(container.livenessProbe.httpGet).toEqual({path: '/healthz', port: 'metrics'})
    expect(container.readinessProbe.httpGet).toEqual({path: '/readyz', port: 'metrics'})
    expect(monitor.spec.endpoints.map((e: Obj) => [e.port, e.path])).toEqual([['metrics', '/metrics']])
  })

  it("select the Deployment's Pods, in its namespace", () => {
    const labels = pod && deployment.spec.template.metadata.labels
    expect(deployment.spec.selector.matchLabels).toEqual(labels)
    expect(service.spec.selector).toEqual(labels)
    expect(monitor.spec.selector.matchLabels).toEqual(labels)
    expect(service.metadata.labels).toMatchObject(monitor.spec.selector.matchLabels) // the ServiceMonitor selects the Service
    for (const o of [deployment, service, monitor]) expect(o.metadata.namespace).toBe('kubectl-topology')
  })

  it('run as the ServiceAccount of rbac.yaml, with its token, non-root, read-only, without privileges', () => {
    const sa = rbac.find((o) => o.kind === 'ServiceAccount')
    expect(pod.serviceAccountName).toBe(sa.metadata.name)
    expect(deployment.metadata.namespace).toBe(sa.metadata.namespace)
    expect(pod.automountServiceAccountToken).toBe(true)
    expect(pod.securityContext).toEqual({runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532, seccompProfile: {type: 'RuntimeDefault'}})
    expect(container.securityContext).toEqual({allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, privileged: false, capabilities: {drop: ['ALL']}})
    expect(rbac.find((o) => o.kind === 'Namespace').metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted')
    expect(container.resources.requests.memory).toBe('320Mi')
    expect(container.resources.limits.memory).toBe('640Mi')
  })
})

describe('the Dockerfile', () => {
  const file = read('container/Dockerfile')
  const deployment = one('kubernetes/deployment.yaml', 'Deployment')
  const container = deployment.spec.template.spec.containers[0]

  it('unpacks the archive scripts/package.mjs writes, at the package version', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text of package.mjs's template literal
    expect(readFileSync(path.join(ROOT, 'scripts/package.mjs'), 'utf8')).toContain('`kubectl-topology_${VERSION}_${t.os}_${t.arch}.tar.gz`')
    expect(file).toMatch(/^ADD kubectl-topology_\$\{VERSION\}_linux_\$\{TARGETARCH\}\.tar\.gz \/opt\/kubectl-topology\/$/m)
    expect(file).toMatch(new RegExp(`^ARG VERSION=${VERSION.replaceAll('.', '\\.')}$`, 'm'))
    expect(file).toMatch(/^ENTRYPOINT \["\/opt\/kubectl-topology\/kubectl-topology"\]$/m)
    // The ignore file next to it lets the archives through.
    expect(read('container/Dockerfile.dockerignore')).toMatch(/^!kubectl-topology_\*_linux_amd64\.tar\.gz$/m)
  })

  it("runs as the Deployment's user, serving the Deployment's port", () => {
    const pod = deployment.spec.template.spec.securityContext
    expect(file).toMatch(new RegExp(`^USER ${pod.runAsUser}:${pod.runAsGroup}$`, 'm'))
    expect(file).toMatch(new RegExp(`^EXPOSE ${container.ports[0].containerPort}$`, 'm'))
    expect(file).toMatch(new RegExp(`^CMD ${JSON.stringify(container.args).replaceAll(',', ', ').replace(/[[\]]/g, '\\$&')}$`, 'm'))
  })
})

describe('the Grafana dashboard', () => {
  const families = new Map<string, readonly string[]>(FAMILIES.map((f) => [f.name, [...f.labels, 'cluster']]))
  const queries = panelQueries()
  const dashboard = readDashboard()

  it('has cluster and namespace variables, every panel on the datasource variable', () => {
    const names = dashboard.templating.list.map((v) => v.name)
    expect(names).toEqual(expect.arrayContaining(['datasource', 'cluster', 'namespace']))
    const text = JSON.stringify(dashboard.panels)
    expect(text).not.toMatch(/"uid":\s*"(?!\$\{datasource\})/)
    expect(queries.length).toBeGreaterThan(20)
  })

  it("reads only metrics serve exports (or Prometheus's up), filtering only on labels they have", () => {
    const used = new Set<string>()
    for (const q of queries) {
      for (const m of q.expr.matchAll(/\b([a-z_]+)\{([^}]*)\}/g)) {
        const [, name, matchers] = m as unknown as [string, string, string]
        const labels = name === 'up' ? ['job', 'instance', 'cluster'] : families.get(name)
        expect(labels, `${q.panel}: ${name} is not a metric serve exports`).toBeDefined()
        used.add(name)
        for (const l of matchers.matchAll(/(\w+)\s*=~?/g)) expect(labels, `${q.panel}: ${name} has no label ${l[1]}`).toContain(l[1])
      }
      // Every metric name in the query is a selector with braces (checked above).
      for (const n of q.expr.match(/\bkubectl_topology_\w+/g) ?? []) expect(families.has(n), `${q.panel}: ${n}`).toBe(true)
    }
    // The panels issue 21 asks for.
    for (const m of [
      'kubectl_topology_service_hints_requested',
      'kubectl_topology_service_hints_live',
      'kubectl_topology_service_predicted_in_zone_traffic_ratio',
      'kubectl_topology_service_live_in_zone_traffic_ratio',
      'kubectl_topology_service_live_max_endpoint_overload_ratio',
      'kubectl_topology_service_drift_endpoints',
      'kubectl_topology_service_data_plane_honours_hints',
      'kubectl_topology_zone_ready_endpoints',
      'kubectl_topology_service_accepted_endpoints_distance',
      'kubectl_topology_source_up',
      'kubectl_topology_source_last_sync_timestamp_seconds',
      'kubectl_topology_source_watch_restarts_total',
      'up',
    ])
      expect(used, m).toContain(m)
  })

  let promtool: string | null = null
  try {
    promtool = (ensurePrometheus(() => {}) as {promtool: string}).promtool
  } catch {
    promtool = null
  }
  const tmp = mkdtempSync(path.join(tmpdir(), 'serve-dashboard-'))
  afterAll(() => rmSync(tmp, {recursive: true, force: true}))

  it.skipIf(promtool === null)('has queries that parse as PromQL once the variables are set (promtool check rules)', () => {
    const values = {cluster: '.*', namespace: 'shop', service: '.*', job: 'kubectl-topology'}
    const rules = queries.map((q, i) => ({record: `dashboard:query_${i}`, expr: substitute(q.expr, values)}))
    const file = path.join(tmp, 'queries.yaml')
    writeFileSync(file, stringify({groups: [{name: 'dashboard', rules}]}))
    let r = spawnSync(promtool!, ['check', 'rules', file], {encoding: 'utf8'})
    expect(r.stdout + r.stderr).toContain(`SUCCESS: ${queries.length} rules found`)
    // A broken query fails the same check.
    writeFileSync(file, stringify({groups: [{name: 'dashboard', rules: [{record: 'dashboard:broken', expr: substitute(queries[0]!.expr, values).replace('{', '{{')}]}]}))
    r = spawnSync(promtool!, ['check', 'rules', file], {encoding: 'utf8'})
    expect(r.status).toBe(1)
  })

  it('substitutes every variable, and refuses one the dashboard does not set', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's variable syntax
    expect(substitute('x{a=~"$cluster", b=~"${namespace}"}[$__rate_interval]', {cluster: '.*', namespace: 'shop'})).toBe('x{a=~".*", b=~"shop"}[1m]')
    expect(() => substitute('x{a=~"$zone"}', {})).toThrow(/no value for \$zone/)
  })
})
