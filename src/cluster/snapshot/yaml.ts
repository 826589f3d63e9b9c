// YAML text -> documents, two ways: `yaml`'s document model, which knows the line and column of
// every value (for messages), and the js-yaml fast path that parseSnapshot tries first.

import {constructFromEvents, CORE_SCHEMA, defineMappingTag, defineScalarTag, EVENT_ID, mapTag, NOT_RESOLVED, parseEvents, SCALAR_STYLE} from 'js-yaml'
import {isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, visit, type Document} from 'yaml'
import {displayName, inputError, type Parsed} from './format.js'
import {isStackOverflow, tooDeep} from './depth.js'

/** The documents of a YAML text with their positions; a syntax error is an INPUT error at file:line:col. */
export function parseYamlText(text: string, source: string): Parsed {
  const lineCounter = new LineCounter()
  // merge: `<<` merge keys, which go-yaml (kubectl's decoder, sigs.k8s.io/yaml) honours in
  // every document (a Node's `<<: *defaults` holding its cpu was read as no CPU, issue 20).
  let documents: ReturnType<typeof parseAllDocuments>
  try {
    documents = parseAllDocuments(text, {lineCounter, prettyErrors: true, merge: true})
  } catch (e) {
    if (isStackOverflow(e)) throw tooDeep(source)
    throw e
  }
  const list: Document[] = Array.isArray(documents) ? documents : []
  for (const d of list) {
    const err = d.errors[0]
    // The composer records running out of stack as the document's error (deep flow collections).
    if (err && /call stack/i.test(err.message)) throw tooDeep(source)
    if (err) {
      const pos = err.linePos?.[0]
      const msg = (err.message.split('\n')[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, '')
      throw inputError(`${displayName(source)}${pos ? `:${pos.line}:${pos.col}` : ''}: ${msg}`)
    }
  }
  const limit = Math.max(MIN_ALIAS_BUDGET, text.length)
  for (const d of list) {
    if (aliasesExceed(d, limit)) {
      throw inputError(
        `${displayName(source)}: its aliases expand to more than ${limit} characters (the file has ${text.length}): a file's aliases may add at most its own size (1 MiB at least), as kubectl's YAML decoder refuses excessive aliasing`,
      )
    }
  }
  let docs: unknown[]
  try {
    docs = list.map((d) => d.toJS({maxAliasCount: 10_000}))
  } catch (e) {
    if (isStackOverflow(e)) throw tooDeep(source)
    throw inputError(`${displayName(source)}: ${(e as Error).message}`)
  }
  return {
    docs,
    locate(doc, path) {
      const d = list[doc]
      if (!d) return undefined
      for (let n = path.length; n >= 0; n--) {
        const node = n === 0 ? d.contents : d.getIn(path.slice(0, n), true)
        const r = (node as {range?: [number, number, number]} | null | undefined)?.range
        if (r) return lineCounter.linePos(r[0])
      }
      return undefined
    },
  }
}

/**
 * Aliases are counted by the size they expand to, not by their number: `yaml`'s maxAliasCount
 * counts uses, so ten thousand aliases of one 120 KB annotation passed (1.2 MB of YAML became
 * 2.1 GB of JSON output, issue 20). go-yaml, the decoder behind kubectl's sigs.k8s.io/yaml,
 * refuses "excessive aliasing" by the share of the decoded document that comes from aliases
 * (yaml.v2/v3 decode.go allowedAliasRatio: up to 99% for small documents, 10% for large ones);
 * here by characters: the aliases of a text may add at most as many characters as the text has
 * (MIN_ALIAS_BUDGET at least), so what is decoded stays within twice the file.
 */
const MIN_ALIAS_BUDGET = 1 << 20

/**
 * Whether the document's aliases expand to more than `limit` characters: each use of an alias
 * costs its target's size with its own aliases expanded (a scalar counts its source length, a
 * collection its items), memoised per node, so a "billion laughs" document is measured in one
 * pass over its nodes, not expanded.
 */
function aliasesExceed(doc: Document, limit: number): boolean {
  // Each alias's target, from one walk in document order (an alias names the nearest anchor
  // before it): `Alias.resolve` searches the document on every call, 10,000 aliases took minutes.
  const anchors = new Map<string, unknown>()
  const targets = new Map<unknown, unknown>()
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) targets.set(node, anchors.get(node.source))
      else if (node.anchor) anchors.set(node.anchor, node)
    },
  })
  if (targets.size === 0) return false
  const memo = new Map<unknown, number>()
  let fromAliases = 0
  const size = (node: unknown): number => {
    if (node === null || node === undefined) return 1
    const known = memo.get(node)
    if (known !== undefined) return known
    let n = 1
    if (isAlias(node)) {
      const target = targets.get(node)
      n = target === undefined ? 1 : size(target)
      fromAliases += n
      if (fromAliases > limit) throw new AliasBudget()
      return n // not memoised: each use of an alias costs again
    }
    if (isScalar(node)) {
      const r = node.range
      n = r ? Math.max(1, r[1] - r[0]) : String(node.value).length
    } else if (isMap(node) || isSeq(node)) {
      for (const item of node.items) n += isPair(item) ? size(item.key) + size(item.value) : size(item)
    }
    memo.set(node, n)
    return n
  }
  try {
    size(doc.contents)
    return false
  } catch (e) {
    if (e instanceof AliasBudget) return true
    throw e
  }
}

class AliasBudget extends Error {}

// The fast path for YAML: js-yaml builds plain objects straight from its event stream, about
// 3x faster than `yaml`'s document model, which we need only for line:column positions, so
// only when something is wrong (docs/design.md "Startup"). It must give exactly what `yaml`
// gives (its YAML 1.2 core schema, as parseYamlText uses it), so it leaves to `yaml` every document that
// uses a feature where the two differ or that `yaml` limits: merge keys, directives (%YAML 1.1 changes
// the schema), tags, aliases (maxAliasCount), keys that are null or collections, and a
// block scalar as a whole document (never a snapshot; `yaml` reads the indentation
// indicator of a top-level block scalar differently). js-yaml's
// core schema resolves plain scalars like `yaml`'s except floats that overflow: `yaml` gives
// Infinity for 1e400, so this float tag is `yaml`'s. test/unit/snapshot-yaml.test.ts
// compares the two on generated documents.
const YAML_FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/
const YAML_FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/
const YAML_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/
const FAST_SCHEMA = CORE_SCHEMA.withTags(
  defineScalarTag('tag:yaml.org,2002:float', {
    implicit: true,
    implicitFirstChars: ['-', '+', '.', ...'0123456789'],
    resolve: (src) =>
      YAML_FLOAT_NAN.test(src)
        ? src.slice(-3).toLowerCase() === 'nan'
          ? Number.NaN
          : src[0] === '-'
            ? Number.NEGATIVE_INFINITY
            : Number.POSITIVE_INFINITY
        : YAML_FLOAT_EXP.test(src) || YAML_FLOAT.test(src)
          ? Number.parseFloat(src)
          : NOT_RESOLVED,
    identify: () => false,
  }),
  defineMappingTag('tag:yaml.org,2002:map', {
    create: mapTag.create,
    // `yaml` turns a null key into "" and a collection key into its YAML text.
    addPair: (map, key, value) => (key === null || typeof key === 'object' ? 'left to yaml' : mapTag.addPair(map, key, value)),
    has: mapTag.has,
    keys: mapTag.keys,
    get: mapTag.get,
    identify: mapTag.identify,
  }),
)

/** The documents of one text on the fast path, or undefined (see above). */
function eventDocs(text: string): unknown[] | undefined {
  try {
    const events = parseEvents(text, {})
    let root = false
    for (const e of events) {
      if (
        e.type === EVENT_ID.DOCUMENT
          ? e.directives.length > 0
          : e.type !== EVENT_ID.POP && (e.type === EVENT_ID.ALIAS || e.tagStart !== -1 || (root && e.type === EVENT_ID.SCALAR && e.style >= SCALAR_STYLE.LITERAL_BLOCK))
      ) {
        return undefined
      }
      root = e.type === EVENT_ID.DOCUMENT
    }
    return constructFromEvents(events, {source: text, schema: FAST_SCHEMA, maxAliases: 0})
  } catch {
    return undefined
  }
}

/**
 * About how many characters of a List's items the fast path reads at a time: small enough that
 * the events of a part die young (a scavenge frees them; bigger parts get them copied to the old
 * generation first; reading a 50 MB file peaks at 540 MB with parts of 1 MB, 310 MB with 64 KB).
 */
const PART = 1 << 16

/**
 * The documents, or undefined when `yaml` must read the text (see above) or finds it invalid.
 * `part`: see inParts (the tests make it small).
 */
export function fastYamlDocs(text: string, part = PART): unknown[] | undefined {
  // A merge key (`<<`) is `yaml`'s to resolve (js-yaml's core schema reads it as a plain key).
  if (text.includes('<<')) return undefined
  return (text.length > part ? inParts(text, part) : undefined) ?? eventDocs(text)
}

/**
 * A big List (`kubectl get … -o yaml`: one document, a mapping with `items:` at column 0 and a
 * block sequence under it) read in parts of about `part` characters, whole items each: js-yaml
 * keeps an event object for every scalar and collection of the text it reads (about 12 bytes of
 * events per byte of YAML: 600 MB for a 50 MB file, issue 14), so it reads the items a part at
 * a time, and the rest of the document (the skeleton) with `items: []` in their place.
 *
 * Where the items end comes from indentation alone: in valid YAML a non-empty line indented less
 * than the entries' "-", or as much and not an entry, ends the sequence, and no line inside an
 * entry (a block scalar's, a multi-line scalar's, a flow collection's) is indented that little.
 * Anything else is left to the whole text (undefined): a tab in an indentation, a second
 * `items:` at column 0, an `items:` whose value is not a block sequence, a skeleton that is not
 * one document (another document before or after the items) or whose `items` is not the empty
 * list put there, a part that is not one sequence. An invalid text cannot pass as valid: where
 * a cut splits something (a quoted scalar, a flow collection), the skeleton or a part holds
 * half of it and fails. test/unit/snapshot-yaml.test.ts compares this with `yaml` on generated
 * Lists cut small; test/unit/snapshot-yaml-parts.test.ts shows which texts are read in parts.
 */
function inParts(text: string, part: number): unknown[] | undefined {
  let itemsLine = -1 // start of the `items:` line
  let entryIndent = -1 // column of the entries' "-"
  let first = -1 // start of the first entry
  let end = -1 // end of the sequence (start of the line after it), -1 while in it
  const cuts: number[] = []
  const n = text.length
  for (let ls = 0; ls < n; ) {
    let le = text.indexOf('\n', ls)
    if (le < 0) le = n
    let i = ls
    while (i < le && text.charCodeAt(i) === 32) i++
    const c = i < le ? text.charCodeAt(i) : 10
    const indent = i - ls
    const next = ls
    ls = le + 1
    if (c === 10 || (c === 13 && i + 1 >= le)) continue // blank
    if (c === 9) return undefined // a tab in the indentation
    if (indent === 0 && c === 105 /* i */ && text.startsWith('items:', next) && /^[ \t]*\r?$/.test(text.slice(next + 6, le))) {
      if (itemsLine >= 0) return undefined
      itemsLine = next
      continue
    }
    if (itemsLine < 0 || end >= 0) continue
    if (c === 35 /* # */) continue // a comment, or text inside an entry
    const entry = c === 45 /* - */ && (i + 1 >= le || text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 13)
    if (entryIndent < 0) {
      if (!entry) return undefined // `items:` holds something else
      entryIndent = indent
      first = next
      cuts.push(next)
      continue
    }
    if (indent > entryIndent) continue
    if (indent === entryIndent && entry) {
      if (next - cuts[cuts.length - 1]! >= part) cuts.push(next)
      continue
    }
    if (indent === entryIndent && c === 45) return undefined // "-" not followed by a space
    end = next
  }
  if (first < 0) return undefined
  if (end < 0) end = n
  const skeleton = eventDocs(`${text.slice(0, itemsLine)}items: []\n${text.slice(end)}`)
  const doc = skeleton?.length === 1 ? skeleton[0] : undefined
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined
  const items = (doc as Record<string, unknown>).items
  if (!Array.isArray(items) || items.length !== 0 || !Object.hasOwn(doc, 'items')) return undefined
  cuts.push(end)
  for (let k = 0; k + 1 < cuts.length; k++) {
    const docs = eventDocs(text.slice(cuts[k], cuts[k + 1]))
    const list = docs?.length === 1 ? docs[0] : undefined
    if (!Array.isArray(list)) return undefined
    for (const item of list) items.push(item)
  }
  return skeleton
}
