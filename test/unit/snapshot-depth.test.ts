// Issue 20 class 5: texts nested deeper than any Kubernetes object are refused in one line
// (exit 3) naming the limit, instead of an internal error (5,000 nested Lists; deep JSON, where
// the error-position scanner overflowed before its own depth check) or V8's "Maximum call stack
// size exceeded" given as the reason (deep YAML).
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {MAX_NESTING, nestedDeeperThan} from '../../src/cluster/snapshot/depth.js'
import {parseSnapshot} from '../../src/cluster/snapshot/snapshot.js'
import {CliError, ExitCode} from '../../src/errors.js'

const refused = (text: string) => {
  try {
    parseSnapshot(text, 'deep.json')
  } catch (e) {
    return e
  }
  return undefined
}
const TOO_DEEP = `deep.json: nested deeper than ${MAX_NESTING} levels, which no Kubernetes object is: is this the output of kubectl get -o yaml|json?`

describe('nesting', () => {
  it.each([
    ['5,000 nested Lists (JSON)', `${'{"kind":"List","apiVersion":"v1","items":['.repeat(5000)}${']}'.repeat(5000)}`],
    ['deep JSON that does not parse (the error scanner)', `${'['.repeat(50_000)}x`],
    ['deep JSON arrays that parse', `${'['.repeat(50_000)}${']'.repeat(50_000)}`],
    ['deep YAML flow sequences', `kind: List\nitems: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`],
    ['deep YAML flow mappings', `kind: List\nitems: ${'{a: '.repeat(20_000)}1${'}'.repeat(20_000)}\n`],
  ])('%s: exit 3, one line naming the limit', (_, text) => {
    const e = refused(text)
    expect(e).toBeInstanceOf(CliError)
    expect((e as CliError).exitCode).toBe(ExitCode.INPUT)
    expect((e as CliError).message).toBe(TOO_DEEP)
  })

  it('never recurses deeper than the limit, however deep the value', () => {
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(nestedDeeperThan([deep])).toBe(true)
    let deepObj: unknown = {}
    for (let i = 0; i < 200_000; i++) deepObj = {k: deepObj, n: i}
    expect(nestedDeeperThan([deepObj])).toBe(true)
    expect(nestedDeeperThan([1, 'x', null, [[]]], 1)).toBe(true)
    expect(nestedDeeperThan([1, 'x', null, [[]]], 2)).toBe(false)
    // Own enumerable keys only, as Object.values: an inherited value is not walked.
    const inherits = Object.create({deep: [[[[]]]]}) as object
    expect(nestedDeeperThan([{a: inherits}], 3)).toBe(false)
    expect(nestedDeeperThan([{a: {...{deep: [[[[]]]]}}}], 3)).toBe(true)
    expect(nestedDeeperThan([{a: [{b: 1}]}], 3)).toBe(false)
    expect(nestedDeeperThan([{a: [{b: {}}]}], 3)).toBe(true)
  })

  // The former walk (an explicit stack of [value, depth] pairs), kept as the reference.
  const reference = (docs: readonly unknown[], max: number): boolean => {
    const stack: [unknown, number][] = docs.map((d) => [d, 1])
    while (stack.length > 0) {
      const [v, depth] = stack.pop()!
      if (typeof v !== 'object' || v === null) continue
      if (depth > max) return true
      for (const x of Array.isArray(v) ? v : Object.values(v)) if (typeof x === 'object' && x !== null) stack.push([x, depth + 1])
    }
    return false
  }

  it('says what the former iterative walk said, on any JSON value and limit', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue({maxDepth: 8}), {maxLength: 3}), fc.integer({min: 0, max: 9}), (docs, max) => {
        expect(nestedDeeperThan(docs, max)).toBe(reference(docs, max))
      }),
      {numRuns: 500},
    )
  })
})
