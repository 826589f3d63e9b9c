// docs/metrics.md lists every metric serve exports, with its type, labels and help text as in
// src/serve/catalogue.ts, and nothing else.
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {FAMILIES} from '../../src/serve/catalogue.js'

const page = readFileSync(path.join(import.meta.dirname, '../../docs/metrics.md'), 'utf8')

describe('docs/metrics.md', () => {
  it.each(FAMILIES.map((f) => [f.name, f] as const))('lists %s as the catalogue has it', (_name, f) => {
    const row = `| \`${f.name}\` | ${f.type} | ${f.labels.map((l) => `\`${l}\``).join(', ') || '(none)'} | ${f.help.replace(/\|/g, '\\|')} |`
    expect(page).toContain(row)
  })
  it('lists no metric the catalogue lacks', () => {
    const names = new Set<string>(FAMILIES.map((f) => f.name))
    const listed = [...page.matchAll(/^\| `(kubectl_topology_[a-z_]+)` \|/gm)].map((m) => m[1]!)
    expect(listed.filter((n) => !names.has(n))).toEqual([])
    expect(listed.length).toBe(FAMILIES.length)
  })
})
