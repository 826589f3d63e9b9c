// --traffic-from and its companions (explain, plan, serve): measured traffic from a Prometheus
// instead of the CPU assumption (docs/traffic.md). The flags are declared once here; their values
// are checked before any I/O; the read itself loads with the command's run (cluster/).
import * as Flags from '@oclif/core/flags'
import {CliError, ExitCode} from '../errors.js'
import {isPromDuration, TRAFFIC_PRESET_NAMES, TRAFFIC_PRESETS, type TrafficPreset, templateProblem} from '../explain/measured.js'
import type {ClusterState} from '../state/cluster-state.js'
import type {Service} from '../upstream/api/types.js'
import type {MeasuredRead} from '../cluster/measured-traffic.js'
import type {PrometheusClient} from '../cluster/prometheus.js'

const TRAFFIC = 'MEASURED TRAFFIC'

export const trafficFromFlags = {
  'traffic-from': Flags.string({
    description:
      "Read each Service's traffic per zone from this Prometheus (base URL, e.g. http://127.0.0.1:9090) instead of assuming it proportional to zone CPU; with --traffic-preset or --traffic-query.",
    helpGroup: TRAFFIC,
  }),
  'traffic-preset': Flags.option({
    options: TRAFFIC_PRESET_NAMES,
    description:
      'A documented zone-to-zone metric: beyla (beyla_network_flow_bytes_total) or obi (obi_network_flow_bytes_total), with src.zone and dst.zone selected (docs/traffic.md).',
    helpGroup: TRAFFIC,
  })(),
  'traffic-query': Flags.string({
    description:
      'PromQL giving one series per client zone (label src_zone, and dst_zone for the zone-to-zone matrix); placeholders {namespace}, {service}, {workloads}, {window} (docs/traffic.md).',
    helpGroup: TRAFFIC,
  }),
  'traffic-window': Flags.string({description: 'The range the preset or {window} measures over, a Prometheus duration.', default: '1h', helpGroup: TRAFFIC}),
  'traffic-ca-file': Flags.string({description: "A PEM file of the CA that signed the Prometheus server's certificate (https).", helpGroup: TRAFFIC}),
  'traffic-insecure-skip-tls-verify': Flags.boolean({description: "Do not check the Prometheus server's certificate (https; insecure).", default: false, helpGroup: TRAFFIC}),
  'traffic-token-file': Flags.string({description: 'A file holding the bearer token to send to Prometheus.', helpGroup: TRAFFIC}),
  'traffic-token': Flags.string({description: 'The bearer token to send to Prometheus (visible in process lists: prefer --traffic-token-file).', helpGroup: TRAFFIC}),
}

type TrafficFromFlagValues = {
  'traffic-from'?: string | undefined
  'traffic-preset'?: TrafficPreset | undefined
  'traffic-query'?: string | undefined
  'traffic-window'?: string | undefined
  'traffic-ca-file'?: string | undefined
  'traffic-insecure-skip-tls-verify'?: boolean | undefined
  'traffic-token-file'?: string | undefined
  'traffic-token'?: string | undefined
  traffic?: string | undefined
}

export interface TrafficFrom {
  url: string
  template: string
  window: string
  caFile: string | undefined
  insecureSkipTLSVerify: boolean
  token: string | undefined
  tokenFile: string | undefined
}

/** The --traffic-from options checked (before any I/O), or undefined without --traffic-from. */
export function trafficFromOptions(f: TrafficFromFlagValues): TrafficFrom | undefined {
  const companions = ['traffic-preset', 'traffic-query', 'traffic-ca-file', 'traffic-token-file', 'traffic-token'] as const
  if (f['traffic-from'] === undefined) {
    const given = companions.find((c) => f[c] !== undefined) ?? (f['traffic-insecure-skip-tls-verify'] ? 'traffic-insecure-skip-tls-verify' : undefined)
    if (given !== undefined) throw new CliError(`--${given} needs --traffic-from URL (the Prometheus to read the traffic from)`, ExitCode.USAGE)
    return undefined
  }
  if (f.traffic !== undefined) throw new CliError('--traffic and --traffic-from: give one of them (the traffic as given, or as measured)', ExitCode.USAGE)
  const preset = f['traffic-preset']
  const query = f['traffic-query']
  if (preset !== undefined && query !== undefined) throw new CliError('--traffic-preset and --traffic-query: give one of them', ExitCode.USAGE)
  if (preset === undefined && query === undefined) {
    throw new CliError(
      `--traffic-from needs --traffic-preset (${TRAFFIC_PRESET_NAMES.join(', ')}) or --traffic-query PROMQL: what to ask the Prometheus (docs/traffic.md)`,
      ExitCode.USAGE,
    )
  }
  const template = preset !== undefined ? TRAFFIC_PRESETS[preset].query : query!
  const problem = templateProblem(template)
  if (problem !== null) throw new CliError(`--traffic-query: ${problem}`, ExitCode.USAGE)
  const window = (f['traffic-window'] ?? '1h').trim()
  if (!isPromDuration(window)) throw new CliError(`--traffic-window: invalid value "${window}": a Prometheus duration above zero such as 5m, 1h or 1h30m`, ExitCode.USAGE)
  return {
    url: f['traffic-from'],
    template,
    window,
    caFile: f['traffic-ca-file'],
    insecureSkipTLSVerify: f['traffic-insecure-skip-tls-verify'] ?? false,
    token: f['traffic-token'],
    tokenFile: f['traffic-token-file'],
  }
}

/** A client for the options' Prometheus (the URL, token and CA checked; no request yet). */
export async function openTrafficSource(o: TrafficFrom, requestTimeout: string): Promise<PrometheusClient> {
  const [{openPrometheus}, {parseDuration}] = await Promise.all([import('../cluster/prometheus.js'), import('../cluster/kubeconfig.js')])
  return openPrometheus({
    url: o.url,
    caFile: o.caFile,
    insecureSkipTLSVerify: o.insecureSkipTLSVerify,
    token: o.token,
    tokenFile: o.tokenFile,
    timeoutMs: parseDuration(requestTimeout),
  })
}

/** The measured traffic of the Services, and a warning for each left to the CPU assumption. */
export async function readTrafficFrom(client: PrometheusClient, o: TrafficFrom, state: ClusterState, services: readonly Service[]): Promise<MeasuredRead> {
  const {readMeasuredTraffic} = await import('../cluster/measured-traffic.js')
  return readMeasuredTraffic(client, o.template, o.window, state, services)
}

/** serve --traffic-interval: how often the measured traffic is read again. */
export const trafficIntervalFlag = Flags.string({
  description: 'serve: how often to read the measured traffic again (10s to 1h).',
  default: '60s',
  helpGroup: TRAFFIC,
})

/** --traffic-interval in ms, 10 s to 1 h (a tighter loop would query Prometheus once per Service that often). */
export function parseTrafficInterval(text: string): number {
  const m = text.trim().match(/^(\d+)(s|m|h)$/)
  const ms = m ? Number(m[1]) * {s: 1000, m: 60_000, h: 3_600_000}[m[2] as 's' | 'm' | 'h'] : Number.NaN
  if (!(ms >= 10_000 && ms <= 3_600_000)) throw new CliError(`--traffic-interval: invalid value "${text}": from 10s to 1h, e.g. 30s, 5m`, ExitCode.USAGE)
  return ms
}
