// apply / reset as a user runs them, without a cluster: previews from the bundled snapshot,
// refusals and bad input (one line, documented exit code). The writes are tested end to end
// in test/e2e/apply.test.ts and reset.test.ts.
import {Ajv2020} from 'ajv/dist/2020.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {EXAMPLE, runCli} from './run-cli.js'

const schema = JSON.parse(fs.readFileSync(new URL('../../schema/apply.v1.json', import.meta.url), 'utf8'))
const validate = new Ajv2020({allErrors: true, strict: false}).compile(schema)
const snap = ['--from-file', EXAMPLE, '-n', 'shop']

describe('apply --from-file: preview only', () => {
  it("Service mode: the diff and explain's table for the Service as it will be", () => {
    const r = runCli(['apply', 'svc/checkout', '--mode', 'PreferSameZone', ...snap])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(
      'Service shop/checkout\n  - metadata.annotations[service.kubernetes.io/topology-mode]: "Auto" -> <unset>   (topology-mode Auto would override spec.trafficDistribution)\n  + spec.trafficDistribution: <unset> -> "PreferSameZone"   (--mode PreferSameZone)',
    )
    expect(r.stdout).toContain('Mode:        trafficDistribution PreferSameZone')
    expect(r.stdout).toMatch(/eu-west-1c\s+3\s+2\s+23730m\s+33\.3%\s+2\s+3\s+-\s+-\s+2\s+\+50\.0%/)
    expect(r.stdout.trim().split('\n').at(-1)).toBe('Preview from a snapshot file (--dry-run=client): nothing was sent. Writing needs a live cluster.')
  })

  it('--exit-code: 1 when something would change, 0 when nothing would', () => {
    expect(runCli(['apply', 'svc/checkout', '--mode', 'PreferSameZone', '--exit-code', ...snap]).code).toBe(1)
    const same = runCli(['apply', 'svc/catalog', '--mode', 'PreferSameZone', '--exit-code', ...snap])
    expect(same.code).toBe(0)
    expect(same.stdout.trim()).toBe('No changes: service shop/catalog already has --mode PreferSameZone.')
  })

  it('-o json follows schema/apply.v1.json', () => {
    const r = runCli(['apply', 'svc/inventory', '--mode', 'Auto', '-o', 'json', ...snap])
    expect(r.code).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true)
    expect(doc).toMatchObject({
      kind: 'TopologyApply',
      namespace: 'shop',
      service: 'inventory',
      mode: 'Auto',
      dryRun: 'client',
      changed: true,
      result: {status: 'dry-run', written: []},
    })
    expect(doc.changes.service).toEqual([
      // The snapshot's inventory has topology-mode "AUTO", which the controller ignores.
      {field: 'topologyMode', path: 'metadata.annotations[service.kubernetes.io/topology-mode]', old: 'AUTO', new: 'Auto', reason: '--mode Auto'},
    ])
    expect(doc.prediction[0].path).toBe('topology-mode-auto')
  })

  it('--mode none removes what enables hints (issue 19: the word plan and simulate use)', () => {
    const r = runCli(['apply', 'svc/sessions', '--mode', 'none', ...snap])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('- spec.trafficDistribution: "PreferSameNode" -> <unset>   (--mode none)')
    const json = JSON.parse(runCli(['apply', 'svc/sessions', '--mode', 'none', '-o', 'json', ...snap]).stdout)
    expect(json.mode).toBe('none')
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
  })

  it('--mode off: a hidden alias of none, with one warning line; outputs say none', () => {
    for (const args of [['--mode', 'off'], ['--mode=off']]) {
      const r = runCli(['apply', 'svc/sessions', ...args, '-o', 'json', ...snap])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr.trim().split('\n')).toEqual(['Warning: --mode off is now --mode none (the word plan and simulate use); off will be removed'])
      const json = JSON.parse(r.stdout)
      expect(json.mode).toBe('none')
      expect(JSON.stringify(json)).not.toContain('--mode off')
    }
    // hidden: help lists none, not off
    const help = runCli(['apply', '--help']).stdout.replace(/\s+/g, ' ')
    expect(help).toContain('One of: Auto|PreferSameZone|PreferSameNode|PreferClose| none.')
    expect(help).not.toMatch(/\|off\b|, or off\b/)
  })

  it("--hints --strategy takes the Service modes' names; the old ones are hidden aliases with one warning line", () => {
    const now = runCli(['apply', 'svc/inventory', '--hints', '--strategy', 'PreferSameNode', '--force', '-o', 'json', ...snap])
    expect(now.code, now.stderr).toBe(0)
    expect(JSON.parse(now.stdout).strategy).toBe('PreferSameNode')
    const old = runCli(['apply', 'svc/inventory', '--hints', '--strategy=same-node', '--force', '-o', 'json', ...snap])
    expect(old.code, old.stderr).toBe(0)
    expect(old.stderr).toContain('Warning: --strategy same-node is now --strategy PreferSameNode (the Service mode whose hints it computes); same-node will be removed\n')
    expect(JSON.parse(old.stdout).strategy).toBe('PreferSameNode')
    expect(JSON.parse(old.stdout).changes).toEqual(JSON.parse(now.stdout).changes)
  })

  it('hints mode refuses controller-managed EndpointSlices and names the Service-mode command', () => {
    const r = runCli(['apply', 'svc/inventory', '--hints', '--strategy', 'PreferSameNode', ...snap])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(
      /^error: refusing to write hints onto EndpointSlice\(s\) inventory-\w+: they are managed by the EndpointSlice controller .* kubectl topology apply svc\/inventory -n shop --mode PreferSameNode \(or pass --force/,
    )
  })

  it('--force previews the hints and warns they last until the next sync', () => {
    const r = runCli(['apply', 'svc/inventory', '--hints', '--force', ...snap])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain("last only until the EndpointSlice controller's next sync of service inventory")
    expect(r.stdout).toMatch(/~ \S+\s+\S+\s+eu-west-1a\s+ready\s+<none> -> zones=eu-west-1a/)
  })
  it('--force is split (issue 23): --force-value sends a value the version drops, --force-conflicts takes field ownership; --force with --mode still means both, with a warning', () => {
    const args = ['apply', 'svc/checkout', '--mode', 'PreferSameNode', '--kube-version', '1.30', ...snap]
    const refused = runCli(args)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/nothing was written: use --mode Auto, or --force-value if this cluster turned the gate on/)
    const value = runCli([...args, '--force-value'])
    expect(value.code, value.stderr).toBe(0)
    expect(value.stderr.trim()).toMatch(/^Warning: --force-value: at Kubernetes 1\.30 the API server drops spec\.trafficDistribution/)
    // --force-conflicts alone does not send a refused value
    expect(runCli([...args, '--force-conflicts']).code).toBe(2)
    const old = runCli([...args, '--force'])
    expect(old.code, old.stderr).toBe(0)
    expect(old.stderr).toContain('Warning: --force with --mode means both --force-conflicts (take ownership of fields another manager set) and --force-value')
    const hints = runCli(['apply', 'svc/checkout', '--hints', '--force-value', ...snap])
    expect([hints.code, hints.stderr.trim()]).toEqual([
      2,
      'error: --force-value applies to --mode (a Service change); with --hints, --force writes controller-managed EndpointSlices',
    ])
  })
})

describe('refusals and bad input: one line, documented exit code', () => {
  it.each([
    [
      ['apply', 'svc/web', '--mode', 'Auto', '--yes', '--from-file', EXAMPLE],
      2,
      'error: --from-file reads a snapshot, so apply can only preview (--dry-run=client); --yes needs a live cluster: drop --from-file',
    ],
    [
      ['apply', 'svc/web', '--mode', 'Auto', '--dry-run=server', '--from-file', EXAMPLE],
      2,
      'error: --from-file reads a snapshot, so apply can only preview (--dry-run=client); --dry-run=server needs a live cluster: drop --from-file',
    ],
    [
      ['apply', 'svc/web', '--mode', 'Auto', '--wait', '--from-file', EXAMPLE],
      2,
      'error: --from-file reads a snapshot, so apply can only preview (--dry-run=client); --wait needs a live cluster: drop --from-file',
    ],
    [['apply', 'svc/web'], 2, 'error: say what to apply: --mode Auto|PreferSameZone|PreferSameNode|PreferClose|none, or --hints'],
    [['apply', '--mode', 'Auto'], 2, 'error: name the Service to change: apply svc/NAME --mode MODE (or --hints)'],
    [['apply', 'svc/a', 'svc/b', '--mode', 'Auto'], 2, 'error: apply changes one Service at a time: name exactly one'],
    [['apply', 'svc/web', '--mode', 'Auto', '--hints'], 2, 'error: --mode and --hints are two different ways to write: use one'],
    [['apply', 'svc/web', '--mode', 'Auto', '--strategy', 'PreferSameZone'], 2, 'error: --strategy applies to --hints only'],
    [['apply', 'svc/web', '--hints', '--wait'], 2, "error: --wait checks the controller's work after a Service change: use it with --mode"],
    [['apply', 'svc/web', '--mode', 'Auto', '--wait', '--dry-run=server'], 2, 'error: --wait needs a real write: drop --dry-run'],
    [['apply', 'deploy/web', '--mode', 'Auto'], 2, 'error: unsupported resource type "deploy": only Services are explained (use svc/NAME)'],
    [['apply', 'svc/nope', '--mode', 'Auto', ...snap], 4, 'error: services "nope" not found in namespace "shop" of the snapshot'],
    [['reset', 'svc/a', 'svc/b'], 2, 'error: reset restores one Service at a time: name exactly one'],
  ])('%j -> exit %i', (args, code, line) => {
    const r = runCli(args as string[])
    expect(r.stdout).toBe('')
    expect(r.stderr.trim()).toBe(line)
    expect(r.code).toBe(code)
  })

  it('an unknown --mode value is a usage error', () => {
    const r = runCli(['apply', 'svc/web', '--mode', 'SameZone'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('reset without a record of apply says so, before contacting the cluster (exit 4)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kt-reset-'))
    const kubeconfig = path.join(dir, 'config')
    // Port 1 on loopback: any request would fail with "connection refused" (exit 6), not 4.
    fs.writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        'current-context': 'c',
        clusters: [{name: 'k', cluster: {server: 'http://127.0.0.1:1'}}],
        contexts: [{name: 'c', context: {cluster: 'k', user: 'u'}}],
        users: [{name: 'u', user: {token: 't'}}],
      }),
    )
    const r = runCli(['reset', 'svc/web', '-n', 'shop'], {env: {KUBECONFIG: kubeconfig, XDG_STATE_HOME: dir}})
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: nothing to reset: kubectl topology apply has no record of changes to service shop/web on http://127\\.0\\.0\\.1:1 \\(looked in ${dir.replace(/[.]/g, '\\.')}/kubectl-topology/journal/[0-9a-f]{16}/shop/web\\.json\\)\\n$`,
      ),
    )
    expect(r.code).toBe(4)
  })
})
