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
import { type WebSocket, WebSocketServer } from 'ws'
import type { Clock, TimerId } from '../../clock.ts'
import { isOneOf } from '../../guards.ts'
import { PRIVATE_CHANNELS, type PrivateChannel } from '../../perps/stream/channels.ts'
import { MessageWindow } from '../../perps/stream/socket/messageWindow.ts'
import type { Random } from '../../random.ts'
import type { PerpsExchange } from '../perps/exchange.ts'
import { type CorkedSockets, corkSockets } from './corkedSockets.ts'
import { createForeignFlood } from './foreignFlood.ts'
import type { StreamFaultConfig, StreamFaultKind } from './streamFaults.ts'
import { type StreamOut, StreamPublisher, type StreamTape } from './streamPublisher.ts'
import { StreamSession } from './streamSession.ts'
import { supersededQuote, type TickSlices } from './tickSlices.ts'

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
  /** A push tick's market pushes a turn of the event loop (tickSlices.ts). Default: the whole tick in one turn. */
  tickSlices?: TickSlices | undefined
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
  const flood = createForeignFlood({
    clock,
    serverClock,
    exchange,
    config: () => options.faults?.()?.foreignOrders,
    running: () => !closed,
    sessions: () => sessions,
    socketOf: (s) => raw.get(s),
    pushed: () => {
      counts.foreignOrders += 1
    },
  })

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
    if (slices === undefined) {
      publishTick(live, now)
      schedule()
      flood.schedule()
      return
    }
    changedInTick = new Set()
    void publishTickSliced(live, now, slices).then(
      () => {
        changedInTick = undefined
        schedule()
        flood.schedule()
      },
      (error: unknown) => {
        changedInTick = undefined
        // As a synchronous tick's error would: out of the timer, not swallowed.
        queueMicrotask(() => {
          throw error
        })
      },
    )
  }

  const corkLive = (live: readonly StreamSession[]): CorkedSockets => corkSockets(live.map((s) => raw.get(s)))

  /**
   * Market pushes `from` to `to` to their subscribers, the corked sockets flushed at each change of
   * channel kind (the tickers do not wait for the rest); a quote a change push has since carried
   * (sliced ticks, `changedInTick`) is skipped.
   */
  function writeMarket(
    pushes: readonly StreamOut[],
    subscribers: ReadonlyMap<string, readonly StreamSession[]>,
    now: number,
    corked: CorkedSockets,
    from = 0,
    to = pushes.length,
  ): void {
    let kind = ''
    for (let k = from; k < to; k++) {
      const p = pushes[k]
      if (p === undefined) continue
      const ch = p.ch.slice(0, p.ch.indexOf(':'))
      if (ch !== kind && kind !== '') corked.flush()
      kind = ch
      if (changedInTick !== undefined && supersededQuote(p, ch, changedInTick)) continue
      fanOut(subscribers, p, now)
    }
  }

  /** The orders and fills in hand, then each owner's account pushes of the tick. */
  function writeAccounts(live: readonly StreamSession[], now: number): void {
    flushActivity()
    for (const owner of owners()) {
      const want = new Set<PrivateChannel>()
      for (const s of live)
        if (s.owner === owner)
          for (const ch of s.privateChannels()) if (isOneOf(PRIVATE_CHANNELS, ch)) want.add(ch)
      publishPrivate(owner, publisher.account(owner, want, now), now)
    }
  }

  function publishTick(live: readonly StreamSession[], now: number): void {
    const subscribers = subscribersOf(live)
    const corked = corkLive(live)
    try {
      writeMarket(publisher.market(wantedOf(subscribers), now), subscribers, now, corked)
      writeAccounts(live, now)
    } finally {
      corked.release()
    }
  }

  /** A tick written `slices.pushes` market pushes a turn of the event loop, then the account pushes. */
  async function publishTickSliced(
    live: readonly StreamSession[],
    now: number,
    slices: TickSlices,
  ): Promise<void> {
    const subscribers = subscribersOf(live)
    const pushes = publisher.market(wantedOf(subscribers), now)
    for (let from = 0; from < pushes.length; from += slices.pushes) {
      if (from > 0) {
        await slices.nextTurn()
        if (closed) return
      }
      const corked = corkLive(live)
      try {
        writeMarket(pushes, subscribers, now, corked, from, Math.min(pushes.length, from + slices.pushes))
      } finally {
        corked.release()
      }
    }
    const corked = corkLive(live)
    try {
      writeAccounts(live, now)
    } finally {
      corked.release()
    }
  }

  /** A change push: no fault rolls (their draws follow the tick count), stalled sessions skip it. */
  function publishChange(instrumentIds: readonly number[]): void {
    if (closed) return
    const now = serverClock.now()
    const live = [...sessions].filter((s) => !s.stalled(now))
    const subscribers = subscribersOf(live)
    const corked = corkLive(live)
    try {
      // Each channel kind goes out as soon as it is written, as in the tick: the moved ticker does
      // not wait for the books and best bid/offers of other subscribers.
      writeMarket(publisher.changed(wantedOf(subscribers), instrumentIds), subscribers, now, corked)
    } finally {
      corked.release()
    }
    // A sliced tick in progress skips these instruments' older quotes from now on.
    for (const iid of instrumentIds) changedInTick?.add(iid)
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
      if (sessions.size === 0) flood.stop()
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
      flood.stop()
      publisher.dispose()
      for (const ws of sockets.values()) ws.terminate()
      return new Promise<void>((resolve) => wss.close(() => resolve()))
    },
  }
}

function refuse(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}
