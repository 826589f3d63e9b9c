// Issue 20, class 4 (sizes): tables of any length (Math.max(...rows) overflowed V8's stack above
// ~125,000 rows: exit 70), files checked for type and size before they are read and read only
// up to a cap (cluster/files.ts), rollouts bounded (a Deployment of 175,008,532 replicas spun
// simulate/rollout.ts rollout() for ever).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {FILE_LIMITS, FileLimitError, describeFileError, readFileBounded, readStreamBounded, readTextBounded} from '../../src/cluster/files.js'
import {formatTable} from '../../src/render/table.js'
import {MAX_ROLLOUT_WORK, rollout} from '../../src/simulate/rollout.js'
import {WhatIfError} from '../../src/simulate/whatif.js'
import {nodesIn, service, slice, spread, state} from './builders.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-sizes-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))

describe('formatTable', () => {
  it('lays out 200,000 rows (a spread of that many arguments threw RangeError)', () => {
    const rows = Array.from({length: 200_000}, (_, i) => [`node-${i}`, 'zone-a', String(i)])
    const text = formatTable(['NAME', 'ZONE', 'N'], rows)
    const lines = text.split('\n')
    expect(lines).toHaveLength(200_001)
    expect(lines[0]).toBe('NAME          ZONE     N')
    expect(lines[200_000]).toBe('node-199999   zone-a   199999')
  })
  it('rows of different lengths: each column as wide as its widest cell', () => {
    expect(formatTable(null, [['a'], ['bbb', 'c'], ['d', 'e', 'f']])).toBe('a\nbbb   c\nd     e   f')
  })
})

describe('readFileBounded: type and size first, the read capped', () => {
  const refused = (p: string, kind: Parameters<typeof readFileBounded>[1] = 'snapshot', limit?: number) => {
    try {
      readFileBounded(p, kind, limit)
    } catch (e) {
      return describeFileError(e)
    }
    throw new Error('expected a refusal')
  }
  it('/dev/zero (a character device) is refused without reading it', () => {
    expect(refused('/dev/zero')).toBe('is a character device (such as /dev/zero or a terminal), not a file')
  })
  it('a directory is refused', () => {
    expect(refused(tmp)).toBe('is a directory')
  })
  it('a sparse file of 64 GiB is refused by its size, not read', () => {
    const p = path.join(tmp, 'sparse')
    fs.writeFileSync(p, '')
    fs.truncateSync(p, 64 * 1024 ** 3)
    expect(refused(p)).toBe('65536 MiB: larger than the 256 MiB a snapshot file may hold')
    expect(refused(p, 'token')).toBe('65536 MiB: larger than the 1 MiB a token file may hold')
  })
  it('one byte over the cap is refused; at the cap it is read', () => {
    const p = path.join(tmp, 'eleven')
    fs.writeFileSync(p, 'x'.repeat(11))
    expect(refused(p, 'policy', 10)).toBe('11 bytes: larger than the 1 MiB a policy file may hold')
    expect(readFileBounded(p, 'policy', 11).toString()).toBe('x'.repeat(11))
    expect(readTextBounded(p, 'policy')).toBe('x'.repeat(11))
  })
  it('an empty file and a file of several chunks read exactly', () => {
    const empty = path.join(tmp, 'empty')
    fs.writeFileSync(empty, '')
    expect(readTextBounded(empty, 'kubeconfig')).toBe('')
    const big = path.join(tmp, 'big')
    const text = 'héllo\n'.repeat(500_000)
    fs.writeFileSync(big, text)
    expect(readTextBounded(big, 'snapshot')).toBe(text)
  })
  it('a missing file is the fs error', () => {
    expect(() => readFileBounded(path.join(tmp, 'nope'), 'snapshot')).toThrow(expect.objectContaining({code: 'ENOENT'}))
    expect(new FileLimitError('x')).toBeInstanceOf(Error)
  })
  it('a stream (stdin) is read up to the cap, and refused one byte past it', async () => {
    async function* chunks(total: number) {
      for (let sent = 0; sent < total; sent += 65_536) yield Buffer.alloc(Math.min(65_536, total - sent), 0x61)
    }
    expect((await readStreamBounded(chunks(FILE_LIMITS.token), 'token')).length).toBe(FILE_LIMITS.token)
    await expect(readStreamBounded(chunks(FILE_LIMITS.token + 1), 'token')).rejects.toThrowError(new FileLimitError('more than 1 MiB: larger than the 1 MiB a token file may hold'))
  })
  it('each kind has a cap below the longest string V8 holds', () => {
    for (const limit of Object.values(FILE_LIMITS)) expect(limit).toBeLessThan(2 ** 29 - 24)
  })
})

describe('rollout is bounded', () => {
  const svc = service('web')
  const st = state(nodesIn(['a', 'b']), [svc], [slice('web', spread({a: 2, b: 2}))])
  it('175,008,532 replicas (a fuzzed snapshot): refused at once, not simulated pod by pod', () => {
    expect(() => rollout(st, svc, {kind: 'Deployment', type: 'RollingUpdate', replicas: 175_008_532, maxSurge: '25%', maxUnavailable: 0})).toThrowError(
      new WhatIfError("--rollout: 175008532 replicas: more than the 150000 Pods a cluster holds (Kubernetes' documented limit); simulate a smaller rollout"),
    )
    expect(() => rollout(st, svc, {kind: 'Deployment', type: 'Recreate', replicas: 150_001})).toThrow(WhatIfError)
  })
  it('a rollout of more work than simulated is refused before it starts', () => {
    const many = state(nodesIn(['a', 'b']), [svc], [slice('web', spread({a: 1000, b: 1000}))])
    expect(() => rollout(many, svc, {kind: 'Deployment', type: 'RollingUpdate', replicas: 2000, maxSurge: 1, maxUnavailable: 0})).toThrowError(
      new WhatIfError(
        `--rollout: 2000 replicas, 1 at a time (maxSurge 1, maxUnavailable 0), take about 6006 steps, each a copy of 4003 nodes, endpoints and pods: more than the ${MAX_ROLLOUT_WORK} (steps times copies) a simulation runs; raise maxSurge or maxUnavailable, or roll fewer replicas`,
      ),
    )
    // 25% at a time: a handful of steps; a scale-up from 4 to 400 one at a time: few rounds
    expect(rollout(many, svc, {kind: 'Deployment', type: 'RollingUpdate', replicas: 2000, maxSurge: '25%', maxUnavailable: '25%'}).length).toBeLessThan(20)
    expect(rollout(st, svc, {kind: 'Deployment', type: 'RollingUpdate', replicas: 400, maxSurge: 1, maxUnavailable: 0}).length).toBeLessThan(20)
  })
})
