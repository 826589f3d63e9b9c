// kubectl's table layout (its tabwriter: left-aligned, 3 spaces between columns, upper-case
// headers). Widths ignore ANSI colour codes, so coloured cells line up.
import {stripVTControlCharacters} from 'node:util'

export function formatTable(header: string[] | null, rows: string[][], opts: {indent?: string} = {}): string {
  const all = header ? [header, ...rows] : rows
  if (all.length === 0) return ''
  const indent = opts.indent ?? ''
  return tableLines(all, {gap: 3})
    .map((line) => indent + line)
    .join('\n')
}

/**
 * The lines of a table: columns as wide as their widest cell (ANSI codes ignored), `gap`
 * spaces between them, each column left- or right-aligned (default left); a left-aligned last
 * column is not padded; trailing spaces trimmed.
 */
export function tableLines(rows: string[][], opts: {gap: number; align?: readonly ('l' | 'r')[]}): string[] {
  if (rows.length === 0) return []
  const align = opts.align ?? []
  const sep = ' '.repeat(opts.gap)
  // Loops, not Math.max(...rows): spreading 125,000 rows into one call overflows V8's stack
  // ("Maximum call stack size exceeded", issue 20: `-o wide` of 150,000 endpoints exited 70).
  const widths: number[] = []
  for (const r of rows) {
    for (let i = 0; i < r.length; i++) {
      const w = displayWidth(r[i]!)
      if (!(w <= (widths[i] ?? 0))) widths[i] = w
    }
    for (let i = widths.length; i < r.length; i++) widths[i] = 0
  }
  return rows.map((r) =>
    r
      .map((cell, i) => {
        if (align[i] !== 'r' && i === r.length - 1) return cell
        const space = ' '.repeat(widths[i]! - displayWidth(cell))
        return align[i] === 'r' ? space + cell : cell + space
      })
      .join(sep)
      .trimEnd(),
  )
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/
let wide: RegExp | undefined
let zero: RegExp | undefined
let emoji: RegExp | undefined

/**
 * Terminal columns a cell takes. Zone, node and Service names, addresses and numbers are
 * ASCII (Kubernetes validates label values and DNS names), so the common case is the
 * string's length. Otherwise: ANSI escape sequences take no column; control characters,
 * combining marks, format characters (zero-width joiner, ...), emoji modifiers and
 * whatever follows a zero-width joiner take none; East Asian wide and fullwidth
 * characters and emoji shown as emoji (by default or with variation selector 16) take two;
 * the rest one. Emoji sequences other than
 * ZWJ, modifier and flag sequences may be counted wider than a terminal shows them
 * (docs/design.md "Startup": why not string-width).
 */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length
  const s = stripVTControlCharacters(text)
  // Compiled on first use only: Unicode property classes cost a few ms to build.
  wide ??=
    /[\p{Emoji_Presentation}\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18aff}\u{1b000}-\u{1b2ff}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]/u
  zero ??= /[\p{Cc}\p{Mn}\p{Me}\p{Cf}\p{Emoji_Modifier}]/u
  emoji ??= /\p{Emoji}/u
  let width = 0
  let narrowEmoji = false
  let afterJoiner = false
  let regionalIndicators = 0
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    if (afterJoiner) {
      afterJoiner = false
      if (!zero.test(ch)) continue
    }
    if (cp === 0x200d) {
      afterJoiner = true
      continue
    }
    if (cp >= 0x1f1e6 && cp <= 0x1f1ff) {
      // Regional indicators: a pair is one flag, two columns.
      if (regionalIndicators++ % 2 === 0) width += 2
      continue
    }
    regionalIndicators = 0
    if (cp === 0xfe0f && narrowEmoji) {
      // Variation selector 16: the character before it is shown as an emoji.
      narrowEmoji = false
      width += 1
      continue
    }
    if (zero.test(ch)) continue
    const w = wide.test(ch) ? 2 : 1
    narrowEmoji = w === 1 && emoji.test(ch)
    width += w
  }
  return width
}
