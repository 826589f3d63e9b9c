// esbuild plugin shared by scripts/build.mjs and scripts/package.mjs: one build-time edit of
// @oclif/core (5.1.9, pinned exactly). Plugin.load() sorts the command ids with
// String.prototype.localeCompare, whose first call loads an ICU collator: ~20 ms of every
// run of the CLI, for eight lowercase ASCII ids that sort the same by code unit. The build
// fails if the code it edits is not found (an oclif upgrade must look at this again).
import {readFile} from 'node:fs/promises'

const SORT = '.sort((a, b) => a.id.localeCompare(b.id))'
const CODE_UNIT_SORT = '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))'

export const oclifWithoutCollator = {
  name: 'oclif-without-collator',
  setup(b) {
    b.onLoad({filter: /[\\/]@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/}, async (args) => {
      const text = await readFile(args.path, 'utf8')
      if (text.split(SORT).length !== 2) throw new Error(`${args.path}: expected exactly one "${SORT}" (scripts/esbuild-oclif.mjs)`)
      return {contents: text.replace(SORT, CODE_UNIT_SORT), loader: 'js'}
    })
  },
}
