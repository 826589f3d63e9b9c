// Issue 20, run as a user runs it (the built CLI). Class 4: files that never end (/dev/zero) or
// are huge (a sparse file) are refused by type and size before being read (they were read whole:
// 6.7 GB in 12 s for /dev/zero; 47 s and 3.4 GB for a sparse 300 MB snapshot). Class 6: no raw
// C1 control (U+009B) in -o json, -o yaml, snapshot, or simulate --dataset -o csv --per-cluster
// (an OSC 52 clipboard write passed raw); kubeconfig's tokenFile is sent as kubectl sends it.
import {spawn} from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {parse as parseYaml, stringify as toYaml} from 'yaml'
import {BIN, EXAMPLE, ROOT, runCli} from './run-cli.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-hostile-files-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))

/** A raw control or format character (LF aside). */
const RAW = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ufeff]/u

describe('files are checked for type and size before they are read', () => {
  const DEV_ZERO = 'is a character device (such as /dev/zero or a terminal), not a file'
  const cases: [string, string[], number, string][] = [
    ['--from-file /dev/zero', ['explain', '-A', '--from-file', '/dev/zero'], 3, `error: cannot read snapshot file "/dev/zero": ${DEV_ZERO}`],
    ['--policy-file /dev/zero', ['check', '-A', '--from-file', EXAMPLE, '--policy-file', '/dev/zero'], 3, `error: cannot read --policy-file /dev/zero: ${DEV_ZERO}`],
    ['--dataset /dev/zero', ['simulate', '--dataset', '/dev/zero'], 3, `error: --dataset: cannot read /dev/zero: ${DEV_ZERO}`],
    ['--kubeconfig /dev/zero', ['nodes', '--kubeconfig', '/dev/zero'], 5, `error: cannot read kubeconfig "/dev/zero": ${DEV_ZERO}`],
  ]
  for (const [name, args, code, line] of cases) {
    it(name, () => {
      const r = runCli(args)
      expect(r.stderr.split('\n')[0]).toBe(line)
      expect(r.code).toBe(code)
    })
  }

  it('a sparse snapshot of 300 MiB: refused by its size at once', () => {
    const p = path.join(tmp, 'sparse.yaml')
    fs.writeFileSync(p, '')
    fs.truncateSync(p, 300 * 1024 * 1024)
    const r = runCli(['explain', '-A', '--from-file', p])
    expect(r.stderr).toBe(`error: cannot read snapshot file "${p}": 300 MiB: larger than the 256 MiB a snapshot file may hold\n`)
    expect(r.code).toBe(3)
  })

  it('a certificate-authority that is /dev/zero: a kubeconfig error (exit 5), nothing sent', () => {
    const p = path.join(tmp, 'ca-zero.yaml')
    fs.writeFileSync(
      p,
      toYaml({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        clusters: [{name: 'k', cluster: {server: 'https://127.0.0.1:1', 'certificate-authority': '/dev/zero'}}],
        contexts: [{name: 'c', context: {cluster: 'k', user: 'u'}}],
        users: [{name: 'u', user: {token: 't'}}],
      }),
    )
    const r = runCli(['nodes', '--kubeconfig', p])
    expect(r.stderr).toBe(`error: cannot read certificate-authority "/dev/zero" of cluster "k" (${p}): ${DEV_ZERO}\n`)
    expect(r.code).toBe(5)
  })

  it('a dataset row of 10^20 nodes is refused naming its line (it ran for minutes)', () => {
    const p = path.join(tmp, 'huge.csv')
    fs.writeFileSync(p, 'name,z1,z2\nok,"3 6","3 6"\nhuge,"100000000000000000000 5","1 1"\n')
    const r = runCli(['simulate', '--dataset', p])
    expect(r.stderr).toBe(`error: ${p}:3: 100000000000000000000 nodes: more than the 5000 nodes a cluster holds (Kubernetes' documented limit)\n`)
    expect(r.code).toBe(3)
  })
})

describe('encoders escape C1 controls', () => {
  const snap = path.join(tmp, 'c1.yaml')
  fs.writeFileSync(
    snap,
    fs
      .readFileSync(EXAMPLE, 'utf8')
      .replaceAll('topology.kubernetes.io/zone: eu-west-1a', 'topology.kubernetes.io/zone: "zone-\\x9b2J"')
      .replaceAll(/zone: eu-west-1a$/gm, 'zone: "zone-\\x9b2J"'),
  )
  for (const args of [
    ['explain', '-A', '-o', 'json'],
    ['explain', '-A', '-o', 'yaml'],
    ['nodes', '-o', 'json'],
    ['nodes', '-o', 'yaml'],
    ['check', '-A', '-o', 'json'],
    ['simulate', '-A', '-o', 'json'],
    ['simulate', '-A', '-o', 'yaml'],
    ['simulate', '-A', '-o', 'csv'],
  ]) {
    it(args.join(' '), () => {
      const r = runCli([...args, '--from-file', snap])
      expect(r.code === 0 || r.code === 1, r.stderr).toBe(true)
      expect(r.stdout).toContain('zone-')
      expect(RAW.exec(r.stdout), r.stdout.slice(0, 2000)).toBeNull()
      if (args.includes('json') && args[0] !== 'simulate') expect(r.stdout).toContain('zone-\\u009b2J')
    })
  }

  it('the values stay exact: -o json and -o yaml read back to the zone name', () => {
    const j = JSON.parse(runCli(['nodes', '-o', 'json', '--from-file', snap]).stdout) as {zones: {name: string}[]}
    expect(j.zones.map((z) => z.name)).toContain('zone-\x9b2J')
    const y = parseYaml(runCli(['nodes', '-o', 'yaml', '--from-file', snap]).stdout) as typeof j
    expect(y.zones.map((z) => z.name)).toContain('zone-\x9b2J')
  })

  it('simulate --dataset -o csv --per-cluster: an OSC 52 clipboard write in a row name is printed inert', () => {
    const p = path.join(tmp, 'osc52.csv')
    fs.writeFileSync(p, 'name,z1,z2\n"\x1b]52;c;cHduZWQ=\x07",3 6,3 6\n"=HYPERLINK(""x"")",1 1,1 1\n')
    const r = runCli(['simulate', '--dataset', p, '-o', 'csv', '--per-cluster'])
    expect(r.code, r.stderr).toBe(0)
    expect(RAW.exec(r.stdout)).toBeNull()
    expect(r.stdout).toContain('^[]52;c;cHduZWQ=\\x07,')
    expect(r.stdout).toContain(`"'=HYPERLINK(""x"")",`)
  })
})

describe("kubeconfig's tokenFile (kubectl's key) is sent as the bearer token", () => {
  it('the Authorization header carries the file content, trimmed', async () => {
    const seen: (string | undefined)[] = []
    const server = http.createServer((req, res) => {
      seen.push(req.headers.authorization)
      res.writeHead(401, {'content-type': 'application/json'})
      res.end(JSON.stringify({kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401}))
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    try {
      const port = (server.address() as {port: number}).port
      fs.writeFileSync(path.join(tmp, 'token'), 'file-token-123\n')
      const cfg = path.join(tmp, 'token-config.yaml')
      fs.writeFileSync(
        cfg,
        toYaml({
          apiVersion: 'v1',
          kind: 'Config',
          'current-context': 'c',
          clusters: [{name: 'k', cluster: {server: `http://127.0.0.1:${port}`}}],
          contexts: [{name: 'c', context: {cluster: 'k', user: 'u'}}],
          users: [{name: 'u', user: {tokenFile: 'token'}}],
        }),
      )
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [BIN, 'nodes', '--kubeconfig', cfg, '--request-timeout', '10s'], {cwd: ROOT, stdio: 'ignore'})
        const kill = setTimeout(() => child.kill('SIGKILL'), 30_000)
        child.on('close', (c) => {
          clearTimeout(kill)
          resolve(c)
        })
      })
      expect(code).toBe(7)
      expect(seen.length).toBeGreaterThan(0)
      expect(new Set(seen)).toEqual(new Set(['Bearer file-token-123']))
    } finally {
      server.close()
    }
  })
})
