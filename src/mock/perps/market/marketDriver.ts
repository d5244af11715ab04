/**
 * The replay seam's types (a leaf: options.ts names them, replayMarket.ts applies them). A
 * `MarketDriver` replaces the mock's invented market for a run (`perpbot simulate --data`); a
 * `MarketTap` sees every market after its step (recording the mock's market).
 */
import type { Market } from './market.ts'

/** What a replayed market looks like at the end of one step. */
export interface ReplayedStep {
  indexTicks: bigint
  markTicks: bigint
  /** Volume and prints in the step (klines of the statistics endpoint). */
  volumeTicks: number
  trades: number
  /** A funding rate (1e-8 units) the data settles at a boundary inside this step, if any. */
  fundingRate?: bigint | undefined
}

/** What a driver's fill model reads of one resting order. */
export interface RestingOrderView {
  buy: boolean
  price: bigint
  qty: bigint
  filled: bigint
  /** Created and last updated, virtual ms. */
  cts: number
  uts: number
}

/** A fill the driver's model grants to one resting order. */
export interface ReplayFill<O> {
  order: O
  qty: bigint
  price: bigint
}

export interface MarketDriver {
  /** The market's state at the end of the step (t − dtMs, t]. */
  step(m: Market, t: number, dtMs: number): ReplayedStep
  /** Fills of our resting orders in the step, in the order they happen. */
  fills<O extends RestingOrderView>(
    m: Market,
    resting: readonly O[],
    t: number,
    dtMs: number,
  ): readonly ReplayFill<O>[]
}

export type MarketTap = (m: Market, t: number, dtMs: number) => void
