import {describe, expect, it} from 'vitest'
import {parseRatio} from '../../src/state/ratio.js'

describe('parseRatio: an overload bound that cannot be misread', () => {
  it('takes a percentage or a fraction from 0 to 1', () => {
    expect(parseRatio('20%')).toEqual({value: 0.2})
    expect(parseRatio(' 20 % ')).toEqual({value: 0.2})
    expect(parseRatio('0.2')).toEqual({value: 0.2})
    expect(parseRatio('.2')).toEqual({value: 0.2})
    expect(parseRatio('0')).toEqual({value: 0})
    expect(parseRatio('1')).toEqual({value: 1})
    expect(parseRatio('12.5%')).toEqual({value: 0.125})
    expect(parseRatio('150%')).toEqual({value: 1.5})
    expect(parseRatio(0.25)).toEqual({value: 0.25})
  })
  it('refuses a bare number above 1 with both spellings', () => {
    const why = 'Give a percentage with % or a fraction from 0 to 1'
    expect(parseRatio('20')).toEqual({error: `did you mean 20% (0.2)? ${why}`, misread: true})
    expect(parseRatio(20)).toEqual({error: `did you mean 20% (0.2)? ${why}`, misread: true})
    expect(parseRatio('1.5')).toEqual({error: `did you mean 1.5% (0.015)? ${why}`, misread: true})
    expect(parseRatio('1.0000001')).toEqual({error: `did you mean 1.0000001% (0.010000001)? ${why}`, misread: true})
  })
  it('refuses what is not a number', () => {
    for (const bad of ['', 'lots', '-0.2', '20%%', '0x10', '1e3', 'NaN']) {
      expect(parseRatio(bad)).toEqual({error: `invalid value "${bad}": give a percentage with % (20%) or a fraction from 0 to 1 (0.2)`, misread: false})
    }
    expect(parseRatio(Number.NaN)).toMatchObject({misread: false})
    expect(parseRatio(-1)).toMatchObject({misread: false})
  })
})
