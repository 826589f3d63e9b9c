#!/usr/bin/env node
// kubectl finds this as `kubectl-topology` on PATH and runs it for `kubectl topology ...`.
// First the Node.js version, in syntax every Node.js with ES modules parses: on one older than
// the bundle needs, one line saying which version it needs and the two ways to get it, exit 10
// (docs/exit-codes.md), instead of a stack from deep inside the bundle. Then Node's compile cache
// (in the OS temp dir), which spares re-compiling the bundle on every run. Built-in modules come
// from process.getBuiltinModule (Node 22.3+, so only after the check): an `import` of one
// makes Node read all its exports, and for node:fs that evaluates fs/promises, the streams
// and readline (docs/design.md "Startup").

const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(
    `error: kubectl-topology needs Node.js 22.19 or newer, and this is Node.js ${process.versions.node}: run it with the Node.js the package pins, from npm (npx -p node@26 -p kubectl-topology -- kubectl-topology ...), or use the standalone executable, which carries its own Node.js (krew or the release archive: https://github.com/kubectl-topology/kubectl-topology/blob/main/docs/install.md)\n`,
  )
  process.exit(10)
}
const argv = process.argv.slice(2)
// The top-level help page (bare, --help, -h, help), which the build rendered into dist/help.txt
// with dist/main.js's own renderer: printed without loading the bundle. Without the file (a
// build in progress), dist/main.js renders it as any other help page.
const page = argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help')) ? rootHelpPage() : undefined
if (page) printPage(page)
else {
  process.getBuiltinModule('node:module').enableCompileCache()
  // Not a top-level await: Node would warn about an "unsettled top-level await" when a
  // closed pipe (`| head`) ends the process early.
  void import('../dist/main.js').then(({main}) => main(argv))
}

function rootHelpPage() {
  try {
    return process.getBuiltinModule('node:fs').readFileSync(new URL('../dist/help.txt', import.meta.url))
  } catch {
    return undefined
  }
}

/** Writes `page` to stdout: at once, or through process.stdout when it is a pipe that would block. */
function printPage(page) {
  const fs = process.getBuiltinModule('node:fs')
  let done = 0
  while (done < page.length) {
    try {
      done += fs.writeSync(1, page, done)
    } catch (e) {
      // A reader gone (`--help | head`) is not an error, as in dist/main.js.
      if (e.code === 'EPIPE') return
      if (e.code !== 'EAGAIN') throw e
      process.stdout.on('error', (err) => {
        if (err.code !== 'EPIPE') throw err
      })
      process.stdout.write(page.subarray(done))
      return
    }
  }
}
