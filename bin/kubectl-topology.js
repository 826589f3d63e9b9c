#!/usr/bin/env node
// kubectl finds this as `kubectl-topology` on PATH and runs it for `kubectl topology ...`.
import {main} from '../dist/cli.js'

main(process.argv.slice(2))
