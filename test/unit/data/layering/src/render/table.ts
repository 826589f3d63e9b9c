// Violates render-no-cluster-or-commands: a printer reads the cluster.
import {read} from '../cluster/read.js'
import {report} from '../explain/report.js'

export const table = (): string => `${report()} ${read()}`
