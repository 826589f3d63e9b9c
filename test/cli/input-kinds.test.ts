// Issue 14 class 6: every command reads from a file what it needs and no more. `nodes` needs only
// Nodes (the output of `kubectl get nodes -o yaml`); explain, check and simulate need Services and
// say what is missing otherwise. `npm run build` first.
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {parse, stringify} from 'yaml'
import {EXAMPLE, runCli} from './run-cli.js'

const tmp = mkdtempSync(path.join(os.tmpdir(), 'kt-kinds-'))
const snapshot = parse(readFileSync(EXAMPLE, 'utf8')) as {nodes: unknown[]; services: unknown[]}
const NODES = path.join(tmp, 'nodes.yaml')
writeFileSync(NODES, stringify({apiVersion: 'v1', kind: 'List', items: snapshot.nodes}))
const SERVICES = path.join(tmp, 'services.yaml')
writeFileSync(SERVICES, stringify({apiVersion: 'v1', kind: 'List', items: snapshot.services}))

describe('--from-file: what each command needs', () => {
  it('nodes reads `kubectl get nodes -o yaml` output, as from a full snapshot', () => {
    const r = runCli(['nodes', '-f', NODES])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(runCli(['nodes', '-f', EXAMPLE]).stdout)
  })
  it('nodes on a file without Nodes: exit 3, "no Nodes found"', () => {
    const r = runCli(['nodes', '-f', SERVICES])
    expect(r.code).toBe(3)
    expect(r.stderr.trim()).toBe(`error: ${SERVICES}: no Nodes found (expected the output of \`kubectl get nodes -o yaml\` or of \`kubectl topology snapshot\`)`)
  })
  it('explain, check, simulate on Nodes only: exit 3 naming what is missing', () => {
    for (const args of [
      ['explain', '-A'],
      ['check', '-A'],
      ['simulate', 'svc/checkout', '-n', 'shop'],
    ]) {
      const r = runCli([...args, '-f', NODES])
      expect(r.code, args[0]).toBe(3)
      expect(r.stderr.trim(), args[0]).toMatch(
        /^error: .*nodes\.yaml: no Services or EndpointSlices found; it holds only 13 Nodes, which `kubectl topology nodes` reads \(expected/,
      )
      expect(r.stdout).toBe('')
    }
  })
  // Issue 19 finding 9: it said "NodesUnreadable ... (missing permission: list nodes)", exit 0.
  it('explain, plan, check, simulate, apply on Services without Nodes: exit 3 naming the Nodes, no permission words', () => {
    for (const args of [
      ['explain', 'svc/checkout', '-n', 'shop'],
      ['plan', 'svc/checkout', '-n', 'shop'],
      ['check', '-A'],
      ['simulate', 'svc/checkout', '-n', 'shop'],
      ['apply', 'svc/checkout', '-n', 'shop', '--mode', 'Auto'],
    ]) {
      const r = runCli([...args, '-f', SERVICES])
      expect(r.code, args[0]).toBe(3)
      expect(r.stderr.trim(), args[0]).toBe(
        `error: ${SERVICES}: no Nodes found (the zones and CPU shares come from the Nodes): take the file with \`kubectl topology snapshot\`, or add nodes to \`kubectl get nodes,services,endpointslices -A -o yaml\``,
      )
      expect(r.stdout).toBe('')
    }
  })
})
