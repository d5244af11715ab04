/**
 * `/status` → `control`: the protections' figures beside their limits, the breaches and every hold,
 * added to the bot's status view (so `perpbot status`, the dashboard's JSON and a phone read one thing).
 */
import type { BotStatus, ControlStatus } from '../../ops/status.ts'
import type { Holds } from './holds.ts'
import type { Protections } from './protections.ts'

export function controlStatus(p: Pick<Protections, 'view'>, holds: Pick<Holds, 'snapshot'>): ControlStatus {
  const v = p.view()
  const l = v.limits
  return {
    currency: v.figures?.currency ?? 'USDC',
    limits: {
      maxDailyLoss: l.maxDailyLoss,
      maxDrawdown: l.maxDrawdown,
      maxAccountNotional: l.maxAccountNotional,
      maxInstrumentNotional: l.maxInstrumentNotional,
      cooldownAfterLossMs: l.cooldownAfterLossMs,
      resume: l.resume,
      flattenOnBreach: l.flattenOnBreach,
    },
    figures: {
      dailyLoss: v.figures?.dailyLoss,
      drawdown: v.figures?.drawdown,
      accountNotional: v.figures?.accountNotional,
      instrumentNotional: v.figures?.instrumentNotional ?? {},
    },
    breaches: v.breaches.map((b) => ({
      limit: b.limit,
      symbol: b.symbol,
      message: b.message,
      at: b.at,
      until: b.until,
    })),
    held: holds.snapshot().map((h) => ({ symbol: h.symbol, reasons: h.reasons.map((r) => r.reason) })),
  }
}

/** The views with `control` in their status. */
export function withControlStatus<V extends { status(): BotStatus }>(views: V, read: () => ControlStatus): V {
  return { ...views, status: () => ({ ...views.status(), control: read() }) }
}
