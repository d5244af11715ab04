/**
 * The recorder against the real mock exchange: fills pushed with the venue's own sides (`long` and
 * `short`) are recorded as buys and sells (a leading-`b` test made every fill a sell).
 */
import { describe, expect, it } from 'vitest'
import { createPerpsExchange } from '../../../src/mock/perps/index.ts'
import type { BotStatus } from '../../../src/ops/status.ts'
import type { FillItem } from '../../../src/perps/stream/pushSchemas.ts'
import { createRecorder, type RecordedExchange } from '../../../src/sim/simulate/recorder.ts'

const OWNER = '0x00000000000000000000000000000000000000aa'

describe('simulate recorder', () => {
  it('records long fills as buys and short fills as sells', () => {
    let now = 1_767_000_000_000
    const exchange = createPerpsExchange({ clock: { now: () => now }, seed: 3, accounts: [{ owner: OWNER }] })
    let push: ((owner: string, f: FillItem) => void) | undefined
    const watched: RecordedExchange = {
      instrumentSpecs: () => exchange.instrumentSpecs(),
      onTrade: (l) => {
        push = l
        return exchange.onTrade(l)
      },
      onOrderChange: (l) => exchange.onOrderChange(l),
      funding: (owner, filter) => exchange.funding(owner, filter),
      accountOf: (a) => exchange.accountOf(a),
      tickers: (id) => exchange.tickers(id),
    }
    const iid = exchange.instrumentSpecs()[0]?.id ?? 0
    const recorder = createRecorder({
      exchange: watched,
      meta: {
        strategy: 's',
        scenario: 'calm',
        seed: 3,
        hours: 1,
        startMs: now,
        perpbotVersion: 'test',
      },
      stepMs: 1_000,
    })
    recorder.follow(OWNER)
    const fill = (tid: number, side: string, p: string): FillItem => ({
      tid,
      oid: tid,
      iid,
      side,
      p,
      qty: '0.01',
      taker: false,
      fee: '0.01',
      fea: 'pUSD',
      psz: '0',
      pep: '0',
      pnl: '0',
      liq: false,
      ts: now + tid,
    })
    push?.(OWNER, fill(1, 'long', '58000'))
    push?.(OWNER, fill(2, 'short', '58010'))
    push?.(OWNER, fill(3, 'long', '57990'))
    now += 10_000
    const status: BotStatus = {
      mode: 'dry-run',
      startedAt: now,
      uptimeMs: 0,
      instruments: [],
      account: { inLiquidation: false, pendingWithdrawals: 0 },
      limiter: { budgets: {} },
      alerts: [],
    }
    const record = recorder.finish(now, status)
    recorder.dispose()
    const fills = record.instruments.find((i) => i.id === iid)?.fills ?? []
    expect(fills.map((f) => f.buy)).toEqual([true, false, true])
  })

  it("records a liquidation's trades (never pushed on the stream) at their time, with their loss and fees", () => {
    let now = 1_767_000_000_000
    const exchange = createPerpsExchange({
      clock: { now: () => now },
      seed: 3,
      scenario: 'liquidation',
      accounts: [{ owner: OWNER }],
    })
    const recorder = createRecorder({
      exchange,
      meta: {
        strategy: 's',
        scenario: 'liquidation',
        seed: 3,
        hours: 1,
        startMs: now,
        perpbotVersion: 'test',
      },
      stepMs: 1_000,
    })
    recorder.follow(OWNER)
    const status: BotStatus = {
      mode: 'dry-run',
      startedAt: now,
      uptimeMs: 0,
      instruments: [],
      account: { inLiquidation: false, pendingWithdrawals: 0 },
      limiter: { budgets: {} },
      alerts: [],
    }
    for (let i = 0; i < 600; i++) {
      now += 1_000
      exchange.advanceTo(now)
      recorder.sample(now, { states: () => [], budgets: () => status.limiter.budgets })
    }
    const record = recorder.finish(now, status)
    recorder.dispose()
    const fills = exchange.fills(OWNER, { startTimestamp: 0 }).data
    const liquidations = fills.filter((f) => f.liquidation)
    expect(liquidations.length).toBeGreaterThan(0)
    const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
    const realized = sum(record.instruments.map((i) => i.totals.realizedPnl))
    expect(realized).toBeCloseTo(sum(fills.map((f) => Number(f.pnl))), 6)
    expect(sum(record.instruments.map((i) => i.totals.fills))).toBe(fills.length)
    // The account chart steps down at the liquidation, not later.
    const first = Math.min(...liquidations.map((f) => f.timestamp))
    const after = record.account.find((p) => p.t >= first + 1_000)
    expect(after?.v[1]).toBeLessThan(0)
  })
})
