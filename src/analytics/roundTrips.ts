/**
 * Round trips (issue 39.3): fills matched first in, first out per instrument. A round trip closes when
 * a fill reduces a position some earlier fill opened; its PnL is the price difference on the matched
 * quantity less both fills' fees pro rata. Win rate and profit factor come from these.
 */

export interface RoundTripStats {
  trips: number
  wins: number
  /** wins / trips; undefined without trips. */
  winRate: number | undefined
  grossProfit: number
  grossLoss: number
  /** grossProfit / grossLoss; undefined without a loss. */
  profitFactor: number | undefined
  /** Mean time from the opening fill to the closing one, ms. */
  meanHoldMs: number | undefined
}

interface Lot {
  t: number
  price: number
  /** Signed contracts left (+ long). */
  qty: number
  feePerUnit: number
}

/** Round trips of journal fills (the venue's side and decimal strings); fills without a side are skipped. */
export function roundTripsOfFills(
  fills: readonly {
    ts: number
    iid: number
    price: string
    qty: string
    side?: string | undefined
    fee: string
  }[],
  isBuy: (side: string) => boolean,
): RoundTripStats {
  const r = new RoundTrips()
  for (const f of fills)
    if (f.side !== undefined)
      r.fill({
        iid: f.iid,
        t: f.ts,
        price: Number(f.price),
        qty: Math.abs(Number(f.qty)),
        buy: isBuy(f.side),
        fee: Number(f.fee),
      })
  return r.stats()
}

export class RoundTrips {
  readonly #lots = new Map<number, Lot[]>()
  #trips = 0
  #wins = 0
  #profit = 0
  #loss = 0
  #hold = 0

  fill(f: { iid: number; t: number; price: number; qty: number; buy: boolean; fee: number }): void {
    const lots = this.#lots.get(f.iid) ?? []
    this.#lots.set(f.iid, lots)
    let left = f.buy ? f.qty : -f.qty
    const feePerUnit = f.qty > 0 ? f.fee / f.qty : 0
    for (
      let lot = lots[0];
      left !== 0 && lot !== undefined && Math.sign(lot.qty) !== Math.sign(left);
      lot = lots[0]
    ) {
      const q = Math.min(Math.abs(lot.qty), Math.abs(left))
      const direction = lot.qty > 0 ? 1 : -1
      const pnl = direction * (f.price - lot.price) * q - (lot.feePerUnit + feePerUnit) * q
      this.#trips++
      if (pnl > 0) {
        this.#wins++
        this.#profit += pnl
      } else this.#loss -= pnl
      this.#hold += f.t - lot.t
      lot.qty -= direction * q
      left += direction * q
      if (Math.abs(lot.qty) < 1e-12) lots.shift()
    }
    if (Math.abs(left) > 1e-12) lots.push({ t: f.t, price: f.price, qty: left, feePerUnit })
  }

  stats(): RoundTripStats {
    return {
      trips: this.#trips,
      wins: this.#wins,
      winRate: this.#trips > 0 ? this.#wins / this.#trips : undefined,
      grossProfit: this.#profit,
      grossLoss: this.#loss,
      profitFactor: this.#loss > 0 ? this.#profit / this.#loss : undefined,
      meanHoldMs: this.#trips > 0 ? this.#hold / this.#trips : undefined,
    }
  }
}
