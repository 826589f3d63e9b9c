// The npm install's code caches of dist/app.cjs and, for a live cluster, dist/k8s.cjs
// (src/entry/main.ts, docs/design.md "Startup"): made after a command's first run in Node's
// compile cache directory, one per build and command. Two installs share that directory (two versions, npx beside a global install, two
// checkouts): a save must not remove the other build's caches while they are in use, which
// made every run of each install a run without a cache when both were used in turn.
import {mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {runCliAsync, startFaultServer} from '../fixtures/fault-server.js'
import {EXAMPLE, runCli} from './run-cli.js'

const cacheRoot = mkdtempSync(join(tmpdir(), 'code-cache-test-'))
afterAll(() => rmSync(cacheRoot, {recursive: true, force: true}))

/** The kubectl-topology folder inside Node's compile cache directory (a per-version subfolder). */
function ourDir(root = cacheRoot): string {
  const [versionDir] = readdirSync(root)
  if (versionDir === undefined) throw new Error(`no compile cache under ${root}`)
  return join(root, versionDir, 'kubectl-topology')
}

describe('client-node (dist/k8s.cjs)', () => {
  it('gets a code cache of its own after a live command, used by the next run', async () => {
    const root = mkdtempSync(join(tmpdir(), 'code-cache-k8s-'))
    const conf = mkdtempSync(join(tmpdir(), 'code-cache-conf-'))
    const srv = await startFaultServer()
    try {
      const env = {NODE_COMPILE_CACHE: root}
      const args = ['explain', '-o', 'json', '--kubeconfig', srv.kubeconfig(conf)]
      const first = await runCliAsync(args, {env})
      expect(first.stderr).toBe('')
      expect(first.code).toBe(0)
      const made = readdirSync(ourDir(root)).sort()
      expect(made).toHaveLength(2)
      expect(made[0]).toMatch(/^app-[0-9a-f]{16}-explain\.cache$/)
      expect(made[1]).toMatch(/^k8s-[0-9a-f]{16}-explain\.cache$/)
      // Read with its cache: the same answer, and the cache is not written again.
      const second = await runCliAsync(args, {env})
      expect(second.code).toBe(0)
      expect(second.stdout).toBe(first.stdout)
      expect(readdirSync(ourDir(root)).sort()).toEqual(made)
    } finally {
      await srv.close()
      rmSync(root, {recursive: true, force: true})
      rmSync(conf, {recursive: true, force: true})
    }
  })

  it('has none after a command that reads no cluster', () => {
    const root = mkdtempSync(join(tmpdir(), 'code-cache-file-'))
    try {
      expect(runCli(['explain', '-A', '--from-file', EXAMPLE], {env: {NODE_COMPILE_CACHE: root}}).code).toBe(0)
      expect(readdirSync(ourDir(root))).toEqual([expect.stringMatching(/^app-[0-9a-f]{16}-explain\.cache$/)])
    } finally {
      rmSync(root, {recursive: true, force: true})
    }
  })
})

describe('code caches of other builds', () => {
  it('are kept while recent and removed when not written for 7 days', () => {
    const env = {NODE_COMPILE_CACHE: cacheRoot}
    const explain = ['explain', '-A', '--from-file', EXAMPLE]
    const first = runCli(explain, {env})
    expect(first.code).toBe(0)
    const dir = ourDir()
    const ours = readdirSync(dir)
    expect(ours).toHaveLength(1)
    expect(ours[0]).toMatch(/^app-[0-9a-f]{16}-explain\.cache$/)
    // Another build's caches: one written an hour ago, one eight days ago.
    const recent = 'app-0000000000000000-explain.cache'
    const stale = 'app-1111111111111111-explain.cache'
    writeFileSync(join(dir, recent), 'x')
    writeFileSync(join(dir, stale), 'x')
    const now = Date.now() / 1000
    utimesSync(join(dir, recent), now - 3600, now - 3600)
    utimesSync(join(dir, stale), now - 8 * 24 * 3600, now - 8 * 24 * 3600)
    // Without its cache, the next run makes it again, and looks at the others.
    rmSync(join(dir, ours[0]!))
    const second = runCli(explain, {env})
    expect(second.code).toBe(0)
    expect(second.stdout).toBe(first.stdout)
    expect(readdirSync(dir).sort()).toEqual([recent, ours[0]].sort())
  })
})
