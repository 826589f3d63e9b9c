// Issue 20, class 7: an error message of megabytes (a server's or a plugin's text) reached stderr
// as one 10 MB line. reportError prints at most 8,192 characters of it, says how much is left
// out, and prints everything with --debug.
import {afterEach, describe, expect, it, vi} from 'vitest'
import {reportError} from '../../src/entry/report-error.js'
import {CliError, ExitCode} from '../../src/errors.js'

function stderrOf(f: () => unknown): string {
  let out = ''
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk)
    return true
  })
  try {
    f()
  } finally {
    spy.mockRestore()
  }
  return out
}

afterEach(() => vi.restoreAllMocks())

describe('reportError: one line of bounded length', () => {
  it('a 10 MB message is cut to 8,192 characters and says how many more there were', () => {
    const message = `the server said: ${'x'.repeat(10_000_000)}`
    let code = 0
    const text = stderrOf(() => (code = reportError(new CliError(message, ExitCode.UNREACHABLE), false)))
    expect(code).toBe(ExitCode.UNREACHABLE)
    expect(text.split('\n')).toHaveLength(2)
    expect(text.length).toBeLessThan(8_300)
    expect(text.endsWith(`… (${message.length - 8192} more characters; --debug prints them)\n`)).toBe(true)
  })
  it('a short message is untouched; escapes still apply', () => {
    expect(stderrOf(() => reportError(new CliError('bad \x1b[2J name', ExitCode.INPUT), false))).toBe('error: bad ^[[2J name\n')
  })
  it('--debug prints all of it', () => {
    const message = 'y'.repeat(20_000)
    expect(stderrOf(() => reportError(new CliError(message, ExitCode.INPUT), true)).split('\n')[0]).toBe(`error: ${message}`)
  })
})
