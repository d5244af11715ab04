/**
 * What the paper venue reads of the real venue's public REST at start, unsigned: the instruments
 * (their rules become the local book's), the fee schedule (the tiers the local book charges) and the
 * tickers (the first mark). Every read is public; nothing here holds or sends a key.
 */

import type { Clock } from '../clock.ts'
import { describeError } from '../errors.ts'
import { defineInstrument, type FeeTierSpec, type InstrumentSpec } from '../mock/perps/instruments.ts'
import { createPerpsClient } from '../perps/client/createPerpsClient.ts'
import { type FeeSchedule, fundingIntervalMs, type Instrument } from '../perps/schemas/info.ts'
import { PaperFeedError } from './liveFeed.ts'

export interface PublicVenueRead {
  specs: InstrumentSpec[]
  feeTiers: FeeTierSpec[]
  /** The fee schedule entry the tiers came from (its category), for the log. */
  feeCategory: string
  fundingIntervalMs: ReadonlyMap<number, number>
}

/** A venue instrument as the local book's instrument, starting at `mark`. */
export function specOfVenue(r: Instrument, mark: string): InstrumentSpec {
  return defineInstrument({
    id: r.instrument_id,
    symbol: r.symbol,
    baseAsset: r.base_asset,
    category:
      r.category === 'equity' || r.category === 'commodity' || r.category === 'index' ? r.category : 'crypto',
    quoteAsset: r.quote_asset,
    priceDecimals: r.price_decimals,
    quantityDecimals: r.quantity_decimals,
    initialPrice: mark,
    priceBounds: r.price_bounds,
    liquidationFee: r.liquidation_fee,
    maxOrderCount: r.max_order_count,
    minNotional: r.min_notional,
    maxMarketNotional: r.max_market_notional,
    maxLimitNotional: r.max_limit_notional,
    maxLeverage: r.max_leverage,
    riskTiers: r.risk_tiers.map((t) => ({ lowerBound: t.lower_bound, maxLeverage: t.max_leverage })),
    fundingInterval: r.funding_interval,
    isolatedOnly: r.isolated_only ?? false,
  })
}

/**
 * The published fee tiers for the traded instruments' category (the local book has one table: the
 * first traded instrument's category decides when they differ).
 */
export function feeTiersOf(
  schedule: FeeSchedule,
  category: string,
): { tiers: FeeTierSpec[]; category: string } {
  const entry = schedule.fee_schedule.find((e) => e.category === category) ?? schedule.fee_schedule[0]
  if (entry === undefined) throw new PaperFeedError("the venue's fee schedule is empty")
  const tiers = (entry.tiers ?? []).map((t) => ({
    minVolume30d: t.min_volume_30d,
    takerFeeRate: t.taker_fee_rate,
    makerFeeRate: t.maker_fee_rate,
  }))
  const base = { minVolume30d: '0', takerFeeRate: entry.taker_fee_rate, makerFeeRate: entry.maker_fee_rate }
  return { tiers: tiers[0]?.minVolume30d === '0' ? tiers : [base, ...tiers], category: entry.category }
}

/**
 * Reads the venue's instruments, fees and tickers for `symbols`.
 * @throws {@link PaperFeedError} naming the address when the venue cannot be read, or an unknown symbol.
 */
export async function readPublicVenue(o: {
  url: string
  symbols: readonly string[]
  clock: Clock
}): Promise<PublicVenueRead> {
  const client = createPerpsClient({
    baseUrl: o.url,
    clock: o.clock,
    // A small throttle of its own, from plain values: three reads at start, nothing after.
    throttle: { requestBudget: 100, headroom: 1, riskReserve: 0 },
  })
  try {
    const [instruments, fees, tickers] = await Promise.all([
      client.getInstruments(),
      client.getFees(),
      client.getTickers(),
    ]).catch((e: unknown) => {
      throw new PaperFeedError(
        `the venue's public REST at ${o.url} could not be read: ${describeError(e)}; check PERPS_URL and that the venue is reachable from here`,
      )
    })
    const specs = o.symbols.map((symbol) => {
      const r = instruments.find((i) => i.symbol === symbol)
      if (r === undefined)
        throw new PaperFeedError(
          `the venue at ${o.url} lists no instrument ${symbol} (it lists ${instruments.map((i) => i.symbol).join(', ') || 'none'})`,
        )
      const t = tickers.find((x) => x.instrument_id === r.instrument_id)
      if (t === undefined) throw new PaperFeedError(`the venue at ${o.url} has no ticker for ${symbol}`)
      // A new or illiquid instrument may show no mark yet: its index starts the local book.
      return specOfVenue(r, t.mark_price ?? t.index_price)
    })
    const fee = feeTiersOf(fees, specs[0]?.category ?? 'crypto')
    return {
      specs,
      feeTiers: fee.tiers,
      feeCategory: fee.category,
      fundingIntervalMs: new Map(specs.map((s) => [s.id, fundingIntervalMs(s.fundingInterval) ?? 3_600_000])),
    }
  } finally {
    await client.close()
  }
}
