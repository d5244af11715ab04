/**
 * The protections and holds as lines of text, from `/status` → `control`: `perpbot status` and the
 * Telegram bot print the same. Amounts carry their currency; a figure not known yet says so.
 */
import type { ControlStatus } from '../ops/status.ts'
import { amount } from './units.ts'

export function controlLines(c: ControlStatus): string[] {
  const cur = c.currency
  const fig = (v: string | undefined): string => (v === undefined ? 'unknown' : amount(v, cur))
  // A negative loss is a gain: say so instead of printing a minus sign under "loss".
  const loss = (v: string | undefined): string =>
    v?.startsWith('-') ? `none (up ${amount(v.slice(1), cur)})` : fig(v)
  const of = (limit: string | undefined): string =>
    limit === undefined ? 'no limit' : `limit ${amount(limit, cur)}`
  const l = c.limits
  const none =
    l.maxDailyLoss === undefined &&
    l.maxDrawdown === undefined &&
    l.maxAccountNotional === undefined &&
    l.maxInstrumentNotional === undefined &&
    l.cooldownAfterLossMs === 0
  const lines = none
    ? ['protections: none configured (config `protections`)']
    : [
        `protections: daily loss ${loss(c.figures.dailyLoss)} (${of(c.limits.maxDailyLoss)}), drawdown ${fig(c.figures.drawdown)} (${of(c.limits.maxDrawdown)}), account notional ${fig(c.figures.accountNotional)} (${of(c.limits.maxAccountNotional)})`,
      ]
  for (const b of c.breaches)
    lines.push(
      `  HALTED by ${b.limit}${b.symbol ? ` (${b.symbol})` : ''} since ${new Date(b.at).toISOString()}: ${b.message}; ${b.until === undefined ? 'until perpbot resume' : `until ${new Date(b.until).toISOString()}`}`,
    )
  for (const h of c.held) lines.push(`  held ${h.symbol}: ${h.reasons.join('; ')}`)
  return lines
}
