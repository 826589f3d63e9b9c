import fs from 'node:fs'
import http from 'node:http'
import type {AddressInfo} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, beforeEach, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {formatDuration, loadKubeConfig, parseDuration, redactServer} from '../../src/cluster/kubeconfig.js'
import {CliError, ExitCode} from '../../src/errors.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-kc-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))

let n = 0
function write(content: unknown, name?: string): string {
  const dir = fs.mkdtempSync(path.join(tmp, 'd'))
  const p = path.join(dir, name ?? `config-${n++}`)
  fs.writeFileSync(p, typeof content === 'string' ? content : toYaml(content))
  return p
}

const cfg = (o: {
  current?: string
  contexts: {name: string; cluster: string; user?: string; namespace?: string}[]
  clusters: {name: string; server: string; ca?: string}[]
  users?: {name: string; user: Record<string, unknown>}[]
}) => ({
  apiVersion: 'v1',
  kind: 'Config',
  ...(o.current ? {'current-context': o.current} : {}),
  clusters: o.clusters.map((c) => ({
    name: c.name,
    cluster: {server: c.server, ...(c.ca ? {'certificate-authority': c.ca} : {})},
  })),
  contexts: o.contexts.map((c) => ({
    name: c.name,
    context: {cluster: c.cluster, ...(c.user ? {user: c.user} : {}), ...(c.namespace ? {namespace: c.namespace} : {})},
  })),
  users: o.users ?? [],
})

// Each test gets a clean environment: no KUBECONFIG, an empty HOME, no in-cluster variables.
const saved = {...process.env}
let home: string
beforeEach(() => {
  home = fs.mkdtempSync(path.join(tmp, 'home'))
  delete process.env.KUBECONFIG
  delete process.env.KUBERNETES_SERVICE_HOST
  delete process.env.KUBERNETES_SERVICE_PORT
  process.env.HOME = home
})
afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k]
  Object.assign(process.env, saved)
})

async function kubeconfigError(p: Promise<unknown>): Promise<CliError> {
  try {
    await p
  } catch (e) {
    expect(e).toBeInstanceOf(CliError)
    expect((e as CliError).exitCode).toBe(ExitCode.KUBECONFIG)
    expect((e as CliError).message).not.toContain('\n')
    return e as CliError
  }
  throw new Error('expected a KUBECONFIG error')
}

describe('loadKubeConfig', () => {
  const first = () =>
    write(
      cfg({
        current: 'dev',
        contexts: [{name: 'dev', cluster: 'dev-cluster', user: 'dev-user', namespace: 'shop'}],
        clusters: [{name: 'dev-cluster', server: 'https://127.0.0.1:6443/', ca: 'ca.crt'}],
        users: [{name: 'dev-user', user: {token: 'dev-secret-token'}}],
      }),
    )
  const second = () =>
    write(
      cfg({
        current: 'prod',
        // "dev" again, pointing elsewhere: kubectl keeps the first definition.
        contexts: [
          {name: 'dev', cluster: 'prod-cluster', user: 'prod-user'},
          {name: 'prod', cluster: 'prod-cluster', user: 'prod-user'},
        ],
        clusters: [{name: 'prod-cluster', server: 'https://prod.example.com:443'}],
        users: [{name: 'prod-user', user: {token: 'prod-secret-token', 'token-file': 'missing-token'}}],
      }),
    )

  it("KUBECONFIG with two files: the first file's current-context wins, duplicate names keep the first", async () => {
    const a = first()
    const b = second()
    process.env.KUBECONFIG = [a, b].join(path.delimiter)
    const ctx = await loadKubeConfig({})
    expect(ctx.contextName).toBe('dev')
    expect(ctx.namespace).toBe('shop')
    expect(ctx.server).toBe('https://127.0.0.1:6443')
    expect(ctx.clusterName).toBe('dev-cluster')
    expect(ctx.userName).toBe('dev-user')
    expect(ctx.files).toEqual([a, b])
    expect(ctx.kc.getCurrentContext()).toBe('dev')
    // Relative paths resolve against the file that holds them.
    expect(ctx.kc.getCurrentCluster()?.caFile).toBe(path.join(path.dirname(a), 'ca.crt'))
    expect(ctx.requestTimeoutMs).toBe(0)
  })

  it('--context selects a context from the second file; -n overrides the namespace', async () => {
    process.env.KUBECONFIG = [first(), second()].join(path.delimiter)
    const ctx = await loadKubeConfig({context: 'prod', namespace: 'billing'})
    expect(ctx.contextName).toBe('prod')
    expect(ctx.server).toBe('https://prod.example.com')
    expect(ctx.namespace).toBe('billing')
    const noNs = await loadKubeConfig({context: 'prod'})
    expect(noNs.namespace).toBe('default')
  })

  it('a user with a token and a missing token-file loads (the token wins, as in client-node)', async () => {
    process.env.KUBECONFIG = [first(), second()].join(path.delimiter)
    expect((await loadKubeConfig({context: 'prod'})).userName).toBe('prod-user')
  })

  it('a missing token-file of the selected user is a KUBECONFIG error', async () => {
    const p = write(
      cfg({
        current: 'c',
        contexts: [{name: 'c', cluster: 'k', user: 'u'}],
        clusters: [{name: 'k', server: 'https://127.0.0.1:6443'}],
        users: [
          {name: 'u', user: {'token-file': 'nope/token'}},
          {name: 'other', user: {'token-file': '/does/not/exist'}},
        ],
      }),
    )
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: p}))
    expect(err.message).toBe(`cannot read token-file "${path.join(path.dirname(p), 'nope/token')}" of user "u" (${p}): no such file`)
  })

  it('an unrelated broken user does not matter', async () => {
    const p = write(
      cfg({
        current: 'c',
        contexts: [{name: 'c', cluster: 'k', user: 'u'}],
        clusters: [{name: 'k', server: 'https://127.0.0.1:6443'}],
        users: [
          {name: 'u', user: {token: 't'}},
          {name: 'other', user: {'token-file': '/does/not/exist'}},
        ],
      }),
    )
    expect((await loadKubeConfig({kubeconfig: p})).contextName).toBe('c')
  })

  it('files missing from the KUBECONFIG list are skipped, as kubectl does', async () => {
    const a = first()
    process.env.KUBECONFIG = [path.join(tmp, 'nope'), a].join(path.delimiter)
    expect((await loadKubeConfig({})).files).toEqual([a])
  })

  it('--kubeconfig overrides KUBECONFIG; a missing one is an error', async () => {
    process.env.KUBECONFIG = first()
    const b = second()
    expect((await loadKubeConfig({kubeconfig: b})).contextName).toBe('prod')
    const missing = path.join(tmp, 'missing.yaml')
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: missing}))
    expect(err.message).toBe(`cannot read kubeconfig "${missing}" (--kubeconfig): no such file`)
  })

  it('~/.kube/config is the default', async () => {
    fs.mkdirSync(path.join(home, '.kube'))
    fs.copyFileSync(first(), path.join(home, '.kube', 'config'))
    expect((await loadKubeConfig({})).contextName).toBe('dev')
  })

  it('--context unknown lists the available contexts', async () => {
    process.env.KUBECONFIG = [first(), second()].join(path.delimiter)
    const err = await kubeconfigError(loadKubeConfig({context: 'staging'}))
    expect(err.message).toBe('context "staging" (--context) does not exist: available contexts: dev, prod')
  })

  it('a current-context that does not exist', async () => {
    const p = write(cfg({current: 'gone', contexts: [{name: 'a', cluster: 'k'}], clusters: [{name: 'k', server: 'https://h'}]}))
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: p}))
    expect(err.message).toBe(`context "gone" (current-context of kubeconfig ${p}) does not exist: available contexts: a`)
  })

  it('no current-context', async () => {
    const p = write(
      cfg({
        contexts: [
          {name: 'a', cluster: 'k'},
          {name: 'b', cluster: 'k'},
        ],
        clusters: [{name: 'k', server: 'https://h'}],
      }),
    )
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: p}))
    expect(err.message).toBe(`current-context is not set in kubeconfig ${p}: pass --context (available: a, b)`)
  })

  it('a context whose cluster is not defined, or has no server', async () => {
    const p = write(cfg({current: 'a', contexts: [{name: 'a', cluster: 'ghost'}], clusters: []}))
    expect((await kubeconfigError(loadKubeConfig({kubeconfig: p}))).message).toBe(`cluster "ghost" of context "a" is not defined in kubeconfig ${p}`)
    const q = write({'current-context': 'a', contexts: [{name: 'a', context: {cluster: 'k'}}], clusters: [{name: 'k', cluster: {}}]})
    expect((await kubeconfigError(loadKubeConfig({kubeconfig: q}))).message).toBe(`cluster "k" in ${q} has no server`)
  })

  it('no kubeconfig at all: KUBECONFIG names a missing file and HOME is empty', async () => {
    process.env.KUBECONFIG = path.join(tmp, 'does-not-exist')
    const err = await kubeconfigError(loadKubeConfig({}))
    expect(err.message).toMatch(
      /^no kubeconfig found: set KUBECONFIG, pass --kubeconfig, or use --from-file to read a snapshot \(KUBECONFIG=.*does-not-exist names no existing file\)$/,
    )
  })

  it('no kubeconfig at all: no KUBECONFIG, empty HOME (never localhost:8080)', async () => {
    const err = await kubeconfigError(loadKubeConfig({}))
    expect(err.message).toBe('no kubeconfig found: set KUBECONFIG, pass --kubeconfig, or use --from-file to read a snapshot')
  })

  it('an empty kubeconfig file', async () => {
    const p = write('')
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: p}))
    expect(err.message).toBe(`no context found in kubeconfig ${p}: set KUBECONFIG, pass --kubeconfig, or use --from-file to read a snapshot`)
  })

  it('bad YAML names the file, line and column', async () => {
    const p = write('apiVersion: v1\nclusters:\n- name: a\n  cluster:\n    server: https://h\n   bad: indent\n')
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: p}))
    expect(err.message).toMatch(new RegExp(`^invalid kubeconfig ${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:\\d+:\\d+: \\S`))
  })

  it('a file that is not a kubeconfig', async () => {
    const p = write('- just\n- a list\n')
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: p}))
    expect(err.message).toBe(`invalid kubeconfig ${p}: expected a mapping with clusters, contexts and users, found a list`)
    const q = write({clusters: 'nope'})
    expect((await kubeconfigError(loadKubeConfig({kubeconfig: q}))).message).toBe(`invalid kubeconfig ${q}: "clusters" must be a list`)
  })

  it('a directory passed as --kubeconfig', async () => {
    const err = await kubeconfigError(loadKubeConfig({kubeconfig: tmp}))
    expect(err.message).toBe(`cannot read kubeconfig "${tmp}" (--kubeconfig): is a directory`)
  })

  it('credentials in the server URL are never exposed', async () => {
    const p = write(cfg({current: 'a', contexts: [{name: 'a', cluster: 'k'}], clusters: [{name: 'k', server: 'https://admin:hunter2@10.0.0.1:6443'}]}))
    const ctx = await loadKubeConfig({kubeconfig: p})
    expect(ctx.server).toBe('https://10.0.0.1:6443')
    expect(redactServer('https://u:p@h:1/x/')).toBe('https://h:1/x')
  })

  it("proxy-url: kubectl's schemes (http, https, socks5), its credentials never shown", async () => {
    const withProxy = (proxyUrl: unknown) => {
      const c = cfg({current: 'a', contexts: [{name: 'a', cluster: 'k'}], clusters: [{name: 'k', server: 'https://10.0.0.1:6443'}]})
      return write({...c, clusters: [{name: 'k', cluster: {...c.clusters[0]!.cluster, 'proxy-url': proxyUrl}}]})
    }
    for (const scheme of ['http', 'https', 'socks5']) {
      const ctx = await loadKubeConfig({kubeconfig: withProxy(`${scheme}://bob:hunter2@proxy.corp:3128`)})
      expect(ctx.proxy).toBe(`${scheme}://proxy.corp:3128`)
    }
    expect((await loadKubeConfig({kubeconfig: withProxy('')})).proxy).toBeUndefined()
    for (const [value, why] of [
      ['socks4://bob:hunter2@proxy.corp:1080', 'unsupported scheme "socks4", must be http, https, or socks5'],
      ['proxy.corp:3128', 'unsupported scheme "proxy.corp", must be http, https, or socks5'],
      ['http://bob:hunter2@', 'not a URL'],
      ['http://bob:hunter2%zz@proxy.corp:3128', 'invalid %-escape in the user or password'],
      [3128, 'not a string'],
    ] as const) {
      const p = withProxy(value)
      const err = await loadKubeConfig({kubeconfig: p}).then(
        () => undefined,
        (e: unknown) => e as CliError,
      )
      expect(err).toBeInstanceOf(CliError)
      expect(err!.exitCode).toBe(ExitCode.KUBECONFIG)
      expect(err!.message).toMatch(new RegExp(`^invalid proxy-url ".*" for cluster "k" in ${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${why}$`))
      expect(err!.message).not.toContain('hunter2')
    }
  })

  it('http:// servers are allowed, as in kubectl (client-node needs skipTLSVerify for that)', async () => {
    const p = write(cfg({current: 'a', contexts: [{name: 'a', cluster: 'k'}], clusters: [{name: 'k', server: 'http://127.0.0.1:8001'}]}))
    const ctx = await loadKubeConfig({kubeconfig: p, requestTimeoutMs: 1500})
    expect(ctx.kc.getCurrentCluster()?.skipTLSVerify).toBe(true)
    expect(ctx.requestTimeoutMs).toBe(1500)
  })

  it('exec credential plugins still work: the token reaches the server', async () => {
    const plugin = path.join(tmp, 'get-token.mjs')
    fs.writeFileSync(
      plugin,
      `process.stdout.write(JSON.stringify({apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: {token: 'tok-from-exec-' + process.env.EXTRA}}))\n`,
    )
    const seen: string[] = []
    const server = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization))
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({major: '1', minor: '36', gitVersion: 'v1.36.3'}))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const port = (server.address() as AddressInfo).port
      const p = write({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'x',
        clusters: [{name: 'k', cluster: {server: `http://127.0.0.1:${port}`}}],
        contexts: [{name: 'x', context: {cluster: 'k', user: 'u'}}],
        users: [
          {
            name: 'u',
            user: {
              exec: {
                apiVersion: 'client.authentication.k8s.io/v1',
                command: process.execPath,
                args: [plugin],
                env: [{name: 'EXTRA', value: '42'}],
                interactiveMode: 'Never',
              },
            },
          },
        ],
      })
      const ctx = await loadKubeConfig({kubeconfig: p, requestTimeoutMs: 5000})
      expect(ctx.execCommand).toBe(process.execPath)
      const {VersionApi} = await import('../../src/cluster/k8s.js')
      const info = await ctx.kc.makeApiClient(VersionApi).getCode({}, ctx.apiOptions)
      expect(info.gitVersion).toBe('v1.36.3')
      expect(seen).toEqual(['Bearer tok-from-exec-42'])
      expect(ctx.stats.requests).toBe(1)
    } finally {
      await new Promise((r) => server.close(r))
    }
  })
})

describe('parseDuration (--request-timeout)', () => {
  it.each([
    ['0', 0],
    ['0s', 0],
    ['30s', 30_000],
    ['1m', 60_000],
    ['500ms', 500],
    ['5', 5_000],
    ['1h2m3.5s', 3_723_500],
    ['1.5s', 1_500],
    ['2m30s', 150_000],
    [' 10s ', 10_000],
    ['100us', 1],
  ])('%s -> %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms)
  })

  it.each(['', 'abc', '-1s', '1.5', '10x', 's', '1m-2s', '30 s'])('rejects %j', (input) => {
    try {
      parseDuration(input)
      throw new Error('accepted')
    } catch (e) {
      expect(e).toBeInstanceOf(CliError)
      expect((e as CliError).exitCode).toBe(ExitCode.USAGE)
      expect((e as CliError).message).toBe(`invalid --request-timeout value "${input}": use a duration such as 30s, 1m or 500ms (0 means no timeout)`)
    }
  })

  it('formats durations for messages', () => {
    expect(formatDuration(300)).toBe('300ms')
    expect(formatDuration(30_000)).toBe('30s')
    expect(formatDuration(90_000)).toBe('1m30s')
    expect(formatDuration(3_600_000)).toBe('1h')
    expect(formatDuration(3_660_000)).toBe('1h1m')
    expect(formatDuration(1_500)).toBe('1.5s')
  })
})
