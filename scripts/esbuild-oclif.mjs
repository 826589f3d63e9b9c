// esbuild plugin of scripts/build.mjs for dist/app.cjs (which the executable embeds as is):
// two build-time edits of @oclif/core (5.1.9, pinned exactly; docs/design.md "Bundling" and
// "Startup"). The build fails if the code they edit is not found, so an oclif upgrade must
// look at them again.
//
// 1. Lazy requires. oclif is CommonJS whose modules require each other at the top: loading
//    `Command` evaluates the config loader, which requires ejs, minimatch, tinyglobby, the
//    help renderer, ux spinners... although running one command with the manifest needs few
//    of them. Every `const x_1 = require("m")` (TypeScript's CommonJS output, also with
//    __importDefault/__importStar) in oclif's own files becomes a proxy that requires the
//    module on first use of one of its exports, so only what runs is evaluated. TypeScript
//    reads an import only through `x_1.name`, which the proxy forwards. Node built-ins too:
//    not all are loaded at start (the parser's node:readline is only for reading stdin).
// 2. Plugin.load() sorts the command ids with String.prototype.localeCompare, whose first
//    call loads an ICU collator (~20 ms); the edit sorts by code unit (the same order for
//    our ASCII ids). Our root plugin (src/entry/run.ts) does not use Plugin.load(); oclif's
//    Plugin in the bundle is there for completeness.
import {readFile} from 'node:fs/promises'

const SORT = '.sort((a, b) => a.id.localeCompare(b.id))'
const CODE_UNIT_SORT = '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))'

const LAZY_REQUIRE = /^(const|var|let) ([A-Za-z0-9_$]+) = ((?:__importDefault\(|__importStar\()?require\("([^"]+)"\)\)?);$/gm

const LAZY_MODULE = `function __topologyLazyModule(load) {
  let m;
  const get = () => (m ??= load());
  return new Proxy(Object.create(null), {
    get: (_, k) => get()[k],
    set: (_, k, v) => { get()[k] = v; return true; },
    has: (_, k) => k in get(),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_, k) => { const d = Reflect.getOwnPropertyDescriptor(get(), k); if (d) d.configurable = true; return d; },
  });
}
`

/** oclif's source with both edits (exported for the unit test of the transform). */
export function editOclifSource(text, path) {
  let out = text
  if (/[\\/]config[\\/]plugin\.js$/.test(path)) {
    if (out.split(SORT).length !== 2) throw new Error(`${path}: expected exactly one "${SORT}" (scripts/esbuild-oclif.mjs)`)
    out = out.replace(SORT, CODE_UNIT_SORT)
  }
  let lazy = 0
  out = out.replace(LAZY_REQUIRE, (line, kind, name, expr) => {
    lazy++
    return `${kind} ${name} = __topologyLazyModule(() => ${expr});`
  })
  if (lazy > 0) {
    if (!out.startsWith('"use strict";\n')) throw new Error(`${path}: expected TypeScript's CommonJS output (scripts/esbuild-oclif.mjs)`)
    out = `"use strict";\n${LAZY_MODULE}${out.slice('"use strict";\n'.length)}`
  }
  return {text: out, lazy}
}

export const oclifEdits = {
  name: 'oclif-edits',
  setup(b) {
    let lazy = 0
    b.onStart(() => {
      lazy = 0
    })
    b.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/].*\.js$/}, async (args) => {
      const edited = editOclifSource(await readFile(args.path, 'utf8'), args.path)
      lazy += edited.lazy
      return {contents: edited.text, loader: 'js'}
    })
    b.onEnd((result) => {
      // command.js alone has nine; none at all means TypeScript's output changed shape.
      if (result.errors.length === 0 && lazy === 0) throw new Error('scripts/esbuild-oclif.mjs: no require of @oclif/core was made lazy (did its output format change?)')
    })
  },
}
