// Kubernetes label selectors (the -l syntax): a=b, a==b, a!=b, a in (x,y), a notin (x), a, !a.
// After k8s.io/apimachinery pkg/labels/selector.go (k8s.io/apimachinery v0.36.3, from
// Kubernetes v1.36.3): `Parse` (the grammar, re-written as a small regular-expression parser
// rather than ported line by line: it does not validate key and value syntax) and
// `internalSelector.Matches` / `Requirement.Matches`. Used to select Services from a snapshot
// the way the API server does for a live list.

export type Requirement = {key: string; op: 'in' | 'notin'; values: string[]} | {key: string; op: 'exists' | 'doesnotexist'}

/** A selector that does not parse (selector.go `Parse` returns an error). */
export class SelectorError extends Error {}

/** selector.go `Parse`: the requirements of a selector string; throws SelectorError. */
export function parseSelector(text: string): Requirement[] {
  const reqs: Requirement[] = []
  let rest = text.trim()
  if (rest === '') return reqs
  while (rest.length > 0) {
    let m: RegExpMatchArray | null
    if ((m = rest.match(/^([^\s,!=()]+)\s+(in|notin)\s+\(([^)]*)\)\s*/))) {
      const values = m[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '')
      reqs.push({key: m[1]!, op: m[2] as 'in' | 'notin', values})
    } else if ((m = rest.match(/^([^\s,!=()]+)\s*(==|=|!=)\s*([^\s,()]*)\s*/))) {
      reqs.push({key: m[1]!, op: m[2] === '!=' ? 'notin' : 'in', values: [m[3]!]})
    } else if ((m = rest.match(/^!\s*([^\s,!=()]+)\s*/))) {
      reqs.push({key: m[1]!, op: 'doesnotexist'})
    } else if ((m = rest.match(/^([^\s,!=()]+)\s*/))) {
      reqs.push({key: m[1]!, op: 'exists'})
    } else {
      throw new SelectorError(`invalid label selector "${text}" near "${rest}"`)
    }
    rest = rest.slice(m[0].length)
    if (rest.startsWith(',')) rest = rest.slice(1).trimStart()
    else if (rest.length > 0) throw new SelectorError(`invalid label selector "${text}" near "${rest}"`)
  }
  return reqs
}

/** selector.go `internalSelector.Matches`: every requirement holds (`Requirement.Matches`). */
export function matchesSelector(reqs: readonly Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {}
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key)
    switch (r.op) {
      case 'exists':
        return has
      case 'doesnotexist':
        return !has
      case 'in':
        return has && r.values.includes(l[r.key]!)
      case 'notin':
        return !has || !r.values.includes(l[r.key]!)
    }
  })
}
