// Every example in every command's --help is a real command line: the ones that need no
// cluster (a bundled example snapshot, synthetic data) run and succeed; the ones that need a
// cluster get past flag parsing and stop at the connection (exit 6, an unreachable loopback
// port), at a file the reader has not made yet (exit 3) or, for reset, at the empty undo
// journal (exit 4); none is a usage error (exit 2).
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, runCli} from './run-cli.js'

type Example = string | {description: string; command: string}
const manifest = JSON.parse(readFileSync(`${ROOT}/oclif.manifest.json`, 'utf8')) as {commands: Record<string, {examples?: Example[]}>}
const examples = Object.entries(manifest.commands).flatMap(([id, c]) =>
  (c.examples ?? []).map((e) => [id, (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', 'kubectl topology')] as const),
)

const dir = mkdtempSync(join(tmpdir(), 'kt-examples-'))
const kubeconfig = join(dir, 'kubeconfig')
writeFileSync(
  kubeconfig,
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{name: 'k', cluster: {server: 'http://127.0.0.1:1'}}],
    contexts: [{name: 'c', context: {cluster: 'k', user: 'u', namespace: 'shop'}}],
    users: [{name: 'u', user: {token: 't'}}],
  }),
)

// The words of a command line (these examples use no quotes), without an output redirection.
const argv = (line: string) => {
  const words = line.split(/\s+/)
  const redirect = words.indexOf('>')
  return (redirect >= 0 ? words.slice(0, redirect) : words).slice(2) // drop "kubectl topology"
}
const offline = (words: string[]) => words.some((w) => w.startsWith('examples/')) || words.includes('--synthetic') || words.includes('--dataset')

describe('the examples in --help', () => {
  it('are there to test', () => {
    expect(examples.length).toBeGreaterThan(20)
    expect(examples.filter(([, l]) => offline(argv(l))).length).toBeGreaterThanOrEqual(5)
  })

  it.each(examples)('%s: %s', (_id, line) => {
    const words = argv(line)
    const r = runCli([...words, '--request-timeout', '5s'], {env: {KUBECONFIG: kubeconfig, XDG_STATE_HOME: join(dir, 'state')}})
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('error:'))
    if (offline(words)) {
      expect([0, 1], r.stderr).toContain(r.code)
      expect(lines).toEqual([])
      expect(r.stdout.length).toBeGreaterThan(0)
    } else {
      expect([3, 4, 6], `${r.code}: ${r.stderr}`).toContain(r.code)
      expect(lines).toHaveLength(1)
      const why = {3: /(cluster|topology-policy|web)\.yaml/, 4: /^error: nothing to reset: .* service shop\/web on http:\/\/127\.0\.0\.1:1 /, 6: /127\.0\.0\.1:1/}
      expect(lines[0]).toMatch(why[r.code as 3 | 4 | 6])
    }
  })
})
