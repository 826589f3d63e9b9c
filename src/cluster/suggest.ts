// "Did you mean" suggestions for names that do not exist.

/** Levenshtein edit distance (insert, delete, substitute; each costs 1). */
function levenshtein(a: string, b: string): number {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  let prev = Array.from({length: b.length + 1}, (_, j) => j)
  let cur = new Array<number>(b.length + 1)
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost)
    }
    ;[prev, cur] = [cur, prev]
  }
  return prev[b.length]!
}

/**
 * Up to `max` candidates close to `name`: within max(2, ⌊len/3⌋) edits, or sharing a
 * prefix/containing each other (web -> web-frontend). Closest first, then alphabetical.
 */
export function suggest(name: string, candidates: Iterable<string>, max = 3): string[] {
  const limit = Math.max(2, Math.floor(name.length / 3))
  const lower = name.toLowerCase()
  const scored: {c: string; d: number}[] = []
  for (const c of new Set(candidates)) {
    if (c === name) continue
    const lc = c.toLowerCase()
    let d = levenshtein(lower, lc)
    if (d > limit && lower.length >= 3 && (lc.includes(lower) || lower.includes(lc))) d = limit
    if (d <= limit) scored.push({c, d})
  }
  scored.sort((x, y) => x.d - y.d || (x.c < y.c ? -1 : x.c > y.c ? 1 : 0))
  return scored.slice(0, max).map((s) => s.c)
}

/** ' (did you mean "a" or "b"?)' or ''. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const s = suggest(name, candidates).map((x) => `"${x}"`)
  if (s.length === 0) return ''
  const list = s.length === 1 ? s[0] : `${s.slice(0, -1).join(', ')} or ${s[s.length - 1]}`
  return ` (did you mean ${list}?)`
}
