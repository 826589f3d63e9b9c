// Violates domain-no-outer-rooms (cluster/), domain-no-io-builtins (node:fs) and
// domain-no-io-libraries (chalk; @oclif/core, if only as a type).
import {readFileSync} from 'node:fs'
import type {Interfaces} from '@oclif/core'
import chalk from 'chalk'
import {read} from '../cluster/read.js'
import {nodes} from '../state/state.js'

export const report = (pjson?: Interfaces.PJSON): string => chalk.bold(`${read()} ${nodes().length} ${readFileSync.name} ${pjson?.name}`)
