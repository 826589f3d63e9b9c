// How deeply a snapshot may nest: no Kubernetes object comes near it, and every step that walks
// the documents (the YAML composer, the JSON error scanner, decode's Lists within Lists) recurses,
// so a deeper text would end in V8's "Maximum call stack size exceeded" (issue 20: 5,000 nested
// Lists, deep JSON, deep YAML). The API server's own JSON decoder stops at 10,000 levels
// (sigs.k8s.io/json); 1,000 keeps every recursive step here well inside Node's default stack.
import {displayName, inputError} from './format.js'
import type {CliError} from '../../errors.js'

export const MAX_NESTING = 1000

/**
 * Whether any value in docs is nested deeper than max levels (objects and arrays). A recursion
 * that never goes deeper than max + 1 frames, however deep the value, and allocates nothing (own
 * enumerable keys, as Object.values, without its array per object): on the 13.8 MB file of one
 * Service with 50,000 endpoints, ~15 ms of CPU against ~75 ms for the former walk with an
 * explicit stack of [value, depth] pairs, which also set off the scavenges that copy what
 * JSON.parse just made (issue 23, docs/design.md "Big input").
 */
export function nestedDeeperThan(docs: readonly unknown[], max = MAX_NESTING): boolean {
  for (const d of docs) if (typeof d === 'object' && d !== null && deeper(d, max)) return true
  return false
}

/** Whether `v` (an object or array with `left` levels allowed, itself included) goes deeper. */
function deeper(v: object, left: number): boolean {
  if (left <= 0) return true
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i]
      if (typeof x === 'object' && x !== null && deeper(x, left - 1)) return true
    }
    return false
  }
  for (const k in v) {
    const x: unknown = (v as Record<string, unknown>)[k]
    if (typeof x === 'object' && x !== null && Object.hasOwn(v, k) && deeper(x, left - 1)) return true
  }
  return false
}

/** The one-line refusal of a text nested too deeply (exit 3). */
export const tooDeep = (source: string): CliError =>
  inputError(`${displayName(source)}: nested deeper than ${MAX_NESTING} levels, which no Kubernetes object is: is this the output of kubectl get -o yaml|json?`)

/** A RangeError from a recursion that ran out of stack (what V8 throws for "Maximum call stack size exceeded"). */
export const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message)
