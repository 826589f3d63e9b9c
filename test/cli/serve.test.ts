// serve's usage errors and start-up failures, with the built CLI: one line, the documented
// exit code, and nothing bound before the API server answered.
import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli} from './run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'kt-serve-'))
const kubeconfig = join(dir, 'kubeconfig')
writeFileSync(
  kubeconfig,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{name: 'k', cluster: {server: 'http://127.0.0.1:1'}}],
    contexts: [{name: 'c', context: {cluster: 'k', user: 'u'}}],
    users: [{name: 'u', user: {token: 't'}}],
  }),
)
const run = (...args: string[]) => runCli(['serve', ...args, '--request-timeout', '5s'], {env: {KUBECONFIG: kubeconfig}})
const errors = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('error:'))

describe('serve', () => {
  it('refuses a --listen without HOST:PORT (exit 2, one line)', () => {
    const r = run('--listen', '9780')
    expect(r.code).toBe(2)
    expect(errors(r.stderr)).toEqual(['error: --listen: invalid value "9780": expected HOST:PORT, e.g. 127.0.0.1:9780, [::1]:9780 or :9780 (every address)'])
  })
  it('refuses a context given twice (exit 2)', () => {
    const r = run('--context', 'c', '--context', 'c')
    expect(r.code).toBe(2)
    expect(errors(r.stderr)).toEqual(['error: --context "c" is given twice: name each context once'])
  })
  it('an unknown context is exit 5', () => {
    const r = run('--context', 'nope')
    expect(r.code).toBe(5)
    expect(errors(r.stderr)).toHaveLength(1)
  })
  it('an unreachable API server is exit 6, before anything listens', () => {
    const r = run('--listen', '127.0.0.1:0')
    expect(r.code).toBe(6)
    expect(errors(r.stderr)).toHaveLength(1)
    expect(errors(r.stderr)[0]).toMatch(/127\.0\.0\.1:1/)
    expect(r.stderr).not.toContain('serving http://')
  })
})
