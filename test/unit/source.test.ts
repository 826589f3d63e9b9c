// cluster/source.ts: the source rules, once, and openSource on a snapshot file.
import {describe, expect, it} from 'vitest'
import {openSource, validateSource} from '../../src/cluster/source.js'

const FILE = 'examples/three-zones.yaml'

describe('validateSource', () => {
  it('-A with names is refused', () => {
    expect(() => validateSource({'all-namespaces': true}, ['web'])).toThrow(
      expect.objectContaining({message: 'a Service name cannot be combined with --all-namespaces: drop -A or the names', exitCode: 2}),
    )
    expect(() => validateSource({'all-namespaces': true}, [])).not.toThrow()
  })

  it('--from-file with --kubeconfig or --context is refused', () => {
    for (const flags of [
      {'from-file': FILE, kubeconfig: 'k'},
      {'from-file': FILE, context: 'c'},
    ]) {
      expect(() => validateSource(flags)).toThrow(
        expect.objectContaining({message: '--from-file reads a snapshot; --kubeconfig and --context apply only to a live cluster', exitCode: 2}),
      )
    }
    expect(() => validateSource({'from-file': FILE})).not.toThrow()
    expect(() => validateSource({kubeconfig: 'k', context: 'c'})).not.toThrow()
  })

  it('-A with names comes first', () => {
    expect(() => validateSource({'all-namespaces': true, 'from-file': FILE, context: 'c'}, ['web'])).toThrow(/--all-namespaces/)
  })
})

describe('openSource from a snapshot', () => {
  it('the state, the namespace the names refer to, no warnings', async () => {
    const read = await openSource({flags: {'from-file': FILE, namespace: 'shop'}, serviceNames: ['checkout']})
    expect(read.source).toBe('snapshot')
    expect(read.namespace).toBe('shop')
    expect(read.warnings).toEqual([])
    expect(read.state.services.length).toBeGreaterThan(0)
    expect((await openSource({flags: {'from-file': FILE}})).namespace).toBe('default')
    expect((await openSource({flags: {'from-file': FILE, 'all-namespaces': true}})).namespace).toBeUndefined()
  })

  it("read: 'nodes' returns the nodes", async () => {
    const nodes = await openSource({flags: {'from-file': FILE}, read: 'nodes'})
    expect(nodes.nodes.length).toBeGreaterThan(0)
  })

  it('checks the rules before reading', async () => {
    await expect(openSource({flags: {'from-file': 'does-not-exist.yaml', context: 'c'}})).rejects.toThrow(/--kubeconfig and --context apply only to a live cluster/)
  })
})
