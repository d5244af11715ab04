/**
 * The start's first step: the startup watch (a progress line and an early ops server from the first
 * second, startupWatch.ts), then the connection to the venue under it. A failed connect closes the
 * watch before the error goes on; otherwise the watch is handed on for the later steps to name.
 */
import { droppedRowsObserver, type VenueAlertSink } from '../../alerts/venueAlerts.ts'
import type { Clock } from '../../clock.ts'
import { retryTransient } from '../../http/retryTransient.ts'
import type { Logger } from '../../logging/logger.ts'
import type { BotMetrics } from '../../ops/metrics.ts'
import type { RequestGate } from '../../perps/client/context.ts'
import type { PerpsClient } from '../../perps/client/createPerpsClient.ts'
import type { WeightLimiter } from '../../perps/throttle/weightLimiter.ts'
import { botResponseObserver } from './botPerpsClient.ts'
import { type Connections, type ConnectOptions, connect } from './connect.ts'
import { applyInstrumentLeverage } from './instrumentLeverage.ts'
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
    scrubber: o.secretBag,
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

/**
 * The bot's connect, from the parts before it: every request through the limiter (or the fleet's
 * gate around it); the venue's own count of our weight corrects the limiter and unreadable rows raise
 * a warning. Then, before anything quotes: a fleet predecessor's orders cancelled (older epochs), and
 * the instruments' leverage and margin mode applied (a failure closes the watch).
 */
export async function connectBot(
  o: Omit<ConnectOptions, 'baseClock' | 'gate' | 'observer' | 'logger'> & {
    clock: Clock
    metrics: Pick<BotMetrics, 'registry'>
    /** The bot's `ops` option: serve the early ops server unless false. */
    ops?: boolean | undefined
    log: Logger
    limits: { readonly limiter: WeightLimiter }
    alerts: VenueAlertSink
    ownership: { readonly tag: string }
    fleet?:
      | {
          gate(limiter: RequestGate): RequestGate
          cancelOlderEpochs(perps: PerpsClient, tag: string, logger: Pick<Logger, 'info'>): Promise<number>
        }
      | undefined
  },
): Promise<WatchedConnection> {
  const { limiter } = o.limits
  const watched = await connectWatched({
    ...o,
    logger: o.log,
    serve: o.ops !== false,
    gate: o.fleet?.gate(limiter) ?? limiter,
    observer: botResponseObserver({
      limiter,
      droppedItems: droppedRowsObserver({ alerts: o.alerts, now: () => o.clock.now() }).droppedItems,
    }),
  })
  const { startup, conn } = watched
  const fleet = o.fleet
  if (fleet !== undefined) {
    // Re-reading the open orders makes a retry safe; a fleet budget busy past its wait is tried again.
    await retryTransient(
      "cancelling a fleet predecessor's orders",
      () => fleet.cancelOlderEpochs(conn.perps, o.ownership.tag, o.log),
      { clock: o.clock, logger: o.log },
    ).catch(async (e: unknown) => {
      await startup.close()
      throw e
    })
  }
  startup.step('leverage and margin mode')
  await applyInstrumentLeverage({
    perps: conn.perps,
    settings: o.settings,
    listed: conn.instruments,
    logger: o.log,
  }).catch(async (e: unknown) => {
    await startup.close()
    throw e
  })
  return watched
}
