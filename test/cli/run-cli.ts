// Runs the built CLI (dist/, made by `npm run build`, which `npm test` runs first) as a
// child process, the way a user runs it, and captures what it prints.
import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const BIN = fileURLToPath(new URL('../../bin/kubectl-topology.js', import.meta.url))
export const EXAMPLE = fileURLToPath(new URL('../../examples/three-zones.yaml', import.meta.url))

export interface CliResult {
  stdout: string
  stderr: string
  code: number | null
}

export function runCli(args: string[], opts: {input?: string; env?: Record<string, string | undefined>; cwd?: string} = {}): CliResult {
  const env: Record<string, string | undefined> = {...process.env, NO_COLOR: undefined, FORCE_COLOR: undefined, ...opts.env}
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k]
  const r = spawnSync(process.execPath, [BIN, ...args], {
    input: opts.input ?? '',
    env: env as NodeJS.ProcessEnv,
    cwd: opts.cwd ?? ROOT,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: 60_000,
  })
  return {stdout: r.stdout, stderr: r.stderr, code: r.status}
}
