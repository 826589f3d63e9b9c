#!/usr/bin/env node
// kubectl (>= 1.26) runs `kubectl_complete-topology ARGS... WORD` from PATH when completing
// `kubectl topology ARGS... WORD<TAB>`; the answer comes from the CLI's __complete handler.
import {enableCompileCache} from 'node:module'

enableCompileCache?.()
const args = process.argv.slice(2)
void import('../dist/main.js').then(({main}) => main(['__complete', ...(args[0] === '__complete' ? args.slice(1) : args)]))
