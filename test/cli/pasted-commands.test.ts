// Issue 20, class 6: a command the tool prints, pasted into a POSIX shell, runs exactly what it
// says. Names from a shared snapshot are hostile: a Service or namespace the API server would
// refuse is refused when the snapshot is decoded (exit 3, one line); other names (a Node's) are
// shown, never inside a command (`kubectl label node <name> ...=<zone>` printed the name raw:
// `n$(touch${IFS}/tmp/p)` ran when pasted). Every output of every command over a hostile snapshot
// is scanned: after "kubectl ", nothing the shell would act on outside single quotes. -n, the
// context's namespace and Service names are checked with the API's rules before any use in a
// path or a URL (`-n ../../..` put the apply journal outside the state folder).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {stringify as toYaml} from 'yaml'
import {ROOT, runCli} from './run-cli.js'

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-pasted-'))
afterAll(() => fs.rmSync(tmp, {recursive: true, force: true}))

const HOSTILE = 'n$(touch${IFS}/tmp/p)'
const UNLABELED = path.join(ROOT, 'examples/unlabeled-node.yaml')

/**
 * The first thing after "kubectl " on a line that a POSIX shell acts on outside single quotes
 * (command substitution, a separator, a pipe, a redirection, a backslash), or null.
 */
function unquotedShell(line: string): string | null {
  for (let at = line.indexOf('kubectl '); at >= 0; at = line.indexOf('kubectl ', at + 1)) {
    let quoted = false
    for (let i = at; i < line.length; i++) {
      const ch = line[i]!
      if (ch === "'") quoted = !quoted
      else if (!quoted && ('`;|&<>\\'.includes(ch) || (ch === '$' && '({'.includes(line[i + 1] ?? '')))) return line.slice(at, i + 2)
    }
  }
  return null
}

describe('unquotedShell (the scanner)', () => {
  it('finds what a shell runs, not what is quoted', () => {
    expect(unquotedShell(`fix: kubectl label node ${HOSTILE} zone=a`)).toBe('kubectl label node n$(')
    expect(unquotedShell(`kubectl label node 'n$(touch${'${IFS}'}/tmp/p)' zone=a`)).toBeNull()
    expect(unquotedShell(`kubectl patch service web -n shop -p '{"spec":{"x":"y"}}'`)).toBeNull()
    expect(unquotedShell('kubectl get svc; rm -rf x')).toBe('kubectl get svc; ')
    expect(unquotedShell('no command here $(x)')).toBeNull()
  })
})

describe('every output over a snapshot with a hostile Node name holds no pasteable injection', () => {
  const file = path.join(tmp, 'hostile-node.yaml')
  fs.writeFileSync(file, fs.readFileSync(UNLABELED, 'utf8').replaceAll('ip-10-0-4-10.eu-west-1.compute.internal', HOSTILE))
  const runs: string[][] = [
    ['explain', '-A'],
    ['explain', '-A', '-o', 'wide'],
    ['explain', '-A', '--per-node'],
    ['explain', '-A', '-o', 'json'],
    ['explain', '-A', '-o', 'yaml'],
    ['nodes'],
    ['nodes', '-o', 'wide'],
    ['nodes', '-o', 'json'],
    ['check', '-A', '--lint'],
    ['check', '-A', '--nodes'],
    ['simulate', '-A'],
    ['plan', '-A'],
    ['apply', 'svc/cart', '-n', 'shop', '--mode', 'PreferSameZone'],
    ['apply', 'svc/cart', '-n', 'shop', '--hints', '--strategy', 'same-zone'],
  ]
  for (const args of runs) {
    it(args.join(' '), () => {
      const r = runCli([...args, '--from-file', file])
      expect(r.code, r.stderr).not.toBe(70)
      for (const line of `${r.stdout}\n${r.stderr}`.split(/\n|\\n/)) expect(unquotedShell(line), line).toBeNull()
    })
  }
  it('the node is still named, in prose', () => {
    const r = runCli(['nodes', '--from-file', file])
    expect(r.stdout).toContain(`label node ${HOSTILE} with topology.kubernetes.io/zone set to the zone it runs in`)
  })
})

describe('a Service or namespace the API server would refuse: the snapshot is refused (exit 3)', () => {
  it('Service name', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata: {name: "x$(touch\${IFS}/tmp/p)", namespace: shop}\nspec: {selector: {app: x}}\n`
    const r = runCli(['explain', '-A', '--from-file', '-'], {input: text})
    expect(r.stderr).toMatch(
      /^error: <stdin>:3:18: Service "shop\/x\$\(touch\$\{IFS\}\/tmp\/p\)": metadata\.name is not a name the API server accepts: a DNS-1035 label must consist of /,
    )
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(r.code).toBe(3)
  })
  it('namespace', () => {
    const text = `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: "../../etc"}\nspec: {selector: {app: x}}\n`
    const r = runCli(['check', '-A', '--from-file', '-'], {input: text})
    expect(r.stderr).toMatch(
      /^error: <stdin>:3:34: Service "\.\.\/\.\.\/etc\/web": metadata\.namespace is not a name the API server accepts: a lowercase RFC 1123 label must consist of /,
    )
    expect(r.code).toBe(3)
  })
})

describe('-n and the context namespace are checked before any path or URL is built', () => {
  it('apply -n ../../.. (the journal path) is a usage error, before the kubeconfig is read', () => {
    const r = runCli(['apply', 'svc/web', '-n', '../../..', '--mode', 'Auto', '--yes', '--kubeconfig', path.join(tmp, 'none')])
    expect(r.stderr).toMatch(/^error: -n "\.\.\/\.\.\/\.\." is not a valid namespace name: a lowercase RFC 1123 label must consist of /)
    expect(r.code).toBe(2)
  })
  it('reset and explain: the same', () => {
    for (const args of [
      ['reset', 'svc/web', '-n', 'a/b', '--kubeconfig', path.join(tmp, 'none')],
      ['explain', 'svc/web', '-n', '..', '--from-file', UNLABELED],
    ]) {
      const r = runCli(args)
      expect(r.stderr, args.join(' ')).toMatch(/is not a valid namespace name/)
      expect(r.code).toBe(2)
    }
  })
  it("a kubeconfig context's namespace of ../x: a kubeconfig error (exit 5), nothing sent", () => {
    const cfg = path.join(tmp, 'ns.yaml')
    fs.writeFileSync(
      cfg,
      toYaml({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        clusters: [{name: 'k', cluster: {server: 'https://127.0.0.1:1'}}],
        contexts: [{name: 'c', context: {cluster: 'k', user: 'u', namespace: '../x'}}],
        users: [{name: 'u', user: {token: 't'}}],
      }),
    )
    const r = runCli(['reset', 'svc/web', '--kubeconfig', cfg])
    expect(r.stderr).toMatch(/^error: the namespace of context "c" "\.\.\/x" is not a valid namespace name: /)
    expect(r.code).toBe(5)
  })
})
