#!/usr/bin/env node
// kubectl finds this as `kubectl-topology` on PATH and runs it for `kubectl topology ...`.
// First the Node.js version, in syntax every Node.js with ES modules parses: on one older than
// the bundle needs, one line saying which version it needs and the two ways to get it, exit 10
// (docs/exit-codes.md), instead of a stack from deep inside the bundle. Then Node's compile cache
// (in the OS temp dir), which spares re-compiling the bundle on every run; a namespace import,
// since a named one of an export this Node.js lacks fails before any line runs.
import * as nodeModule from 'node:module'

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `error: kubectl-topology needs Node.js 22.19 or newer, and this is Node.js ${process.versions.node}: run it with the Node.js the package pins, from npm (npx -p node@26 -p kubectl-topology -- kubectl-topology ...), or use the standalone executable, which carries its own Node.js (krew or the release archive: https://github.com/kubectl-topology/kubectl-topology/blob/main/docs/install.md)\n`,
  )
  process.exit(10)
}
if (typeof nodeModule.enableCompileCache === 'function') nodeModule.enableCompileCache()
// Not a top-level await: Node would warn about an "unsettled top-level await" when a
// closed pipe (`| head`) ends the process early.
void import('../dist/main.js').then(({main}) => main(process.argv.slice(2)))
