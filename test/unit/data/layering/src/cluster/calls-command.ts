// Violates only-entry-imports-commands.
import {run} from '../commands/run.js'

export const callsCommand = (): string => run()
