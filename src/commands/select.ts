// Turning names / -l / -n / -A into the Services a command works on, with kubectl's
// messages for what is missing (shared by the commands that take a Service selection).
import {CliError, ExitCode} from '../errors.js'
import {selectServices} from '../state/select.js'
import {SelectorError} from '../upstream/apimachinery/labels.js'
import type {Service} from '../upstream/api/types.js'
import type {SourceResult} from '../cluster/source.js'

export function requireSelection(names: string[], flags: {'all-namespaces'?: boolean; selector?: string | undefined}): void {
  if (names.length === 0 && !flags['all-namespaces'] && flags.selector === undefined) {
    throw new CliError('name a Service (svc/NAME), or select Services with -l SELECTOR or -A', ExitCode.USAGE)
  }
  if (names.length > 0 && flags.selector !== undefined) {
    throw new CliError('Service names cannot be combined with -l: use one or the other', ExitCode.USAGE)
  }
}

export async function selectOrFail(read: SourceResult, names: string[], flags: {'all-namespaces'?: boolean; selector?: string | undefined}): Promise<Service[]> {
  let selection
  try {
    selection = selectServices(read.state, {
      namespace: read.namespace,
      allNamespaces: flags['all-namespaces'],
      names,
      labelSelector: flags.selector,
    })
  } catch (e) {
    if (e instanceof SelectorError) throw new CliError(e.message, ExitCode.USAGE)
    throw e
  }
  if (selection.missing.length > 0) {
    const ns = read.namespace ?? 'default'
    if (selection.namespaceEmpty && read.source === 'snapshot') {
      throw new CliError(`namespace "${ns}" not found in the snapshot (it holds no Service or EndpointSlice); pass -n NAMESPACE or -A`, ExitCode.NOT_FOUND)
    }
    const {suggest} = await import('../cluster/suggest.js')
    const missing = selection.missing[0]!
    const hint = suggest(missing, selection.candidates)
    throw new CliError(`services "${missing}" not found in namespace "${ns}"${hint.length ? `; did you mean ${hint.map((h) => `"${h}"`).join(' or ')}?` : ''}`, ExitCode.NOT_FOUND)
  }
  return selection.services
}
