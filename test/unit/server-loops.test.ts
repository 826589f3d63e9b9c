// Issue 20 class 3 against a scripted API server on 127.0.0.1 (test/fixtures/fault-server.ts):
// a list whose continue token repeats ends after two requests with one line (before: it was
// paged forever, 20,700 requests in 60 s and 815 MB), and a watch stream without newlines ends
// once a line passes MAX_WATCH_LINE (before: memory grew without limit).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, afterEach, describe, expect, it} from 'vitest'
import {forEachPage, MAX_LIST_PAGES, type Page} from '../../src/cluster/client.js'
import {lineSplitter} from '../../src/cluster/http.js'
import {loadKubeConfig} from '../../src/cluster/kubeconfig.js'
import {readClusterState} from '../../src/cluster/live.js'
import {CliError, ExitCode} from '../../src/errors.js'
import {type FaultServer, faults, isList, startFaultServer} from '../fixtures/fault-server.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'topology-loops-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))
let srv: FaultServer | undefined
afterEach(async () => {
  await srv?.close()
  srv = undefined
})

const nodesList = isList(/^\/api\/v1\/nodes$/)

describe('paged lists end', () => {
  it('a continue token that comes back: two requests, exit 6, one line naming the list', async () => {
    srv = await startFaultServer([faults.repeatContinue(nodesList)])
    const ctx = await loadKubeConfig({kubeconfig: srv.kubeconfig(tmp), requestTimeoutMs: 10_000})
    const err = await readClusterState(ctx, {serviceNames: ['web']}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(CliError)
    expect((err as CliError).exitCode).toBe(ExitCode.UNREACHABLE)
    expect((err as CliError).message).toBe(
      'list nodes: page 2 came with the continue token "same-token" of an earlier page; the API server\'s list does not end (stopped paging): check the server, or the proxy in front of it',
    )
    expect(srv.count(nodesList)).toBe(2)
  })

  it(`a new token on every page: stops after MAX_LIST_PAGES (${MAX_LIST_PAGES}) pages`, async () => {
    let calls = 0
    const fetch = async (): Promise<Page<never>> => ({items: [], resourceVersion: '1', continue: `t${++calls}`})
    await expect(forEachPage(fetch, () => {}, undefined, 'list events')).rejects.toThrow(`list events: more than ${MAX_LIST_PAGES} pages`)
    expect(calls).toBe(MAX_LIST_PAGES)
  })

  it('a long token is shown cut', async () => {
    const fetch = async (): Promise<Page<never>> => ({items: [], resourceVersion: '1', continue: 'k'.repeat(100_000)})
    const err = await forEachPage(fetch, () => {}).catch((e: Error) => e)
    expect((err as Error).message.length).toBeLessThan(300)
  })
})

describe('watch lines are bounded', () => {
  it('splits chunks into lines, a line across many chunks included', () => {
    const split = lineSplitter(10)
    expect(split('ab')).toEqual([])
    expect(split('c\nde\n\nf')).toEqual(['abc', 'de', ''])
    expect(split('g\n')).toEqual(['fg'])
  })
  it('throws once a line passes the limit, across chunks too', () => {
    const split = lineSplitter(10)
    expect(split('123456')).toEqual([])
    expect(() => split('78901')).toThrow('the watch stream sent more than 0 MiB without a newline')
    expect(() => lineSplitter(4)('12345\n')).toThrow(/without a newline/)
  })

  it('a watch streaming 40 MiB without a newline ends with that error (the 16 MiB limit)', async () => {
    srv = await startFaultServer([faults.noNewlineWatch(40 << 20)])
    const ctx = await loadKubeConfig({kubeconfig: srv.kubeconfig(tmp), requestTimeoutMs: 10_000})
    const err = await new Promise<unknown>((resolve) => {
      void ctx.watch!('/api/v1/nodes', {}, () => {}, resolve)
    })
    expect(String((err as Error).message)).toBe('the watch stream sent more than 16 MiB without a newline: not a Kubernetes watch (ended; is a proxy in the way?)')
  })
})
