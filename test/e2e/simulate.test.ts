// simulate against the live control plane gives the same result as on a snapshot of it.
import {spawnSync} from 'node:child_process'
import {beforeAll, describe, expect, it} from 'vitest'
import {BIN, ROOT} from '../cli/run-cli.js'
import {cluster} from './fixtures.js'
import {buildExample} from './example-build.js'

function cli(args: string[], input = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], {cwd: ROOT, env: process.env, encoding: 'utf8', maxBuffer: 1 << 30, input, timeout: 120_000})
  return {stdout: r.stdout, stderr: r.stderr, code: r.status}
}

const c = cluster()
let ns = ''

describe('simulate on the live control plane', () => {
  beforeAll(async () => {
    ns = await c.createNamespace('simulate')
    await buildExample(c, ns)
  })

  it.each([
    [['svc/checkout']],
    [['svc/cart', '--without-zone', 'eu-west-1c']],
    [['svc/sessions', '--replicas', '9', '--traffic', 'eu-west-1a=0.5,eu-west-1b=0.25,eu-west-1c=0.25']],
    [['svc/search', '--rollout', 'maxSurge=25%,maxUnavailable=0', '--disruption']],
  ])('%j: live equals the snapshot of it', (args) => {
    const live = cli(['simulate', ...args, '-n', ns, '-o', 'json'])
    expect(live.stderr).toBe('')
    expect(live.code).toBe(0)
    const snap = cli(['snapshot', '-n', ns])
    expect(snap.code).toBe(0)
    const replay = cli(['simulate', ...args, '-n', ns, '--from-file', '-', '-o', 'json'], snap.stdout)
    expect(replay.code).toBe(0)
    const a = JSON.parse(live.stdout)
    const b = JSON.parse(replay.stdout)
    // Where the input came from is the only thing that may differ.
    expect(a.source).toBe('live')
    expect(b.source).toBe('snapshot')
    expect({...b, source: 'x'}).toEqual({...a, source: 'x'})
    // Not vacuous: the strategies were scored.
    expect(JSON.stringify(a)).toContain('upstream-auto')
  })

  it('the read-only identity (no Nodes) needs a traffic model that does not come from node CPU', () => {
    const r = cli(['simulate', 'svc/catalog', '-n', ns, '--context', 'readonly', '-o', 'json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('cannot list nodes')
    expect(r.stderr).toContain('error: the cpu traffic model needs Ready nodes')
    const ok = cli(['simulate', 'svc/catalog', '-n', ns, '--context', 'readonly', '--traffic', 'eu-west-1a=1,eu-west-1b=1,eu-west-1c=1', '-o', 'json'])
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout).source).toBe('live')
  })
})
