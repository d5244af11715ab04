/**
 * Where each streamed input comes from: the stream while it is healthy and synced, REST polling
 * otherwise. One gate per input, shared by its poller (which stands down while the gate says so) and
 * the stream side (which reports health and gaps):
 *
 *   source = stream  ⇔  the input's channels are fresh  ∧  a REST read that began after the last
 *                        gap (sequence gap, reconnect, or the stream coming back) has completed
 *
 * So polling resumes the moment a channel goes stale or down (the gate triggers the poller), and
 * after the stream comes back one REST read resyncs the input before the poller stands down again.
 *
 * A sequence gap while the stream serves the input asks for one REST read (a resync) but does not
 * hand the input back to polling: the stream's next push is as current as a poll. Gaps while that
 * read is wanted are the same resync, and a resync triggers the poller at most once per
 * `minResyncMs` (otherwise it waits for the poller's next cycle): a venue that gaps every push costs
 * at most what polling costs, never a stream ↔ poll flip per push. A poller that
 * stands down keeps cycling (and beating the watchdog) without reading, so `/livez` still tells a
 * wedged loop from an idle one. Pure state on an injected clock; no I/O.
 */
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'

export const STREAM_INPUTS = ['index', 'statistics', 'portfolio', 'orders', 'fills', 'withdrawals'] as const
export type StreamInput = (typeof STREAM_INPUTS)[number]
export type InputSource = 'stream' | 'poll'

export interface InputGateView {
  source: InputSource
  /** The input's channels are fresh. */
  streamHealthy: boolean
  /** No REST resync outstanding. */
  synced: boolean
  /** Clock ms of the last change of `source`. */
  since: number | undefined
  /** Times polling resumed (stream → poll) and stood down (poll → stream). */
  resumes: number
  standDowns: number
  /** Gaps (sequence gaps, reconnects, returns) that asked for a REST resync. */
  resyncs: number
  /** Sequence gaps folded into a resync already asked for. */
  gapsCoalesced: number
}

export interface InputGate {
  readonly name: StreamInput
  /** True when the poller may skip its REST read: the stream is healthy and synced. */
  standingDown(): boolean
  /** Marks the start of a REST read; call the returned function once it succeeded. */
  begin(): () => void
  /** One REST read now even if the stream is healthy (an actor restarted, an unknown withdrawal). */
  want(): void
  /** `listener` runs when the poller should read now (the stream went unhealthy or needs a resync). */
  onResume(listener: () => void): () => void
}

/** Each streamed input's view; an input the bot does not use (no strategy reads it) is absent. */
export type InputGatesSnapshot = Partial<Record<StreamInput, InputGateView>>

export interface InputGates {
  readonly enabled: boolean
  /** The inputs the bot uses: only their channels are subscribed and only they are reported. */
  readonly inputs: readonly StreamInput[]
  /** An input used from now on (a reload added an instrument whose strategy reads statistics). */
  use(name: StreamInput): void
  gate(name: StreamInput): InputGate
  /** The stream side: the input's channels are (not) all fresh. */
  setHealthy(name: StreamInput, healthy: boolean): void
  /** The stream side: pushes may have been missed; a REST read must resync before standing down. */
  gap(name: StreamInput): void
  snapshot(): InputGatesSnapshot
  /** Every change of source (logging). */
  onChange(listener: (name: StreamInput, source: InputSource, at: number) => void): () => void
}

interface GateState {
  healthy: boolean
  /** Gap generation: bumped on every gap. */
  gen: number
  /** The generation the last completed REST read began in (-1: none yet). */
  syncedGen: number
  source: InputSource
  since: number | undefined
  resumes: number
  standDowns: number
  resyncs: number
  /** A one-off read was asked for. */
  wanted: boolean
  gapsCoalesced: number
  /** When a gap last triggered the poller (-∞: never). */
  lastResyncTrigger: number
  listeners: Set<() => void>
}

/**
 * Gates for every streamed input; with `enabled` false every input polls, always. `inputs` (default
 * all) are the ones the bot uses: statistics only when a strategy reads them.
 */
export function createInputGates(o: {
  clock: Pick<Clock, 'now'>
  enabled: boolean
  inputs?: readonly StreamInput[] | undefined
  /** Fewest ms between two resyncs a gap triggers at once (default 5 s; between them the poller's own cycle reads). */
  minResyncMs?: number | undefined
}): InputGates {
  const minResyncMs = o.minResyncMs ?? 5_000
  const inputs = STREAM_INPUTS.filter((i) => o.inputs === undefined || o.inputs.includes(i))
  const fresh = (): GateState => ({
    healthy: false,
    gen: 0,
    syncedGen: -1,
    source: 'poll',
    since: undefined,
    resumes: 0,
    standDowns: 0,
    resyncs: 0,
    wanted: false,
    gapsCoalesced: 0,
    lastResyncTrigger: Number.NEGATIVE_INFINITY,
    listeners: new Set(),
  })
  const states: Record<StreamInput, GateState> = {
    index: fresh(),
    statistics: fresh(),
    portfolio: fresh(),
    orders: fresh(),
    fills: fresh(),
    withdrawals: fresh(),
  }
  const changeListeners = new Set<(name: StreamInput, source: InputSource, at: number) => void>()
  const stateOf = (name: StreamInput): GateState => states[name]
  const synced = (s: GateState): boolean => o.enabled && s.healthy && s.syncedGen === s.gen
  const resume = (s: GateState): void => {
    for (const l of [...s.listeners]) l()
  }
  const settle = (name: StreamInput, s: GateState): void => {
    const source: InputSource = synced(s) ? 'stream' : 'poll'
    if (source === s.source) return
    const at = o.clock.now()
    s.source = source
    s.since = at
    if (source === 'poll') s.resumes++
    else s.standDowns++
    for (const l of [...changeListeners]) l(name, source, at)
  }
  const gap = (name: StreamInput, s: GateState): void => {
    s.gen++
    s.resyncs++
    settle(name, s)
    resume(s)
  }
  /** A sequence gap: one resync read, the source unchanged (see the header). */
  const sequenceGap = (name: StreamInput, s: GateState): void => {
    if (s.source !== 'stream') {
      gap(name, s)
      return
    }
    if (s.wanted) {
      s.gapsCoalesced++
      return
    }
    s.wanted = true
    s.resyncs++
    const now = o.clock.now()
    if (now - s.lastResyncTrigger < minResyncMs) return
    s.lastResyncTrigger = now
    resume(s)
  }

  return {
    enabled: o.enabled,
    inputs,
    use(name) {
      if (inputs.includes(name)) return
      inputs.push(name)
      inputs.sort((a, b) => STREAM_INPUTS.indexOf(a) - STREAM_INPUTS.indexOf(b))
    },
    gate(name) {
      const s = stateOf(name)
      return {
        name,
        standingDown: () => synced(s) && !s.wanted,
        begin() {
          const gen = s.gen
          s.wanted = false
          return () => {
            s.syncedGen = Math.max(s.syncedGen, gen)
            settle(name, s)
          }
        },
        want() {
          s.wanted = true
          resume(s)
        },
        onResume(listener) {
          s.listeners.add(listener)
          return () => s.listeners.delete(listener)
        },
      }
    },
    setHealthy(name, healthy) {
      const s = stateOf(name)
      if (!o.enabled || s.healthy === healthy) return
      s.healthy = healthy
      // Back from stale or down: what happened meanwhile is read once over REST.
      if (healthy) gap(name, s)
      else {
        settle(name, s)
        resume(s)
      }
    },
    gap(name) {
      if (o.enabled) sequenceGap(name, stateOf(name))
    },
    snapshot() {
      const view = (s: GateState): InputGateView => ({
        source: s.source,
        streamHealthy: s.healthy,
        synced: s.syncedGen === s.gen && !s.wanted,
        since: s.since,
        resumes: s.resumes,
        standDowns: s.standDowns,
        resyncs: s.resyncs,
        gapsCoalesced: s.gapsCoalesced,
      })
      return Object.fromEntries(inputs.map((name) => [name, view(states[name])]))
    },
    onChange(listener) {
      changeListeners.add(listener)
      return () => changeListeners.delete(listener)
    },
  }
}

/**
 * A poller's run behind its gate: skipped (a no-op cycle) while the stream serves the input, else
 * the REST read, which counts as a resync once it succeeds.
 */
export function gatedRun(
  gate: InputGate | undefined,
  run: (signal: AbortSignal) => Promise<void>,
): (signal: AbortSignal) => Promise<void> {
  if (gate === undefined) return run
  return async (signal) => {
    if (gate.standingDown()) return
    const done = gate.begin()
    await run(signal)
    done()
  }
}

/**
 * The bot's input gates: every streamed input has one when there is a stream address (statistics only
 * when a strategy reads them: otherwise neither streamed nor polled); without an address every input
 * polls. Returns the address the streams use, if any.
 */
export function createBotInputGates(o: {
  clock: Pick<Clock, 'now'>
  streams: { enabled: boolean }
  streamUrl: string | undefined
  readsStatistics: boolean
  /** An instrument a reload added or reconfigured: statistics are used from the first that reads them. */
  joined?: { subscribe(listener: (i: { readsStatistics: boolean }) => void): () => void } | undefined
  logger: Pick<Logger, 'warn'>
}): { gates: InputGates; streamUrl: string | undefined } {
  const streamUrl = o.streams.enabled ? o.streamUrl : undefined
  if (o.streams.enabled && streamUrl === undefined)
    o.logger.warn('streams.enabled but no stream address (set PERPS_WS_URL): every input polls')
  const gates = createInputGates({
    clock: o.clock,
    enabled: streamUrl !== undefined,
    inputs: STREAM_INPUTS.filter((i) => i !== 'statistics' || o.readsStatistics),
  })
  o.joined?.subscribe((i) => {
    if (i.readsStatistics) gates.use('statistics')
  })
  return { gates, streamUrl }
}
