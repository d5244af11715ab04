/** The stream client's public types: states, events, options, limits and health. */
import type { Clock } from '../../clock.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Random } from '../../random.ts'
import type { FrameTap } from './frameTap.ts'
import type { StreamPush } from './schemas.ts'
import type { InboxGroup } from './socket/inbox.ts'
import type { BackoffPolicy } from './socket/reconnectBackoff.ts'
import type { SocketFactory } from './socket/socket.ts'
import type { StreamError } from './streamErrors.ts'

/** The venue's WebSocket (the official client's production environment; ws-protocol §1). */
export const VENUE_STREAM_URL = 'wss://ws.perpetuals.polymarket.com/v1/ws'

export type StreamState = 'idle' | 'connecting' | 'open' | 'down' | 'closed'

export interface StreamGap {
  channel: string
  /** `resync`: the venue's own notice that it dropped pushes (the notifications channel's resync frame). */
  reason: 'sequence_gap' | 'reconnect' | 'invalid_push' | 'resync'
  /** The last `sq` seen before the gap (sequence gaps). */
  previous?: number | undefined
  /** The `sq` that broke the sequence. */
  sq?: number | undefined
}

/** The private socket's authentication, as an alert source: refused (and how), or accepted again. */
export interface StreamAuthStatus {
  ok: boolean
  /** The refusal names bad or expired credentials (an operator must act); REST is unaffected. */
  definite: boolean
  /** The venue's refusal code (never the secret). */
  code: string | undefined
  /** Refusals in a row (0 once accepted). */
  refusals: number
}

export interface StreamEventMap {
  push: StreamPush
  /** Private sockets: each auth refusal, and the first acceptance after refusals. */
  auth: StreamAuthStatus
  gap: StreamGap
  state: StreamState
  /** A fresh channel went silent past its bound, or the socket went down. */
  stale: string
  /** A push arrived on a channel that was not fresh. */
  fresh: string
  error: StreamError
}

export interface StreamCredentials {
  proxy: string
  secret: string
}

export interface StreamLimits {
  /** Channels on this connection (venue: 100 active subscriptions per connection). */
  maxSubscriptions: number
  /** Frames this client may send per minute (venue: 1,000 per IP, shared by all sockets). */
  maxMessagesPerMinute: number
}

/** Venue limits (protocol-notes c.4); a client's message share defaults to a fifth of the IP's. */
export const DEFAULT_STREAM_LIMITS: StreamLimits = { maxSubscriptions: 100, maxMessagesPerMinute: 200 }

export interface StreamClientOptions {
  /** `ws://` or `wss://` URL (`PERPS_WS_URL`). */
  url: string
  /** Authenticates the socket for the private channels. Never logged. */
  credentials?: StreamCredentials | undefined
  clock: Clock
  /** Jitter of the reconnect back-off. */
  random: Random
  /** Default: undici's WebSocket. */
  socketFactory?: SocketFactory | undefined
  /** Ping interval. Default 25 s. */
  heartbeatMs?: number | undefined
  /** A socket with no inbound frame for this long is dropped. Default 65 s. */
  idleTimeoutMs?: number | undefined
  /** How often silence is checked. Default 1 s. */
  watchdogMs?: number | undefined
  /** Silence after which a channel is stale: a number, or per channel. Default `defaultStaleAfterMs`. */
  staleAfterMs?: number | ((channel: string) => number) | undefined
  /** Bound on opening the socket and on each ack. Default 10 s. */
  ackTimeoutMs?: number | undefined
  /** Bound on `close()` waiting for the closing handshake. Default 2 s. */
  closeTimeoutMs?: number | undefined
  backoff?: BackoffPolicy | undefined
  limits?: Partial<StreamLimits> | undefined
  logger?: Logger | undefined
  /**
   * Asked after each push whose data changed (not a repeat of the last accepted one) has been
   * handed to the listeners: true, and the frames still to come wait for a later turn of the event
   * loop (inbox.ts), so what the push set off runs first. Default: never (every frame at once).
   */
  yieldAfter?: ((push: StreamPush) => boolean) | undefined
  /**
   * Runs the deferred frames on a later turn. Default `afterNextWrite` (inbox.ts). A pool gives its
   * sockets one `InboxGroup` built on it: a yield on one socket defers the frames of all of them.
   */
  schedule?: ((fn: () => void) => void) | InboxGroup | undefined
  /**
   * The instruments the caller trades: a push on a shared channel (`tickers::all`, `statistics::all`)
   * for any other id is dropped at the door, before parsing or any per-key cache. Default: all.
   */
  acceptInstrument?: ((iid: number) => boolean) | undefined
  /** Reads every frame as received (frameTap.ts); a push on a channel it owns skips this client. Public sockets only. */
  tap?: FrameTap | undefined
  /** After a gap on a channel, further gaps on it within this hold are folded into one trailing gap. Default 5 s. */
  gapHoldMs?: number | undefined
  /** Interval of the rate-limited log (one line per kind of event per interval). Default 10 s. */
  logIntervalMs?: number | undefined
}

export interface ChannelHealth {
  channel: string
  /** Acknowledged on the current socket. */
  subscribed: boolean
  fresh: boolean
  lastPushAt: number | undefined
  lastSq: number | undefined
}

export interface StreamHealth {
  state: StreamState
  reconnects: number
  gaps: number
  pushes: number
  lastInboundAt: number | undefined
  messagesSentLastMinute: number
  channels: ChannelHealth[]
  /** Auth refusals in a row on this socket (0 when accepted or public). */
  authRefusals: number
  /** Pushes dropped at the door for an instrument outside `acceptInstrument`. */
  foreignDropped: number
}
