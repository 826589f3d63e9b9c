// Issue 14 class 8: a bad numeric flag value says, on one line, what is wrong and what is
// accepted; --traffic naming a zone the cluster does not have is an error naming the zones, in
// every command that takes it (watch, which reads only a live cluster, against a fake API server
// on 127.0.0.1 serving the example's objects). `npm run build` first.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {parse as parseYaml} from 'yaml'
import {BIN, EXAMPLE, ROOT, runCli} from './run-cli.js'
import {writeFakeKubeconfig} from '../unit/fake-kubeconfig.js'

const sim = ['simulate', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE]

describe('numeric flags: one line, the value, what is accepted', () => {
  const cases: [string[], string][] = [
    [[...sim, '--replicas', '-3'], 'error: --replicas: invalid value "-3": expected an integer greater than or equal to 0 (see --help)'],
    [[...sim, '--replicas', 'abc'], 'error: --replicas: invalid value "abc": expected an integer (see --help)'],
    [[...sim, '--replicas', '1e9'], 'error: --replicas: invalid value "1e9": expected an integer (see --help)'],
    [[...sim, '--replicas', '200000'], 'error: --replicas: invalid value "200000": expected an integer less than or equal to 150000 (see --help)'],
    [[...sim, '--padding', '-1', '--previous-mode', 'subsetting'], 'error: --padding: invalid value "-1": expected an integer greater than or equal to 0 (see --help)'],
    [['simulate', '--synthetic', '--zones', '30'], 'error: --zones: invalid value "30": expected an integer less than or equal to 26 (see --help)'],
    [['simulate', '--dataset', 'balanced', '--clusters', '0'], 'error: --clusters: invalid value "0": expected an integer greater than or equal to 1 (see --help)'],
    [['check', '-A', '-f', EXAMPLE, '--min-endpoints-per-zone', '-1'], 'error: --min-endpoints-per-zone: invalid value "-1": use a whole number such as 2'],
  ]
  for (const [args, message] of cases) {
    it(args.filter((a) => a.startsWith('--')).join(' '), () => {
      const r = runCli(args)
      expect(r.code).toBe(2)
      expect(r.stderr.trimEnd()).toBe(message)
      expect(r.stdout).toBe('')
    })
  }
})

describe('--traffic names zones of the cluster', () => {
  for (const cmd of [
    ['explain', 'svc/checkout', '-n', 'shop'],
    ['check', 'svc/checkout', '-n', 'shop'],
    ['simulate', 'svc/checkout', '-n', 'shop'],
  ]) {
    it(`${cmd[0]}: an unknown zone is exit 2 naming the known zones`, () => {
      const r = runCli([...cmd, '-f', EXAMPLE, '--traffic', 'eu-west-1a=0.5,mars=0.5'])
      expect(r.code).toBe(2)
      expect(r.stderr.trimEnd()).toBe('error: --traffic: unknown zone "mars" (zones in the cluster: eu-west-1a, eu-west-1b, eu-west-1c)')
    })
  }
  it('known zones are accepted, as fractions or percentages (weights: the same traffic either way)', () => {
    const fractions = runCli(['explain', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '-o', 'json', '--traffic', 'eu-west-1a=0.5,eu-west-1b=0.5,eu-west-1c=0'])
    expect(fractions.code).toBe(0)
    const percents = runCli(['explain', 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '-o', 'json', '--traffic', 'eu-west-1a=50%,eu-west-1b=50%,eu-west-1c=0%'])
    expect(percents.stdout).toBe(fractions.stdout)
  })
  // Finding 11: eu-west-1a=0.5 alone gave the other zones no traffic, silently.
  for (const cmd of ['explain', 'check', 'simulate', 'plan']) {
    it(`${cmd}: a zone with nodes left out is exit 2 asking for its share`, () => {
      const r = runCli([cmd, 'svc/checkout', '-n', 'shop', '-f', EXAMPLE, '--traffic', 'eu-west-1a=0.5'])
      expect(r.code).toBe(2)
      expect(r.stderr.trimEnd()).toBe(
        'error: --traffic: no share for zones "eu-west-1b", "eu-west-1c": give every zone with nodes a share (0 for none), e.g. --traffic eu-west-1a=0.5,eu-west-1b=0,eu-west-1c=0',
      )
      expect(r.stdout).toBe('')
    })
  }
})

describe('--traffic names zones of the cluster: a live cluster, watch as explain and simulate', () => {
  type Obj = {metadata: {name: string; namespace?: string; labels?: Record<string, string>}}
  const snap = parseYaml(fs.readFileSync(EXAMPLE, 'utf8')) as {nodes: Obj[]; services: Obj[]; endpointSlices: Obj[]}
  const held: http.ServerResponse[] = []
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-traffic-'))
  let server: http.Server
  let kubeconfig = ''
  let forbidEvents = false

  /** GET the example's objects, one or a list (namespace, metadata.name= and label= selectors), /version; watches stay open. */
  const api: http.RequestListener = (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    res.setHeader('content-type', 'application/json')
    if (url.pathname === '/version') return void res.end(JSON.stringify({major: '1', minor: '36', gitVersion: 'v1.36.3'}))
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200)
      held.push(res)
      return
    }
    const m = /^\/(?:api|apis\/[^/]+)\/v1(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?$/.exec(url.pathname)
    if (m?.[2] === 'events' && forbidEvents) {
      res.statusCode = 403
      return void res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'Forbidden',
          code: 403,
          message: 'events is forbidden: User "u" cannot list resource "events"',
        }),
      )
    }
    const all = m?.[2] === 'nodes' ? snap.nodes : m?.[2] === 'services' ? snap.services : m?.[2] === 'endpointslices' ? snap.endpointSlices : []
    if (m?.[3] !== undefined) {
      const one = all.find((o) => o.metadata.name === m[3] && (m[1] === undefined || o.metadata.namespace === m[1]))
      if (one) return void res.end(JSON.stringify(one))
      res.statusCode = 404
      return void res.end(JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: `${m[2]} "${m[3]}" not found`}))
    }
    const field = /^metadata\.name=(.+)$/.exec(url.searchParams.get('fieldSelector') ?? '')?.[1]
    const label = /^([^=]+)=(.+)$/.exec(url.searchParams.get('labelSelector') ?? '')
    const items = all.filter(
      (o) =>
        (m?.[1] === undefined || o.metadata.namespace === m[1]) &&
        (field === undefined || o.metadata.name === field) &&
        (label === null || o.metadata.labels?.[label[1]!] === label[2]),
    )
    res.end(JSON.stringify({kind: 'List', apiVersion: 'v1', metadata: {resourceVersion: '7'}, items}))
  }

  beforeAll(async () => {
    server = http.createServer(api)
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    kubeconfig = path.join(tmp, 'config')
    writeFakeKubeconfig(kubeconfig, server)
  })
  afterAll(async () => {
    for (const r of held) r.destroy()
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    fs.rmSync(tmp, {recursive: true, force: true})
  })

  /** The CLI on the fake cluster, killed after killMs (a watch that accepted the flag runs on). */
  const live = (args: string[], killMs = 15_000) =>
    new Promise<{code: number | null; stdout: string; stderr: string}>((resolve) => {
      const plane = args[0] === 'simulate' ? [] : ['--data-plane', 'kube-proxy']
      const child = spawn(process.execPath, [BIN, ...args, '--kubeconfig', kubeconfig, ...plane], {cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe']})
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d) => (stdout += d))
      child.stderr.on('data', (d) => (stderr += d))
      const kill = setTimeout(() => child.kill('SIGKILL'), killMs)
      child.on('close', (code) => {
        clearTimeout(kill)
        resolve({code, stdout, stderr})
      })
    })

  const message = 'error: --traffic: unknown zone "mars" (zones in the cluster: eu-west-1a, eu-west-1b, eu-west-1c)'
  for (const cmd of ['watch', 'explain', 'simulate']) {
    it(`${cmd}: exit 2 naming the known zones, nothing on stdout`, async () => {
      const r = await live([cmd, 'svc/checkout', '-n', 'shop', '--traffic', 'eu-west-1a=0.5,mars=0.5'])
      expect(r.stderr.trimEnd()).toBe(message)
      expect(r.stdout).toBe('')
      expect(r.code).toBe(2)
    }, 30_000)
  }
  it("explain reads the Services' Events; without permission to list them, a warning and the hints decide", async () => {
    const ok = await live(['explain', 'svc/checkout', '-n', 'shop', '-o', 'json'])
    expect(ok.stderr).not.toMatch(/cannot list events/)
    forbidEvents = true
    try {
      const r = await live(['explain', 'svc/checkout', '-n', 'shop', '-o', 'json'])
      expect(r.stderr).toContain('Warning: cannot list events in namespace "shop" (missing permission: list events)')
      expect(r.code).toBe(ok.code)
      const doc = JSON.parse(r.stdout) as {services: {controller: {state: {inferredFrom: string}}}[]}
      expect(doc.services[0]!.controller.state.inferredFrom).not.toBe('events')
    } finally {
      forbidEvents = false
    }
  }, 30_000)

  it('watch: known zones are accepted (it shows the Service and runs until stopped)', async () => {
    const r = await live(['watch', 'svc/checkout', '-n', 'shop', '--plain', '--traffic', 'eu-west-1a=0.5,eu-west-1b=0.5,eu-west-1c=0'], 4_000)
    expect(r.stdout).toMatch(/shop\/checkout/)
    expect(r.stderr).not.toMatch(/error/)
  }, 30_000)
})
