/** A status line now and then, so progress is visible without the ops server. */
import type { BotSummary } from '../../bot/observe/botViews.ts'
import type { RunningBot } from '../../bot/startBot.ts'
import { amount, percent } from '../../format/units.ts'
import { fieldOf } from '../../guards.ts'
import type { Logger } from '../../logging/logger.ts'

/** Up to this many instruments the line names each one (state, orders, reprices, index); above, it counts. */
export const NAMED_INSTRUMENTS = 10
/** Instruments not quoting named in a counted line (the rest as "+k more"). */
const NAMED_NOT_QUOTING = 5

/**
 * Logs one line: each instrument's state, orders and index (a few instruments), or (many) the count
 * of each state, the instruments not quoting and the open orders; the margin ratio; net PnL since when.
 * At 1,000 instruments the whole status and a line naming every instrument held the bot's thread for
 * 14-18 ms every 10 s; the summary reads only states and counts.
 */
export function logStatusLine(bot: RunningBot, runStartedAt: number, logger: Logger): void {
  const summary = bot.summary()
  const instruments =
    summary.instruments.length <= NAMED_INSTRUMENTS ? namedInstruments(bot) : countedInstruments(summary)
  logger.info(
    { marginRatio: summary.marginRatio },
    `status: ${instruments} | margin ratio ${percent(summary.marginRatio)}${pnlText(summary, runStartedAt)}`,
  )
}

function namedInstruments(bot: RunningBot): string {
  return bot
    .status()
    .instruments.map(
      (i) =>
        `${i.symbol} ${i.state} orders=${i.openOrders} reprices=${i.stats?.submitted ?? 0} index=${String(
          fieldOf(i.details, 'indexPrice') ?? '-',
        )}`,
    )
    .join(' | ')
}

/** `1000 instruments: 998 active.quoting, 2 halted; not quoting: A halted (stale index), …; 1996 open orders`. */
export function countedInstruments(s: Pick<BotSummary, 'instruments' | 'openOrders'>): string {
  const byState = new Map<string, number>()
  for (const i of s.instruments) byState.set(i.state, (byState.get(i.state) ?? 0) + 1)
  const counts = [...byState]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([state, n]) => `${n} ${state}`)
    .join(', ')
  const idle = s.instruments.filter((i) => !i.state.startsWith('active'))
  const named = idle
    .slice(0, NAMED_NOT_QUOTING)
    .map((i) => `${i.symbol} ${i.state}${i.reason ? ` (${i.reason})` : ''}`)
  if (idle.length > named.length) named.push(`+${idle.length - named.length} more`)
  const notQuoting = named.length > 0 ? `; not quoting: ${named.join(', ')}` : ''
  return `${s.instruments.length} instruments: ${counts}${notQuoting}; ${s.openOrders} open orders`
}

/** ` | net PnL since 2026-12-01 09:30 1.23 USDC`: PnL spanning runs is labelled with the account's first run. */
function pnlText(s: Pick<BotSummary, 'pnl' | 'currency'>, runStartedAt: number): string {
  const since =
    s.pnl.since !== undefined && s.pnl.since < runStartedAt
      ? new Date(s.pnl.since).toISOString().slice(0, 16).replace('T', ' ')
      : 'start'
  return ` | net PnL since ${since} ${amount(s.pnl.netPnl, s.currency ?? 'unknown currency')}`
}
