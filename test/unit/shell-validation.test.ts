import {execFileSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {commandFor, shellJoin, shellQuote} from '../../src/advise/shell.js'
import {isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, validateObjectName} from '../../src/upstream/apimachinery/validation.js'

describe('validation.go ports', () => {
  it.each([
    ['my-name', true],
    ['123-abc', true],
    ['a', true],
    ['A', false],
    ['-a', false],
    ['a-', false],
    ['a.b', false],
    ['a'.repeat(63), true],
    ['a'.repeat(64), false],
    ['', false],
  ])('IsDNS1123Label(%j) valid=%s', (v, ok) => expect(isDNS1123Label(v).length === 0).toBe(ok))

  it('IsDNS1123Label says "must not contain dots" for a subdomain, as upstream', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots'])
  })

  it.each([
    ['my-name', true],
    ['abc-123', true],
    ['123-abc', false],
    ['x$(touch${IFS}/tmp/p)', false],
    ['a'.repeat(64), false],
  ])('IsDNS1035Label(%j) valid=%s', (v, ok) => expect(isDNS1035Label(v).length === 0).toBe(ok))

  it('uses upstream message texts', () => {
    // Upstream's RegexError writes "', " before " or ", hence the two spaces the API server prints too.
    expect(isDNS1035Label('1a')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ])
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters'])
  })

  it.each([
    ['example.com', true],
    ['a.b-c.d', true],
    ['a..b', false],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`, true],
    [`${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(62)}`, false],
  ])('IsDNS1123Subdomain(%j) valid=%s', (v, ok) => expect(isDNS1123Subdomain(v).length === 0).toBe(ok))

  it.each([
    ['topology.kubernetes.io/zone', true],
    ['app', true],
    ['a/b/c', false],
    ['/b', false],
    ['Bad_Prefix/x', false],
  ])('IsQualifiedName(%j) valid=%s', (v, ok) => expect(isQualifiedName(v).length === 0).toBe(ok))

  it.each([
    ['', true],
    ['eu-west-1a', true],
    ['My_Value.1', true],
    ['-x', false],
    ['a b', false],
  ])('IsValidLabelValue(%j) valid=%s', (v, ok) => expect(isValidLabelValue(v).length === 0).toBe(ok))

  it('object names by kind (Service DNS-1035, Namespace DNS-1123 label, others subdomain)', () => {
    expect(validateObjectName('Service', '1abc')).not.toEqual([])
    expect(validateObjectName('Namespace', '1abc')).toEqual([])
    expect(validateObjectName('Namespace', '../../..')).not.toEqual([])
    expect(validateObjectName('Deployment', 'a.b')).toEqual([])
    expect(validateObjectName('Node', '')).toEqual(['must be non-empty'])
  })

  it('is linear on long hostile input (a 10 MB name is refused quickly)', () => {
    const long = `${'a-'.repeat(5_000_000)}!`
    const t0 = performance.now()
    expect(isDNS1123Subdomain(long).length).toBeGreaterThan(0)
    expect(isDNS1035Label(long).length).toBeGreaterThan(0)
    expect(isQualifiedName(long).length).toBeGreaterThan(0)
    expect(performance.now() - t0).toBeLessThan(5_000)
  })
})

describe('shell quoting', () => {
  it.each([
    ['svc/cart', 'svc/cart'],
    ['--mode', '--mode'],
    ['', "''"],
    ["it's", "'it'\\''s'"],
    ['x$(touch${IFS}/tmp/p)', "'x$(touch${IFS}/tmp/p)'"],
    ['{"spec":{"a":1}}', `'{"spec":{"a":1}}'`],
    ['~root', "'~root'"],
    ['=ls', "'=ls'"],
    ['a b', "'a b'"],
    ['a\nb', "'a\nb'"],
  ])('shellQuote(%j) = %s', (arg, want) => expect(shellQuote(arg)).toBe(want))

  it('a POSIX shell given the joined line receives exactly the argv', () => {
    const argv = ['printf', '%s\\n', 'x$(touch${IFS}/tmp/pwned)', "o'k", '`id`', 'a b', '*', '$HOME', '{"a":[1,2]}', '\\', '!x', '#c', ';', '&&', '|']
    const out = execFileSync('/bin/sh', ['-c', shellJoin(argv)], {encoding: 'utf8'})
    expect(out).toBe(`${argv.slice(2).join('\n')}\n`)
  })

  it('commandFor refuses a name the API server would refuse', () => {
    expect(commandFor(['kubectl', 'topology', 'apply', 'svc/x$(id)'], [{kind: 'Service', name: 'x$(id)'}])).toBeNull()
    expect(
      commandFor(
        ['kubectl', 'topology', 'apply', 'svc/cart', '-n', 'shop'],
        [
          {kind: 'Service', name: 'cart'},
          {kind: 'Namespace', name: 'shop'},
        ],
      ),
    ).toBe('kubectl topology apply svc/cart -n shop')
  })
})
