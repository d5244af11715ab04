/**
 * The mock's WebSocket at `/v1/ws`, on the same port as its HTTP API (an `upgrade` hook on the
 * node:http server), served by `ws`. One push tick per `pushIntervalMs` of the mock's clock, on its
 * multiples (a stepped clock pushes only when stepped), publishes the exchange's state to every session; orders
 * and fills are pushed right after the exchange reports them.
 *
 * Limits as the venue documents them (protocol-notes c.4): 50 connections per IP (more: the upgrade
 * is answered 429), 100 subscriptions per connection, 1,000 inbound messages per minute per IP, and a
 * socket silent for 60 s is closed. A client whose unsent backlog passes `maxBufferedBytes` is closed
 * as a slow consumer. Stream faults (streamFaults.ts) are rolled per session on each tick.
 */
import type { IncomingMessage } from 'node:http'
import { performance } from 'node:perf_hooks'
import type { Duplex } from 'node:stream'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { type WebSocket, WebSocketServer } from 'ws'
import type { Clock, TimerId } from '../../clock.ts'
import { fieldOf, isOneOf } from '../../guards.ts'
import { PRIVATE_CHANNELS, type PrivateChannel } from '../../perps/stream/channels.ts'
import { MessageWindow } from '../../perps/stream/socket/messageWindow.ts'
import type { Random } from '../../random.ts'
import type { PerpsExchange } from '../perps/exchange.ts'
import type { ClockMode } from '../virtualClock.ts'
import {
  FOREIGN_FLOOD_FIRST_OID,
  foreignFloodCoid,
  type StreamFaultConfig,
  type StreamFaultKind,
} from './streamFaults.ts'
import { type StreamOut, StreamPublisher, type StreamTape } from './streamPublisher.ts'
import { StreamSession } from './streamSession.ts'

export const STREAM_PATH = '/v1/ws'

export interface MockStreamLimits {
  connectionsPerIp: number
  subscriptionsPerConnection: number
  messagesPerMinutePerIp: number
  /** The server closes a socket without inbound frames for this long. */
  idleTimeoutMs: number
  maxBufferedBytes: number
}

export const DEFAULT_MOCK_STREAM_LIMITS: MockStreamLimits = {
  connectionsPerIp: 50,
  subscriptionsPerConnection: 100,
  messagesPerMinutePerIp: 1_000,
  idleTimeoutMs: 60_000,
  maxBufferedBytes: 8 << 20,
}

export interface MockStreamOptions {
  exchange: PerpsExchange
  /** Runs the push ticks and the message windows (the mock's virtual clock). */
  clock: Clock
  /** Push `ts` and the ping reply's time (the exchange's possibly skewed clock). Default `clock`. */
  serverClock?: Clock | undefined
  /** Fault rolls. */
  random: Random
  /** The current stream faults (read on every tick, so `/__mock/faults` changes apply at once). */
  faults?: (() => StreamFaultConfig | undefined) | undefined
  /** Default 1,000 ms (the exchange's step). */
  pushIntervalMs?: number | undefined
  /** How the market's flow is printed on `trades::` (streamPublisher.ts). Default `minute`. */
  tape?: StreamTape | undefined
  /**
   * Wall time, ms (default `performance.now`): a connection is idle only when silent past the bound
   * on both this and `clock`. On an accelerated or stepped clock a client that pings on its own wall
   * clock (the official client) would otherwise be closed within a wall second or two, and miss every
   * push after that (a funding charge at the hour came only by REST).
   */
  wallNow?: (() => number) | undefined
  limits?: Partial<MockStreamLimits> | undefined
  /**
   * Market pushes a tick writes per turn of the event loop, with `nextTurn` between (a venue's order
   * entry does not wait for its market-data fan-out: on one thread, a tick of 2,000 pushes held every
   * command that arrived meanwhile for 5-10 ms). Default: the whole tick in one turn, as a stepped
   * clock's tests need (a push is delivered by the step that made it).
   */
  tickSlices?: { pushes: number; nextTurn: () => Promise<void> } | undefined
}

/**
 * The slices of a tick on the real clock: 250 pushes (about an eighth of a 1,000-instrument tick's
 * tickers and BBOs, ~1 ms of the mock's thread), then a turn in which commands are read.
 */
const REAL_CLOCK_TICK_SLICES: NonNullable<MockStreamOptions['tickSlices']> = {
  pushes: 250,
  nextTurn: () => nextTurn(),
}

/** A mock's tick slices: those given, else sliced on the real clock and whole on the others. */
export function tickSlicesFor(
  mode: ClockMode,
  given: MockStreamOptions['tickSlices'],
): MockStreamOptions['tickSlices'] {
  return given ?? (mode === 'real' ? REAL_CLOCK_TICK_SLICES : undefined)
}

export interface MockStreamServer {
  /** The `upgrade` listener for the HTTP server. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void
  readonly connections: number
  /** Stream faults injected so far. */
  readonly counts: Readonly<Record<StreamFaultKind, number>>
  /**
   * Pushes now (tests and benchmarks that move prices by hand): with instrument ids, only their
   * tickers, BBOs and books, as the venue pushes a change (the tick keeps its cadence); without, a
   * whole tick.
   */
  publishNow(instrumentIds?: readonly number[]): void
  /** Closes every connection and stops the ticks. */
  close(): Promise<void>
}

export function createMockStreamServer(options: MockStreamOptions): MockStreamServer {
  const { exchange, clock, random } = options
  const serverClock = options.serverClock ?? clock
  const wallNow = options.wallNow ?? (() => performance.now())
  /** Wall time of each session's last inbound frame (its virtual time is the session's own). */
  const lastInboundWall = new Map<StreamSession, number>()
  const limits = { ...DEFAULT_MOCK_STREAM_LIMITS, ...options.limits }
  const interval = options.pushIntervalMs ?? 1_000
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 })
  const sessions = new Set<StreamSession>()
  const sockets = new Map<StreamSession, WebSocket>()
  /** The upgraded TCP socket of each session: corked while a tick is written (one write, not one per push). */
  const raw = new Map<StreamSession, Duplex>()
  const windows = new Map<string, MessageWindow>()
  const counts: Record<StreamFaultKind, number> = {
    dropConnection: 0,
    sequenceGap: 0,
    stall: 0,
    slowConsumer: 0,
    foreignOrders: 0,
  }
  let tickTimer: TimerId | undefined
  /**
   * While a sliced tick is being written: the instruments a change push served meanwhile. The rest of
   * the tick skips their quote pushes, built before the change (the change push carried them, newer).
   */
  let changedInTick: Set<number> | undefined
  let floodTimer: TimerId | undefined
  /** The flood's pushes so far (each a new order id; every third a cancel of the one before). */
  let floodSeq = 0
  /** Pushes owed to the flood's rate not yet sent (the rate times the time since the last burst). */
  let floodOwed = 0
  let activityScheduled = false
  /** Every session's subscribers by channel and the channels (subscribersOf), until onChanged. */
  let allSubscribers: Map<string, StreamSession[]> | undefined
  let allWanted: Set<string> | undefined
  let closed = false

  const flushActivity = (): void => {
    activityScheduled = false
    const ts = serverClock.now()
    // Public prints of fills go to whoever subscribed their `trades::` channel (push() filters).
    for (const p of publisher.trades()) {
      const json = JSON.stringify(p.data)
      for (const s of sessions) s.push(p.ch, json, ts)
    }
    for (const owner of owners()) publishPrivate(owner, publisher.activity(owner), ts)
  }
  const publisher = new StreamPublisher(
    exchange,
    () => {
      if (activityScheduled || closed) return
      activityScheduled = true
      setImmediate(flushActivity)
    },
    options.tape,
  )

  function owners(): Set<string> {
    const out = new Set<string>()
    for (const s of sessions) if (s.owner !== undefined && s.privateChannels().size > 0) out.add(s.owner)
    return out
  }

  function publishPrivate(owner: string, pushes: readonly StreamOut[], ts: number): void {
    if (pushes.length === 0) return
    const mine = [...sessions].filter((s) => s.owner === owner)
    for (const p of pushes) {
      const json = JSON.stringify(p.data)
      for (const s of mine) s.push(p.ch, json, ts)
    }
  }

  const onChanged = (): void => {
    allSubscribers = undefined
    allWanted = undefined
    publisher.watch(owners())
    const wanted = new Set<string>()
    for (const s of sessions) for (const ch of s.subscriptions) wanted.add(ch)
    publisher.followTrades(wanted, serverClock.now())
  }

  /**
   * The sessions of `live` subscribed to each channel, in session order (a push goes to its
   * subscribers only), and those channels: kept while every session is live and nothing changed
   * subscriptions (onChanged), so a change push or tick does not re-walk 1,000 subscriptions.
   */
  function subscribersOf(live: readonly StreamSession[]): Map<string, StreamSession[]> {
    const all = live.length === sessions.size
    if (all && allSubscribers !== undefined) return allSubscribers
    const out = new Map<string, StreamSession[]>()
    for (const s of live)
      for (const ch of s.subscriptions) {
        const list = out.get(ch)
        if (list === undefined) out.set(ch, [s])
        else list.push(s)
      }
    if (all) {
      allSubscribers = out
      allWanted = new Set(out.keys())
    }
    return out
  }

  /** The channels of `subscribers` (kept with the index of every session). */
  function wantedOf(subscribers: Map<string, StreamSession[]>): Set<string> {
    if (subscribers === allSubscribers && allWanted !== undefined) return allWanted
    return new Set(subscribers.keys())
  }

  /** One market push to its channel's subscribers, its data serialized once for all of them. */
  function fanOut(
    subscribers: ReadonlyMap<string, readonly StreamSession[]>,
    p: StreamOut,
    ts: number,
  ): void {
    const to = subscribers.get(p.ch)
    if (to === undefined) return
    const json = JSON.stringify(p.data)
    for (const s of to) s.push(p.ch, json, ts)
  }

  function rollFaults(s: StreamSession, faults: StreamFaultConfig | undefined, now: number): boolean {
    if (faults === undefined) return true
    // Every roll is drawn whatever fires, so the stream of draws depends only on the tick count.
    const roll = (p: number | undefined): boolean => p !== undefined && p > 0 && random.next() < p
    const drop = roll(faults.dropConnection)
    const slow = roll(faults.slowConsumer)
    const stall = roll(faults.stall?.probability)
    const gap = roll(faults.sequenceGap)
    if (drop) {
      counts.dropConnection++
      s.close(1006, 'injected drop', true)
      return false
    }
    if (slow) {
      counts.slowConsumer++
      s.sendError('slow_consumer')
      s.close(1008, 'slow consumer')
      return false
    }
    if (stall && faults.stall !== undefined && !s.stalled(now)) {
      counts.stall++
      s.stalledUntil = now + faults.stall.durationMs
    }
    if (gap) {
      counts.sequenceGap++
      s.skipNextPush = true
    }
    return true
  }

  function tick(): void {
    tickTimer = undefined
    if (closed || changedInTick !== undefined) return
    const now = serverClock.now()
    const faults = options.faults?.()
    const live: StreamSession[] = []
    for (const s of sessions) {
      const wallIdle = wallNow() - (lastInboundWall.get(s) ?? Number.NEGATIVE_INFINITY)
      if (clock.now() - s.lastInboundAt > limits.idleTimeoutMs && wallIdle > limits.idleTimeoutMs) {
        s.close(1001, 'idle')
        continue
      }
      if (s.bufferedAmount > limits.maxBufferedBytes) {
        counts.slowConsumer++
        s.sendError('slow_consumer')
        s.close(1008, 'slow consumer')
        continue
      }
      if (rollFaults(s, faults, now) && !s.stalled(now)) live.push(s)
    }
    const slices = options.tickSlices
    if (slices !== undefined) {
      changedInTick = new Set()
      void publishTickSliced(live, now, slices).then(
        () => {
          changedInTick = undefined
          schedule()
          scheduleFlood()
        },
        (error: unknown) => {
          changedInTick = undefined
          // As a synchronous tick's error would: out of the timer, not swallowed.
          queueMicrotask(() => {
            throw error
          })
        },
      )
      return
    }
    const corked = live.map((s) => raw.get(s)).filter((d) => d !== undefined)
    for (const d of corked) d.cork()
    // Each channel kind goes out as soon as it is written (the tickers do not wait for the rest).
    const flush = (): void => {
      for (const d of corked) {
        d.uncork()
        d.cork()
      }
    }
    try {
      publishTick(live, now, flush)
    } finally {
      for (const d of corked) d.uncork()
    }
    schedule()
    scheduleFlood()
  }

  function publishTick(live: readonly StreamSession[], now: number, flush: () => void): void {
    const subscribers = subscribersOf(live)
    let kind = ''
    for (const p of publisher.market(wantedOf(subscribers), now)) {
      const k = p.ch.slice(0, p.ch.indexOf(':'))
      if (k !== kind && kind !== '') flush()
      kind = k
      fanOut(subscribers, p, now)
    }
    flushActivity()
    for (const owner of owners()) publishPrivate(owner, accountPushes(live, owner, now), now)
  }

  /**
   * A tick written `slices.pushes` market pushes per turn of the event loop (the sockets uncorked
   * between), then the account pushes, read when they are written.
   */
  async function publishTickSliced(
    live: readonly StreamSession[],
    now: number,
    slices: NonNullable<MockStreamOptions['tickSlices']>,
  ): Promise<void> {
    const subscribers = subscribersOf(live)
    const pushes = publisher.market(wantedOf(subscribers), now)
    let corked: Duplex[] = []
    const cork = (): void => {
      corked = live.map((s) => raw.get(s)).filter((d) => d !== undefined)
      for (const d of corked) d.cork()
    }
    const uncork = (): void => {
      for (const d of corked) d.uncork()
      corked = []
    }
    cork()
    try {
      let kind = ''
      for (let k = 0; k < pushes.length; k++) {
        if (k > 0 && k % slices.pushes === 0) {
          uncork()
          await slices.nextTurn()
          if (closed) return
          cork()
        }
        const p = pushes[k]
        if (p === undefined) continue
        const at = p.ch.indexOf(':')
        const ch = p.ch.slice(0, at)
        if (ch !== kind && kind !== '') {
          uncork()
          cork()
        }
        kind = ch
        if (QUOTE_KINDS.has(ch) && changedInTick?.has(quoteIid(p)) === true) continue
        fanOut(subscribers, p, now)
      }
      flushActivity()
      for (const owner of owners()) publishPrivate(owner, accountPushes(live, owner, now), now)
    } finally {
      uncork()
    }
  }

  /** The private pushes of one tick for `owner`, on the channels its live sessions take. */
  function accountPushes(live: readonly StreamSession[], owner: string, now: number): StreamOut[] {
    const want = new Set<PrivateChannel>()
    for (const s of live)
      if (s.owner === owner)
        for (const ch of s.privateChannels()) if (isOneOf(PRIVATE_CHANNELS, ch)) want.add(ch)
    return publisher.account(owner, want, now)
  }

  /** A change push: no fault rolls (their draws follow the tick count), stalled sessions skip it. */
  function publishChange(instrumentIds: readonly number[]): void {
    if (closed) return
    const now = serverClock.now()
    const live = [...sessions].filter((s) => !s.stalled(now))
    const subscribers = subscribersOf(live)
    for (const iid of instrumentIds) changedInTick?.add(iid)
    const corked = live.map((s) => raw.get(s)).filter((d) => d !== undefined)
    for (const d of corked) d.cork()
    try {
      // Each channel kind goes out as soon as it is written, as in the tick: the moved ticker does
      // not wait for the books and best bid/offers of other subscribers.
      let kind = ''
      for (const p of publisher.changed(wantedOf(subscribers), instrumentIds)) {
        const k = p.ch.slice(0, p.ch.indexOf(':'))
        if (k !== kind && kind !== '')
          for (const d of corked) {
            d.uncork()
            d.cork()
          }
        kind = k
        fanOut(subscribers, p, now)
      }
    } finally {
      for (const d of corked) d.uncork()
    }
  }

  /**
   * The `foreignOrders` fault: another client's order changes on every account's `orders` channel,
   * `perSecond` a second of the mock's clock in bursts every `everyMs` (stopped when the fault is
   * cleared). Pushed as the venue pushes orders (the sessions' sequence numbers), not rolled.
   */
  function flood(): void {
    floodTimer = undefined
    const config = options.faults?.()?.foreignOrders
    if (closed || config === undefined || sessions.size === 0) return
    const everyMs = config.everyMs ?? 10
    floodOwed += (config.perSecond * everyMs) / 1_000
    const n = Math.floor(floodOwed)
    floodOwed -= n
    const now = serverClock.now()
    const quotes = exchange.bbo(undefined)
    const targets = [...sessions].filter((s) => s.owner !== undefined && s.subscriptions.has('orders'))
    const corked = targets.map((s) => raw.get(s)).filter((d) => d !== undefined)
    for (const d of corked) d.cork()
    try {
      for (let i = 0; i < n && quotes.length > 0; i++) {
        floodSeq += 1
        const q = quotes[floodSeq % quotes.length]
        if (q === undefined) continue
        const gone = floodSeq % 3 === 0
        const oid = FOREIGN_FLOOD_FIRST_OID + (gone ? floodSeq - 1 : floodSeq)
        const buy = oid % 2 === 0
        const json = JSON.stringify({
          oid,
          iid: q.iid,
          buy,
          // At the touch on its own side: it rests, never crosses.
          p: buy ? q.bp : q.ap,
          qty: '0.01',
          tif: 'gtc',
          po: true,
          ro: false,
          rest: gone ? '0' : '0.01',
          fill: '0',
          cts: now,
          uts: now,
          status: gone ? 'cancelled' : 'open',
          coid: foreignFloodCoid(oid - FOREIGN_FLOOD_FIRST_OID),
        })
        for (const s of targets) s.push('orders', json, now)
        counts.foreignOrders += 1
      }
    } finally {
      for (const d of corked) d.uncork()
    }
    floodTimer = clock.setTimeout(flood, everyMs)
  }

  /** Starts the flood when its fault is set (checked on every tick and connection). */
  function scheduleFlood(): void {
    if (closed || floodTimer !== undefined || options.faults?.()?.foreignOrders === undefined) return
    floodTimer = clock.setTimeout(flood, options.faults?.()?.foreignOrders?.everyMs ?? 10)
  }

  /** Ticks on the exchange's step boundaries, so a push follows a price change at once. */
  function schedule(): void {
    if (closed || tickTimer !== undefined || sessions.size === 0) return
    const phase = serverClock.now() % interval
    tickTimer = clock.setTimeout(tick, phase === 0 ? interval : interval - phase)
  }

  function windowOf(ip: string): MessageWindow {
    let w = windows.get(ip)
    if (w === undefined) {
      w = new MessageWindow(limits.messagesPerMinutePerIp)
      windows.set(ip, w)
    }
    return w
  }

  function onConnection(ws: WebSocket, ip: string, socket: Duplex): void {
    const session: StreamSession = new StreamSession(
      ip,
      {
        send: (text) => ws.send(text),
        close: (code, reason, terminate) => (terminate ? ws.terminate() : ws.close(code, reason)),
        get bufferedAmount() {
          return ws.bufferedAmount
        },
      },
      {
        now: () => serverClock.now(),
        authenticate: (proxy, secret) => exchange.authenticate(proxy, secret),
        allowMessage: () => windowOf(ip).tryTake(clock.now()),
        maxSubscriptions: limits.subscriptionsPerConnection,
        changed: onChanged,
      },
      clock.now(),
    )
    sessions.add(session)
    allSubscribers = undefined
    allWanted = undefined
    lastInboundWall.set(session, wallNow())
    sockets.set(session, ws)
    raw.set(session, socket)
    ws.on('message', (data, isBinary) => {
      if (isBinary) return
      lastInboundWall.set(session, wallNow())
      session.onText(data.toString(), clock.now())
    })
    ws.on('close', () => {
      session.closed = true
      sessions.delete(session)
      sockets.delete(session)
      raw.delete(session)
      lastInboundWall.delete(session)
      onChanged()
      if (sessions.size === 0 && tickTimer !== undefined) {
        clock.clearTimeout(tickTimer)
        tickTimer = undefined
      }
      if (sessions.size === 0 && floodTimer !== undefined) {
        clock.clearTimeout(floodTimer)
        floodTimer = undefined
      }
    })
    ws.on('error', () => ws.terminate())
    schedule()
  }

  return {
    handleUpgrade(req, socket, head) {
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname
      if (closed || path !== STREAM_PATH) {
        refuse(socket, closed ? 503 : 404, closed ? 'Service Unavailable' : 'Not Found')
        return
      }
      const ip = req.socket.remoteAddress ?? 'unknown'
      let fromIp = 0
      for (const s of sessions) if (s.ip === ip) fromIp++
      if (fromIp >= limits.connectionsPerIp) {
        refuse(socket, 429, 'Too Many Requests')
        return
      }
      wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws, ip, socket))
    },
    get connections() {
      return sessions.size
    },
    counts,
    publishNow(instrumentIds) {
      if (instrumentIds !== undefined) {
        publishChange(instrumentIds)
        return
      }
      if (tickTimer !== undefined) clock.clearTimeout(tickTimer)
      tick()
    },
    close() {
      closed = true
      if (tickTimer !== undefined) clock.clearTimeout(tickTimer)
      tickTimer = undefined
      if (floodTimer !== undefined) clock.clearTimeout(floodTimer)
      floodTimer = undefined
      publisher.dispose()
      for (const ws of sockets.values()) ws.terminate()
      return new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}

/** Channel kinds of a change push (`StreamPublisher.changed`): a sliced tick skips theirs once changed. */
const QUOTE_KINDS: ReadonlySet<string> = new Set(['tickers', 'bbo', 'book'])

/** The instrument of a ticker's, BBO's or book's push (a book's is in its channel name). */
function quoteIid(p: StreamOut): number {
  const iid = fieldOf(p.data, 'iid')
  return typeof iid === 'number' ? iid : Number(p.ch.split('::')[1])
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}
