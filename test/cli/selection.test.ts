// One selection rule for every command (issue 19 finding 8): -n NS with no names means every
// Service in NS, as `kubectl get services -n NS`; a name missing from the namespace but present
// in another one of the snapshot says where; --from-file defaults to the kubeconfig context's
// namespace, as a live read does.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {EXAMPLE, runCli} from './run-cli.js'

const SHOP = ['cart', 'catalog', 'checkout', 'inventory', 'payments', 'search', 'sessions'].map((n) => `shop/${n}`)

/** namespace/name of the Services in a command's JSON output. */
const servicesOf = (stdout: string): string[] => (JSON.parse(stdout) as {services: {namespace: string; name: string}[]}).services.map((s) => `${s.namespace}/${s.name}`)

describe('-n NS without names selects every Service in NS, for every command', () => {
  for (const command of ['explain', 'plan', 'check', 'simulate']) {
    it(command, () => {
      const r = runCli([command, '-n', 'shop', '--from-file', EXAMPLE, '-o', 'json'])
      expect(r.stderr).not.toMatch(/^error:/m)
      expect([0, 1]).toContain(r.code)
      expect(servicesOf(r.stdout)).toEqual(SHOP)
    })
  }
})

describe('a name that is in another namespace of the snapshot', () => {
  for (const command of ['explain', 'plan', 'check', 'simulate']) {
    it(`${command} says where it is`, () => {
      const r = runCli([command, 'svc/cart', '--from-file', EXAMPLE])
      expect(r.code).toBe(4)
      expect(r.stderr.trim()).toBe('error: services "cart" not found in namespace "default"; found in namespace shop: add -n shop')
      expect(r.stdout).toBe('')
    })
  }
})

describe("--from-file without -n: the kubeconfig context's namespace", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kt-select-'))
  afterAll(() => rmSync(dir, {recursive: true, force: true}))
  const kubeconfig = (namespace: string | undefined) => {
    const file = path.join(dir, `config-${namespace ?? 'none'}`)
    const ns = namespace === undefined ? '' : `\n    namespace: ${namespace}`
    writeFileSync(
      file,
      `apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: k\n  cluster:\n    server: https://127.0.0.1:1\ncontexts:\n- name: c\n  context:\n    cluster: k\n    user: u${ns}\nusers:\n- name: u\n  user: {}\n`,
    )
    return file
  }

  it('is the namespace of the current context', () => {
    const r = runCli(['explain', 'svc/cart', '--from-file', EXAMPLE, '-o', 'json'], {env: {KUBECONFIG: kubeconfig('shop')}})
    expect(r.code).toBe(0)
    expect(servicesOf(r.stdout)).toEqual(['shop/cart'])
  })

  it('is "default" when the context names none, or there is no kubeconfig', () => {
    for (const env of [{KUBECONFIG: kubeconfig(undefined)}, {KUBECONFIG: path.join(dir, 'absent'), HOME: dir}]) {
      const r = runCli(['explain', 'svc/cart', '--from-file', EXAMPLE], {env})
      expect(r.code).toBe(4)
      expect(r.stderr).toContain('not found in namespace "default"; found in namespace shop')
    }
  })

  it('-n still wins over the context', () => {
    const r = runCli(['plan', '-n', 'default', '--from-file', EXAMPLE, '-o', 'json'], {env: {KUBECONFIG: kubeconfig('shop')}})
    expect(r.code).toBe(0)
    expect(servicesOf(r.stdout)).toEqual(['default/kubernetes'])
  })
})
