// Issue 20 class 1: text from a server or a plugin is cut to MAX_SHOWN characters before any
// per-character work, and every pattern over it is linear. Before, scrub() backtracked
// quadratically over a long run (a 100 KB one-line error body took 16 s, 10 MB never ended) and
// the whole body reached the message. The inputs below are long enough that the old code's
// messages fail the length checks (the 2 MB ones hang it: vitest cannot interrupt synchronous code).
import {describe, expect, it} from 'vitest'
import {clip, MAX_SHOWN, scrub, toCliError} from '../../src/cluster/errors.js'
import {ExitCode} from '../../src/errors.js'

const ctx = {server: 'https://10.0.0.1:6443', contextName: 'prod', requestTimeoutMs: 2000}
const apiException = (code: number, body: unknown) => Object.assign(new Error(`HTTP-Code: ${code}`), {code, body, headers: {}})

describe('clip', () => {
  it('keeps short text, cuts long text and counts the UTF-8 bytes left out', () => {
    expect(clip('abc', 5)).toBe('abc')
    expect(clip('abcdefgh', 5)).toBe('abcde... (3 bytes more)')
    expect(clip('abcdé', 4)).toBe('abcd... (2 bytes more)')
  })
  it('never splits a surrogate pair', () => {
    expect(clip('ab😀cd', 3)).toBe('ab... (6 bytes more)')
  })
})

describe('scrub on long text', () => {
  it('cuts to the limit and still redacts a credential that crosses the cut', () => {
    const s = scrub(`${'x '.repeat(20)}token=${'s'.repeat(5000)}`, 60)
    expect(s).not.toMatch(/sss/)
    expect(s).toMatch(/token=<redacted>/)
  })
  it.each([
    ['one word', 'a'.repeat(2_000_000)],
    ['a URL-like run without @', `https://${'h'.repeat(2_000_000)}`],
    ['spaces without a newline', `a${' '.repeat(2_000_000)}b`],
    ['user:password without @', `x://u:${'p'.repeat(2_000_000)}`],
  ])('%s of 2 MB: a message of at most 4 KB saying how much was left out', (_, text) => {
    const s = scrub(text)
    expect(s.length).toBeLessThanOrEqual(4 * MAX_SHOWN + 40)
    expect(s).toMatch(/\.\.\. \(\d+ bytes more\)$/)
  })
})

describe('toCliError on long server and plugin texts', () => {
  it('a 500 whose Status message is 100 KB on one line: 1 KB of it, exit 6, not a timeout', () => {
    const err = toCliError(apiException(500, JSON.stringify({kind: 'Status', reason: 'InternalError', message: 'a'.repeat(100_000)})), 'list nodes', ctx)
    expect(err.exitCode).toBe(ExitCode.UNREACHABLE)
    expect(err.message).toMatch(/^Error from server \(InternalError\): a{1024}\.\.\. \(98976 bytes more\)$/)
    expect(err.message).not.toMatch(/timed out/)
  })
  it('a 10 MB plain-text error body', () => {
    const err = toCliError(apiException(502, 'w'.repeat(10_000_000)), 'list nodes', ctx)
    expect(err.message.length).toBeLessThan(1200)
    expect(err.message).toMatch(/^Error from server \(HTTP 502\): w+\.\.\. \(9998976 bytes more\)$/)
  })
  it('a long reason is cut too', () => {
    const err = toCliError(apiException(503, {reason: 'r'.repeat(50_000), message: 'busy'}), 'list nodes', ctx)
    expect(err.message.length).toBeLessThan(1200)
  })
  it('an exec plugin failing with one 1 MB stderr line', () => {
    const err = toCliError(new Error(`\n\n${'e'.repeat(1_000_000)}\nsecond line`), 'list nodes', {...ctx, execCommand: 'aws'})
    expect(err.exitCode).toBe(ExitCode.KUBECONFIG)
    expect(err.message).toMatch(/^getting credentials for context "prod": exec plugin "aws" failed: e{1024}\.\.\. \(998976 bytes more\)$/)
  })
})

describe('reportError', () => {
  it('prints at most 8 KB of a 10 MB message, on one line', async () => {
    const {reportError} = await import('../../src/entry/report-error.js')
    const {CliError} = await import('../../src/errors.js')
    const lines: string[] = []
    const write = process.stderr.write
    process.stderr.write = ((s: string) => lines.push(s)) as never
    try {
      expect(reportError(new CliError('m'.repeat(10_000_000), ExitCode.INPUT), false)).toBe(ExitCode.INPUT)
      expect(reportError(new Error(`${'i'.repeat(10_000_000)}\nsecond`), false)).toBe(ExitCode.INTERNAL)
    } finally {
      process.stderr.write = write
    }
    expect(lines).toHaveLength(2)
    for (const l of lines) expect(l.length).toBeLessThan(8400)
    expect(lines[0]).toMatch(/^error: m+… \(9991808 more characters; --debug prints them\)\n$/)
  })
})
