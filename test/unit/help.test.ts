// src/entry/help.ts (cobra-style help from the manifest), src/entry/dispatch.ts's reading of argv, and
// the build-time edit that makes @oclif/core's requires lazy (scripts/esbuild-oclif.mjs).
import {describe, expect, it} from 'vitest'
import {helpTarget} from '../../src/entry/dispatch.js'
import {commandHelp, rootHelp, wrapText, wrapWords, type HelpCommand} from '../../src/entry/help.js'
// @ts-expect-error: a build script in plain JavaScript, without types.
import {editOclifSource} from '../../scripts/esbuild-oclif.mjs'

const program = {bin: 'kubectl topology', description: 'kubectl plugin that does things.'}

const cmd: HelpCommand = {
  id: 'explain',
  summary: 'Explain a Service.',
  description:
    'First paragraph, long enough to be wrapped at eighty columns by the renderer, which it is.\n\nTable:\n\n  --a          short\n  --bb N       text that goes on and on until it is too long for one line of eighty columns',
  usage: 'explain [svc/NAME ...] [flags]',
  examples: [{description: 'One Service', command: '<%= config.bin %> explain svc/web'}, '<%= config.bin %> explain -A'],
  flags: {
    output: {name: 'output', type: 'option', char: 'o', description: 'Output format.', options: ['table', 'json'], default: 'table'},
    'no-headers': {name: 'no-headers', type: 'boolean', description: 'Omit headers.'},
    secret: {name: 'secret', type: 'boolean', description: 'Not shown.', hidden: true},
    kubeconfig: {name: 'kubeconfig', type: 'option', description: 'Path to the kubeconfig file.', helpGroup: 'CLUSTER'},
  },
}

describe('commandHelp', () => {
  it('renders cobra sections with pflag columns, examples as kubectl prints them', () => {
    expect(commandHelp(cmd, program)).toBe(`Explain a Service.

First paragraph, long enough to be wrapped at eighty columns by the renderer,
which it is.

Table:

  --a          short
  --bb N       text that goes on and on until it is too long for one line of
               eighty columns

Usage:
  kubectl topology explain [svc/NAME ...] [flags]

Examples:
  # One Service
  kubectl topology explain svc/web

  kubectl topology explain -A

Flags:
  -h, --help                Show help.
      --no-headers          Omit headers.
  -o, --output string       Output format. One of: table|json. (default "table")

Cluster Flags:
      --kubeconfig string   Path to the kubeconfig file.
`)
  })

  it('defaults the usage to "ID [flags]" and does not repeat a summary the description starts with', () => {
    const page = commandHelp({id: 'nodes', summary: 'Show nodes.', description: 'Show nodes. And more.', flags: {}}, program)
    expect(page.startsWith('Show nodes. And more.\n\nUsage:\n  kubectl topology nodes [flags]\n')).toBe(true)
  })
})

describe('rootHelp', () => {
  it('lists the visible commands in order, with --help and --version', () => {
    const page = rootHelp({version: '1', commands: {watch: {...cmd, id: 'watch', summary: 'Watch.'}, explain: cmd, hidden: {...cmd, id: 'hidden', hidden: true}}}, program)
    expect(page).toBe(`kubectl plugin that does things.

Usage:
  kubectl topology [command]

Available Commands:
  explain   Explain a Service.
  watch     Watch.

Flags:
  -h, --help      Show help.
      --version   Show the version.

Use "kubectl topology [command] --help" for more information about a command.
`)
  })
})

describe('wrapping', () => {
  it('wrapWords fills lines and cuts a long list after its separators', () => {
    expect(wrapWords('a bb ccc dddd', 6)).toEqual(['a bb', 'ccc', 'dddd'])
    expect(wrapWords('one,two,three|four', 9)).toEqual(['one,two,', 'three|', 'four'])
    expect(wrapWords('unbreakableword', 5)).toEqual(['unbreakableword'])
  })
  it('wrapText keeps pre-formatted paragraphs and their column', () => {
    expect(wrapText('  x   kept as is\n  yy  too')).toEqual(['  x   kept as is', '  yy  too'])
  })
})

describe('helpTarget', () => {
  it.each([
    [[], {}],
    [['--help'], {}],
    [['-h'], {}],
    [['help'], {}],
    [['help', 'explain'], {command: 'explain'}],
    [['explain', '--help'], {command: 'explain'}],
    [['explain', 'svc/web', '-h'], {command: 'explain'}],
    [['frob', '--help'], {command: 'frob'}],
    [['explain'], undefined],
    [['explain', '--', '--help'], undefined],
    [['--version'], undefined],
  ])('%j -> %j', (argv, target) => {
    expect(helpTarget(argv)).toEqual(target)
  })
})

describe('editOclifSource (lazy requires in @oclif/core)', () => {
  const source = `"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) { return (mod && mod.__esModule) ? mod : { "default": mod }; };
Object.defineProperty(exports, "__esModule", { value: true });
const node_path_1 = require("node:path");
const ejs_1 = __importDefault(require("ejs"));
const util_1 = require("./util");
function render(t) { return ejs_1.default.render(t) + (0, util_1.id)(node_path_1.sep); }
exports.render = render;
`
  it('defers every non-built-in require until an export of it is used', () => {
    const {text, lazy} = editOclifSource(source, '/x/node_modules/@oclif/core/lib/config/config.js')
    expect(lazy).toBe(3)
    expect(text).toContain('const node_path_1 = __topologyLazyModule(() => require("node:path"));')
    expect(text).toContain('const ejs_1 = __topologyLazyModule(() => __importDefault(require("ejs")));')
    expect(text).toContain('const util_1 = __topologyLazyModule(() => require("./util"));')
    const loaded: string[] = []
    const fakeRequire = (m: string) => {
      loaded.push(m)
      return m === 'ejs' ? {render: (t: string) => `<${t}>`} : m === './util' ? {id: (s: string) => s} : {sep: '/'}
    }
    const mod = {exports: {} as {render?: (t: string) => string}}
    new Function('exports', 'require', 'module', text)(mod.exports, fakeRequire, mod)
    expect(loaded).toEqual([])
    expect(mod.exports.render!('t')).toBe('<t>/')
    expect(loaded).toEqual(['ejs', './util', 'node:path'])
  })
  it('fails the build when the collator sort it replaces is not there', () => {
    expect(() => editOclifSource(source, '/x/node_modules/@oclif/core/lib/config/plugin.js')).toThrow(/expected exactly one/)
  })
})
