/**
 * The run's status line: a few instruments are named one by one (from the whole status); many are
 * counted by state from the cheap summary, naming only those not quoting, and never build the whole
 * status (at 1,000 instruments it held the bot's thread 14-18 ms every 10 s).
 */
import { describe, expect, it } from 'vitest'
import type { BotSummary } from '../../src/bot/observe/botViews.ts'
import type { RunningBot } from '../../src/bot/startBot.ts'
import { countedInstruments, logStatusLine } from '../../src/cli/run/runStatusLine.ts'
import { createLogger } from '../../src/logging/logger.ts'

const T0 = 1_767_225_600_000

function summary(n: number, idle: { at: number; state: string; reason: string }[] = []): BotSummary {
  const instruments = Array.from({ length: n }, (_, k) => ({
    id: k + 1,
    symbol: `I${k + 1}-USDC`,
    state: 'active.quoting',
    reason: 'ok',
  }))
  for (const i of idle) instruments[i.at] = { ...(instruments[i.at] as (typeof instruments)[number]), ...i }
  return {
    instruments,
    openOrders: 2 * n,
    marginRatio: 0.123,
    currency: 'USDC',
    pnl: { netPnl: '1.5', since: T0 - 86_400_000 } as BotSummary['pnl'],
  }
}

/** A bot with only what the line may read: `status()` fails the test when it is read. */
function bot(s: BotSummary, status?: () => unknown): RunningBot {
  return {
    summary: () => s,
    status: status ?? (() => expect.unreachable('the whole status is not built for a counted line')),
  } as unknown as RunningBot
}

function lines(
  run: (logger: ReturnType<typeof createLogger>) => void,
): { msg: string; marginRatio?: number }[] {
  const out: string[] = []
  const logger = createLogger({
    pretty: 'never',
    destination: { write: (line: string) => void out.push(line) },
  })
  run(logger)
  return out.map((l) => JSON.parse(l) as { msg: string; marginRatio?: number })
}

describe('the run status line', () => {
  it('counts 1,000 instruments by state and names those not quoting, without the whole status', () => {
    const s = summary(1_000, [
      { at: 4, state: 'halted', reason: 'stale index' },
      { at: 9, state: 'syncing', reason: 'waiting for orders' },
    ])
    const [line] = lines((logger) => logStatusLine(bot(s), T0, logger))
    expect(line?.msg).toBe(
      'status: 1000 instruments: 998 active.quoting, 1 halted, 1 syncing; not quoting: I5-USDC halted (stale index), ' +
        'I10-USDC syncing (waiting for orders); 2000 open orders | margin ratio 12.3% | net PnL since 2025-12-31 00:00 1.50 USDC',
    )
    expect(line?.marginRatio).toBe(0.123)
  })

  it('names at most five instruments not quoting, then how many more', () => {
    const idle = Array.from({ length: 8 }, (_, k) => ({ at: k, state: 'halted', reason: 'stale index' }))
    const text = countedInstruments(summary(20, idle))
    expect(text).toContain('12 active.quoting, 8 halted')
    expect(text).toContain('I5-USDC halted (stale index), +3 more; 40 open orders')
    expect(text).not.toContain('I6-USDC')
  })

  it('names each of a few instruments from the whole status', () => {
    const s = summary(2)
    const status = () => ({
      instruments: [
        {
          symbol: 'BTC-USDC',
          state: 'active.quoting',
          openOrders: 4,
          stats: { submitted: 7 },
          details: { indexPrice: '97000' },
        },
        { symbol: 'ETH-USDC', state: 'halted', openOrders: 0, details: {} },
      ],
    })
    const [line] = lines((logger) => logStatusLine(bot(s, status), T0 + 1, logger))
    expect(line?.msg).toMatch(
      /^status: BTC-USDC active\.quoting orders=4 reprices=7 index=97000 \| ETH-USDC halted orders=0 reprices=0 index=- \| margin ratio/,
    )
  })
})
