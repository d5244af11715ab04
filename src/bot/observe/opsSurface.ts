/**
 * The ops surface: the gauges refreshed every second, the dashboard's timeline and the ops HTTP server
 * (`/livez` `/readyz` `/metrics` `/status`, dashboard), all reading the bot's views. Without the ops
 * server (simulate) none of them runs: the gauges and the history would only cost time.
 */
import type { Clock } from '../../clock.ts'
import { describeError } from '../../errors.ts'
import type { FleetView } from '../../fleet/fleetView.ts'
import { componentLogger, type Logger, type Scrubber } from '../../logging/logger.ts'
import { type ControlTarget, createControlRoutes } from '../../ops/control/controlRoutes.ts'
import type { HistorySource } from '../../ops/dashboard/history.ts'
import type { BotMetrics } from '../../ops/metrics.ts'
import { startOpsServer } from '../../ops/opsServer.ts'
import type { KeyRotationTarget } from '../../ops/rotateKeyEndpoint.ts'
import type { WatchdogCheck } from '../../ops/watchdog.ts'
import type { Settings } from '../../settings/schema.ts'
import type { LedgerFill } from '../account/pnlLedger.ts'
import { type Poller, startPoller } from '../shared/poller.ts'
import { inSlices } from '../shared/slices.ts'
import type { BotViews } from './botViews.ts'
import { instrumentState } from './statusView.ts'
import { startTimeline, type Timeline, timelineCapacity } from './timeline.ts'
import { boardOf, sampleTimelineInSlices } from './timelineSample.ts'

/** How often the gauges read the parts (bot clock). */
export const GAUGE_INTERVAL_MS = 1_000

export interface OpsSurface {
  readonly url: string | undefined
  /** The loops to stop with the inputs (gauges, timeline). */
  readonly loops: readonly { stop(): Promise<void> }[]
  close(): Promise<void>
}

export async function startOpsSurface(o: {
  enabled: boolean
  settings: Pick<Settings, 'ops'>
  token: string | undefined
  secrets: readonly (string | undefined)[]
  /** The process's one scrubber (every reply and frame passes it). */
  scrubber?: Scrubber | undefined
  clock: Clock
  /** The root logger (the ops server logs as `ops`, a failed sample as `bot`). */
  logger: Logger
  metrics: Pick<BotMetrics, 'registry' | 'setInstrumentState' | 'setLastQuoteAt' | 'setAccount'>
  watchdog: { check(): WatchdogCheck }
  views: BotViews
  /** The parts the gauges and the board read beyond the views. */
  actors: {
    readonly instruments: readonly { id: number; symbol: string }[]
    snapshotOf(id: number): Parameters<typeof instrumentState>[0] | undefined
  }
  account: {
    snapshot(): { marginRatio: number | undefined; inLiquidation: boolean }
    recentFills(): readonly LedgerFill[]
  }
  /** The journal's long history for the dashboard (`/history`), when the bot keeps one. */
  history?: HistorySource | undefined
  /** A fleet process: the `/fleet` page reads the fleet's view. */
  fleet?: { view(): Promise<FleetView> } | undefined
  /** The commands to the running bot (`/control/…`); absent: none served. */
  control?: ControlTarget | undefined
  /** The bot's key rotation, served beside the commands (`POST /control/rotate-key`). */
  keyRotation?: KeyRotationTarget | undefined
}): Promise<OpsSurface> {
  if (!o.enabled) return { url: undefined, loops: [], close: async () => undefined }
  const { clock, actors, account, metrics } = o
  const log = componentLogger(o.logger, 'bot')
  const gauges: Poller = startPoller({
    name: 'metrics',
    clock,
    intervalMs: () => GAUGE_INTERVAL_MS,
    // Only what the gauges show: the whole status (PnL, limiter, inputs) took 2 ms a second at 100
    // instruments and 20 ms at 1,000, a block a price move arriving then had to wait out.
    // Each instrument's gauges are its own: set a slice at a time (slices.ts).
    run: async () => {
      await inSlices(actors.instruments, (i) => {
        const actor = actors.snapshotOf(i.id)
        metrics.setInstrumentState(i.symbol, instrumentState(actor))
        metrics.setLastQuoteAt(i.symbol, actor?.context.stats.lastSubmitAt)
      })
      const a = account.snapshot()
      metrics.setAccount({ marginRatio: a.marginRatio, inLiquidation: a.inLiquidation })
    },
    onError: () => undefined,
  })
  // The dashboard's history: samples of the same snapshots, on the bot's clock.
  const timeline: Timeline = startTimeline({
    clock,
    capacity: timelineCapacity(actors.instruments.length),
    // The inputs are read at once (immutable snapshots), then sampled a slice at a time (slices.ts).
    read: async () => {
      const s = o.views.timelineInputs()
      const board = boardOf(s, account.recentFills())
      return { sample: await sampleTimelineInSlices(s), board }
    },
    onError: (e) => log.warn({ err: describeError(e) }, 'timeline sample failed'),
  })
  const server = await startOpsServer({
    host: o.settings.ops.host,
    port: o.settings.ops.port,
    registry: metrics.registry,
    getStatus: o.views.status,
    isLive: o.views.live,
    watchdog: o.watchdog,
    token: o.token,
    isReady: o.views.ready,
    logger: componentLogger(o.logger, 'ops'),
    secrets: o.secrets,
    scrubber: o.scrubber,
    hostNames: o.settings.ops.hostNames,
    timeline,
    history: o.history,
    fleet: o.fleet,
    control:
      o.control === undefined
        ? undefined
        : createControlRoutes({
            target: o.control,
            token: o.token,
            readOnly: o.settings.ops.readOnly,
            instruments: () => actors.instruments.map((i) => i.symbol),
            rotateKey: o.keyRotation,
          }),
  })
  return { url: server.url, loops: [gauges, timeline], close: () => server.close() }
}
