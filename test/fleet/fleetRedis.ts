/**
 * A throwaway redis-server on loopback and the fleet's own client on it, ready to use: the setup
 * every fleet test that talks to Redis shares (the server helper is ../helpers/redis.ts).
 */
import type { Redis } from 'ioredis'
import { connectFleetRedis } from '../../src/fleet/redisConnection.ts'
import { type RedisServer, startRedis } from '../helpers/redis.ts'

export interface FleetRedis {
  server: RedisServer
  redis: Redis
}

/** Starts the server and waits (up to 5 s) until the fleet's client says it is ready. */
export async function startFleetRedis(): Promise<FleetRedis> {
  const server = await startRedis()
  const redis = connectFleetRedis(server.url)
  for (let i = 0; i < 100 && redis.status !== 'ready'; i++) await new Promise((r) => setTimeout(r, 50))
  if (redis.status !== 'ready') {
    redis.disconnect()
    await server.stop()
    throw new Error(`the fleet's Redis client is not ready (${redis.status}) on ${server.url}`)
  }
  return { server, redis }
}

/** Disconnects the client and stops the server (either may be absent when the start failed). */
export async function stopFleetRedis(f: Partial<FleetRedis>): Promise<void> {
  f.redis?.disconnect()
  await f.server?.stop()
}
