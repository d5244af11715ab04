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
      onFill: (l) => {
        push = l
        return exchange.onFill(l)
      },
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
})
