// kubectl's table layout (its tabwriter: left-aligned, 3 spaces between columns, upper-case
// headers). Widths ignore ANSI colour codes (string-width), so coloured cells line up.
import stringWidth from 'string-width'

export function formatTable(header: string[] | null, rows: string[][], opts: {indent?: string} = {}): string {
  const all = header ? [header, ...rows] : rows
  if (all.length === 0) return ''
  const cols = Math.max(...all.map((r) => r.length))
  const widths = Array.from({length: cols}, (_, i) => Math.max(...all.map((r) => stringWidth(r[i] ?? ''))))
  const indent = opts.indent ?? ''
  return all
    .map((r) =>
      indent +
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell + ' '.repeat(widths[i]! - stringWidth(cell) + 3)))
        .join('')
        .trimEnd(),
    )
    .join('\n')
}
