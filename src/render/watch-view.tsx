// The live terminal view of `watch` (ink + react). Loaded ONLY by the watch command on a
// terminal, with `await import('./watch-view.js')`; react and ink are imported
// statically here (a dynamic import of a CommonJS package such as react from a split ESM
// chunk exposes only `default`: docs/design.md).
import {dataPlaneLine} from '../dataplane/describe.js'
import {Box, render, Text, useApp, useInput, useStdin} from 'ink'
import {useSyncExternalStore} from 'react'
import {escapeDeep} from './escape.js'
import type {Style} from './style.js'
import {eventText, modeText, styledChange, verdictText, zoneTable, type WatchViewState} from './watch-lines.js'

export interface WatchStore {
  get(): WatchViewState
  subscribe(listener: () => void): () => void
}

export interface WatchViewProps {
  state: WatchViewState
  style: Style
  /** How many recent changes and events to show. */
  maxChanges?: number
  maxEvents?: number
}

/** The whole screen for one state: a pure function of its props (tested with renderToString). */
export function WatchView({state: raw, style, maxChanges = 8, maxEvents = 5}: WatchViewProps) {
  const state = escapeDeep(raw)
  const f = state.frame
  const prevBy = new Map((state.previous?.explanations ?? []).map((e) => [e.addressType, e]))
  const changes = state.changes.slice(-maxChanges).reverse()
  const events = state.events.slice(-maxEvents).reverse()
  return (
    <Box flexDirection="column">
      <Text>
        {style.bold(`Service ${f.namespace}/${f.name}`)} {style.dim(`· Kubernetes ${f.kubernetesVersion} · updated ${state.updatedAt}`)}
      </Text>
      {f.dataPlane ? <Text>{style.dim(dataPlaneLine(f.dataPlane))}</Text> : null}
      {!f.exists ? <Text>{style.warn('The Service does not exist (deleted?); waiting for it.')}</Text> : null}
      {f.explanations.map((e) => (
        <Box key={e.addressType} flexDirection="column" marginTop={1}>
          <Text>
            {`${e.addressType}: ${modeText(e)}: `}
            {verdictText(e, style)}
            {`: ${e.controller.reason}: ${e.controller.message}`}
          </Text>
          <Text>{`${e.totals.readyEndpoints} ready endpoints; in-zone traffic ${e.traffic.inZoneShareLive === null ? '-' : `${Math.round(e.traffic.inZoneShareLive * 100)}%`} now`}</Text>
          <Box marginTop={1}>
            <Text>{zoneTable(e, state.previous === null ? undefined : (prevBy.get(e.addressType) ?? undefined), style)}</Text>
          </Box>
        </Box>
      ))}
      <Box flexDirection="column" marginTop={1}>
        <Text>{style.bold('Threshold cliffs')}</Text>
        {f.cliffs.length === 0 ? <Text>{style.dim('  none: one endpoint or one node more or fewer does not change the verdict')}</Text> : null}
        {f.cliffs.map((c, i) => (
          <Text key={i}>{`  ${style.warn(c.message)}`}</Text>
        ))}
        {f.cluster.disablingNodes.map((d) => (
          <Text key={d.name}>{`  ${style.bad(`node ${d.name} (${d.status}) disables hints for every Service`)}: ${d.fix}`}</Text>
        ))}
      </Box>
      <Box flexDirection="column" marginTop={1}>
        <Text>{style.bold('Changes')}</Text>
        {changes.length === 0 ? <Text>{style.dim('  none yet')}</Text> : null}
        {changes.map((c, i) => (
          <Text key={i}>{`  ${c.time}  ${styledChange(c.change, style)}`}</Text>
        ))}
      </Box>
      <Box flexDirection="column" marginTop={1}>
        <Text>{style.bold('Controller events')}</Text>
        {events.length === 0 ? <Text>{style.dim('  none recorded')}</Text> : null}
        {events.map((e, i) => (
          <Text key={i}>{`  ${e.time}  ${e.event.type === 'Warning' ? style.warn(eventText(e.event)) : eventText(e.event)}`}</Text>
        ))}
      </Box>
      <Box marginTop={1}>
        <Text>{style.dim(`${state.status} · q or Ctrl-C to quit`)}</Text>
      </Box>
    </Box>
  )
}

function App({store, style, onKey}: {store: WatchStore; style: Style; onKey: (k: 'quit' | 'interrupt') => void}) {
  const state = useSyncExternalStore(store.subscribe, store.get)
  const {exit} = useApp()
  const {isRawModeSupported} = useStdin()
  useInput(
    (input, key) => {
      if (input === 'q' || key.escape) {
        onKey('quit')
        exit()
      } else if (key.ctrl && input === 'c') {
        onKey('interrupt')
        exit()
      }
    },
    {isActive: isRawModeSupported === true},
  )
  return <WatchView state={state} style={style} />
}

/** Renders the live view until q (resolves 'quit') or Ctrl-C (resolves 'interrupt'), or until `until` settles. */
export async function runWatchView(
  store: WatchStore,
  style: Style,
  until: Promise<unknown>,
  streams: {stdout?: NodeJS.WriteStream; stdin?: NodeJS.ReadStream} = {},
): Promise<'quit' | 'interrupt' | 'ended'> {
  let how: 'quit' | 'interrupt' | 'ended' = 'ended'
  // watch draws with ink only after deciding stdout is a terminal: that decision wins over
  // ink's own CI detection (CI=true would otherwise make it print only the last frame).
  const instance = render(<App store={store} style={style} onKey={(k) => (how = k)} />, {exitOnCtrlC: false, patchConsole: false, interactive: true, ...streams})
  void until.then(
    () => instance.unmount(),
    () => instance.unmount(),
  )
  await instance.waitUntilExit()
  instance.cleanup()
  return how
}
