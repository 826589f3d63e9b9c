import {describe, expect, it} from 'vitest'
import {displayWidth, formatTable} from '../../src/render/table.js'

describe('displayWidth', () => {
  it.each([
    ['', 0],
    ['eu-west-1a', 10],
    ['\x1b[31mred\x1b[39m', 3],
    ['\x1b[1m\x1b[32m✓\x1b[39m\x1b[22m ok', 4],
    ['日本語', 6],
    ['ｶﾀｶﾅ', 4],
    ['한국어', 6],
    ['café', 4],
    ['cafe\u0301', 4],
    ['a\u200bb', 2],
    ['a\tb', 2],
    ['👍', 2],
    ['👍🏽', 2],
    ['👨\u200d👩\u200d👧', 2],
    ['🇩🇪', 2],
    ['🇩🇪🇫🇷', 4],
    ['⚠ warn', 6],
    ['⚠\ufe0f warn', 7],
    ['1\ufe0f\u20e3', 2],
    ['→…', 2],
  ])('%j is %i columns wide', (text, width) => {
    expect(displayWidth(text)).toBe(width)
  })
})

describe('formatTable', () => {
  it('pads by display width, ignoring colour codes and counting wide characters twice', () => {
    const out = formatTable(
      ['ZONE', 'NODES'],
      [
        ['\x1b[32mzone-a\x1b[39m', '3'],
        ['東京', '2'],
      ],
    )
    expect(out.split('\n')).toEqual(['ZONE     NODES', '\x1b[32mzone-a\x1b[39m   3', '東京     2'])
  })
})
