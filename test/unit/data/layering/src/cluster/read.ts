// Allowed: cluster/ reads files.
import {readFileSync} from 'node:fs'

export const read = (): string => readFileSync.name
