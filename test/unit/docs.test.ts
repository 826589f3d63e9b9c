// The docs stay whole: every command has a user guide whose title names it, and every
// relative link in README.md and docs/ points at a file that exists (and at a heading that
// exists, for links with an anchor).
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {describe, expect, it} from 'vitest'
import {COMMANDS} from '../../src/entry/commands.js'

const ROOT = resolve(import.meta.dirname, '../..')
const DOCS = join(ROOT, 'docs')
const pages = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(DOCS, f)),
]

// GitHub's anchor for a heading: lower case, punctuation but '-' and '_' dropped, spaces to '-'.
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
const headings = (file: string) =>
  readFileSync(file, 'utf8')
    .replace(/```[\s\S]*?```/g, '')
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => anchor(l.replace(/^#+ /, '')))

describe('docs', () => {
  it.each(Object.keys(COMMANDS))('%s has a user guide titled with the command', (name) => {
    const guides = readdirSync(DOCS)
      .filter((f) => f.endsWith('.md'))
      .filter((f) => new RegExp(`^# .*kubectl topology ${name}\\b`).test(readFileSync(join(DOCS, f), 'utf8').split('\n')[0] ?? ''))
    expect(guides, `no docs/*.md starts with a title naming \`kubectl topology ${name}\``).not.toEqual([])
  })

  it('every relative link points at an existing file and heading', () => {
    const broken: string[] = []
    for (const page of pages) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!
        if (/^[a-z]+:/.test(target)) continue // http(s), mailto
        const [path, hash] = target.split('#') as [string, string | undefined]
        const file = path === '' ? page : resolve(dirname(page), path)
        if (!existsSync(file)) broken.push(`${page.slice(ROOT.length + 1)}: ${target} (no such file)`)
        else if (hash && file.endsWith('.md') && !headings(file).includes(hash)) broken.push(`${page.slice(ROOT.length + 1)}: ${target} (no such heading)`)
      }
    }
    expect(broken).toEqual([])
  })
})
