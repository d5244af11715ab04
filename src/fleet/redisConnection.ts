/**
 * The fleet's Redis connection (ioredis), set up to fail fast rather than queue: a command sent
 * while Redis is away is refused at once (no offline queue, no resend after reconnect), so the
 * budget and the lease see the outage and pause instead of firing a stale admission later.
 * Reconnects every `reconnectMs`, forever; each command is bounded by `commandTimeoutMs`.
 */
import { Redis } from 'ioredis'
import { ConfigError } from '../errors.ts'

export interface FleetRedisOptions {
  reconnectMs?: number | undefined
  commandTimeoutMs?: number | undefined
  /** Connection errors (the client keeps reconnecting); never throws. */
  onError?: ((e: Error) => void) | undefined
}

/** Checks a `FLEET_REDIS_URL` (redis:// or rediss://) without printing its password. */
export function parseFleetRedisUrl(raw: string, source = 'FLEET_REDIS_URL'): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError('invalid fleet Redis address', [`${source}: not a URL`])
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new ConfigError('invalid fleet Redis address', [`${source}: must start with redis:// or rediss://`])
  // The path names the database: a number (ioredis would otherwise fail later with a raw stack).
  const db = url.pathname.replace(/^\//, '')
  if (db !== '' && !/^\d{1,5}$/.test(db))
    throw new ConfigError('invalid fleet Redis address', [
      `${source}: the database after the host must be a number (e.g. redis://host:6379/0)`,
    ])
  return url
}

export function connectFleetRedis(raw: string, o: FleetRedisOptions = {}): Redis {
  parseFleetRedisUrl(raw)
  const reconnectMs = o.reconnectMs ?? 200
  const redis = new Redis(raw, {
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    commandTimeout: o.commandTimeoutMs ?? 1_000,
    connectTimeout: 2_000,
    retryStrategy: () => reconnectMs,
  })
  redis.on('error', (e: Error) => {
    try {
      o.onError?.(e)
    } catch {
      // A logging bug must not become an unhandled 'error' event.
    }
  })
  return redis
}
