// The overload bound (check and plan --max-overload, the policy file's maxOverload): one parser,
// so "20" cannot mean 2000% in one place and 20% in another. A bound is written as a percentage
// ("20%") or as a fraction from 0 to 1 ("0.2"); a bare number above 1 is refused with both
// spellings, since a user who writes 20 means 20% and would otherwise get a gate that passes
// everything (issue 19, finding 5). Percentages above 100% are allowed ("150%"): an overload can
// exceed the fair share by more than itself.

/** A value, or why not: `misread` when the text is a number that is surely a percentage without its %. */
export type RatioParse = {value: number} | {error: string; misread: boolean}

const NUMBER = /^(\d+(?:\.\d+)?|\.\d+)$/
const PERCENT = /^(\d+(?:\.\d+)?|\.\d+)\s*%$/

/** n as the shortest decimal that reads back exactly at 12 significant digits: 0.2, not 0.2000000001. */
const decimal = (n: number): string => String(Number(n.toPrecision(12)))

const RATIO_SPELLINGS = 'give a percentage with % (20%) or a fraction from 0 to 1 (0.2)'

/** "20%" -> 0.2, "0.2" -> 0.2, 0.2 -> 0.2; "20" / 20 -> an error naming 20% (0.2). */
export function parseRatio(raw: string | number): RatioParse {
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw) || raw < 0) return {error: `invalid value ${JSON.stringify(raw)}: ${RATIO_SPELLINGS}`, misread: false}
    return raw > 1 ? {error: didYouMean(raw), misread: true} : {value: raw}
  }
  const text = raw.trim()
  const pct = text.match(PERCENT)
  if (pct) return {value: Number(pct[1]) / 100}
  if (NUMBER.test(text)) {
    const n = Number(text)
    return n > 1 ? {error: didYouMean(n), misread: true} : {value: n}
  }
  return {error: `invalid value "${raw}": ${RATIO_SPELLINGS}`, misread: false}
}

function didYouMean(n: number): string {
  return `did you mean ${decimal(n)}% (${decimal(n / 100)})? Give a percentage with % or a fraction from 0 to 1`
}
