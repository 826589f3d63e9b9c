// Port of k8s.io/apimachinery pkg/api/resource/quantity.go (k8s.io/apimachinery v0.36.3, from
// Kubernetes v1.36.3): the subset the topology cache needs, allocatable CPU.
//
// Mirrors `ParseQuantity` + `Quantity.MilliValue()`:
//  * grammar: optional sign, digits, optional "." and digits, optional suffix; the suffix is
//    a decimal SI suffix (n u m "" k M G T P E), a binary SI suffix (Ki Mi Gi Ti Pi Ei) or a
//    decimal exponent (e3, E-2, e+6). "1E" is exa (1e18), "1e" is an error, as in Go.
//  * the exact value is rounded UP (away from zero) to a whole nano unit, and capped at
//    2^63-1 units, as ParseQuantity does.
//  * MilliValue() rounds any fraction of a milli up (away from zero: Go's int64 fast path,
//    which canonical API-server strings take, rounds negatives down to -1 and so on).
// Values are kept as exact BigInt nano units, so sums are exact like Quantity.Add.
//
// Deliberate differences from Go (they only matter for hand-written snapshots; the API server
// always returns canonical strings): undefined/null/"" parse to 0 (Go: "" is an error, a
// missing allocatable is the zero Quantity), and a mantissa without any digit ("-", ".", "+")
// is an error (Go would read it as 0).
//
// Negative quantities parse to negative numbers. The API server rejects negative allocatable
// CPU, so they only come from snapshots; setNodes (endpointslice/topologycache/topologycache.ts)
// treats a node with negative CPU like a node with zero CPU.

/** A quantity that does not parse (quantity.go `ParseQuantity` returns an error, e.g. `ErrFormatWrong`). */
export class QuantityError extends Error {
  readonly value: string
  constructor(value: string, detail?: string) {
    super(`invalid quantity ${JSON.stringify(value)}: ${detail ?? 'expected a number with an optional suffix such as 4, 1500m, 2Ki'}`)
    this.name = 'QuantityError'
    this.value = value
  }
}

const SUFFIX_CHARS = 'eEinumkKMGTP'
const DECIMAL_SUFFIXES: Record<string, number> = {n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18}
const BINARY_SUFFIXES: Record<string, number> = {Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60}
const NANO_PER_UNIT = 1_000_000_000n
const NANO_PER_MILLI = 1_000_000n
/** Go caps quantities at maxAllowed = 2^63-1 units. */
const MAX_NANO = ((1n << 63n) - 1n) * NANO_PER_UNIT

/** A decimal digit, as quantity.go's `parseQuantityString` scans them. */
function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9'
}

/** Integer division rounded up, for non-negative operands (ours). */
function ceilDiv(a: bigint, b: bigint): bigint {
  // a >= 0, b > 0
  return (a + b - 1n) / b
}

/**
 * The quantities parsed so far (a cluster has a few distinct CPU and memory strings, read once
 * per Node in every explained state: plan explains thousands of states of each Service over the
 * same Nodes). Bounded; only values that parse are kept, so a bad one throws every time.
 */
const parsed = new Map<string, bigint>()
const PARSED_MAX = 4096

/** quantity.go `ParseQuantity`: a quantity string as exact nano units (rounded up in magnitude). */
function parseQuantityNano(str: string): bigint {
  let v = parsed.get(str)
  if (v === undefined) {
    v = parseQuantityNanoOnce(str)
    if (parsed.size >= PARSED_MAX) parsed.clear()
    parsed.set(str, v)
  }
  return v
}

function parseQuantityNanoOnce(str: string): bigint {
  const end = str.length
  let pos = 0
  let positive = true
  if (str[0] === '-') {
    positive = false
    pos++
  } else if (str[0] === '+') {
    pos++
  }
  const numStart = pos
  while (pos < end && isDigit(str[pos])) pos++
  const num = str.slice(numStart, pos)
  let denom = ''
  if (pos < end && str[pos] === '.') {
    pos++
    const denomStart = pos
    while (pos < end && isDigit(str[pos])) pos++
    denom = str.slice(denomStart, pos)
  }
  if (num === '' && denom === '') throw new QuantityError(str)

  const suffixStart = pos
  while (pos < end && SUFFIX_CHARS.includes(str[pos] as string)) pos++
  if (pos < end && (str[pos] === '-' || str[pos] === '+')) pos++
  while (pos < end && isDigit(str[pos])) pos++
  if (pos !== end) throw new QuantityError(str)
  const suffix = str.slice(suffixStart)

  let base: 2 | 10
  let exponent: number
  if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    base = 10
    exponent = DECIMAL_SUFFIXES[suffix] as number
  } else if (Object.hasOwn(BINARY_SUFFIXES, suffix)) {
    base = 2
    exponent = BINARY_SUFFIXES[suffix] as number
  } else if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E') && /^[+-]?\d+$/.test(suffix.slice(1))) {
    base = 10
    const e = BigInt(suffix.slice(1))
    // Anything beyond these bounds is capped or rounded to one nano unit anyway.
    exponent = Number(e > 400n ? 400n : e < -400n - BigInt(num.length + denom.length) ? -400n - BigInt(num.length + denom.length) : e)
  } else {
    throw new QuantityError(str, `unknown suffix ${JSON.stringify(suffix)}; expected a number with an optional suffix such as 4, 1500m, 2Ki`)
  }

  const mantissa = BigInt((num + denom).replace(/^0+(?=\d)/, '') || '0')
  let magnitude: bigint
  if (mantissa === 0n) {
    magnitude = 0n
  } else if (base === 10) {
    const nanoExp = exponent - denom.length + 9
    if (nanoExp >= 0) {
      magnitude = nanoExp > 40 ? MAX_NANO + 1n : mantissa * 10n ** BigInt(nanoExp)
    } else {
      magnitude = ceilDiv(mantissa, 10n ** BigInt(-nanoExp))
    }
  } else {
    // mantissa * 2^exponent / 10^len(denom), in nano units, rounded up
    magnitude = ceilDiv(mantissa * (1n << BigInt(exponent)) * NANO_PER_UNIT, 10n ** BigInt(denom.length))
  }
  if (magnitude > MAX_NANO) magnitude = MAX_NANO
  return positive ? magnitude : -magnitude
}

/** Nano units of a quantity given as a string or JSON number; undefined/null/"" are 0. */
export function parseNano(q: string | number | undefined | null): bigint {
  if (q === undefined || q === null || q === '') return 0n
  if (typeof q === 'number') {
    if (!Number.isFinite(q)) throw new QuantityError(String(q))
    return parseQuantityNano(String(q))
  }
  if (typeof q !== 'string') throw new QuantityError(String(q))
  return parseQuantityNano(q)
}

/** quantity.go `Quantity.MilliValue` of an exact nano amount: fractions of a milli round away from zero. */
export function nanoToMilli(nano: bigint): number {
  const m = nano >= 0n ? ceilDiv(nano, NANO_PER_MILLI) : -ceilDiv(-nano, NANO_PER_MILLI)
  return Number(m)
}

/**
 * Integer milli-CPU of a quantity, like Go's resource.Quantity.MilliValue().
 * Throws QuantityError for text that is not a quantity.
 */
export function parseMilliCPU(q: string | number | undefined | null): number {
  return nanoToMilli(parseNano(q))
}
