/**
 * Where the engine's stream inputs come from (issue 37, the venue port's event side): one typed
 * stream of the venue's pushes, with the freshness, gap and state edges the input gates read. The
 * bot's inputs (bot/inputs/streams/botStreams.ts) take a source, not a URL: the WebSocket pool
 * (streamPool.ts: live, dry run, paper) is one; the mock's exchange core in this process
 * (engine/inProcessStream.ts: simulate) is another. Both give the same channel names, the same
 * per-channel sequence numbers and the same gap semantics (sequenceTracker.ts, gapHolds.ts).
 */
import type { ChannelKind } from './channels.ts'
import type { StreamPushByKind } from './schemas.ts'
import type { StreamPoolHealth, StreamPoolOptions } from './streamPool.ts'
import type { StreamEventMap, StreamState } from './streamTypes.ts'

/**
 * The channel kinds the engine consumes, by what they carry: market (tickers, statistics, best
 * bid/offer), order, fill and account (portfolio, withdrawals, the venue's notifications).
 */
export const VENUE_EVENT_CLASS = {
  tickers: 'market',
  statistics: 'market',
  bbo: 'market',
  orders: 'order',
  fills: 'fill',
  portfolio: 'account',
  withdrawals: 'account',
  notifications: 'account',
} as const satisfies Partial<Record<ChannelKind, 'market' | 'order' | 'fill' | 'account'>>

export type VenueEventKind = keyof typeof VENUE_EVENT_CLASS

/**
 * One event of the venue port: a push of a consumed channel, typed by its kind (narrowing on `kind`
 * types `data`). The data types are the push schemas' (pushSchemas.ts): one source of truth.
 */
export type VenueEvent = StreamPushByKind[VenueEventKind]

/** Whether a push is one the engine consumes (a tap's trades and books are not). */
export function isVenueEvent(push: StreamPushByKind[ChannelKind]): push is VenueEvent {
  return Object.hasOwn(VENUE_EVENT_CLASS, push.kind)
}

/**
 * A stream of the venue's pushes and their edges: `push` (every channel subscribed; the consumed
 * ones are `VenueEvent`s), `gap` (resync over REST), `fresh`/`stale` per channel, `state`, `auth`
 * and `error`. The WebSocket pool's surface, so the pool (streamPool.ts) is one implementation,
 * unchanged (structurally: it does not import this file, so the two stay out of a cycle).
 */
export interface StreamSource {
  readonly state: StreamState
  on<K extends keyof StreamEventMap>(event: K, listener: (value: StreamEventMap[K]) => void): () => void
  start(): void
  /**
   * @throws {InputValidationError} unknown channels, private ones without credentials.
   * @throws {StreamLimitError} channels beyond the source's room.
   */
  subscribe(channels: readonly string[]): void
  unsubscribe(channels: readonly string[]): void
  subscribed(channel: string): boolean
  isFresh(channel: string): boolean
  health(): StreamPoolHealth
  close(): Promise<void>
}

/** What the bot's inputs ask of a source (the pool's options: limits, bounds, the door, the yield). */
export type StreamSourceOptions = StreamPoolOptions

/** Opens the bot's source; default (botStreams.ts) the WebSocket pool at the options' `url`. */
export type OpenStreamSource = (options: StreamSourceOptions) => StreamSource
