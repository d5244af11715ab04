/**
 * The streams as the bot's inputs: one `StreamPool` (public channels on plain sockets, private ones on
 * one authenticated socket, within the venue's limits), subscribed to `tickers::all`,
 * `statistics::all`, `portfolio`, `orders`, `fills`, `withdrawals` and `notifications` (the venue's own
 * warnings, raised as alerts with a refused `auth`; alerts/venueAlerts.ts). Every push goes through the
 * routing table (streamRoutes.ts); every freshness change and gap goes to the input gates
 * (inputGates.ts), which stand the REST pollers down or wake them.
 *
 * An input is healthy when all its channels are fresh. The event channels (orders, fills,
 * withdrawals) are silent when nothing happens, so they also need the portfolio channel, pushed
 * every second on the same socket, to be fresh: a stalled private socket is noticed within the
 * silence bound, not after the socket's 65 s idle limit.
 *
 * A stream tap (`run --record`) reads every public frame as it arrives; the channels it wants that
 * the bot does not (trades, books) ride extra public sockets, and their pushes go to the tap alone.
 */

import {
  createStreamAuthAlerts,
  notificationAlert,
  type VenueAlertSink,
} from '../../../alerts/venueAlerts.ts'
import type { Clock } from '../../../clock.ts'
import { describeError } from '../../../errors.ts'
import type { LaterTurn } from '../../../http/writeFirst.ts'
import { componentLogger, type Logger } from '../../../logging/logger.ts'
import type { RateLimitedLog } from '../../../logging/rateLimitedLog.ts'
import { channel, parseChannel } from '../../../perps/stream/channels.ts'
import type { FrameTap, StreamTap } from '../../../perps/stream/frameTap.ts'
import { defaultStaleAfterMs } from '../../../perps/stream/freshness.ts'
import { afterNextWrite } from '../../../perps/stream/socket/inbox.ts'
import type { SocketFactory } from '../../../perps/stream/socket/socket.ts'
import type { StreamCredentials, StreamState } from '../../../perps/stream/streamClient.ts'
import { StreamPool } from '../../../perps/stream/streamPool.ts'
import type { OpenStreamSource } from '../../../perps/stream/streamSource.ts'
import type { Random } from '../../../random.ts'
import { VENUE_STREAM_CONNECTIONS } from '../../../settings/limits.ts'
import type { Settings } from '../../../settings/schema.ts'
import type { InputGates, StreamInput } from '../inputGates.ts'
import { createRouteQueue } from './routeQueue.ts'
import {
  botChangeFilter,
  type ChangeFilter,
  routePush,
  STREAM_ROUTES,
  type StreamRouteTable,
  type StreamRouteTargets,
} from './streamRoutes.ts'

/** The channels each input needs fresh; the first is the input's own (its gaps ask for a resync). */
export const INPUT_CHANNELS: Readonly<Record<StreamInput, readonly string[]>> = {
  index: [channel.tickers('all')],
  statistics: [channel.statistics('all')],
  portfolio: ['portfolio'],
  orders: ['orders', 'portfolio'],
  fills: ['fills', 'portfolio'],
  withdrawals: ['withdrawals', 'portfolio'],
}

export interface StreamsHealth {
  url: string
  state: StreamState
  connections: {
    private: boolean
    state: StreamState
    reconnects: number
    gaps: number
    pushes: number
    lastInboundAt: number | undefined
    channels: number
  }[]
  /** Pushes with no route, by channel kind. */
  unrouted: Record<string, number>
}

export interface BotStreams {
  health(): StreamsHealth
  /**
   * An instrument traded from now on, or now reading statistics (a reload; the caller has added it to
   * `targets.traded`): its `bbo::{iid}` when a public socket has room, `statistics::all` when it is
   * the first to read them.
   */
  serve(instrument: { id: number; readsStatistics: boolean }): void
  stop(): Promise<void>
}

export interface StreamsOptions {
  /** `ws://` or `wss://` (PERPS_WS_URL, or the embedded mock's); an in-process source's label. */
  url: string
  /** Where the pushes come from (streamSource.ts). Default: the WebSocket pool at `url`. */
  open?: OpenStreamSource | undefined
  credentials: StreamCredentials
  settings: Settings['streams']
  clock: Clock
  random: Random
  logger: Logger
  /** Where lines that repeat (an input changing source, stream errors) go: one per kind per interval. */
  repeated?: Pick<RateLimitedLog, 'log'> | undefined
  inputGates: InputGates
  targets: StreamRouteTargets
  /** Default `STREAM_ROUTES`. */
  routes?: StreamRouteTable | undefined
  /** Default: undici's WebSocket (tests inject fakes). */
  socketFactory?: SocketFactory | undefined
  /** Where a refused private `auth` and the venue's notifications are raised. Default: logged only. */
  alerts?: VenueAlertSink | undefined
  /** Runs deferred routes and frames on a later turn (routeQueue.ts, inbox.ts; the bot's `laterTurn`). Default: setImmediate, `afterNextWrite` for frames. */
  schedule?: ((fn: () => void) => void) | undefined
  /** Reads the public frames as they arrive (`run --record`); its own channels ride extra public sockets. */
  tap?: StreamTap | undefined
}

/** Silence bounds: the setting for the per-second channels, the statistics' own, else the default. */
export function silenceBound(s: Settings['streams']): (ch: string) => number {
  return (ch) => {
    const kind = parseChannel(ch)?.kind
    if (kind === 'tickers' || kind === 'portfolio' || kind === 'bbo') return s.silenceMs
    if (kind === 'statistics') return s.statisticsSilenceMs
    return defaultStaleAfterMs(ch)
  }
}

/**
 * `bbo::{iid}` for the traded instruments, as many as the public sockets have room for (the private
 * socket is one of `maxConnections`); the rest go without a BBO, said once in the log.
 */
export function bboChannels(
  s: Settings['streams'],
  traded: ReadonlySet<number>,
  inputChannels: readonly string[],
  log: { warn(fields: object, message: string): void },
): string[] {
  if (!s.bbo) return []
  const publicInputs = inputChannels.filter((ch) => parseChannel(ch)?.private === false).length
  const room = Math.max(0, (s.maxConnections - 1) * s.maxSubscriptionsPerConnection - publicInputs)
  const ids = [...traded].sort((a, b) => a - b)
  if (ids.length > room)
    log.warn(
      { instruments: ids.length, withBbo: room },
      `best bid/offer streamed for ${room} of ${ids.length} instruments (streams.maxConnections × maxSubscriptionsPerConnection); the others quote without it`,
    )
  return ids.slice(0, room).map((id) => channel.bbo(id))
}

/**
 * The channels a tap wants that the bot does not subscribe (its pushes skip the bot's parsing), and
 * the public sockets they need beyond `streams.maxConnections` (within the venue's 50 per IP).
 */
export function tapChannels(
  s: Settings['streams'],
  tap: StreamTap,
  traded: ReadonlySet<number>,
  botChannels: readonly string[],
): { only: Set<string>; sockets: number; left: number } {
  const mine = new Set(botChannels)
  const channels = botChannels.filter((ch) => parseChannel(ch)?.private === false)
  const wanted = tap
    .attach({ channels, traded: [...traded].sort((a, b) => a - b) })
    .filter((ch) => !mine.has(ch))
  const spare = VENUE_STREAM_CONNECTIONS - s.maxConnections
  const sockets = Math.min(spare, Math.ceil(wanted.length / s.maxSubscriptionsPerConnection))
  const only = new Set(wanted.slice(0, sockets * s.maxSubscriptionsPerConnection))
  return { only, sockets, left: wanted.length - only.size }
}

export function startStreams(o: StreamsOptions): BotStreams {
  const log = componentLogger(o.logger, 'streams')
  const routes = o.routes ?? STREAM_ROUTES
  /** Set when a push routed an input at once; read (and cleared) right after that push. */
  let routedNow = false
  /** The inputs served (a reload may add statistics). */
  const inputs = [...o.inputGates.inputs]
  // Only the inputs in use: a statistics push nobody reads would still cost the venue's message budget.
  const inputChannels = [...new Set(inputs.flatMap((i) => INPUT_CHANNELS[i]))]
  // The venue's own warnings ride the private socket we open anyway (no freshness bound: silent when all is well).
  if (inputChannels.some((ch) => parseChannel(ch)?.private === true)) inputChannels.push('notifications')
  const botChannels = [...inputChannels, ...bboChannels(o.settings, o.targets.traded, inputChannels, log)]
  const streamTap = o.tap
  const tap = streamTap && tapChannels(o.settings, streamTap, o.targets.traded, botChannels)
  const frameTap: FrameTap | undefined = streamTap &&
    tap && { frame: (text, at, ch) => streamTap.frame(text, at, ch), owns: (ch) => tap.only.has(ch) }
  if (tap !== undefined && tap.left > 0)
    log.warn(
      { tapped: tap.only.size, left: tap.left },
      `stream tap: ${tap.left} of its channels do not fit in the venue's ${VENUE_STREAM_CONNECTIONS} sockets; not tapped`,
    )
  const open: OpenStreamSource = o.open ?? ((options) => new StreamPool(options))
  const pool = open({
    url: o.url,
    credentials: o.credentials,
    // Pushes on shared channels for instruments we do not trade are dropped at the door (bounded memory).
    acceptInstrument: (iid) => o.targets.traded.has(iid),
    clock: o.clock,
    random: o.random,
    logger: log,
    socketFactory: o.socketFactory,
    staleAfterMs: silenceBound(o.settings),
    // The stop sequence gives every input 1 s; the closing handshake is a courtesy.
    closeTimeoutMs: 500,
    maxConnections: o.settings.maxConnections + (tap?.sockets ?? 0),
    tap: frameTap,
    maxSubscriptionsPerConnection: o.settings.maxSubscriptionsPerConnection,
    maxMessagesPerMinute: o.settings.maxMessagesPerMinute,
    // A push that routed an input at once (a changed index): the rest of the socket's read waits a
    // turn, so that instrument's order is signed and sent first.
    yieldAfter: () => {
      const yes = routedNow
      routedNow = false
      return yes
    },
    schedule: o.schedule ?? afterNextWrite,
  })
  const unrouted: Record<string, number> = {}
  const byChannel = new Map<string, StreamInput[]>()
  const mapInput = (input: StreamInput): void => {
    for (const ch of INPUT_CHANNELS[input]) byChannel.set(ch, [...(byChannel.get(ch) ?? []), input])
  }
  for (const input of inputs) mapInput(input)
  /** Public channels the bot's own sockets carry (the tap's extra sockets not counted). */
  let publicChannels = botChannels.filter((ch) => parseChannel(ch)?.private === false).length
  const publicRoom = (): number =>
    (o.settings.maxConnections - 1) * o.settings.maxSubscriptionsPerConnection - publicChannels
  /** Subscribes one public channel when the bot's sockets have room; false (said in the log) when not. */
  const addPublic = (ch: string, without: string): boolean => {
    if (publicRoom() < 1) {
      log.warn({ channel: ch }, `no room on the public sockets for ${ch}: ${without}`)
      return false
    }
    try {
      pool.subscribe([ch])
    } catch (e) {
      log.warn({ channel: ch, err: describeError(e) }, `${ch} not subscribed: ${without}`)
      return false
    }
    publicChannels++
    return true
  }

  const refresh = (inputs: readonly StreamInput[]): void => {
    for (const input of inputs)
      o.inputGates.setHealthy(
        input,
        INPUT_CHANNELS[input].every((ch) => pool.isFresh(ch)),
      )
  }
  const alerts = o.alerts
  if (alerts !== undefined) pool.on('auth', createStreamAuthAlerts({ alerts, now: () => o.clock.now() }))
  // Urgent inputs at once, the rest after the pushes in hand (routeQueue.ts).
  const queue = createRouteQueue({ route: o.targets.route, schedule: o.schedule })
  const targets: StreamRouteTargets = {
    ...o.targets,
    route: (ids, event) => {
      routedNow = true
      queue.now(ids, event)
    },
    defer: queue.later,
    notify:
      o.targets.notify ??
      (alerts === undefined ? undefined : (n) => alerts.send(notificationAlert(n, o.clock.now()))),
  }
  pool.on('push', (push) => {
    if (!routePush(routes, push, targets)) unrouted[push.kind] = (unrouted[push.kind] ?? 0) + 1
  })
  pool.on('fresh', (ch) => refresh(byChannel.get(ch) ?? []))
  pool.on('stale', (ch) => refresh(byChannel.get(ch) ?? []))
  pool.on('state', () => refresh(inputs))
  pool.on('gap', (gap) => {
    for (const input of byChannel.get(gap.channel) ?? [])
      if (INPUT_CHANNELS[input][0] === gap.channel) o.inputGates.gap(input)
  })
  let lastError = ''
  pool.on('error', (e) => {
    const message = describeError(e)
    // Repeats of one error (a refused auth, a rate limit) are logged once until another comes.
    if (message === lastError) return
    lastError = message
    // Errors that alternate beat the check above: one line per kind of error per interval.
    const kind = `stream error ${e instanceof Error ? e.name : 'unknown'}`
    if (o.repeated !== undefined) o.repeated.log('warn', kind, { err: message }, `stream error: ${message}`)
    else log.warn({ err: message }, `stream error: ${message}`)
  })
  // Closing the sockets at stop turns every input back to polling: not worth a line each then.
  let stopping = false
  o.inputGates.onChange((input, source) => {
    if (stopping) return
    const fields = { input, source }
    const msg =
      source === 'stream'
        ? `${input}: from the stream (polling stands down)`
        : `${input}: polling (the stream is down, silent or resyncing)`
    if (o.repeated !== undefined) o.repeated.log('info', `input source ${input}`, fields, msg)
    else log.info(fields, msg)
  })

  pool.subscribe([...botChannels, ...(tap?.only ?? [])])
  pool.start()
  log.info({ url: o.url }, 'streams started')

  return {
    serve(i) {
      if (stopping) return
      if (i.readsStatistics && !inputs.includes('statistics')) {
        const ch = channel.statistics('all')
        // Mapped first: the pushes' freshness goes to the gate (no room: the poller serves them).
        inputs.push('statistics')
        mapInput('statistics')
        addPublic(ch, 'statistics are polled (streams.maxConnections × maxSubscriptionsPerConnection)')
      }
      const bbo = channel.bbo(i.id)
      if (o.settings.bbo && !pool.subscribed(bbo))
        addPublic(bbo, 'the instrument quotes without a streamed best bid/offer')
    },
    health() {
      const h = pool.health()
      return {
        url: o.url,
        state: h.state,
        connections: h.connections.map((c) => ({
          private: c.private,
          state: c.state,
          reconnects: c.reconnects,
          gaps: c.gaps,
          pushes: c.pushes,
          lastInboundAt: c.lastInboundAt,
          channels: c.channels.length,
        })),
        unrouted: { ...unrouted },
      }
    },
    stop: () => {
      stopping = true
      queue.clear()
      return pool.close()
    },
  }
}

/**
 * The bot's streams: none without an address (every input polls); otherwise the pool routing into the
 * actors, the open-order book and account supervision, unchanged values filtered (`botChangeFilter`).
 */
export function startBotStreams(o: {
  url: string | undefined
  /** An in-process source in place of the sockets (streamSource.ts); `url` is then its label. */
  open?: OpenStreamSource | undefined
  /**
   * The connection: the proxy's credentials for the private sockets' `auth`; the later turn that lets
   * the requests already made be written first (writeFirst.ts), for the sockets' deferred frames and routes.
   */
  conn: { readonly credentials: StreamCredentials; readonly laterTurn?: LaterTurn | undefined }
  settings: Pick<Settings, 'streams' | 'quoting'>
  clock: Clock
  random: Random
  logger: Logger
  repeated?: Pick<RateLimitedLog, 'log'> | undefined
  gates: InputGates
  actors: {
    readonly instruments: readonly { id: number }[]
    route: StreamRouteTargets['route']
    /** An instrument a reload added or reconfigured (actorInbox.ts): routed and subscribed from now on. */
    readonly joined?:
      | { subscribe(listener: (i: { id: number; readsStatistics: boolean }) => void): () => void }
      | undefined
    /** An unchanged BBO pushed again, not routed (the markout tracker's touch). */
    touchRenewed?: StreamRouteTargets['touchRenewed']
    /** A restarted actor lost its inputs: the next push of each is routed to it as new. */
    readonly restarted?: { subscribe(listener: (id: number) => void): () => void } | undefined
  }
  openOrders: StreamRouteTargets['orders']
  account: StreamRouteTargets['account']
  alerts?: VenueAlertSink | undefined
  /** `run --record`: reads the public frames as they arrive (frameTap.ts). */
  streamTap?: StreamTap | undefined
  /**
   * Which pushes become actor events, keeping the ages the actors read (`InputAges`); the composition
   * root shares it with the actors. Default: a `botChangeFilter` of its own.
   */
  changes?: ChangeFilter | undefined
}): BotStreams | undefined {
  if (o.url === undefined) return undefined
  const { clock } = o
  const traded = new Set(o.actors.instruments.map((i) => i.id))
  const changed = o.changes ?? botChangeFilter(() => clock.now(), o.settings.quoting)
  const unrestarted = o.actors.restarted?.subscribe((id) => changed.forget(id))
  const streams = startStreams({
    url: o.url,
    open: o.open,
    credentials: o.conn.credentials,
    settings: o.settings.streams,
    clock,
    random: o.random,
    logger: o.logger,
    repeated: o.repeated,
    inputGates: o.gates,
    alerts: o.alerts,
    tap: o.streamTap,
    // The sockets' deferred frames and routes wait for the orders already made (an in-process source,
    // simulate's and paper's, keeps its own turns: no socket writes there).
    schedule: o.open === undefined ? o.conn.laterTurn : undefined,
    targets: {
      now: () => clock.now(),
      traded,
      route: o.actors.route,
      touchRenewed: o.actors.touchRenewed,
      klinesKept: o.settings.quoting.klinesKept,
      changed,
      orders: o.openOrders,
      account: o.account,
    },
  })
  const unjoin = o.actors.joined?.subscribe((i) => {
    traded.add(i.id)
    streams.serve(i)
  })
  return {
    ...streams,
    stop: () => {
      unjoin?.()
      unrestarted?.()
      return streams.stop()
    },
  }
}
