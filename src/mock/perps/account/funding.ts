/** Funding settlement: at each funding boundary every open position pays or receives the rate. */
import { fromTicks } from '../../../decimal.ts'
import { type Market, takeFundingRate } from '../market/market.ts'
import { applyRate, rateString, rescaleTicks, USD_DECIMALS, usd } from '../money.ts'
import type { ExchangeState } from '../state.ts'

/** Settled rates kept per instrument for `GET /v1/info/funding` (a month of hourly funding). */
export const FUNDING_RATES_KEPT = 744

/** Charges funding at boundary `b`: positive rate, longs pay; rows record `funding` as paid (+) or received (−). */
export function settleFunding(s: ExchangeState, m: Market, b: number): void {
  const rate = takeFundingRate(m)
  m.fundingRates.push({ rate, timestamp: b })
  if (m.fundingRates.length > FUNDING_RATES_KEPT)
    m.fundingRates.splice(0, m.fundingRates.length - FUNDING_RATES_KEPT)
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  for (const account of s.accounts.values()) {
    const pos = account.positions.get(m.spec.id)
    if (pos === undefined || pos.size === 0n) continue
    const signedNotional = rescaleTicks(pos.size * m.markTicks, qd + pd, USD_DECIMALS)
    const paid = applyRate(signedNotional, rate)
    account.collateral -= paid
    pos.cumulativeFunding += paid
    account.funding.push({
      id: s.nextFundingId++,
      instrument_id: m.spec.id,
      size: fromTicks(pos.size, qd),
      funding_rate: rateString(rate),
      funding_asset: s.o.collateral.asset,
      funding: usd(paid),
      timestamp: b,
    })
    if (account.funding.length > s.o.fundingHistoryLimit)
      account.funding.splice(0, account.funding.length - s.o.fundingHistoryLimit)
  }
}
