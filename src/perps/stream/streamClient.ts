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
 *   client itself never refetches. One resync per gap episode: further gaps on a channel within
 *   `gapHoldMs` of the last reported one are folded into one trailing gap when the hold ends.
 * - Auth: a refused `auth` is reported (`auth` event, `StreamAuthError` with `definite` when the code
 *   names bad credentials) and retried with the reconnect back-off, as the official client does.
 * - Bounded memory: pushes on shared channels for instruments outside `acceptInstrument` are dropped
 *   at the door; the per-key push cache is capped and cleared on every reconnect.
 * - Logging: gaps, malformed frames, reconnects and auth refusals go through a rate-limited log (one
 *   line per kind per interval, with the count suppressed); a malformed frame's `error` event is
 *   emitted only with its log line, so listeners cannot be flooded either.
 * - Freshness: a channel is `fresh` from its first push until it has been silent for its bound
 *   (freshness.ts: 15 s for tickers/bbo/book/portfolio, 150 s for statistics/klines) or the socket
 *   goes down, then `stale`; event channels (orders, fills, ...) are fresh while subscribed on a live
 *   socket. Both edges are events, so the caller can switch between pushes and polling.
 * - Limits: at most `maxSubscriptions` channels (venue: 100 per connection), and at most
 *   `maxMessagesPerMinute` frames sent (venue: 1,000 per IP for every socket together); frames over
 *   the budget wait for the window, pings are skipped.
 *
 * Every timer runs on the injected clock, every jitter draw on the injected random.
 */
import type { Clock } from '../../clock.ts'
import { InputValidationError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import { createRateLimitedLog, type RateLimitedLog } from '../../logging/rateLimitedLog.ts'
import type { Random } from '../../random.ts'
import { parseChannel } from './channels.ts'
import { defaultStaleAfterMs } from './freshness.ts'
import { Inbox } from './inbox.ts'
import { KeyedTimers } from './keyedTimers.ts'
import { Outbox } from './outbox.ts'
import { PushDataCache } from './pushDataCache.ts'
import { type BackoffPolicy, DEFAULT_BACKOFF, reconnectDelay } from './reconnectBackoff.ts'
import {
  ackItems,
  authFrame,
  classifyFrame,
  PING_FRAME,
  type PushEnvelope,
  type PushParseResult,
  parsePushData,
  type StreamPush,
  subscribeFrame,
} from './schemas.ts'
import { SequenceTracker } from './sequenceTracker.ts'
import { type SocketFactory, type StreamSocket, undiciSocketFactory } from './socket.ts'
import {
  StreamAuthError,
  StreamLimitError,
  StreamProtocolError,
  StreamServerError,
  StreamSubscriptionError,
} from './streamErrors.ts'
import {
  DEFAULT_STREAM_LIMITS,
  type StreamClientOptions,
  type StreamCredentials,
  type StreamEventMap,
  type StreamGap,
  type StreamHealth,
  type StreamLimits,
  type StreamState,
} from './streamTypes.ts'
import { TypedEvents } from './typedEvents.ts'

export * from './streamTypes.ts'

type TimerKey = 'open' | 'heartbeat' | 'watchdog' | 'reconnect'
/** What the stream logs, each kind at most once per interval. */
type LogKind = 'gap' | 'malformed' | 'reconnect' | 'auth' | 'server_error' | 'foreign_instrument'
/** One line per log kind per this interval, unless `logIntervalMs` says otherwise. */
const DEFAULT_LOG_INTERVAL_MS = 10_000

const DEFAULT_GAP_HOLD_MS = 5_000

export class StreamClient {
  readonly #url: string
  readonly #credentials: StreamCredentials | undefined
  readonly #clock: Clock
  readonly #random: Random
  readonly #factory: SocketFactory
  readonly #heartbeatMs: number
  readonly #idleTimeoutMs: number
  readonly #watchdogMs: number
  readonly #staleAfter: (channel: string) => number
  readonly #ackTimeoutMs: number
  readonly #closeTimeoutMs: number
  readonly #backoff: BackoffPolicy
  readonly #limits: StreamLimits
  readonly #log: Logger | undefined
  readonly #events: TypedEvents<StreamEventMap>
  readonly #outbox: Outbox
  readonly #sequences = new SequenceTracker()
  readonly #accepted = new PushDataCache<StreamPush>()
  readonly #inbox: Inbox<string>
  readonly #yieldAfter: ((push: StreamPush) => boolean) | undefined
  readonly #desired = new Set<string>()
  readonly #acked = new Set<string>()
  readonly #fresh = new Set<string>()
  readonly #lastPushAt = new Map<string, number>()
  readonly #logs: RateLimitedLog<LogKind>
  readonly #acceptInstrument: ((iid: number) => boolean) | undefined
  readonly #gapHoldMs: number
  /** Channels inside a gap hold: whether another gap came during it (bounded by the wanted channels). */
  readonly #gapHeld = new Map<string, { pending: StreamGap | undefined; timer: unknown }>()
  #authRefusals = 0
  #foreignDropped = 0
  #state: StreamState = 'idle'
  #socket: StreamSocket | undefined
  /** Socket generation: callbacks of a replaced socket are ignored. */
  #gen = 0
  #attempt = 0
  #everOpened = false
  #lastInboundAt: number | undefined
  #reconnects = 0
  #gaps = 0
  #pushes = 0
  readonly #timers: KeyedTimers<TimerKey>
  #closing: Promise<void> | undefined
  #onSocketClosed: (() => void) | undefined

  /** @throws {InputValidationError} for a URL that is not ws:// or wss://. */
  constructor(options: StreamClientOptions) {
    let url: URL
    try {
      url = new URL(options.url)
    } catch {
      throw new InputValidationError('stream URL is not a valid URL')
    }
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:')
      throw new InputValidationError(`stream URL must be ws:// or wss://, got ${url.protocol}`)
    this.#url = url.toString()
    this.#credentials = options.credentials
    this.#clock = options.clock
    this.#timers = new KeyedTimers(this.#clock)
    this.#random = options.random
    this.#factory = options.socketFactory ?? undiciSocketFactory()
    this.#heartbeatMs = options.heartbeatMs ?? 25_000
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 65_000
    this.#watchdogMs = options.watchdogMs ?? 1_000
    const stale = options.staleAfterMs ?? defaultStaleAfterMs
    this.#staleAfter = typeof stale === 'number' ? () => stale : stale
    this.#ackTimeoutMs = options.ackTimeoutMs ?? 10_000
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 2_000
    this.#backoff = options.backoff ?? DEFAULT_BACKOFF
    this.#limits = { ...DEFAULT_STREAM_LIMITS, ...options.limits }
    this.#log = options.logger
    this.#outbox = new Outbox(this.#clock, this.#limits.maxMessagesPerMinute, this.#ackTimeoutMs, (reason) =>
      this.#drop(reason),
    )
    this.#yieldAfter = options.yieldAfter
    this.#logs = createRateLimitedLog<LogKind>({
      logger: this.#log,
      clock: this.#clock,
      intervalMs: options.logIntervalMs ?? DEFAULT_LOG_INTERVAL_MS,
    })
    this.#acceptInstrument = options.acceptInstrument
    this.#gapHoldMs = options.gapHoldMs ?? DEFAULT_GAP_HOLD_MS
    this.#inbox = new Inbox((text) => this.#onMessage(text), options.schedule)
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
    for (const ch of channels) {
      const parsed = parseChannel(ch)
      if (parsed === undefined) throw new InputValidationError(`unknown stream channel '${ch}'`)
      if (parsed.private && this.#credentials === undefined)
        throw new InputValidationError(`channel '${ch}' is private: the stream needs credentials`)
    }
    const added = [...new Set(channels)].filter((ch) => !this.#desired.has(ch))
    if (this.#desired.size + added.length > this.#limits.maxSubscriptions)
      throw new StreamLimitError(
        `${this.#desired.size + added.length} channels exceed ${this.#limits.maxSubscriptions} per connection`,
      )
    for (const ch of added) this.#desired.add(ch)
    if (this.#state === 'open' && added.length > 0) this.#sendSubscribe(added)
  }

  unsubscribe(channels: readonly string[]): void {
    const removed = channels.filter((ch) => this.#desired.delete(ch))
    const live = removed.filter((ch) => this.#acked.delete(ch))
    for (const ch of removed) {
      this.#fresh.delete(ch)
      this.#lastPushAt.delete(ch)
      this.#sequences.forget(ch)
      this.#accepted.forget(ch)
      this.#releaseGapHold(ch)
    }
    if (this.#state === 'open' && live.length > 0)
      for (const chunk of chunks(live, this.#limits.maxSubscriptions))
        this.#outbox.request(
          (id) => subscribeFrame(id, 'unsub', chunk),
          () => {},
        )
  }

  /** True when the channel has had a push within its staleness bound. */
  isFresh(channel: string): boolean {
    return this.#fresh.has(channel)
  }

  health(): StreamHealth {
    return {
      state: this.#state,
      reconnects: this.#reconnects,
      gaps: this.#gaps,
      pushes: this.#pushes,
      lastInboundAt: this.#lastInboundAt,
      messagesSentLastMinute: this.#outbox.used(),
      authRefusals: this.#authRefusals,
      foreignDropped: this.#foreignDropped,
      channels: [...this.#desired].map((channel) => ({
        channel,
        subscribed: this.#acked.has(channel),
        fresh: this.#fresh.has(channel),
        lastPushAt: this.#lastPushAt.get(channel),
        lastSq: this.#sequences.last(channel),
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
      const bound = this.#clock.setTimeout(resolve, this.#closeTimeoutMs)
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
      this.#socket = this.#factory(this.#url, {
        onOpen: () => current() && this.#onOpen(),
        onMessage: (text) => current() && this.#inbox.push(text),
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
    this.#timers.schedule('open', this.#ackTimeoutMs, () => {
      if (current()) this.#drop('open timed out')
    })
  }

  #onOpen(): void {
    this.#timers.clear('open')
    if (this.#socket !== undefined) this.#outbox.attach(this.#socket)
    this.#lastInboundAt = this.#clock.now()
    this.#timers.schedule('heartbeat', this.#heartbeatMs, () => this.#heartbeat())
    this.#timers.schedule('watchdog', this.#watchdogMs, () => this.#watchdog())
    const creds = this.#credentials
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
          this.#emit('auth', {
            ok: false,
            definite: err.definite,
            code: err.code,
            refusals: this.#authRefusals,
          })
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
    this.#sequences.reset()
    this.#setState('open')
    if (this.#desired.size === 0) {
      this.#attempt = 0
      return
    }
    this.#sendSubscribe([...this.#desired], reconnected)
  }

  #sendSubscribe(channels: readonly string[], afterReconnect = false): void {
    for (const chunk of chunks(channels, this.#limits.maxSubscriptions)) {
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
            if (this.#staleAfter(ch) === Number.POSITIVE_INFINITY) this.#markFresh(ch)
          })
        },
      )
    }
  }

  #onMessage(text: string): void {
    this.#lastInboundAt = this.#clock.now()
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      this.#malformed(new StreamProtocolError('stream frame is not JSON'))
      return
    }
    const frame = classifyFrame(value)
    switch (frame.type) {
      case 'response': {
        // Unmatched: the ping's reply (id 0), or a late ack.
        this.#outbox.resolve(frame.frame.id, ackItems(frame.frame))
        return
      }
      case 'push':
        this.#onPush(frame.frame)
        return
      case 'error': {
        const err = new StreamServerError(frame.frame.error)
        if (this.#logs.log('warn', 'server_error', { code: err.code }, err.message)) this.#emit('error', err)
        return
      }
      case 'unknown':
        this.#malformed(new StreamProtocolError('stream frame is neither a push nor a response'))
    }
  }

  /** A frame we cannot read: logged and reported at most once per interval (a venue can send many). */
  #malformed(err: StreamProtocolError): void {
    if (this.#logs.log('warn', 'malformed', { details: err.details }, err.message)) this.#emit('error', err)
  }

  /** Drops a push on a shared channel for an instrument the caller does not trade, before any parsing. */
  #foreign(ch: string, data: unknown): boolean {
    if (this.#acceptInstrument === undefined || !ch.endsWith('::all')) return false
    if (typeof data !== 'object' || data === null) return false
    const iid: unknown = Reflect.get(data, 'iid')
    if (typeof iid !== 'number' || this.#acceptInstrument(iid)) return false
    this.#foreignDropped++
    this.#logs.log(
      'info',
      'foreign_instrument',
      { channel: ch },
      `stream: pushes for instruments not traded are dropped (${this.#foreignDropped} so far)`,
    )
    return true
  }

  #onPush(env: PushEnvelope): void {
    const { ch, sq } = env
    if (!this.#desired.has(ch)) return // an unsubscribed channel's last frames
    const check = this.#sequences.observe(ch, sq)
    if (check.gap) this.#gap({ channel: ch, reason: 'sequence_gap', previous: check.previous, sq })
    if (this.#foreign(ch, env.data)) return
    // An unchanged entry (field for field) reuses the value its schema accepted last time.
    const known = this.#accepted.lookup(ch, env.data)
    const parsed: PushParseResult =
      known === undefined ? parsePushData(env) : { ok: true, push: { ...known, ts: env.ts, sq } }
    if (parsed.ok && known === undefined) this.#accepted.remember(ch, env.data, parsed.push)
    if (!parsed.ok) {
      this.#malformed(new StreamProtocolError(`invalid push on ${ch}`, { details: parsed.issues }))
      this.#gap({ channel: ch, reason: 'invalid_push', sq })
      return
    }
    if (parsed.dropped !== undefined) {
      // Rows we could not read: the rest is delivered, and a gap asks for the REST read that settles it.
      this.#malformed(
        new StreamProtocolError(`unreadable rows dropped on ${ch}`, { details: parsed.dropped }),
      )
      this.#gap({ channel: ch, reason: 'invalid_push', sq })
    }
    this.#pushes++
    this.#lastPushAt.set(ch, this.#clock.now())
    this.#markFresh(ch)
    this.#emit('push', parsed.push)
    if (known === undefined && this.#yieldAfter?.(parsed.push)) this.#inbox.yieldNow()
  }

  #markFresh(ch: string): void {
    if (this.#fresh.has(ch)) return
    this.#fresh.add(ch)
    this.#emit('fresh', ch)
  }

  /**
   * Reports a gap once per episode: the first gap on a channel is emitted at once and opens a hold;
   * gaps during the hold are folded into one trailing gap when it ends (so the last one is resynced
   * too), which opens the next hold. A gap on every push costs one resync per hold, not one per push.
   */
  #gap(gap: StreamGap): void {
    this.#gaps++
    const held = this.#gapHeld.get(gap.channel)
    if (held !== undefined) {
      held.pending = gap
      return
    }
    this.#emitGap(gap)
  }

  #emitGap(gap: StreamGap): void {
    this.#logs.log(
      'warn',
      'gap',
      { channel: gap.channel, reason: gap.reason, previous: gap.previous, sq: gap.sq, gaps: this.#gaps },
      'stream gap',
    )
    const hold: { pending: StreamGap | undefined; timer: unknown } = { pending: undefined, timer: undefined }
    hold.timer = this.#clock.setTimeout(() => {
      this.#gapHeld.delete(gap.channel)
      if (hold.pending !== undefined && this.#desired.has(gap.channel)) this.#emitGap(hold.pending)
    }, this.#gapHoldMs)
    this.#gapHeld.set(gap.channel, hold)
    this.#emit('gap', gap)
  }

  #releaseGapHold(ch: string): void {
    const held = this.#gapHeld.get(ch)
    if (held === undefined) return
    this.#clock.clearTimeout(held.timer)
    this.#gapHeld.delete(ch)
  }

  #heartbeat(): void {
    this.#outbox.sendSkippable(PING_FRAME)
    this.#timers.schedule('heartbeat', this.#heartbeatMs, () => this.#heartbeat())
  }

  #watchdog(): void {
    const now = this.#clock.now()
    if (this.#lastInboundAt !== undefined && now - this.#lastInboundAt > this.#idleTimeoutMs) {
      this.#drop(`silent for ${now - this.#lastInboundAt} ms`)
      return
    }
    for (const ch of this.#fresh) {
      const last = this.#lastPushAt.get(ch) ?? 0
      if (now - last > this.#staleAfter(ch)) {
        this.#fresh.delete(ch)
        this.#emit('stale', ch)
      }
    }
    this.#timers.schedule('watchdog', this.#watchdogMs, () => this.#watchdog())
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
    const delay = reconnectDelay(this.#attempt++, this.#backoff, this.#random)
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
    this.#accepted.clear()
    this.#lastInboundAt = undefined
    const wasFresh = [...this.#fresh]
    this.#fresh.clear()
    for (const ch of wasFresh) this.#emit('stale', ch)
  }

  /** Ends for good (the caller closes the socket). */
  #stop(): void {
    this.#resetSocket()
    this.#timers.clear('reconnect')
    for (const ch of [...this.#gapHeld.keys()]) this.#releaseGapHold(ch)
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

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}
