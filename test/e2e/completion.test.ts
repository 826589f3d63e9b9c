// Shell completion against the live control plane: what `kubectl_complete-topology` (run by
// kubectl >= 1.26 on TAB) prints for Service names, namespaces and zones, and that a broken
// cluster connection never fails loudly.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createNamespace, createNode, createService, deleteAllNodes} from './fixtures.js'

const COMPLETE = fileURLToPath(new URL('../../bin/kubectl_complete-topology.js', import.meta.url))

function complete(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, [COMPLETE, ...args], {encoding: 'utf8', env: {...process.env, ...env}, timeout: 30_000})
  const lines = r.stdout.split('\n').filter((l) => l !== '')
  return {code: r.status, stderr: r.stderr, candidates: lines.filter((l) => !l.startsWith(':')), directive: lines.find((l) => l.startsWith(':'))}
}

let ns: string
let other: string

beforeAll(async () => {
  await deleteAllNodes()
  for (const [name, zone] of [
    ['cmp-a-1', 'zone-a'],
    ['cmp-b-1', 'zone-b'],
    ['cmp-c-1', 'zone-c'],
  ] as const) {
    await createNode({name, zone, cpu: 4})
  }
  await createNode({name: 'cmp-nozone'})
  ns = await createNamespace('completion')
  other = await createNamespace('completion-other')
  for (const name of ['web', 'web-canary', 'api']) await createService({namespace: ns, name, selector: {app: name}})
  await createService({namespace: other, name: 'elsewhere', selector: {app: 'x'}})
})

describe('kubectl_complete-topology on a live cluster', () => {
  it('completes the Service names of the -n namespace', () => {
    const all = complete(['explain', '-n', ns, ''])
    expect(all.code).toBe(0)
    expect(all.stderr).toBe('')
    expect(all.candidates).toEqual(['api', 'web', 'web-canary'])
    expect(all.directive).toBe(':4')
    expect(complete(['explain', `--namespace=${ns}`, 'we']).candidates).toEqual(['web', 'web-canary'])
    expect(complete(['explain', '-n', ns, 'svc/w']).candidates).toEqual(['svc/web', 'svc/web-canary'])
    expect(complete(['explain', '-n', other, '']).candidates).toEqual(['elsewhere'])
  })

  it('completes namespaces for -n', () => {
    const r = complete(['explain', '-n', ''])
    expect(r.candidates).toContain(ns)
    expect(r.candidates).toContain(other)
    expect(r.candidates).toContain('default')
  })

  it("completes zones for --traffic, from the nodes' topology.kubernetes.io/zone labels", () => {
    const r = complete(['explain', '-n', ns, 'svc/web', '--traffic', ''])
    expect(r.candidates).toEqual(['zone-a=', 'zone-b=', 'zone-c='])
    expect(r.directive).toBe(':6') // NoFileComp | NoSpace: the share comes next
    expect(complete(['explain', '--traffic', 'zone-b=0.5,']).candidates).toEqual(['zone-b=0.5,zone-a=', 'zone-b=0.5,zone-c='])
  })

  it('stays quiet when the cluster cannot be reached', async () => {
    // A port that was just free: connection refused.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as {port: number}).port
        s.close(() => resolve(p))
      })
    })
    const dir = mkdtempSync(join(tmpdir(), 'cmp-kubeconfig-'))
    try {
      const kubeconfig = join(dir, 'config')
      writeFileSync(
        kubeconfig,
        `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
      )
      const r = complete(['explain', ''], {KUBECONFIG: kubeconfig})
      expect(r).toMatchObject({code: 0, stderr: '', candidates: [], directive: ':4'})
      const none = complete(['explain', ''], {KUBECONFIG: join(dir, 'missing')})
      expect(none).toMatchObject({code: 0, stderr: '', candidates: [], directive: ':4'})
      // --context completes from the kubeconfig alone.
      expect(complete(['explain', '--context', ''], {KUBECONFIG: kubeconfig}).candidates).toEqual(['x'])
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})

afterAll(async () => {
  await deleteAllNodes()
})
