/** A status line now and then, so progress is visible without the ops server. */
import type { RunningBot } from '../../bot/startBot.ts'
import { amount, percent } from '../../format/units.ts'
import { fieldOf } from '../../guards.ts'
import type { Logger } from '../../logging/logger.ts'

/** Logs one line: each instrument's state, orders and index; the margin ratio; net PnL since when. */
export function logStatusLine(bot: RunningBot, runStartedAt: number, logger: Logger): void {
  const s = bot.status()
  const inst = s.instruments
    .map(
      (i) =>
        `${i.symbol} ${i.state} orders=${i.openOrders} reprices=${i.stats?.submitted ?? 0} index=${String(
          fieldOf(i.details, 'indexPrice') ?? '-',
        )}`,
    )
    .join(' | ')
  const pnl = s.account.pnl
  // PnL spanning runs is labelled with the account's first run ("since 2026-12-01 09:30"), not "start".
  const since =
    pnl?.since !== undefined && pnl.since < runStartedAt
      ? new Date(pnl.since).toISOString().slice(0, 16).replace('T', ' ')
      : 'start'
  const money = pnl
    ? ` | net PnL since ${since} ${amount(pnl.netPnl, s.account.currency ?? 'unknown currency')}`
    : ''
  logger.info(
    { marginRatio: s.account.marginRatio },
    `status: ${inst} | margin ratio ${percent(s.account.marginRatio)}${money}`,
  )
}
