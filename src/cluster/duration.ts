// kubectl's --request-timeout values: parsing a Go duration into milliseconds, and writing one
// back for messages.

import {CliError, ExitCode} from '../errors.js'

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
}

/**
 * The longest timeout: Node.js timers hold a signed 32-bit count of milliseconds (24.8 days);
 * longer ones fire at once after a TimeoutOverflowWarning, and AbortSignal.timeout refuses them.
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1

/**
 * Parses a kubectl --request-timeout value into milliseconds: "0" (no timeout), a bare
 * integer (seconds, as kubectl does), or a Go duration such as "30s", "1m", "500ms",
 * "1h2m3.5s". Anything else is a USAGE error.
 */
export function parseDuration(value: string, flag = '--request-timeout'): number {
  const s = value.trim()
  const bad = () => new CliError(`invalid ${flag} value "${value}": use a duration such as 30s, 1m or 500ms (0 means no timeout)`, ExitCode.USAGE)
  if (s === '') throw bad()
  const tooLong = () =>
    new CliError(
      `invalid ${flag} value "${value}": at most ${formatDuration(MAX_TIMEOUT_MS)} (2^31-1 ms, the longest timer Node.js keeps; kubectl has no such limit, use 0 for no timeout)`,
      ExitCode.USAGE,
    )
  if (/^\d+$/.test(s)) {
    if (Number(s) * 1000 > MAX_TIMEOUT_MS) throw tooLong()
    return Number(s) * 1000
  }
  if (s === '0') return 0
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y
  let pos = 0
  let total = 0
  while (pos < s.length) {
    re.lastIndex = pos
    const m = re.exec(s)
    if (!m) throw bad()
    total += Number(m[1]) * UNIT_MS[m[2]!]!
    pos = re.lastIndex
  }
  if (!Number.isFinite(total)) throw bad()
  if (total > MAX_TIMEOUT_MS) throw tooLong()
  // AbortSignal.timeout needs whole milliseconds; round sub-millisecond values up so a
  // non-zero duration never turns into "no timeout".
  return total > 0 ? Math.max(1, Math.round(total)) : 0
}

/** 30000 -> "30s", 300 -> "300ms", 90000 -> "1m30s" (Go-like, for messages). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`
  const h = Math.floor(ms / 3_600_000)
  const m = Math.floor((ms % 3_600_000) / 60_000)
  const s = (ms % 60_000) / 1000
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s || !(h || m) ? `${s}s` : ''}`
}
