// Allowed: the entry imports the commands.
import {run} from '../commands/run.js'

export const main = (): string => run()
