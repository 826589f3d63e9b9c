// How deeply a snapshot may nest: no Kubernetes object comes near it, and every step that walks
// the documents (the YAML composer, the JSON error scanner, decode's Lists within Lists) recurses,
// so a deeper text would end in V8's "Maximum call stack size exceeded" (issue 20: 5,000 nested
// Lists, deep JSON, deep YAML). The API server's own JSON decoder stops at 10,000 levels
// (sigs.k8s.io/json); 1,000 keeps every recursive step here well inside Node's default stack.
import {displayName, inputError} from './format.js'
import type {CliError} from '../../errors.js'

export const MAX_NESTING = 1000

/** Whether any value in docs is nested deeper than max levels (objects and arrays); iterative. */
export function nestedDeeperThan(docs: readonly unknown[], max = MAX_NESTING): boolean {
  const stack: [unknown, number][] = docs.map((d) => [d, 1])
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (typeof v !== 'object' || v === null) continue
    if (depth > max) return true
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (typeof x === 'object' && x !== null) stack.push([x, depth + 1])
  }
  return false
}

/** The one-line refusal of a text nested too deeply (exit 3). */
export const tooDeep = (source: string): CliError =>
  inputError(`${displayName(source)}: nested deeper than ${MAX_NESTING} levels, which no Kubernetes object is: is this the output of kubectl get -o yaml|json?`)

/** A RangeError from a recursion that ran out of stack (what V8 throws for "Maximum call stack size exceeded"). */
export const isStackOverflow = (e: unknown): boolean => e instanceof RangeError && /call stack/i.test(e.message)
