// check --policy-file: reading and validating the policy file (loaded only when the flag is given).
// Static: a dynamic import() of yaml (CommonJS) from a split chunk exposes only `default`.
import {parse} from 'yaml'
import {CliError, ExitCode} from '../errors.js'
import {parsePolicyDocument, PolicyFileError, type CheckPolicies} from '../check/check.js'

export async function readPolicyFile(path: string): Promise<CheckPolicies> {
  const {readFile} = await import('node:fs/promises')
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new CliError(`cannot read --policy-file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message}`, ExitCode.INPUT)
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
