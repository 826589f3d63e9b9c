// check --policy-file: reading and validating the policy file (loaded only when the flag is given).
// Static: a dynamic import() of yaml (CommonJS) from a split chunk exposes only `default`.
import {parse} from 'yaml'
import {CliError, ExitCode} from '../errors.js'
import {describeFileError, readTextBounded} from './files.js'
import {parsePolicyDocument, PolicyFileError, type CheckPolicies} from '../check/check.js'

export async function readPolicyFile(path: string): Promise<CheckPolicies> {
  let text: string
  try {
    // Type and size checked before reading (files.ts: a policy is at most 1 MiB).
    text = readTextBounded(path, 'policy')
  } catch (e) {
    throw new CliError(`cannot read --policy-file ${path}: ${describeFileError(e)}`, ExitCode.INPUT)
  }
  let doc: unknown
  try {
    doc = parse(text)
  } catch (e) {
    throw new CliError(`--policy-file ${path}: invalid YAML: ${(e as Error).message.split('\n')[0]}`, ExitCode.INPUT)
  }
  try {
    return parsePolicyDocument(doc)
  } catch (e) {
    if (e instanceof PolicyFileError) throw new CliError(`--policy-file ${path}: ${e.message}`, ExitCode.INPUT)
    throw e
  }
}
