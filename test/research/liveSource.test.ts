/**
 * The live source's paging over a fake client that serves the venue's contract (windows inclusive at
 * both ends; trades newest first, 100 a page, with `more`): every trade of the hour once, oldest
 * first, even with prints sharing the millisecond a page ends on; klines page forward.
 */
import { describe, expect, it } from 'vitest'
import { TransportError } from '../../src/errors.ts'
import type { Instrument, Kline } from '../../src/perps/schemas/info.ts'
import type { PublicTrade } from '../../src/perps/schemas/market.ts'
import { type HistoryClient, LiveHistorySource } from '../../src/research/download/liveSource.ts'

const H = 3_600_000
const T0 = Date.UTC(2026, 0, 5, 10)

const instrument: Instrument = {
  instrument_id: 7,
  instrument_type: 'perpetual',
  category: 'crypto',
  symbol: 'BTC-USD',
  base_asset: 'BTC',
  quote_asset: 'USD',
  funding_interval: '1h',
  quantity_decimals: 3,
  price_decimals: 1,
  price_bounds: '0.05',
  liquidation_fee: '0.01',
  max_order_count: 200,
  min_notional: '10',
  max_market_notional: '1000000',
  max_limit_notional: '1000000',
  max_leverage: 20,
  risk_tiers: [],
}

// 250 prints in the hour, several sharing each millisecond (so page ends fall inside a millisecond),
// plus prints just outside the window on both sides.
const trades: PublicTrade[] = []
for (let i = 0; i < 252; i++)
  trades.push({
    trade_id: 1_000 + i,
    instrument_id: 7,
    side: i % 2 === 0 ? 'long' : 'short',
    price: `${100 + (i % 5)}.0`,
    quantity: '0.5',
    timestamp: i === 0 ? T0 - 1 : i === 251 ? T0 + H : T0 + Math.floor(i / 3) * 1_000,
    hash: '0x',
  })
const klines: Kline[] = []
for (let t = T0 - 60_000; t <= T0 + H; t += 1_000) klines.push([t, '1.0', '1.0', '1.0', '1.0', '2', 1])

const requests: string[] = []
const client: HistoryClient = {
  getInstruments: async () => [instrument],
  getTrades: async (p) => {
    requests.push(`trades ${p.startTimestamp}..${p.endTimestamp}`)
    const rows = trades
      .filter((t) => t.timestamp >= Number(p.startTimestamp) && t.timestamp <= Number(p.endTimestamp))
      .reverse()
    return { data: rows.slice(0, 100), more: rows.length > 100 }
  },
  getFundingHistory: async () => ({ data: [], more: false }),
  getKlines: async (p) => {
    requests.push(`klines ${p.startTimestamp}..${p.endTimestamp}`)
    // As the venue: candles that cover the start onwards, oldest first, 1,000 a page.
    const rows = klines.filter(
      (k) => k[0] + 1_000 > Number(p.startTimestamp) && k[0] <= Number(p.endTimestamp),
    )
    return { data: rows.slice(0, 1_000), more: rows.length > 1_000 }
  },
}

describe('live source paging', () => {
  it('walks trades back through the hour: each print once, oldest first, none outside', async () => {
    const source = new LiveHistorySource({ client, baseUrl: 'http://venue', interval: '1s' })
    requests.length = 0
    const page = await source.page('trades', 'BTC-USD', T0, T0 + H)
    expect(page.next).toBeUndefined()
    expect(page.rows).toHaveLength(250)
    expect(page.rows[0]).toEqual({ t: T0 + 0, p: '101.0', q: '0.5', s: 'short' })
    expect(page.rows.every((r, i) => i === 0 || r.t >= (page.rows[i - 1]?.t ?? 0))).toBe(true)
    expect(requests[0]).toBe(`trades ${T0}..${T0 + H - 1}`)
    expect(requests.length).toBeGreaterThanOrEqual(3)
  })

  it('pages klines forward from an interval after the last candle', async () => {
    const source = new LiveHistorySource({ client, baseUrl: 'http://venue', interval: '1s' })
    requests.length = 0
    const first = await source.page('klines', 'BTC-USD', T0, T0 + H)
    expect(first.rows).toHaveLength(1_000)
    expect(first.rows[0]?.t).toBe(T0)
    expect(first.next).toBe(T0 + 1_000_000)
    const rows = [...first.rows]
    for (let next = first.next; next !== undefined; ) {
      const p = await source.page('klines', 'BTC-USD', next, T0 + H)
      rows.push(...p.rows)
      next = p.next
    }
    expect(rows).toHaveLength(3_600)
    expect(new Set(rows.map((r) => r.t)).size).toBe(3_600)
    expect(requests).toHaveLength(4)
  })

  it('names the venue and the read when the client fails', async () => {
    const failing: HistoryClient = {
      ...client,
      getInstruments: async () => {
        throw new TransportError('/v1/info/instruments', 'connection refused', { maybeDelivered: false })
      },
    }
    const source = new LiveHistorySource({ client: failing, baseUrl: 'http://venue', interval: '1m' })
    await expect(source.instruments()).rejects.toThrow(
      /http:\/\/venue failed while reading the instrument list/,
    )
  })
})
