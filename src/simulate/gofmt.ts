// Go's strconv.FormatFloat(x, 'f', prec, 64), which the KEP-2004 evaluation tool prints its figures
// with: the exact binary value rounded to `prec` decimals, ties to even. Number#toFixed rounds ties
// away from zero, so the two differ on values exactly halfway (0.03125 -> Go "0.0312", toFixed "0.0313").

/** The exact decimal expansion of |x| (|x| < 1e21): toFixed(100) is exact to 100 decimals. */
function exactDigits(x: number): {int: string; frac: string} {
  const s = Math.abs(x).toFixed(100)
  const dot = s.indexOf('.')
  return {int: s.slice(0, dot), frac: s.slice(dot + 1)}
}

export function goFormatFixed(x: number, prec: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'NaN' : x > 0 ? '+Inf' : '-Inf'
  if (Math.abs(x) >= 1e21) return x.toFixed(prec)
  if (Object.is(x, -0)) return `-${(0).toFixed(prec)}` // Go keeps the sign of -0, toFixed drops it
  // toFixed rounds the exact binary value to nearest too; the two differ only on an exact tie.
  // x = M * 2^E (M odd) is a tie at `prec` decimals iff E = -(prec + 1), i.e. iff x * 2^(prec + 1)
  // (exact: a power of two) is an odd integer. Ties are rare; toFixed is about 10x faster than the
  // exact path below, and `simulate --dataset --per-cluster` formats seven figures per row and strategy.
  const t = Math.abs(x) * 2 ** (prec + 1)
  if (!(Number.isInteger(t) && t % 2 === 1)) return x.toFixed(prec)
  return goFormatExact(x, prec)
}

/** goFormatFixed by the exact decimal expansion (what it does on a tie; kept whole for the tests). */
export function goFormatExact(x: number, prec: number): string {
  const negative = x < 0 || Object.is(x, -0)
  const {int, frac} = exactDigits(x)
  const digits = (int + frac.slice(0, prec)).split('').map(Number)
  const next = frac.charCodeAt(prec) - 48
  const rest = frac.slice(prec + 1)
  const last = digits.length > 0 ? (digits[digits.length - 1] as number) : 0
  // toFixed(100) rounded beyond the 100th decimal: a value that small past `prec` is never a tie.
  const up = next > 5 || (next === 5 && (/[1-9]/.test(rest) || last % 2 === 1))
  if (up) {
    let i = digits.length - 1
    while (i >= 0 && digits[i] === 9) digits[i--] = 0
    if (i < 0) digits.unshift(1)
    else digits[i] = (digits[i] as number) + 1
  }
  const all = digits.join('')
  const intLen = all.length - prec
  const out = prec > 0 ? `${all.slice(0, intLen)}.${all.slice(intLen)}` : all
  return (negative ? '-' : '') + out
}
