// Every flag more than one command takes, declared once, in kubectl's words. A command that
// words a flag its own way (apply's --from-file previews, snapshot's -A counts namespaces, not
// Services) passes that wording here rather than declaring the flag again; names, characters,
// defaults and help groups stay the same everywhere. Loaded with every command class: no I/O,
// nothing heavy (docs/design.md "Startup").
import * as Flags from '@oclif/core/flags'

const CLUSTER = 'CLUSTER'

// ---- connection: which API server, as whom, how patiently -------------------------------------

export const connectionFlags = {
  kubeconfig: Flags.string({description: 'Path to the kubeconfig file (default: $KUBECONFIG or ~/.kube/config).', helpGroup: CLUSTER}),
  context: Flags.string({description: 'The name of the kubeconfig context to use.', helpGroup: CLUSTER}),
  'request-timeout': Flags.string({
    description: 'How long to wait for each API request ("30s", "1m", "0" = no limit).',
    default: '30s',
    helpGroup: CLUSTER,
  }),
}

// ---- source: where the objects come from and which Services -----------------------------------

interface Wording {
  description?: string
  /** undefined: listed with the command's own flags instead of under CLUSTER. */
  helpGroup?: string | undefined
}

const grouped = (o: Wording, fallback: string | undefined): {helpGroup?: string} => {
  const g = 'helpGroup' in o ? o.helpGroup : fallback
  return g === undefined ? {} : {helpGroup: g}
}

export const namespaceFlag = (o: Wording = {}) =>
  Flags.string({char: 'n', description: o.description ?? 'Namespace (default: the context\'s namespace, else "default").', ...grouped(o, CLUSTER)})

export const allNamespacesFlag = (o: Wording = {}) =>
  Flags.boolean({char: 'A', description: o.description ?? 'All Services in all namespaces.', default: false, ...grouped(o, undefined)})

export const selectorFlag = (o: Wording = {}) =>
  Flags.string({char: 'l', description: o.description ?? 'Label selector for Services (=, ==, !=, in, notin).', ...grouped(o, undefined)})

export const fromFileFlag = (o: Wording = {}) =>
  Flags.string({
    char: 'f',
    description:
      o.description ??
      'Read a snapshot file instead of a live cluster ("-" for stdin): `kubectl get nodes,services,endpointslices -A -o yaml` output, or `kubectl topology snapshot` output.',
    ...grouped(o, undefined),
  })

export const kubeVersionFlag = (o: Wording = {}) =>
  Flags.string({
    description: o.description ?? "Behave as this Kubernetes version (e.g. 1.33). Default: the API server's version; the newest known for snapshots.",
    ...grouped(o, undefined),
  })

/** What explain, check and simulate read from: the cluster or a snapshot, and which Services. */
export const sourceFlags = {
  namespace: namespaceFlag(),
  'all-namespaces': allNamespacesFlag(),
  selector: selectorFlag(),
  'from-file': fromFileFlag(),
  'kube-version': kubeVersionFlag(),
}

/**
 * --data-plane: the data plane that load-balances Services, instead of detecting it (explain,
 * check, watch). Values: src/dataplane/types.ts DATA_PLANE_NAMES; rules: docs/dataplane.md.
 */
export const dataPlaneFlag = (o: Wording = {}) =>
  Flags.option({
    options: ['kube-proxy', 'cilium', 'calico', 'antrea', 'kube-router', 'ovn-kubernetes', 'kube-ovn', 'unknown'] as const,
    description:
      o.description ??
      'The data plane that load-balances Services (default: detected from the kube-system DaemonSets, or what the snapshot recorded). Its rules decide the per-zone verdicts.',
    ...grouped(o, undefined),
  })()

/** --client-paths: also read the meshes and gateways (live), and say per Service who picks its endpoints. */
export const clientPathsFlag = (o: Wording = {}) =>
  Flags.boolean({
    description:
      o.description ??
      'Also read the meshes and gateways (Istio, Linkerd, ingress-nginx, Envoy Gateway, Gateway API routes) and say, per Service, which client paths bypass the node data plane and what each does with its topology setting. A snapshot that recorded them answers without the flag.',
    default: false,
    ...grouped(o, undefined),
  })

/** connectionFlags then sourceFlags, in the order help lists them. */
export const readFlags = {...connectionFlags, ...sourceFlags}

// ---- output ----------------------------------------------------------------------------------

export const commonFlags = {
  color: Flags.option({options: ['auto', 'always', 'never'] as const, default: 'auto' as const, description: 'When to colour the output. NO_COLOR is honoured in auto mode.'})(),
  debug: Flags.boolean({description: 'Print stack traces and request details on errors.', default: false, hidden: false}),
}

/** -o FORMAT for the read commands (apply and reset word theirs in write-flags.ts). */
export const outputFlag = <const T extends readonly string[]>(options: T, defaultValue: T[number]) =>
  Flags.option({char: 'o', options, default: defaultValue, description: 'Output format.'})()

export const noHeadersFlag = (description = 'Omit table headers.') => Flags.boolean({description, default: false})
