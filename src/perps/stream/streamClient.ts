/**
 * One connection to the venue's WebSocket: connect, `auth` (private sockets), subscribe, heartbeat,
 * per-channel sequence tracking, reconnect with jittered back-off and resubscription, health.
 *
 *   idle → connecting → open ⇄ down → … → closed
 *
 * - Heartbeat: the official ping frame every 25 s; any inbound frame proves liveness, and a socket
 *   silent for 65 s is dropped and reconnected (ws-protocol §6).
 * - Every `auth`/`sub`/`unsub` waits for its ack within `ackTimeoutMs`; a server that does not answer
 *   is treated as gone (the socket is dropped), so nothing waits forever.
 * - Gaps: a push whose `sq` is not previous + 1, a push whose data fails its schema, and every
 *   resubscription after a reconnect are reported as `gap` events; the caller resyncs over REST. The
 *   client itself never refetches. One resync per gap episode (gapHolds.ts): further gaps on a
 *   channel within `gapHoldMs` of the last reported one are folded into one trailing gap.
 * - Auth: a refused `auth` is reported (`auth` event, `StreamAuthError` with `definite` when the code
 *   names bad credentials) and retried with the reconnect back-off, as the official client does.
 * - Bounded memory (pushIntake.ts): pushes on shared channels for instruments outside
 *   `acceptInstrument` are dropped at the door; the push cache is capped and cleared on reconnect.
 * - Logging: gaps, malformed frames, reconnects, auth refusals through the rate-limited log; a
 *   malformed frame's `error` event is emitted only with its log line.
 * - Freshness (channelFreshness.ts): `fresh` from a channel's first push until silent for its bound
 *   or the socket goes down, then `stale`; both edges are events (the caller switches to polling).
 * - Limits (subscriptions.ts): at most `maxSubscriptions` channels (venue: 100 per connection) and
 *   `maxMessagesPerMinute` frames sent; frames over the budget wait, pings are skipped.
 * - A tap (frameTap.ts) reads each frame first; pushes on channels only it wanted stop there.
 * - What an inbound frame means (a push, an ack, a resync, a server error): frameReader.ts.
 * Every timer runs on the injected clock, every jitter draw on the injected random.
 */
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import { createRateLimitedLog, type RateLimitedLog } from '../../logging/rateLimitedLog.ts'
import { ChannelFreshness } from './channelFreshness.ts'
import { FrameReader, type StreamLogKind } from './frameReader.ts'
import { tapFrame } from './frameTap.ts'
import { GapHolds } from './gapHolds.ts'
import { PushIntake } from './pushIntake.ts'
import { authFrame, PING_FRAME, type StreamPush, subscribeFrame } from './schemas.ts'
import { Inbox } from './socket/inbox.ts'
import { KeyedTimers } from './socket/keyedTimers.ts'
import { Outbox } from './socket/outbox.ts'
import { reconnectDelay } from './socket/reconnectBackoff.ts'
import type { StreamSocket } from './socket/socket.ts'
import { TypedEvents } from './socket/typedEvents.ts'
import { StreamAuthError, StreamSubscriptionError } from './streamErrors.ts'
import { type StreamSettings, streamSettings } from './streamSettings.ts'
import type {
  StreamClientOptions,
  StreamEventMap,
  StreamGap,
  StreamHealth,
  StreamState,
} from './streamTypes.ts'
import { Subscriptions } from './subscriptions.ts'

export * from './streamTypes.ts'

type TimerKey = 'open' | 'heartbeat' | 'watchdog' | 'reconnect'

/**
 * Frames a catch-up handles before a changed price among them may yield again (inbox.ts): ~0.5 ms of
 * a 1,000-instrument tick's frames, so a move inside a deferred tick waits for at most about that
 * before its order is sent, and a tick's changes still go out in a few batches, not one per frame.
 */
export const CATCH_UP_FRAMES = 256

export class StreamClient {
  readonly #o: StreamSettings
  readonly #clock: Clock
  readonly #log: Logger | undefined
  readonly #events: TypedEvents<StreamEventMap>
  readonly #outbox: Outbox
  readonly #intake: PushIntake
  readonly #inbox: Inbox<string>
  readonly #reader: FrameReader
  readonly #subs: Subscriptions
  /** The channels wanted (subscribed, or to be subscribed on the next open). */
  readonly #desired: Set<string>
  /** The channels the current socket acknowledged. */
  readonly #acked: Set<string>
  readonly #freshness: ChannelFreshness
  readonly #logs: RateLimitedLog<StreamLogKind>
  readonly #gapHolds: GapHolds
  #authRefusals = 0
  #state: StreamState = 'idle'
  #socket: StreamSocket | undefined
  /** Socket generation: callbacks of a replaced socket are ignored. */
  #gen = 0
  #attempt = 0
  #everOpened = false
  #lastInboundAt: number | undefined
  #reconnects = 0
  readonly #timers: KeyedTimers<TimerKey>
  #closing: Promise<void> | undefined
  #onSocketClosed: (() => void) | undefined

  /** @throws {InputValidationError} for a URL that is not ws:// or wss://. */
  constructor(options: StreamClientOptions) {
    const o = streamSettings(options)
    this.#o = o
    this.#clock = o.clock
    this.#log = o.logger
    this.#timers = new KeyedTimers(this.#clock)
    this.#freshness = new ChannelFreshness(o.staleAfter)
    this.#intake = new PushIntake(o.acceptInstrument)
    this.#subs = new Subscriptions({
      maxSubscriptions: o.limits.maxSubscriptions,
      hasCredentials: o.credentials !== undefined,
    })
    this.#desired = this.#subs.wanted
    this.#acked = this.#subs.acked
    this.#outbox = new Outbox(this.#clock, o.limits.maxMessagesPerMinute, o.ackTimeoutMs, (reason) =>
      this.#drop(reason),
    )
    this.#logs = createRateLimitedLog<StreamLogKind>({
      logger: this.#log,
      clock: this.#clock,
      intervalMs: o.logIntervalMs,
    })
    this.#gapHolds = new GapHolds({
      clock: this.#clock,
      holdMs: o.gapHoldMs,
      report: {
        log: (gap) => this.#logs.log('warn', 'gap', { ...gap, gaps: this.#gapHolds.count }, 'stream gap'),
        emit: (gap) => this.#emit('gap', gap),
      },
      wanted: (ch) => this.#desired.has(ch),
    })
    this.#reader = new FrameReader({
      wanted: this.#desired,
      intake: this.#intake,
      freshness: this.#freshness,
      logs: this.#logs,
      resolveAck: (id, items) => this.#outbox.resolve(id, items),
      gap: (gap) => this.#gap(gap),
      emit: (event, value) => this.#emit(event, value),
      yieldAfter: o.yieldAfter,
      yieldNow: () => this.#inbox.yieldNow(),
    })
    this.#inbox = new Inbox(
      (text) => {
        // One clock read a frame: its inbound time is also its push time (freshness).
        const now = this.#clock.now()
        this.#lastInboundAt = now
        this.#reader.read(text, now)
      },
      o.schedule,
      { catchUpFrames: CATCH_UP_FRAMES },
    )
    // A listener's bug must not break the socket's bookkeeping.
    this.#events = new TypedEvents((err, event) => this.#log?.error({ err, event }, 'stream listener threw'))
  }

  // ---- public surface ---------------------------------------------------------------------------

  get state(): StreamState {
    return this.#state
  }

  /** The channels wanted (subscribed, or to be subscribed on the next open). */
  get channels(): ReadonlySet<string> {
    return this.#desired
  }

  on<K extends keyof StreamEventMap>(event: K, listener: (value: StreamEventMap[K]) => void): () => void {
    return this.#events.on(event, listener)
  }
  onPush(listener: (push: StreamPush) => void): () => void {
    return this.on('push', listener)
  }
  onGap(listener: (gap: StreamGap) => void): () => void {
    return this.on('gap', listener)
  }
  onState(listener: (state: StreamState) => void): () => void {
    return this.on('state', listener)
  }

  /** Opens the socket (once; later calls do nothing). */
  start(): void {
    if (this.#state !== 'idle') return
    this.#connect()
  }

  /**
   * Adds channels; sent at once when open, else on the next open.
   * @throws {InputValidationError} an unknown channel, or a private one without credentials.
   * @throws {StreamLimitError} more than `maxSubscriptions` channels in all.
   */
  subscribe(channels: readonly string[]): void {
    const added = this.#subs.add(channels)
    if (this.#state === 'open' && added.length > 0) this.#sendSubscribe(added)
  }

  unsubscribe(channels: readonly string[]): void {
    const { removed, live } = this.#subs.remove(channels)
    for (const ch of removed) {
      this.#freshness.forget(ch)
      this.#intake.forget(ch)
      this.#gapHolds.release(ch)
    }
    if (this.#state === 'open' && live.length > 0)
      for (const chunk of this.#subs.chunks(live))
        this.#outbox.request(
          (id) => subscribeFrame(id, 'unsub', chunk),
          () => {},
        )
  }

  /** True when the channel has had a push within its staleness bound. */
  isFresh(channel: string): boolean {
    return this.#freshness.isFresh(channel)
  }

  health(): StreamHealth {
    return {
      state: this.#state,
      reconnects: this.#reconnects,
      gaps: this.#gapHolds.count,
      pushes: this.#intake.pushes,
      lastInboundAt: this.#lastInboundAt,
      messagesSentLastMinute: this.#outbox.used(),
      authRefusals: this.#authRefusals,
      foreignDropped: this.#intake.foreignDropped,
      channels: [...this.#desired].map((channel) => ({
        channel,
        subscribed: this.#acked.has(channel),
        fresh: this.#freshness.isFresh(channel),
        lastPushAt: this.#freshness.lastPushAt(channel),
        lastSq: this.#intake.sequences.last(channel),
      })),
    }
  }

  /** Closes for good; resolves once the socket is closed or `closeTimeoutMs` has passed. */
  close(): Promise<void> {
    this.#closing ??= new Promise<void>((resolve) => {
      const socket = this.#socket
      this.#stop()
      if (socket === undefined) {
        resolve()
        return
      }
      const bound = this.#clock.setTimeout(resolve, this.#o.closeTimeoutMs)
      this.#onSocketClosed = () => {
        this.#clock.clearTimeout(bound)
        resolve()
      }
      socket.close(1000, 'client closing')
    })
    return this.#closing
  }

  // ---- connection -------------------------------------------------------------------------------

  #connect(): void {
    const gen = ++this.#gen
    this.#setState('connecting')
    const current = (): boolean => gen === this.#gen
    try {
      this.#socket = this.#o.factory(this.#o.url, {
        onOpen: () => current() && this.#onOpen(),
        onMessage: (text) => current() && this.#receive(text),
        onClose: (code, reason) => {
          this.#onSocketClosed?.()
          if (current()) this.#onLost(`closed (${code}${reason ? ` ${reason}` : ''})`)
        },
        onError: (message) => {
          if (current()) this.#log?.debug({ err: message }, 'stream socket error')
        },
      })
    } catch (e) {
      this.#onLost(`cannot open: ${e instanceof Error ? e.message : String(e)}`)
      return
    }
    this.#timers.schedule('open', this.#o.ackTimeoutMs, () => {
      if (current()) this.#drop('open timed out')
    })
  }

  #onOpen(): void {
    this.#timers.clear('open')
    if (this.#socket !== undefined) this.#outbox.attach(this.#socket)
    this.#lastInboundAt = this.#clock.now()
    this.#timers.schedule('heartbeat', this.#o.heartbeatMs, () => this.#heartbeat())
    this.#timers.schedule('watchdog', this.#o.watchdogMs, () => this.#watchdog())
    const creds = this.#o.credentials
    if (creds === undefined) {
      this.#onReady()
      return
    }
    this.#outbox.request(
      (id) => authFrame(id, creds.proxy, creds.secret),
      (items) => {
        const refused = items.find((i) => i.status === 'err')
        if (refused !== undefined) {
          // Retried with the reconnect back-off (the official client does too): a venue restart can
          // refuse good credentials for a moment. A definite refusal is an alert for the caller.
          const err = new StreamAuthError(refused.error ?? 'unauthorized')
          this.#authRefusals++
          this.#logs.log(
            'warn',
            'auth',
            { code: err.code, definite: err.definite, refusals: this.#authRefusals },
            `stream authentication refused (${err.code}); retrying with back-off`,
          )
          this.#emit('error', err)
          const refusals = this.#authRefusals
          this.#emit('auth', { ok: false, definite: err.definite, code: err.code, refusals })
          this.#drop('authentication refused')
          return
        }
        if (this.#authRefusals > 0) {
          this.#authRefusals = 0
          this.#emit('auth', { ok: true, definite: false, code: undefined, refusals: 0 })
        }
        this.#onReady()
      },
    )
  }

  /** Open (and authenticated): resubscribe everything wanted. */
  #onReady(): void {
    const reconnected = this.#everOpened
    this.#everOpened = true
    this.#intake.sequences.reset()
    this.#setState('open')
    if (this.#desired.size === 0) {
      this.#attempt = 0
      return
    }
    this.#sendSubscribe([...this.#desired], reconnected)
  }

  #sendSubscribe(channels: readonly string[], afterReconnect = false): void {
    for (const chunk of this.#subs.chunks(channels)) {
      this.#outbox.request(
        (id) => subscribeFrame(id, 'sub', chunk),
        (items) => {
          this.#attempt = 0
          chunk.forEach((ch, i) => {
            // One item per channel; a single item answers for all (ws-protocol §3).
            const item = items.length === chunk.length ? items[i] : items[0]
            if (!this.#desired.has(ch)) return
            if (item?.status === 'err') {
              this.#desired.delete(ch)
              this.#emit('error', new StreamSubscriptionError(ch, item.error ?? 'rejected'))
              return
            }
            this.#acked.add(ch)
            if (afterReconnect) this.#gap({ channel: ch, reason: 'reconnect' })
            // Event channels are silent when nothing happens: subscribed on a live socket is fresh.
            if (this.#freshness.staleAfter(ch) === Number.POSITIVE_INFINITY) this.#markFresh(ch)
          })
        },
      )
    }
  }

  /** A frame as it arrives: to the tap first (a push only it wanted stops there), then the inbox. */
  #receive(text: string): void {
    const tap = this.#o.tap
    if (tap !== undefined && tapFrame(tap, text, this.#clock.now())) this.#lastInboundAt = this.#clock.now()
    else this.#inbox.push(text)
  }

  #markFresh(ch: string): void {
    if (this.#freshness.mark(ch)) this.#emit('fresh', ch)
  }

  /** A gap, reported once per episode (gapHolds.ts): the caller resyncs over REST. */
  #gap(gap: StreamGap): void {
    this.#gapHolds.note(gap)
  }

  #heartbeat(): void {
    this.#outbox.sendSkippable(PING_FRAME)
    this.#timers.schedule('heartbeat', this.#o.heartbeatMs, () => this.#heartbeat())
  }

  #watchdog(): void {
    const now = this.#clock.now()
    if (this.#lastInboundAt !== undefined && now - this.#lastInboundAt > this.#o.idleTimeoutMs) {
      this.#drop(`silent for ${now - this.#lastInboundAt} ms`)
      return
    }
    this.#freshness.expire(now, (ch) => this.#emit('stale', ch))
    this.#timers.schedule('watchdog', this.#o.watchdogMs, () => this.#watchdog())
  }

  /** Drops the current socket without waiting for it, then reconnects. */
  #drop(reason: string): void {
    const socket = this.#socket
    this.#onLost(reason)
    socket?.close(4000, 'client dropped the connection')
  }

  #onLost(reason: string): void {
    if (this.#state === 'closed' || this.#state === 'down') return
    this.#logs.log(
      'warn',
      'reconnect',
      { reason, reconnects: this.#reconnects + 1 },
      'stream connection lost',
    )
    this.#resetSocket()
    this.#setState('down')
    const delay = reconnectDelay(this.#attempt++, this.#o.backoff, this.#o.random)
    this.#reconnects++
    this.#timers.schedule('reconnect', delay, () => this.#connect())
  }

  /** Forgets the socket and everything scoped to it; fresh channels become stale. */
  #resetSocket(): void {
    this.#gen++
    this.#inbox.clear()
    this.#socket = undefined
    for (const key of ['open', 'heartbeat', 'watchdog'] as const) this.#timers.clear(key)
    this.#outbox.detach()
    this.#acked.clear()
    // Scoped to the socket: a new connection starts with an empty push cache.
    this.#intake.clearCache()
    this.#lastInboundAt = undefined
    for (const ch of this.#freshness.clear()) this.#emit('stale', ch)
  }

  /** Ends for good (the caller closes the socket). */
  #stop(): void {
    this.#resetSocket()
    this.#timers.clear('reconnect')
    this.#gapHolds.releaseAll()
    this.#logs.stop()
    this.#setState('closed')
  }

  // ---- plumbing ---------------------------------------------------------------------------------

  #setState(state: StreamState): void {
    if (this.#state === state) return
    this.#state = state
    this.#log?.info({ state }, `stream state: ${state}`)
    this.#emit('state', state)
  }

  #emit<K extends keyof StreamEventMap>(event: K, value: StreamEventMap[K]): void {
    this.#events.emit(event, value)
  }
}
