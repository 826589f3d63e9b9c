#!/usr/bin/env node
// kubectl (>= 1.26) runs `kubectl_complete-topology ARGS... WORD` from PATH when completing
// `kubectl topology ARGS... WORD<TAB>`; the answer comes from the CLI's __complete handler.
// On a Node.js older than the bundle needs: no completions, the one line of kubectl-topology.js
// on stderr (which the shell's completion script discards), exit 10.
import * as nodeModule from 'node:module'

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`error: kubectl-topology needs Node.js 22.19 or newer, and this is Node.js ${process.versions.node}\n`)
  process.exit(10)
}
if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache()
const args = process.argv.slice(2)
void import('../dist/main.js').then(({main}) => main(['__complete', ...(args[0] === '__complete' ? args.slice(1) : args)]))
