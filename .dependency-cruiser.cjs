// The rooms of src/ and what each may import (docs/architecture.md), checked by
// dependency-cruiser: `npm run layering` (part of `npm test`). test/unit/layering.test.ts runs
// the same rules on a small tree with deliberate violations, to show that each rule bites.
//
// Parser: swc (@swc/core). dependency-cruiser reads TypeScript through the `typescript`
// package's compiler API (typescript >=2 <7), which TypeScript 7, the native compiler this
// project pins, no longer has (its JS API is only under typescript/unstable); with swc it
// parses .ts and .tsx itself, marks `import type` as type-only (still a dependency here: a
// domain room must not name oclif's or the client's types either), and resolves the `.js`
// specifiers of TS ESM to the `.ts` files.

/** The domain rooms: pure functions over plain data. */
const DOMAIN = '^src/(state|explain|apply|simulate|check|watch|dataplane|plan|advise|serve)/'
/** Node built-ins that do I/O (files, processes, network). */
const IO_BUILTINS = '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|dns|tls|readline|tty|worker_threads|cluster)$'
/** Libraries of the outside: the API client, the terminal, the CLI framework (matched on the resolved file). */
const IO_LIBRARIES = '(^|/)node_modules/(@kubernetes/client-node|chalk|ink|react|@oclif/[^/]+)/'

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'upstream-only-upstream',
      comment: 'src/upstream/ is a port of Kubernetes code: it imports only src/upstream/ (no other room, no library, no node built-in).',
      severity: 'error',
      from: {path: '^src/upstream/'},
      to: {pathNot: '^src/upstream/'},
    },
    {
      name: 'domain-no-outer-rooms',
      comment: 'Domain rooms are pure functions over plain data: they never import cluster/ (I/O), render/ (output), commands/ or entry/.',
      severity: 'error',
      from: {path: DOMAIN},
      to: {path: '^src/(cluster|render|commands|entry)/'},
    },
    {
      name: 'domain-no-io-builtins',
      comment: 'Domain rooms do no I/O: no node built-in that reads files, runs processes or talks to the network.',
      severity: 'error',
      from: {path: DOMAIN},
      to: {dependencyTypes: ['core'], path: IO_BUILTINS},
    },
    {
      name: 'domain-no-io-libraries',
      comment: 'Domain rooms never use the API client, the terminal libraries or oclif (not even their types).',
      severity: 'error',
      from: {path: DOMAIN},
      to: {path: IO_LIBRARIES},
    },
    {
      name: 'render-no-cluster-or-commands',
      comment: 'src/render/ formats what it is given: it never reads the cluster and never imports a command.',
      severity: 'error',
      from: {path: '^src/render/'},
      to: {path: '^src/(cluster|commands)/'},
    },
    {
      name: 'only-entry-imports-commands',
      comment: 'The commands are reached through the registry (src/entry/commands.ts) only.',
      severity: 'error',
      from: {path: '^src/', pathNot: '^src/(entry|commands)/'},
      to: {path: '^src/commands/'},
    },
    {
      name: 'no-cycles',
      comment:
        'No import cycle between modules of src/ at run time. Cycles closed by an `import type` only are allowed: ' +
        'src/commands/apply-run.ts and reset-run.ts name their command class as a type, the class imports them lazily.',
      severity: 'error',
      from: {path: '^src/'},
      to: {circular: true, viaOnly: {dependencyTypesNot: ['type-only']}},
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to nothing is a typo or a missing dependency.',
      severity: 'error',
      from: {},
      to: {couldNotResolve: true, pathNot: '^sea:(oclif-manifest|yoga)$'},
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: {path: 'node_modules'},
    exclude: {path: '(^|/)\\.run-ts-'},
    moduleSystems: ['es6', 'cjs'],
    // Packages resolve through their `exports` (chalk, ink and @oclif/core's subpaths have no
    // `main` that would do).
    enhancedResolveOptions: {exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['main', 'types']},
  },
}
