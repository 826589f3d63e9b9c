// Issue 20 classes 1, 3 and 5, run as a user runs them: the built CLI against the scripted API
// server (test/fixtures/fault-server.ts) and exec credential plugins that misbehave. Each fault
// is one line on stderr with a documented exit code (docs/exit-codes.md), never 70, no stack.
// Before: malformed JSON, gzip, a redirect, an absurd /version, exec plugins printing garbage or
// wrong JSON or a CR LF token, --request-timeout 1194h and a damaged journal all exited 70; a
// 10 MB error body hung; a repeated continue token was paged forever.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'
import {type Fault, type FaultServer, faults, isList, on, runCliAsync, startFaultServer} from '../fixtures/fault-server.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-faults-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))
let srv: FaultServer
beforeEach(async () => {
  srv = await startFaultServer()
})
afterEach(() => srv.close())

const nodes = isList(/^\/api\/v1\/nodes$/)
const run = (args: string[], user?: Record<string, unknown>) =>
  runCliAsync([...args, '--kubeconfig', srv.kubeconfig(tmp, user), ...(args.includes('--request-timeout') ? [] : ['--request-timeout', '10s'])], {
    env: {XDG_STATE_HOME: path.join(tmp, 'state')},
  })

/** One line on stderr, that exit code, no stack trace. */
function oneLine(r: {code: number | null; stderr: string}, code: number, pattern: RegExp): void {
  expect(
    r.stderr.split('\n').filter((l) => l !== ''),
    r.stderr,
  ).toHaveLength(1)
  expect(r.stderr).toMatch(pattern)
  expect(r.stderr).not.toMatch(/\n\s+at /)
  expect(r.code).toBe(code)
}

describe('answers that are not the API', () => {
  const cases: [string, Fault][] = [
    ['malformed JSON', faults.status(nodes, 200, '{"kind":"NodeList","items":[')],
    ['an HTML page as JSON', faults.status(nodes, 200, '<html><body>Sign in</body></html>')],
    ['an HTML login page (text/html), which read as "No nodes" before', faults.status(nodes, 200, '<html><body>Sign in</body></html>', {'content-type': 'text/html'})],
    ['a gzip body no one asked for', faults.gzip(nodes, {kind: 'NodeList', apiVersion: 'v1', metadata: {}, items: []})],
  ]
  for (const [name, fault] of cases) {
    it(`${name}: exit 6`, async () => {
      srv.faults.push(fault)
      oneLine(
        await run(['nodes']),
        6,
        /^error: the answer of http:\/\/127\.0\.0\.1:\d+ to list nodes is not Kubernetes API JSON \(.*\): check that the kubeconfig's server is the API server/,
      )
    })
  }
  it('a 307 redirect is not followed: exit 6, one request', async () => {
    srv.faults.push(faults.redirect(nodes, 307, 'http://127.0.0.1:1/elsewhere'))
    oneLine(
      await run(['nodes']),
      6,
      /^error: the API server http:\/\/127\.0\.0\.1:\d+ answered 307 \(a redirect to http:\/\/127\.0\.0\.1:1\/elsewhere\) to list nodes: redirects are not followed/,
    )
    expect(srv.count(nodes)).toBe(1)
  })
  it('a /version no release has: the version is unknown, the command runs', async () => {
    srv.faults.push(faults.status(on('GET', /^\/version$/), 200, {major: '1', minor: '99999999999999999999', gitVersion: 'v1.99999999999999999999.0'}))
    const r = await run(['explain', 'svc/web', '-n', 'shop'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })
  it('a 10 MB one-line error body: exit 6 at once, 1 KB of it shown', async () => {
    srv.faults.push(faults.status(nodes, 500, 'w'.repeat(10_000_000), {'content-type': 'text/plain'}))
    const r = await run(['nodes'])
    oneLine(r, 6, /^error: Error from server \(HTTP 500\): w{1024}\.\.\. \(9998976 bytes more\)\n$/)
  })
  it('a continue token that repeats: exit 6 after two requests', async () => {
    srv.faults.push(faults.repeatContinue(nodes))
    oneLine(await run(['nodes']), 6, /^error: list nodes: page 2 came with the continue token "same-token" of an earlier page/)
    expect(srv.count(nodes)).toBe(2)
  })
})

describe('exec credential plugins that misbehave', () => {
  const plugin = (name: string, script: string) => {
    const file = path.join(tmp, name)
    fs.writeFileSync(file, `#!/bin/sh\n${script}\n`, {mode: 0o755})
    return {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: file, interactiveMode: 'Never'}}
  }
  const cred = (status: unknown) => JSON.stringify({apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status})
  it.each([
    ['garbage', "echo 'this is not json token=abc'", /exec plugin ".*garbage" printed something that is not ExecCredential JSON on stdout: fix the plugin/],
    ['wrong-json', `echo '{"kind":"Something"}'`, /exec plugin ".*wrong-json" printed JSON that is not an ExecCredential/],
    ['crlf', `printf '%s' '${cred({token: 'abc\r\nX-Injected: 1'})}'`, /exec plugin ".*crlf" returned a token holding a line break/],
  ])('%s: exit 5', async (name, script, pattern) => {
    const r = await run(['nodes'], plugin(name, script))
    oneLine(r, 5, pattern)
    expect(r.stderr).not.toContain('abc')
    expect(srv.log).toHaveLength(0)
  })
})

describe('an exec plugin that never exits', () => {
  it('is stopped at --request-timeout: exit 5, no request sent', async () => {
    const file = path.join(tmp, 'hang')
    fs.writeFileSync(file, '#!/bin/sh\nexec sleep 600\n', {mode: 0o755})
    const r = await run(['nodes', '--request-timeout', '1s'], {exec: {apiVersion: 'client.authentication.k8s.io/v1', command: file, interactiveMode: 'Never'}})
    oneLine(r, 5, /exec plugin ".*hang" did not finish within 1s \(--request-timeout\); it was stopped: fix the plugin/)
    expect(srv.log).toHaveLength(0)
  })
})

describe('flags and files', () => {
  it.each(['1194h', '597h', '2147484s'])('--request-timeout %s: exit 2 at once, no Node warning', async (v) => {
    oneLine(await run(['nodes', '--request-timeout', v]), 2, /^error: invalid --request-timeout value ".*": at most 596h31m23\.647s \(2\^31-1 ms/)
  })
  it('a damaged journal on reset: exit 3 naming the bad field', async () => {
    const first = await run(['apply', 'svc/web', '-n', 'shop', '--mode', 'PreferClose', '--yes'])
    expect(first.code).toBe(0)
    const dir = path.join(tmp, 'state', 'kubectl-topology', 'journal')
    const file = path.join(dir, String(fs.readdirSync(dir, {recursive: true}).find((f) => String(f).endsWith('web.json'))))
    const j = JSON.parse(fs.readFileSync(file, 'utf8'))
    j.objects[0].before = 'x'
    fs.writeFileSync(file, JSON.stringify(j))
    oneLine(await run(['reset', 'svc/web', '-n', 'shop', '--yes']), 3, /the apply journal .*web\.json is damaged \(objects\[0\]\.before is not the three topology fields/)
    fs.writeFileSync(file, '{"kind":"ApplyJournal", "objects": [')
    oneLine(await run(['reset', 'svc/web', '-n', 'shop', '--yes']), 3, /is damaged \(not JSON: /)
  })
})
