/**
 * The replay seam (types in marketDriver.ts): a `MarketDriver` replaces the mock's invented market for one run (`perpbot
 * simulate --data`). Each step it sets index and mark from recorded data instead of the price process,
 * and fills resting orders by its own fill model instead of the mock's share-of-volume rule. A
 * `MarketTap` sees every market after its step (recording the mock's own market as a dataset). The
 * mock knows nothing of datasets: the caller supplies both (src/research/).
 */
import { closeOrder, fill, reducible, touched } from '../book.ts'
import { minBig } from '../money.ts'
import type { ExchangeState } from '../state.ts'
import type { Market } from './market.ts'
import type { MarketDriver } from './marketDriver.ts'

/** Funding window closes every interval: the boundaries in (t − dtMs, t]. */
function boundaries(m: Market, t: number, dtMs: number): number[] {
  const interval = m.fundingIntervalMs
  const out: number[] = []
  for (let b = Math.floor(t / interval) * interval; b > t - dtMs; b -= interval) out.unshift(b)
  return out
}

/** Applies one replayed step to the market; returns the funding boundaries crossed (stepMarket's contract). */
export function replayStep(d: MarketDriver, m: Market, t: number, dtMs: number): readonly number[] {
  const r = d.step(m, t, dtMs)
  m.indexTicks = r.indexTicks
  m.markTicks = r.markTicks
  // The float state follows, so anything reading it (index constituents) stays consistent.
  m.price.price = Number(r.indexTicks) / 10 ** m.spec.priceDecimals
  m.price.basis = r.indexTicks > 0n ? Number(r.markTicks - r.indexTicks) / Number(r.indexTicks) : 0
  m.volumeTicksPerSecond = (r.volumeTicks * 1000) / dtMs
  m.klines.record(t, Number(r.markTicks), r.volumeTicks, r.trades)
  if (r.fundingRate !== undefined) {
    // takeFundingRate (market.ts) closes the window as premium / 8 + interest, capped: feed it the
    // premium that gives the recorded rate back.
    m.premiumIntegral = (Number(r.fundingRate) / 1e8 - 0.0000125) * 8
    m.premiumSeconds = 1
  }
  return boundaries(m, t, dtMs)
}

/** Books the driver's fills of the step on the accounts (as the mock's own resting fills do). */
export function replayFills(s: ExchangeState, d: MarketDriver, m: Market, t: number, dtMs: number): void {
  const set = s.resting.get(m.spec.id)
  if (set === undefined || set.size === 0) return
  for (const f of d.fills(m, [...set], t, dtMs)) {
    const order = f.order
    if (order.status !== 'open' && order.status !== 'partial') continue
    let qty = minBig(f.qty, order.qty - order.filled)
    if (order.ro) {
      const left = reducible(order)
      if (left === 0n) {
        closeOrder(s, order, 'reduce_only_invalid', t)
        continue
      }
      qty = minBig(qty, left)
    }
    if (qty <= 0n) continue
    fill(s, order, m, qty, f.price, false, t)
    order.uts = t
    if (order.filled === order.qty) closeOrder(s, order, 'filled', t)
    else {
      order.status = 'partial'
      touched(s, order)
    }
  }
}
