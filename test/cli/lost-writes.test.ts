// Issue 20 class 2: a write the server stores whose answer is lost. The built CLI against the
// scripted API server (test/fixtures/fault-server.ts), which stores the change and then drops the
// connection, cuts the answer short, or never answers (and the process is killed with SIGKILL).
// Before: apply said "written: none", exited 8 and deleted its journal; reset then found
// nothing to reset and the change stayed. Now the journal keeps the record, apply re-reads to
// tell, says "may have been written" (exit 9) when it cannot, and reset restores.
import type {ChildProcess} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {type FaultServer, faults, on, runCliAsync, startFaultServer} from '../fixtures/fault-server.js'

let tmp = ''
let srv: FaultServer
let down = false
beforeEach(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-lost-'))
  down = false
  srv = await startFaultServer()
  // While `down`, every connection is closed unanswered (the API server became unreachable).
  srv.faults.push((_r, res) => (down ? (res.socket?.destroy(), true) : false))
})
afterEach(async () => {
  await srv.close()
  fs.rmSync(tmp, {recursive: true, force: true})
})

const patchService = on('PATCH', /^\/api\/v1\/namespaces\/shop\/services\/web$/)
type OnStart = (child: ChildProcess) => void
const run = (args: string[], onStart?: OnStart) =>
  runCliAsync([...args, '-n', 'shop', '--kubeconfig', srv.kubeconfig(tmp), '--request-timeout', '5s'], {
    env: {XDG_STATE_HOME: path.join(tmp, 'state')},
    ...(onStart ? {onStart} : {}),
  })
const apply = (onStart?: OnStart) => run(['apply', 'svc/web', '--mode', 'PreferClose', '--yes'], onStart)
const reset = () => run(['reset', 'svc/web', '--yes'])

async function resetRestores(): Promise<void> {
  srv.faults = srv.faults.filter((f) => f.name !== 'lost')
  down = false
  const r = await reset()
  expect(r.stderr).toBe('')
  expect(r.code).toBe(0)
  expect(r.stdout).toContain('Restored: service/web.')
  expect(srv.service.spec.trafficDistribution).toBeUndefined()
}

describe('a write whose answer is lost', () => {
  it('dropped, and the server unreachable after: "may have been written", exit 9, journal kept, reset restores', async () => {
    const lost = faults.lostAnswer(patchService, 'drop', () => (down = true))
    Object.defineProperty(lost, 'name', {value: 'lost'})
    srv.faults.unshift(lost)
    const r = await apply()
    expect(srv.service.spec.trafficDistribution).toBe('PreferClose') // stored
    expect(r.code).toBe(9)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(
      /^error: the answer to the write of service\/web was lost \(.*connection reset by peer.*\): service\/web may have been written \(a re-read could not tell\); written: none; not written: none\. Check with: kubectl get service web -n shop -o yaml\. The journal keeps the earlier values; to undo, run kubectl topology reset svc\/web -n shop\n$/,
    )
    const journalDir = path.join(tmp, 'state', 'kubectl-topology', 'journal')
    const files = fs.readdirSync(journalDir, {recursive: true}).filter((f) => String(f).endsWith('web.json'))
    expect(files).toHaveLength(1)
    const journal = JSON.parse(fs.readFileSync(path.join(journalDir, String(files[0])), 'utf8'))
    expect(journal.objects).toMatchObject([{kind: 'Service', name: 'web', state: 'unknown', before: {trafficDistribution: null}, after: {trafficDistribution: 'PreferClose'}}])
    await resetRestores()
  }, 60_000)

  it('cut short, the server still there: a re-read shows the change stored, exit 0 with a warning, reset restores', async () => {
    const lost = faults.lostAnswer(patchService, 'cut')
    Object.defineProperty(lost, 'name', {value: 'lost'})
    srv.faults.unshift(lost)
    const r = await apply()
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^Warning: the answer to the write of service\/web was lost \(.*\); a re-read shows the server holds the change \(service\/web\)\n$/)
    expect(r.stdout).toContain('Applied: service/web. Undo with: kubectl topology reset svc/web -n shop')
    await resetRestores()
  }, 60_000)

  it('a 500 on the write, not stored: a re-read tells, exit 8 saying so', async () => {
    const status = {kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'InternalError', code: 500, message: 'Internal error occurred: failed calling webhook'}
    srv.faults.unshift(faults.status(patchService, 500, status))
    const r = await apply()
    expect(r.code).toBe(8)
    expect(r.stderr).toMatch(
      /^error: the write of service\/web failed with HTTP 500, which does not say whether it was stored \(Error from server \(InternalError\): Internal error occurred: failed calling webhook\); a re-read shows service\/web was not stored; written: none; failed: none; not written: service\/web\. Each object is either as it was or fully changed\.\n$/,
    )
  }, 60_000)

  it('with --dry-run=server nothing can have been stored: a lost answer is a failure (exit 8), not "may have been written"', async () => {
    srv.faults.unshift(faults.lostAnswer(patchService, 'drop'))
    const r = await run(['apply', 'svc/web', '--mode', 'PreferClose', '--dry-run=server'])
    expect(r.code).toBe(8)
    expect(r.stderr).not.toMatch(/may have been written/)
    expect(srv.service.spec.trafficDistribution).toBeUndefined()
  }, 60_000)

  it('killed with SIGKILL after the server received the write: the journal written before the request lets reset restore', async () => {
    let child: ChildProcess | undefined
    const lost = faults.lostAnswer(patchService, 'hang', () => child?.kill('SIGKILL'))
    Object.defineProperty(lost, 'name', {value: 'lost'})
    srv.faults.unshift(lost)
    const r = await apply((c: ChildProcess) => {
      child = c
    })
    expect(r.signal).toBe('SIGKILL')
    expect(srv.service.spec.trafficDistribution).toBe('PreferClose')
    await resetRestores()
  }, 60_000)
})

describe('a write refused outright: every error is one line (issue 20 class 7)', () => {
  // Before (152fd83^): "...\n  written: none; ..." and "...\n  restored: ...", two lines.
  const forbidden = {kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message: 'services "web" is forbidden: by a webhook'}

  it('apply: one line naming what was written and what was not', async () => {
    srv.faults.unshift(faults.status(patchService, 403, forbidden))
    const r = await apply()
    expect(r.code, r.stderr).toBe(7) // FORBIDDEN (docs/exit-codes.md)
    expect(r.stderr.split('\n').filter((l) => l !== '')).toHaveLength(1)
    expect(r.stderr).toMatch(/^error: .*forbidden.*; written: none; failed: .*; not written: .*\. Each object is either as it was or fully changed\.\n$/)
    expect(r.stderr).not.toContain('\\n')
  }, 60_000)

  it('reset: one line naming what was restored and what was not', async () => {
    expect((await apply()).code).toBe(0)
    srv.faults.unshift(faults.status(patchService, 403, forbidden))
    const r = await reset()
    expect(r.code, r.stderr).toBe(7)
    expect(
      r.stderr.split('\n').filter((l) => l !== ''),
      r.stderr,
    ).toHaveLength(1)
    expect(r.stderr).toMatch(/^error: .*forbidden.*; restored: none; not restored: service\/web\. Run reset again to finish\.\n$/)
    expect(r.stderr).not.toContain('\\n')
  }, 60_000)
})
