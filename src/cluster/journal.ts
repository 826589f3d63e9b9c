// Where apply keeps its undo record: one JSON file per (API server, namespace, Service) under
// $XDG_STATE_HOME/kubectl-topology/journal/ (default ~/.local/state/kubectl-topology/journal/).
// Written BEFORE the first write and after every object written (write to a temporary file,
// fsync, rename), so an interrupt or a crash leaves an exact record. docs/apply.md says why
// a local file and not an annotation on the objects.

import {createHash} from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {CliError, ExitCode} from '../errors.js'
import {journalProblem, type Journal} from '../apply/undo.js'

function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME && path.isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state')
  return path.join(base, 'kubectl-topology')
}

/** journal/<sha256(server) first 16 hex>/<namespace>/<service>.json */
export function journalPath(key: {server: string; namespace: string; service: string}, env: NodeJS.ProcessEnv = process.env): string {
  const h = createHash('sha256').update(key.server).digest('hex').slice(0, 16)
  return path.join(stateDir(env), 'journal', h, key.namespace, `${key.service}.json`)
}

export function readJournal(file: string): Journal | null {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw new CliError(`cannot read the apply journal ${file}: ${(e as Error).message}`, ExitCode.INPUT, {cause: e})
  }
  const damaged = (why: string, cause?: unknown) =>
    new CliError(`the apply journal ${file} is damaged (${why}); move it away to continue (it records what apply changed: compare it with the objects first)`, ExitCode.INPUT, {
      cause,
    })
  let j: unknown
  try {
    j = JSON.parse(text)
  } catch (e) {
    throw damaged(`not JSON: ${(e as Error).message.slice(0, 200)}`, e)
  }
  const problem = journalProblem(j)
  if (problem !== null) throw damaged(problem)
  return {...(j as Journal), history: (j as Journal).history ?? []}
}

/** Atomic and durable: temp file in the same directory, fsync, rename, fsync the directory. */
export function writeJournal(file: string, j: Journal): void {
  try {
    fs.mkdirSync(path.dirname(file), {recursive: true, mode: 0o700})
    const tmp = `${file}.${process.pid}.tmp`
    const fd = fs.openSync(tmp, 'w', 0o600)
    try {
      fs.writeSync(fd, `${JSON.stringify(j, null, 2)}\n`)
      fs.fsyncSync(fd)
    } finally {
      fs.closeSync(fd)
    }
    fs.renameSync(tmp, file)
    try {
      const dfd = fs.openSync(path.dirname(file), 'r')
      fs.fsyncSync(dfd)
      fs.closeSync(dfd)
    } catch {
      // Directory fsync is not supported everywhere; the rename is still atomic.
    }
  } catch (e) {
    throw new CliError(`cannot write the apply journal ${file}: ${(e as Error).message}; nothing more is written`, ExitCode.WRITE_FAILED, {cause: e})
  }
}

export function removeJournal(file: string): void {
  try {
    fs.rmSync(file, {force: true})
  } catch {
    // best effort: a stale journal only means reset finds nothing to do
  }
}
