// YAML text -> documents, two ways: `yaml`'s document model, which knows the line and column of
// every value (for messages), and the js-yaml fast path that parseSnapshot tries first.

import {constructFromEvents, CORE_SCHEMA, defineMappingTag, defineScalarTag, EVENT_ID, mapTag, NOT_RESOLVED, parseEvents, SCALAR_STYLE} from 'js-yaml'
import {LineCounter, parseAllDocuments, type Document} from 'yaml'
import {displayName, inputError, type Parsed} from './format.js'

/** The documents of a YAML text with their positions; a syntax error is an INPUT error at file:line:col. */
export function parseYamlText(text: string, source: string): Parsed {
  const lineCounter = new LineCounter()
  const documents = parseAllDocuments(text, {lineCounter, prettyErrors: true})
  const list: Document[] = Array.isArray(documents) ? documents : []
  for (const d of list) {
    const err = d.errors[0]
    if (err) {
      const pos = err.linePos?.[0]
      const msg = (err.message.split('\n')[0] ?? err.message).replace(/ at line \d+, column \d+:?$/, '')
      throw inputError(`${displayName(source)}${pos ? `:${pos.line}:${pos.col}` : ''}: ${msg}`)
    }
  }
  let docs: unknown[]
  try {
    docs = list.map((d) => d.toJS({maxAliasCount: 10_000}))
  } catch (e) {
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

// The fast path for YAML: js-yaml builds plain objects straight from its event stream, about
// 3x faster than `yaml`'s document model, which we need only for line:column positions, so
// only when something is wrong (docs/design.md "Startup"). It must give exactly what `yaml`
// gives (its YAML 1.2 core schema, as parseYamlText uses it), so it leaves to `yaml` every document that
// uses a feature where the two differ or that `yaml` limits: directives (%YAML 1.1 changes
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

/** The documents, or undefined when `yaml` must read the text (see above) or finds it invalid. */
export function fastYamlDocs(text: string): unknown[] | undefined {
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
