/**
 * The start's first step: the startup watch (a progress line and an early ops server from the first
 * second, startupWatch.ts), then the connection to the venue under it. A failed connect closes the
 * watch before the error goes on; otherwise the watch is handed on for the later steps to name.
 */
import type { Clock } from '../../clock.ts'
import type { BotMetrics } from '../../ops/metrics.ts'
import { type Connections, type ConnectOptions, connect } from './connect.ts'
import { type StartupWatch, startStartupWatch } from './startupWatch.ts'

export interface WatchedConnection {
  readonly startup: StartupWatch
  readonly conn: Connections
}

export async function connectWatched(
  o: Omit<ConnectOptions, 'baseClock'> & {
    clock: Clock
    metrics: Pick<BotMetrics, 'registry'>
    /** Serve the early ops server (the bot's `ops` option). */
    serve: boolean
  },
): Promise<WatchedConnection> {
  const startup = await startStartupWatch({
    settings: o.settings,
    clock: o.clock,
    logger: o.logger,
    metrics: o.metrics,
    serve: o.serve,
    token: o.secrets.PERPBOT_OPS_TOKEN,
    secrets: o.secretBag.needles,
  })
  startup.step('the venue (clock sync, instruments, credentials)')
  try {
    const conn = await connect({ ...o, baseClock: o.clock })
    return { startup, conn }
  } catch (e) {
    await startup.close()
    throw e
  }
}
