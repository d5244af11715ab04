/**
 * The mock's stream for a client in the same process (simulate `--streams`, the paper book): the publisher the
 * WebSocket serves (streamPublisher.ts), on the same ticks and with the same per-session, per-channel
 * sequence numbers (from 1), handed over as values: no socket, no JSON. Each publish's pushes reach
 * their sessions together, in publish order, as one item of `deliver` (the simulator's delivery
 * queue), so where they fall among the bot's other work depends on the seed alone, as the in-process
 * transport's answers do. `serve` takes any other subscriber on the same ticks: the socket protocol's
 * own session (streamSession.ts, JSON text) for the equivalence baseline.
 *
 * As the socket server (streamServer.ts): one tick per `pushIntervalMs` of the clock on its
 * multiples, market pushes then the orders and fills queued since the last flush then the account
 * pushes; orders and fills also right after the call that made them (one immediate later). Not
 * served here: the socket's own faults and limits (drops, stalls, gaps, slow consumers, connection
 * and message caps) and the foreign-order flood; they need a socket and stay the WebSocket's.
 */
import type { Clock, TimerId } from '../../clock.ts'
import { isOneOf } from '../../guards.ts'
import { PRIVATE_CHANNELS, type PrivateChannel } from '../../perps/stream/channels.ts'
import type { PushEnvelope } from '../../perps/stream/schemas.ts'
import type { PerpsExchange } from '../perps/exchange.ts'
import { type StreamOut, StreamPublisher, type StreamTape } from './streamPublisher.ts'

export interface InProcessStreamHubOptions {
  exchange: PerpsExchange
  /** Runs the push ticks (the simulator's stepped clock). */
  clock: Clock
  /** Push `ts` (the exchange's possibly skewed clock). Default `clock`. */
  serverClock?: Clock | undefined
  /** Default 1,000 ms (the exchange's step). */
  pushIntervalMs?: number | undefined
  tape?: StreamTape | undefined
  /** Hands a batch over later, in order (the delivery queue of inProcessTransport.ts). */
  deliver: (handOver: () => void) => void
}

/** One client's subscription set, like one socket's. */
export interface InProcessStreamSession {
  /** Lower-case owner address (private channels), if the credentials were accepted. */
  readonly owner: string | undefined
  subscribe(channels: readonly string[]): void
  unsubscribe(channels: readonly string[]): void
  close(): void
}

/**
 * A subscriber on the hub's ticks: its subscriptions and account, and what it makes of a push (its
 * sequence number taken at once; what reaches its client goes through `enqueue`).
 */
export interface StreamSubscriber {
  readonly owner: string | undefined
  readonly subscriptions: ReadonlySet<string>
  push(ch: string, data: unknown, ts: number): void
}

export interface InProcessStreamHub {
  /**
   * A session; with credentials it is bound to their account (refused: throws, as the socket's `auth`
   * answers `unauthorized`). `onPush` gets each of the session's pushes, in publish order.
   */
  connect(o: {
    credentials?: { proxy: string; secret: string } | undefined
    onPush: (push: PushEnvelope) => void
  }): InProcessStreamSession
  /** Another subscriber on the same ticks; returns its removal. */
  serve(subscriber: StreamSubscriber): () => void
  /**
   * Hands `handOver` to its client: with the current publish's other pushes when one is under way,
   * else as an item of its own (`deliver`).
   */
  enqueue(handOver: () => void): void
  /** A subscriber's subscriptions or account changed. */
  changed(): void
  /**
   * Pushes these instruments' tickers, best bid/offers and books now (the paper book, when the
   * venue's price moved), as the socket server's `publishNow` does; the tick keeps its cadence.
   */
  publishNow(instrumentIds: readonly number[]): void
  readonly sessions: number
  /** Stops the ticks and drops every session. */
  close(): void
}

export function createInProcessStreamHub(o: InProcessStreamHubOptions): InProcessStreamHub {
  const { clock } = o
  const serverClock = o.serverClock ?? clock
  const interval = o.pushIntervalMs ?? 1_000
  const sessions = new Set<StreamSubscriber>()
  let tickTimer: TimerId | undefined
  let activityScheduled = false
  let closed = false
  /** What this publish hands over, in order; delivered as one item when it ends. */
  let pending: (() => void)[] = []
  let publishing = false

  const publisher = new StreamPublisher(
    o.exchange,
    () => {
      if (activityScheduled || closed) return
      activityScheduled = true
      // As the socket server: the pushes follow the call that made them, one immediate later.
      setImmediate(() => {
        activityScheduled = false
        if (closed) return
        publish(() => flushActivity(serverClock.now()))
      })
    },
    o.tape,
  )

  function enqueue(handOver: () => void): void {
    pending.push(handOver)
    if (!publishing) handOverPending()
  }

  function handOverPending(): void {
    if (pending.length === 0) return
    const batch = pending
    pending = []
    o.deliver(() => {
      for (const h of batch) h()
    })
  }

  function publish(fn: () => void): void {
    publishing = true
    try {
      fn()
    } finally {
      publishing = false
    }
    handOverPending()
  }

  function owners(): Set<string> {
    const out = new Set<string>()
    for (const s of sessions) if (s.owner !== undefined && privateOf(s).size > 0) out.add(s.owner)
    return out
  }

  function publishPrivate(owner: string, pushes: readonly StreamOut[], ts: number): void {
    for (const p of pushes) for (const s of sessions) if (s.owner === owner) s.push(p.ch, p.data, ts)
  }

  function flushActivity(ts: number): void {
    for (const p of publisher.trades()) for (const s of sessions) s.push(p.ch, p.data, ts)
    for (const owner of owners()) publishPrivate(owner, publisher.activity(owner), ts)
  }

  function changed(): void {
    publisher.watch(owners())
    const wanted = new Set<string>()
    for (const s of sessions) for (const ch of s.subscriptions) wanted.add(ch)
    publisher.followTrades(wanted, serverClock.now())
  }

  function tick(): void {
    tickTimer = undefined
    if (closed) return
    const now = serverClock.now()
    publish(() => {
      const wanted = new Set<string>()
      for (const s of sessions) for (const ch of s.subscriptions) wanted.add(ch)
      for (const p of publisher.market(wanted, now)) for (const s of sessions) s.push(p.ch, p.data, now)
      flushActivity(now)
      for (const owner of owners()) {
        const want = new Set<PrivateChannel>()
        for (const s of sessions)
          if (s.owner === owner)
            for (const ch of privateOf(s)) if (isOneOf(PRIVATE_CHANNELS, ch)) want.add(ch)
        publishPrivate(owner, publisher.account(owner, want, now), now)
      }
    })
    schedule()
  }

  /** Ticks on the exchange's step boundaries, so a push follows a price change at once. */
  function schedule(): void {
    if (closed || tickTimer !== undefined || sessions.size === 0) return
    const phase = serverClock.now() % interval
    tickTimer = clock.setTimeout(tick, phase === 0 ? interval : interval - phase)
  }

  function serve(s: StreamSubscriber): () => void {
    sessions.add(s)
    changed()
    schedule()
    return () => {
      if (!sessions.delete(s)) return
      changed()
      if (sessions.size === 0 && tickTimer !== undefined) {
        clock.clearTimeout(tickTimer)
        tickTimer = undefined
      }
    }
  }

  return {
    connect(c) {
      const owner =
        c.credentials === undefined
          ? undefined
          : o.exchange.authenticate(c.credentials.proxy, c.credentials.secret).toLowerCase()
      const subscriptions = new Set<string>()
      const sq = new Map<string, number>()
      let open = true
      const remove = serve({
        owner,
        subscriptions,
        push(ch, data, ts) {
          if (!subscriptions.has(ch)) return
          const n = (sq.get(ch) ?? 0) + 1
          sq.set(ch, n)
          const env: PushEnvelope = { ch, ts, sq: n, data }
          enqueue(() => {
            if (open) c.onPush(env)
          })
        },
      })
      return {
        owner,
        subscribe(channels) {
          for (const ch of channels) subscriptions.add(ch)
          changed()
        },
        unsubscribe(channels) {
          // The sequence numbers go on, as on the socket's session.
          for (const ch of channels) subscriptions.delete(ch)
          changed()
        },
        close() {
          open = false
          remove()
        },
      }
    },
    serve,
    enqueue,
    changed,
    publishNow(instrumentIds) {
      if (closed || sessions.size === 0) return
      const now = serverClock.now()
      publish(() => {
        const wanted = new Set<string>()
        for (const s of sessions) for (const ch of s.subscriptions) wanted.add(ch)
        for (const p of publisher.changed(wanted, instrumentIds))
          for (const s of sessions) s.push(p.ch, p.data, now)
      })
    },
    get sessions() {
      return sessions.size
    },
    close() {
      closed = true
      if (tickTimer !== undefined) clock.clearTimeout(tickTimer)
      tickTimer = undefined
      sessions.clear()
      pending = []
      publisher.dispose()
    },
  }
}

/** The subscriber's private channels (bare names). */
function privateOf(s: StreamSubscriber): Set<string> {
  const out = new Set<string>()
  for (const ch of s.subscriptions) if (isOneOf(PRIVATE_CHANNELS, ch)) out.add(ch)
  return out
}
