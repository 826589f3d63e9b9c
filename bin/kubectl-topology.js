#!/usr/bin/env node
// kubectl finds this as `kubectl-topology` on PATH and runs it for `kubectl topology ...`.
// Node's compile cache (in the OS temp dir) spares re-compiling the bundle on every run.
import {enableCompileCache} from 'node:module'

enableCompileCache?.()
// Not a top-level await: Node would warn about an "unsettled top-level await" when a
// closed pipe (`| head`) ends the process early.
void import('../dist/main.js').then(({main}) => main(process.argv.slice(2)))
