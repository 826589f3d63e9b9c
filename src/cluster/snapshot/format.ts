// What every snapshot module shares: the Snapshot document (`kubectl topology snapshot`
// writes it, `--from-file` reads it with the other accepted inputs), what a parser hands to the
// decoder (documents, and where a value is, for messages) and how input errors are phrased.

import {CliError, ExitCode} from '../../errors.js'
import type {ClusterState} from '../../state/cluster-state.js'

export const SNAPSHOT_API_VERSION = 'kubectl-topology/v1'
export const SNAPSHOT_KIND = 'Snapshot'

/**
 * Our Snapshot document: the ClusterState it was made from, with its apiVersion and kind.
 * nodesReadable is present (false) only when the Nodes could not be read; deployments and
 * statefulSets are absent when they were not read.
 */
export type Snapshot = {
  apiVersion: typeof SNAPSHOT_API_VERSION
  kind: typeof SNAPSHOT_KIND
} & ClusterState

export type Obj = Record<string, unknown>
/** Where a value is in a document: keys and list indexes from its root. */
export type Path = (string | number)[]
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export const EXPECTED = 'expected the output of `kubectl get nodes,services,endpointslices -A -o yaml` or of `kubectl topology snapshot`'

/** The file name as messages show it ("-" is stdin). */
export const displayName = (source: string) => (source === '-' ? '<stdin>' : source)

/** An INPUT error on one line. */
export function inputError(msg: string): CliError {
  return new CliError(msg.replace(/\s*\n\s*/g, ' '), ExitCode.INPUT)
}

/** Parsed text: its documents and a way to find the line:column of a value. */
export interface Parsed {
  docs: unknown[]
  /** Finds the line:column of a value by document index and path. */
  locate(doc: number, path: Path): {line: number; col: number} | undefined
}
