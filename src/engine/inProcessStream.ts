/**
 * The venue port's events from the exchange core in this process (simulate `--streams`, paper): a
 * `StreamSource` on the mock's in-process stream hub (mock/stream/inProcessStreamHub.ts) in place of
 * the WebSocket pool. The pushes arrive as values, in the hub's batches through the simulator's
 * delivery queue; from there each goes the socket client's way (streamClient.ts) with the same
 * parts: its sequence checked and the push read by `PushIntake` (a gap reported first; an instrument
 * not traded dropped at the door; the data parsed by the push schemas, so the values the engine gets
 * are the schemas' as on the wire), gaps folded per episode by `GapHolds`, freshness by
 * `ChannelFreshness` on a watchdog of the injected clock, and pushes after one that routed an input
 * wait a turn (`Inbox`, `yieldAfter`). As the pool keeps the private channels on a socket of their
 * own, the private pushes have an inbox of their own: a yield on the public ones does not hold them.
 * No socket, no JSON, no reconnects: one session per source, bound to the account by its
 * credentials. The handshake costs what the socket protocol's round trips cost on the same queue:
 * a side opens in one turn (the private one then authenticates: a request and its answer), and a
 * subscription takes effect one turn after it is asked (the request) and marks its event channels
 * fresh one turn later (the answer); the pushes that follow a command are missed or not as on the
 * wire.
 */
import type { Clock, TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import type { InProcessStreamHub, InProcessStreamSession } from '../mock/stream/inProcessStreamHub.ts'
import { ChannelFreshness } from '../perps/stream/channelFreshness.ts'
import { parseChannel } from '../perps/stream/channels.ts'
import { defaultStaleAfterMs } from '../perps/stream/freshness.ts'
import { GapHolds } from '../perps/stream/gapHolds.ts'
import { PushIntake } from '../perps/stream/pushIntake.ts'
import type { PushEnvelope } from '../perps/stream/schemas.ts'
import { afterNextWrite, Inbox } from '../perps/stream/socket/inbox.ts'
import { TypedEvents } from '../perps/stream/socket/typedEvents.ts'
import { StreamAuthError } from '../perps/stream/streamErrors.ts'
import type { StreamPoolHealth } from '../perps/stream/streamPool.ts'
import type { OpenStreamSource, StreamSource, StreamSourceOptions } from '../perps/stream/streamSource.ts'
import type { StreamEventMap, StreamState } from '../perps/stream/streamTypes.ts'

/** What a source needs of the hub: a session, and turns on its delivery queue. */
export type StreamHubSide = Pick<InProcessStreamHub, 'connect' | 'enqueue'>

/** Opens the bot's stream source on the hub (the venue port's `events.source`). */
export function openInProcessStream(hub: StreamHubSide): OpenStreamSource {
  return (options) => new InProcessStreamSource(hub, options)
}

export class InProcessStreamSource implements StreamSource {
  readonly #hub: StreamHubSide
  readonly #o: StreamSourceOptions
  readonly #clock: Clock
  readonly #events: TypedEvents<StreamEventMap>
  readonly #intake: PushIntake
  readonly #freshness: ChannelFreshness
  readonly #gapHolds: GapHolds
  /** The public and the private pushes, as the pool's sockets read them. */
  readonly #inbox: { public: Inbox<PushEnvelope>; private: Inbox<PushEnvelope> }
  readonly #wanted = new Set<string>()
  #session: InProcessStreamSession | undefined
  /** Each side's handshake: absent before it starts, false until open. */
  readonly #open = new Map<Side, boolean>()
  /** Channels asked of the session (their request sent). */
  readonly #requested = new Set<string>()
  #state: StreamState = 'idle'
  #watchdog: TimerId | undefined
  #lastInboundAt: number | undefined

  constructor(hub: StreamHubSide, options: StreamSourceOptions) {
    this.#hub = hub
    this.#o = options
    this.#clock = options.clock
    const stale = options.staleAfterMs ?? defaultStaleAfterMs
    this.#freshness = new ChannelFreshness(typeof stale === 'number' ? () => stale : stale)
    this.#intake = new PushIntake(options.acceptInstrument)
    this.#gapHolds = new GapHolds({
      clock: this.#clock,
      holdMs: options.gapHoldMs ?? 5_000,
      report: {
        log: (gap) => options.logger?.warn({ ...gap, gaps: this.#gapHolds.count }, 'stream gap'),
        emit: (gap) => this.#events.emit('gap', gap),
      },
      wanted: (ch) => this.#wanted.has(ch),
    })
    const inbox = (): Inbox<PushEnvelope> => {
      const box: Inbox<PushEnvelope> = new Inbox(
        (env) => this.#onPush(env, box),
        options.schedule ?? afterNextWrite,
      )
      return box
    }
    this.#inbox = { public: inbox(), private: inbox() }
    this.#events = new TypedEvents((err, event) =>
      options.logger?.error({ err, event }, 'stream listener threw'),
    )
  }

  get state(): StreamState {
    return this.#state
  }

  on<K extends keyof StreamEventMap>(event: K, listener: (value: StreamEventMap[K]) => void): () => void {
    return this.#events.on(event, listener)
  }

  start(): void {
    if (this.#state !== 'idle') return
    try {
      this.#session = this.#hub.connect({
        credentials: this.#o.credentials,
        onPush: (push) => {
          this.#lastInboundAt = this.#clock.now()
          const kind = parseChannel(push.ch)
          ;(kind?.private === true ? this.#inbox.private : this.#inbox.public).push(push)
        },
      })
    } catch (e) {
      // As a refused `auth`: said, and every input polls.
      this.#events.emit('auth', { ok: false, definite: true, code: 'unauthorized', refusals: 1 })
      this.#events.emit('error', new StreamAuthError('unauthorized', { cause: e }))
      this.#setState('down')
      return
    }
    this.#setState('connecting')
    const sides = new Set([...this.#wanted].map(sideOf))
    // In the pool's order: the private socket first.
    for (const side of ['private', 'public'] as const) if (sides.has(side)) this.#openSide(side)
    if (sides.size === 0) this.#setState('open')
    this.#scheduleWatchdog()
  }

  /** @throws {InputValidationError} unknown channels, private ones without credentials. */
  subscribe(channels: readonly string[]): void {
    const fresh = [...new Set(channels)].filter((ch) => !this.#wanted.has(ch))
    for (const ch of fresh) {
      const parsed = parseChannel(ch)
      if (parsed === undefined) throw new InputValidationError(`unknown stream channel '${ch}'`)
      if (parsed.private && this.#o.credentials === undefined)
        throw new InputValidationError(`channel '${ch}' is private: the stream needs credentials`)
    }
    for (const ch of fresh) this.#wanted.add(ch)
    if (this.#state === 'idle' || this.#state === 'closed') return
    for (const side of ['private', 'public'] as const) {
      const mine = fresh.filter((ch) => sideOf(ch) === side)
      if (mine.length === 0) continue
      const open = this.#open.get(side)
      if (open === undefined) this.#openSide(side)
      else if (open) this.#request(mine)
    }
  }

  unsubscribe(channels: readonly string[]): void {
    const gone = channels.filter((ch) => this.#wanted.delete(ch))
    for (const ch of gone) {
      this.#requested.delete(ch)
      this.#freshness.forget(ch)
      this.#intake.forget(ch)
      this.#gapHolds.release(ch)
    }
    if (gone.length > 0) this.#session?.unsubscribe(gone)
  }

  subscribed(channel: string): boolean {
    return this.#wanted.has(channel)
  }

  isFresh(channel: string): boolean {
    return this.#freshness.isFresh(channel)
  }

  health(): StreamPoolHealth {
    return {
      state: this.#state,
      connections: [
        {
          private: this.#session?.owner !== undefined,
          state: this.#state,
          reconnects: 0,
          gaps: this.#gapHolds.count,
          pushes: this.#intake.pushes,
          lastInboundAt: this.#lastInboundAt,
          messagesSentLastMinute: 0,
          channels: [...this.#wanted].map((channel) => ({
            channel,
            subscribed: this.#requested.has(channel),
            fresh: this.#freshness.isFresh(channel),
            lastPushAt: this.#freshness.lastPushAt(channel),
            lastSq: this.#intake.sequences.last(channel),
          })),
          authRefusals: 0,
          foreignDropped: this.#intake.foreignDropped,
        },
      ],
    }
  }

  async close(): Promise<void> {
    if (this.#watchdog !== undefined) this.#clock.clearTimeout(this.#watchdog)
    this.#watchdog = undefined
    this.#session?.close()
    this.#session = undefined
    this.#inbox.public.clear()
    this.#inbox.private.clear()
    this.#gapHolds.releaseAll()
    for (const ch of this.#freshness.clear()) this.#events.emit('stale', ch)
    this.#setState('closed')
  }

  /** A side's handshake on the queue: open (and, private, auth asked and answered), then its channels asked. */
  #openSide(side: Side): void {
    this.#open.set(side, false)
    const ready = (): void => {
      if (this.#state === 'closed') return
      this.#open.set(side, true)
      if ([...this.#open.values()].every(Boolean)) this.#setState('open')
      this.#request([...this.#wanted].filter((ch) => sideOf(ch) === side))
    }
    this.#turn(() => (side === 'private' ? this.#turn(() => this.#turn(ready)) : ready()))
  }

  /** Subscribes: in effect on the next turn (the request), event channels fresh on the one after (the answer). */
  #request(channels: readonly string[]): void {
    const asked = channels.filter((ch) => !this.#requested.has(ch))
    if (asked.length === 0) return
    for (const ch of asked) this.#requested.add(ch)
    this.#turn(() => {
      const still = asked.filter((ch) => this.#wanted.has(ch))
      if (this.#state === 'closed' || still.length === 0) return
      this.#session?.subscribe(still)
      this.#turn(() => {
        if (this.#state === 'closed') return
        // Event channels are silent when nothing happens: subscribed on a live session is fresh.
        for (const ch of still)
          if (
            this.#wanted.has(ch) &&
            this.#freshness.staleAfter(ch) === Number.POSITIVE_INFINITY &&
            this.#freshness.mark(ch)
          )
            this.#events.emit('fresh', ch)
      })
    })
  }

  /** One turn of the queue the hub hands its pushes over on. */
  #turn(fn: () => void): void {
    this.#hub.enqueue(fn)
  }

  /** One push, the socket client's way (streamClient.ts `#onPush`). */
  #onPush(env: PushEnvelope, inbox: Inbox<PushEnvelope>): void {
    const { ch } = env
    if (!this.#wanted.has(ch)) return // an unsubscribed channel's last pushes
    const r = this.#intake.read(env)
    if (r.sequenceGap !== undefined) this.#gapHolds.note(r.sequenceGap)
    if (r.foreign !== undefined) return
    if (r.invalid !== undefined) {
      this.#events.emit('error', r.invalid.error)
      this.#gapHolds.note(r.invalid.gap)
    }
    if (r.push === undefined) return
    if (this.#freshness.pushed(ch, this.#clock.now())) this.#events.emit('fresh', ch)
    this.#events.emit('push', r.push)
    if (r.changed && this.#o.yieldAfter?.(r.push)) inbox.yieldNow()
  }

  /** Channels silent past their bound turn stale, checked as often as the socket client does. */
  #scheduleWatchdog(): void {
    this.#watchdog = this.#clock.setTimeout(() => {
      this.#freshness.expire(this.#clock.now(), (ch) => this.#events.emit('stale', ch))
      this.#scheduleWatchdog()
    }, this.#o.watchdogMs ?? 1_000)
  }

  #setState(state: StreamState): void {
    if (state === this.#state) return
    this.#state = state
    this.#events.emit('state', state)
  }
}

type Side = 'public' | 'private'

function sideOf(channel: string): Side {
  return parseChannel(channel)?.private === true ? 'private' : 'public'
}
