// Issue 20 class 5: texts nested deeper than any Kubernetes object are refused in one line
// (exit 3) naming the limit, instead of an internal error (5,000 nested Lists; deep JSON, where
// the error-position scanner overflowed before its own depth check) or V8's "Maximum call stack
// size exceeded" given as the reason (deep YAML).
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

  it('counts levels iteratively, without recursion', () => {
    let deep: unknown = 1
    for (let i = 0; i < 200_000; i++) deep = [deep]
    expect(nestedDeeperThan([deep])).toBe(true)
    expect(nestedDeeperThan([{a: [{b: 1}]}], 3)).toBe(false)
    expect(nestedDeeperThan([{a: [{b: {}}]}], 3)).toBe(true)
  })
})
