// Turning names / -l / -n / -A into the Services a command works on, with kubectl's
// messages for what is missing. One rule for every command that takes a Service selection
// (explain, plan, check, simulate, snapshot), as `kubectl get services` has it: names pick those
// Services of the namespace; -l picks by label; -A widens to every namespace; nothing but the
// namespace (-n NS, or the context's) means every Service in it. watch follows one Service and
// says so (watchedService).
import {shellQuote} from '../advise/shell.js'
import {CliError, ExitCode} from '../errors.js'
import {selectServices} from '../state/select.js'
import {SelectorError} from '../upstream/apimachinery/labels.js'
import type {Service} from '../upstream/api/types.js'
import type {SourceResult} from '../cluster/source.js'

/** The selection rules checked before any I/O: names and -l exclude each other. */
export function checkSelection(names: string[], flags: {selector?: string | undefined}): void {
  if (names.length > 0 && flags.selector !== undefined) {
    throw new CliError('Service names cannot be combined with -l: use one or the other', ExitCode.USAGE)
  }
}

/**
 * watch follows exactly one Service: the name, or a usage error in kubectl's words
 * ("exactly one NAME is required, got N") with the command to type.
 */
export function watchedService(names: string[], namespace: string | undefined): string {
  if (names.length === 1) return names[0]!
  const example = `kubectl topology watch svc/NAME${namespace === undefined ? '' : ` -n ${shellQuote(namespace)}`}`
  const why = names.length === 0 && namespace !== undefined ? `; -n ${shellQuote(namespace)} alone selects every Service in the namespace, and watch follows one` : ''
  throw new CliError(`watch: exactly one NAME is required, got ${names.length}${why}: ${example}`, ExitCode.USAGE)
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
    const missing = selection.missing[0]!
    // A snapshot holds every namespace: say where the name is, as the fix.
    const elsewhere = selection.elsewhere[missing] ?? []
    const found = elsewhere.length > 0 ? `; found in namespace ${elsewhere.join(', ')}: add -n ${shellQuote(elsewhere[0]!)}` : ''
    if (selection.namespaceEmpty && read.source === 'snapshot') {
      throw new CliError(`namespace "${ns}" not found in the snapshot (it holds no Service or EndpointSlice)${found || ': pass -n NAMESPACE or -A'}`, ExitCode.NOT_FOUND)
    }
    if (found) throw new CliError(`services "${missing}" not found in namespace "${ns}"${found}`, ExitCode.NOT_FOUND)
    const {suggest} = await import('../cluster/suggest.js')
    const hint = suggest(missing, selection.candidates)
    throw new CliError(`services "${missing}" not found in namespace "${ns}"${hint.length ? `; did you mean ${hint.map((h) => `"${h}"`).join(' or ')}?` : ''}`, ExitCode.NOT_FOUND)
  }
  return selection.services
}
