/**
 * What an operator sees while the start waits on the venue (issue 24): a venue that trickles its
 * answers must not give minutes without a log line or an ops server. From the first second:
 * - a progress line every `progressEveryMs` naming the step the start waits on and for how long;
 * - an ops server (unless the bot runs without one) whose `/readyz` answers 503 with that step as the
 *   reason, `/livez` 200, `/status` a starting status and `/metrics` the registry.
 * `close()` ends both before the full ops server starts on the same settings (with a fixed port the
 * address stays the same; with port 0 the final one is the one `RunningBot.opsUrl` names).
 */
import type { Clock, TimerId } from '../../clock.ts'
import { componentLogger, type Logger, type Scrubber } from '../../logging/logger.ts'
import type { BotMetrics } from '../../ops/metrics.ts'
import { type RunningOpsServer, startOpsServer } from '../../ops/opsServer.ts'
import type { BotStatus } from '../../ops/status.ts'
import type { Settings } from '../../settings/schema.ts'

/** How often the start says it is still waiting. */
export const STARTUP_PROGRESS_MS = 3_000

export interface StartupWatch {
  /** Names the step the start waits on now (the progress line and `/readyz` say it). */
  step(name: string): void
  /** The early ops server's address, if one is served. */
  readonly opsUrl: string | undefined
  /** Ends the progress line and closes the early ops server. */
  close(): Promise<void>
}

/** The readiness while starting: never ready, with the step and how long it has taken. */
export function startingReadiness(step: string, waitedMs: number): { ok: false; reasons: string[] } {
  return { ok: false, reasons: [`starting: ${step} (${Math.round(waitedMs / 1000)} s)`] }
}

export async function startStartupWatch(o: {
  settings: Settings
  clock: Clock
  logger: Logger
  metrics: Pick<BotMetrics, 'registry'>
  /** Serve the early ops server (the bot's `ops` option). */
  serve: boolean
  token: string | undefined
  secrets: readonly (string | undefined)[]
  /** The process's one scrubber (every reply passes it). */
  scrubber?: Scrubber | undefined
  progressEveryMs?: number | undefined
}): Promise<StartupWatch> {
  const startedAt = o.clock.now()
  let current = { name: 'starting', since: startedAt }
  let timer: TimerId | undefined
  let closed = false
  const every = o.progressEveryMs ?? STARTUP_PROGRESS_MS
  const tick = (): void => {
    timer = undefined
    if (closed) return
    const now = o.clock.now()
    o.logger.info(
      { step: current.name, stepMs: now - current.since, startingMs: now - startedAt },
      `starting: still waiting on ${current.name} (${Math.round((now - current.since) / 1000)} s; ${Math.round((now - startedAt) / 1000)} s since start)`,
    )
    timer = o.clock.setTimeout(tick, every)
  }
  timer = o.clock.setTimeout(tick, every)
  const status = (): BotStatus => ({
    mode: o.settings.mode,
    startedAt,
    uptimeMs: o.clock.now() - startedAt,
    instruments: [],
    account: { inLiquidation: false, pendingWithdrawals: 0 },
    limiter: { budgets: {} },
    alerts: [],
    details: { starting: { step: current.name, stepMs: o.clock.now() - current.since } },
  })
  let server: RunningOpsServer | undefined
  if (o.serve)
    server = await startOpsServer({
      host: o.settings.ops.host,
      port: o.settings.ops.port,
      registry: o.metrics.registry,
      getStatus: status,
      isLive: () => ({ ok: true, reason: 'starting' }),
      token: o.token,
      isReady: () => startingReadiness(current.name, o.clock.now() - current.since),
      logger: componentLogger(o.logger, 'ops'),
      secrets: o.secrets,
      scrubber: o.scrubber,
      hostNames: o.settings.ops.hostNames,
    })
  return {
    step(name) {
      current = { name, since: o.clock.now() }
    },
    opsUrl: server?.url,
    async close() {
      closed = true
      if (timer !== undefined) o.clock.clearTimeout(timer)
      await server?.close()
    },
  }
}
