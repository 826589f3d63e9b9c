// Allowed: a command imports the rooms below it.
import {read} from '../cluster/read.js'
import {table} from '../render/table.js'

export const run = (): string => `${table()} ${read()}`
