// The command registry: oclif's "explicit" strategy target (package.json oclif.commands), from
// which scripts/build.mjs writes oclif.manifest.json; src/entry/dispatch.ts imports it only to run
// a command. Register a command with one line here.
import Apply from '../commands/apply.js'
import Check from '../commands/check.js'
import Explain from '../commands/explain.js'
import Nodes from '../commands/nodes.js'
import Plan from '../commands/plan.js'
import Reset from '../commands/reset.js'
import Serve from '../commands/serve.js'
import Simulate from '../commands/simulate.js'
import Snapshot from '../commands/snapshot.js'
import Watch from '../commands/watch.js'

export const COMMANDS = {
  apply: Apply,
  check: Check,
  explain: Explain,
  nodes: Nodes,
  plan: Plan,
  reset: Reset,
  serve: Serve,
  simulate: Simulate,
  snapshot: Snapshot,
  watch: Watch,
}
