/**
 * The bot's streams within the venue's connection limits: public channels spread over unauthenticated
 * sockets of at most `maxSubscriptionsPerConnection` channels each, private channels on one
 * authenticated socket (as the official client keeps its public socket and its session apart), at
 * most `maxConnections` sockets, and one message budget split evenly between them.
 *
 * Events of every socket are forwarded unchanged (`push`, `gap`, `stale`, `fresh`, `error`, `auth`); `state`
 * is the pool's: `open` when every socket is open, `down` when any is down, `connecting` otherwise.
 */

import { InputValidationError } from '../../errors.ts'
import { parseChannel } from './channels.ts'
import { afterNextWrite, InboxGroup } from './socket/inbox.ts'
import { TypedEvents } from './socket/typedEvents.ts'
import {
  DEFAULT_STREAM_LIMITS,
  StreamClient,
  type StreamClientOptions,
  type StreamCredentials,
  type StreamEventMap,
  type StreamHealth,
  type StreamState,
} from './streamClient.ts'
import { StreamLimitError } from './streamErrors.ts'

export interface StreamPoolOptions extends Omit<StreamClientOptions, 'credentials' | 'limits'> {
  /** Needed for the private channels; they get a socket of their own. */
  credentials?: StreamCredentials | undefined
  /** Sockets at most, private one included (venue: 50 per IP). Default 4. */
  maxConnections?: number | undefined
  /** Venue: 100. */
  maxSubscriptionsPerConnection?: number | undefined
  /** Frames per minute for all sockets together (venue: 1,000 per IP). Default 500. */
  maxMessagesPerMinute?: number | undefined
}

export interface StreamPoolHealth {
  state: StreamState
  connections: (StreamHealth & { private: boolean })[]
}

type Forwarded = Exclude<keyof StreamEventMap, 'state'>
const FORWARDED: readonly Forwarded[] = ['push', 'gap', 'stale', 'fresh', 'error', 'auth']

export class StreamPool {
  readonly #options: StreamPoolOptions
  readonly #publicInboxes: InboxGroup
  readonly #maxConnections: number
  readonly #perConnection: number
  readonly #messagesEach: number
  readonly #public: StreamClient[] = []
  #private: StreamClient | undefined
  readonly #owner = new Map<string, StreamClient>()
  readonly #events = new TypedEvents<StreamEventMap>()
  #started = false
  #state: StreamState = 'idle'

  /** @throws {InputValidationError} for limits that are not positive integers. */
  constructor(options: StreamPoolOptions) {
    this.#options = options
    // One yield for all the public sockets (inbox.ts): a venue tick reaches every one at once. The
    // private socket (orders, fills, the portfolio: a few frames a tick) keeps its own.
    const schedule = options.schedule
    this.#publicInboxes =
      schedule instanceof InboxGroup ? schedule : new InboxGroup(schedule ?? afterNextWrite)
    this.#maxConnections = options.maxConnections ?? 4
    this.#perConnection = options.maxSubscriptionsPerConnection ?? DEFAULT_STREAM_LIMITS.maxSubscriptions
    const total = options.maxMessagesPerMinute ?? 500
    for (const [name, v] of [
      ['maxConnections', this.#maxConnections],
      ['maxSubscriptionsPerConnection', this.#perConnection],
      ['maxMessagesPerMinute', total],
    ] as const)
      if (!(Number.isInteger(v) && v > 0))
        throw new InputValidationError(`${name} must be a positive integer`)
    this.#messagesEach = Math.max(1, Math.floor(total / this.#maxConnections))
  }

  get state(): StreamState {
    return this.#state
  }

  on<K extends keyof StreamEventMap>(event: K, listener: (value: StreamEventMap[K]) => void): () => void {
    return this.#events.on(event, listener)
  }

  start(): void {
    if (this.#started) return
    this.#started = true
    for (const c of this.#clients()) c.start()
    this.#updateState()
  }

  /**
   * Adds channels, opening sockets as needed.
   * @throws {InputValidationError} unknown channels, private ones without credentials.
   * @throws {StreamLimitError} when the channels do not fit in `maxConnections` sockets.
   */
  subscribe(channels: readonly string[]): void {
    const fresh = [...new Set(channels)].filter((ch) => !this.#owner.has(ch))
    const priv: string[] = []
    const pub: string[] = []
    for (const ch of fresh) {
      const parsed = parseChannel(ch)
      if (parsed === undefined) throw new InputValidationError(`unknown stream channel '${ch}'`)
      if (parsed.private && this.#options.credentials === undefined)
        throw new InputValidationError(`channel '${ch}' is private: the stream needs credentials`)
      ;(parsed.private ? priv : pub).push(ch)
    }
    // Plan first, so a refusal leaves nothing half-subscribed.
    const room = this.#public.map((c) => this.#perConnection - c.channels.size)
    let sockets = this.#public.length + (this.#private !== undefined || priv.length > 0 ? 1 : 0)
    const plan: string[][] = room.map(() => [])
    for (const ch of pub) {
      let i = room.findIndex((r) => r > 0)
      if (i < 0) {
        if (sockets >= this.#maxConnections)
          throw new StreamLimitError(`the channels need more than ${this.#maxConnections} stream connections`)
        sockets++
        room.push(this.#perConnection)
        plan.push([])
        i = room.length - 1
      }
      room[i] = (room[i] ?? 0) - 1
      plan[i]?.push(ch)
    }
    if (priv.length > 0) {
      this.#private ??= this.#client(true)
      const client = this.#private
      client.subscribe(priv)
      for (const ch of priv) this.#owner.set(ch, client)
    }
    plan.forEach((chs, i) => {
      if (chs.length === 0) return
      const client = this.#public[i] ?? this.#client(false)
      if (i >= this.#public.length) this.#public.push(client)
      client.subscribe(chs)
      for (const ch of chs) this.#owner.set(ch, client)
    })
    this.#updateState()
  }

  unsubscribe(channels: readonly string[]): void {
    for (const ch of channels) {
      const client = this.#owner.get(ch)
      if (client === undefined) continue
      this.#owner.delete(ch)
      client.unsubscribe([ch])
    }
  }

  /** Whether the channel is subscribed on one of the pool's sockets. */
  subscribed(channel: string): boolean {
    return this.#owner.has(channel)
  }

  isFresh(channel: string): boolean {
    return this.#owner.get(channel)?.isFresh(channel) ?? false
  }

  health(): StreamPoolHealth {
    return {
      state: this.#state,
      connections: this.#clients().map((c) => ({ ...c.health(), private: c === this.#private })),
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients().map((c) => c.close()))
    this.#setState('closed')
  }

  #clients(): StreamClient[] {
    return this.#private === undefined ? [...this.#public] : [this.#private, ...this.#public]
  }

  #client(authenticated: boolean): StreamClient {
    const { credentials, maxConnections, maxSubscriptionsPerConnection, maxMessagesPerMinute, ...rest } =
      this.#options
    const client = new StreamClient({
      ...rest,
      credentials: authenticated ? credentials : undefined,
      // The private socket's frames carry the account: never handed to a tap.
      tap: authenticated ? undefined : rest.tap,
      schedule: authenticated ? rest.schedule : this.#publicInboxes,
      limits: { maxSubscriptions: this.#perConnection, maxMessagesPerMinute: this.#messagesEach },
    })
    for (const event of FORWARDED) client.on(event, (value) => this.#emit(event, value))
    client.onState(() => this.#updateState())
    if (this.#started) client.start()
    return client
  }

  #updateState(): void {
    if (this.#state === 'closed') return
    const states = this.#clients().map((c) => c.state)
    if (!this.#started || states.length === 0) return
    const next: StreamState = states.includes('down')
      ? 'down'
      : states.every((s) => s === 'open')
        ? 'open'
        : states.includes('closed')
          ? 'down'
          : 'connecting'
    this.#setState(next)
  }

  #setState(state: StreamState): void {
    if (state === this.#state) return
    this.#state = state
    this.#emit('state', state)
  }

  #emit<K extends keyof StreamEventMap>(event: K, value: StreamEventMap[K]): void {
    this.#events.emit(event, value)
  }
}
