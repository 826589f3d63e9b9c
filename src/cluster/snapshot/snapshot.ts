// Snapshot files: what `explain --from-file` reads and `snapshot` writes.
//
// Accepted input: `kubectl get nodes,services,endpointslices -A -o json|yaml` (a v1 List),
// typed lists (NodeList, …), multi-document YAML (each document an object or a List), a
// JSON array, and our own `kubectl-topology/v1` Snapshot. Other kinds are ignored.
// Errors name the file, line and column.
//
// The jobs are apart: json.ts and yaml.ts turn text into documents (yaml.ts also the js-yaml
// fast path), decode.ts documents into a ClusterState, write.ts a ClusterState into a
// Snapshot (redact.ts for --redact); format.ts holds what they share.

import {CliError, ExitCode} from '../../errors.js'
import {describeFileError, readStreamBounded, readTextBounded} from '../files.js'
import type {ClusterState} from '../../state/cluster-state.js'
import {decode, type SnapshotNeed} from './decode.js'
import {isStackOverflow, nestedDeeperThan, tooDeep} from './depth.js'
import {displayName, EXPECTED, inputError, type Parsed} from './format.js'
import {parseJsonText} from './json.js'
import {fastYamlDocs, parseYamlText} from './yaml.js'

export {fastYamlDocs} from './yaml.js'
export {serializeSnapshot, snapshotYaml} from './write.js'

function parseText(text: string, source: string): Parsed {
  // Like kubectl's YAML-or-JSON decoder: text that starts with "{" or "[" is JSON.
  const first = /\S/.exec(text)?.[0]
  return first === '{' || first === '[' ? parseJsonText(text, source) : parseYamlText(text, source)
}

/**
 * Parses snapshot text. `source` is the file name (or "-" for stdin), used in messages; `need`:
 * what the command reads (decode.ts). A text nested deeper than MAX_NESTING is refused in one
 * line (depth.ts), before decoding or when a parser runs out of stack.
 */
export function parseSnapshot(text: string, source: string, need: SnapshotNeed = 'services'): ClusterState {
  try {
    return parseAndDecode(text, source, need)
  } catch (e) {
    if (isStackOverflow(e)) throw tooDeep(source)
    throw e
  }
}

function parseAndDecode(text: string, source: string, need: SnapshotNeed): ClusterState {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (body.trim() === '') throw inputError(`${displayName(source)}: the snapshot is empty (${EXPECTED})`)
  const first = /\S/.exec(body)?.[0]
  const fast = first === '{' || first === '[' ? undefined : fastYamlDocs(body)
  if (fast && nestedDeeperThan(fast)) throw tooDeep(source)
  if (fast) {
    try {
      return decode({docs: fast, locate: () => undefined}, source, need)
    } catch (e) {
      if (!(e instanceof CliError)) throw e
      // Invalid content: read again with `yaml` to say where (file:line:col).
    }
  }
  const parsed = parseText(body, source)
  if (nestedDeeperThan(parsed.docs)) throw tooDeep(source)
  return decode(parsed, source, need)
}

/** Reads and parses a snapshot file, or stdin for "-". */
export async function readSnapshotFile(path: string, need: SnapshotNeed = 'services'): Promise<ClusterState> {
  let text: string
  try {
    // Type and size checked first, the read bounded (files.ts: 256 MiB). A file is read at once
    // and decoded in one go: the promise API decodes a big file chunk by chunk into a string of
    // many pieces, 20 MB more at the peak for 14 MB of JSON (issue 14). Nothing else runs while
    // a command reads its snapshot.
    text = path === '-' ? await readStreamBounded(process.stdin, 'snapshot') : readTextBounded(path, 'snapshot')
  } catch (e) {
    const why = describeFileError(e)
    throw new CliError(`cannot read snapshot file "${path}": ${why}`, ExitCode.INPUT, {cause: e})
  }
  return parseSnapshot(text, path, need)
}
