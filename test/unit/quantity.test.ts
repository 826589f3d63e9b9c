import {describe, expect, it} from 'vitest'
import {parseMilliCPU, parseNano, QuantityError} from '../../src/upstream/apimachinery/quantity.js'

// Expected values follow k8s.io/apimachinery resource.ParseQuantity + Quantity.MilliValue().
describe('parseMilliCPU', () => {
  const cases: [string | number | undefined | null, number][] = [
    ['4', 4000],
    ['3920m', 3920],
    ['1.5', 1500],
    ['0.5', 500],
    ['.5', 500],
    ['1.', 1000],
    ['+2', 2000],
    ['0', 0],
    ['000', 0],
    ['0.000', 0],
    ['2Ki', 2048000],
    ['1.5Ki', 1536000],
    ['1Mi', 1048576000],
    ['1k', 1000000],
    ['1M', 1e9],
    ['1E', 1e21], // "E" alone is exa, not an exponent
    ['1e3', 1000000],
    ['1E3', 1000000],
    ['1e+3', 1000000],
    ['1e-3', 1],
    ['15e-1', 1500],
    ['250m', 250],
    ['7910m', 7910],
    ['100u', 1], // fractions of a milli round up
    ['1n', 1],
    ['1500000n', 2],
    ['1000000n', 1],
    ['0.0001', 1],
    ['1.0001', 1001],
    ['-1', -1000],
    ['-250m', -250],
    ['-100u', -1], // away from zero, like Go's int64 fast path
    [4, 4000],
    [0.5, 500],
    [1e3, 1000000],
    [0, 0],
    [undefined, 0],
    [null, 0],
    ['', 0],
  ]
  it.each(cases)('%j -> %d', (q, milli) => {
    expect(parseMilliCPU(q)).toBe(milli)
  })

  it('keeps exact nano units (like Quantity) so sums are exact', () => {
    expect(parseNano('500u')).toBe(500000n)
    expect(parseNano('1')).toBe(1000000000n)
    expect(parseNano('0.1n')).toBe(1n) // rounded up to a whole nano, like ParseQuantity
    expect(parseNano('-0.1n')).toBe(-1n)
  })

  it('caps huge values like Go (2^63-1 units)', () => {
    expect(parseNano('1e400')).toBe(((1n << 63n) - 1n) * 1000000000n)
    expect(parseNano('1e-400')).toBe(1n)
  })

  const garbage: unknown[] = ['abc', '1.2.3', '-', '+', '.', '1e', '2ki', '1KiB', ' 1', '1 ', '1m5', '1e3m', 'Ki', '--1', '1,5', Number.NaN, Number.POSITIVE_INFINITY, true, {}]
  it.each(garbage.map((g) => [g]))('rejects %j', (g) => {
    expect(() => parseMilliCPU(g as string)).toThrow(QuantityError)
  })

  it('names the bad value in the message', () => {
    expect(() => parseMilliCPU('abc')).toThrow('invalid quantity "abc": expected a number with an optional suffix such as 4, 1500m, 2Ki')
    try {
      parseMilliCPU('2ki')
    } catch (e) {
      expect(e).toBeInstanceOf(QuantityError)
      expect(e).toBeInstanceOf(Error)
      expect((e as QuantityError).value).toBe('2ki')
      expect((e as Error).message).toContain('"2ki"')
    }
  })
})

describe('parsed quantities are remembered', () => {
  it('the same string gives the same value again, a bad one throws every time, past the bound', () => {
    expect(parseNano('3920m')).toBe(3_920_000_000n)
    expect(() => parseNano('4 cores')).toThrow(QuantityError)
    for (let i = 0; i < 5000; i++) expect(parseMilliCPU(`${i}m`)).toBe(i)
    expect(parseNano('3920m')).toBe(3_920_000_000n)
    expect(() => parseNano('4 cores')).toThrow(QuantityError)
  })
})
