/**
 * A stream client's options with their defaults applied, once, at construction: the URL checked
 * (ws:// or wss://), the ws-protocol timings (ping every 25 s, a socket silent for 65 s is gone), the
 * venue's limits, the gap hold and the log interval.
 */
import type { Clock } from '../../clock.ts'
import { InputValidationError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import type { Random } from '../../random.ts'
import type { FrameTap } from './frameTap.ts'
import { defaultStaleAfterMs } from './freshness.ts'
import type { StreamPush } from './schemas.ts'
import type { InboxGroup } from './socket/inbox.ts'
import { type BackoffPolicy, DEFAULT_BACKOFF } from './socket/reconnectBackoff.ts'
import { type SocketFactory, wsSocketFactory } from './socket/socket.ts'
import {
  DEFAULT_STREAM_LIMITS,
  type StreamClientOptions,
  type StreamCredentials,
  type StreamLimits,
} from './streamTypes.ts'

export interface StreamSettings {
  url: string
  credentials: StreamCredentials | undefined
  clock: Clock
  random: Random
  factory: SocketFactory
  heartbeatMs: number
  idleTimeoutMs: number
  watchdogMs: number
  staleAfter: (channel: string) => number
  ackTimeoutMs: number
  closeTimeoutMs: number
  backoff: BackoffPolicy
  limits: StreamLimits
  logger: Logger | undefined
  yieldAfter: ((push: StreamPush) => boolean) | undefined
  schedule: ((fn: () => void) => void) | InboxGroup | undefined
  acceptInstrument: ((iid: number) => boolean) | undefined
  tap: FrameTap | undefined
  gapHoldMs: number
  logIntervalMs: number
}

/** @throws {InputValidationError} for a URL that is not ws:// or wss://. */
export function streamSettings(options: StreamClientOptions): StreamSettings {
  let url: URL
  try {
    url = new URL(options.url)
  } catch {
    throw new InputValidationError('stream URL is not a valid URL')
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:')
    throw new InputValidationError(`stream URL must be ws:// or wss://, got ${url.protocol}`)
  const stale = options.staleAfterMs ?? defaultStaleAfterMs
  return {
    url: url.toString(),
    credentials: options.credentials,
    clock: options.clock,
    random: options.random,
    factory: options.socketFactory ?? wsSocketFactory(),
    heartbeatMs: options.heartbeatMs ?? 25_000,
    idleTimeoutMs: options.idleTimeoutMs ?? 65_000,
    watchdogMs: options.watchdogMs ?? 1_000,
    staleAfter: typeof stale === 'number' ? () => stale : stale,
    ackTimeoutMs: options.ackTimeoutMs ?? 10_000,
    closeTimeoutMs: options.closeTimeoutMs ?? 2_000,
    backoff: options.backoff ?? DEFAULT_BACKOFF,
    limits: { ...DEFAULT_STREAM_LIMITS, ...options.limits },
    logger: options.logger,
    yieldAfter: options.yieldAfter,
    schedule: options.schedule,
    acceptInstrument: options.acceptInstrument,
    tap: options.tap,
    gapHoldMs: options.gapHoldMs ?? 5_000,
    logIntervalMs: options.logIntervalMs ?? 10_000,
  }
}
