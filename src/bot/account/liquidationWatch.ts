/**
 * When the venue has traded on the account without us, pure: liquidation fills are not pushed on the
 * `fills` stream (protocol-notes d), and the fills poller stands down while the stream is fresh, so a
 * liquidation reached the ledger only with the next resync (~30 bot-minutes in issue 33). Each
 * portfolio is checked for the signs of one, and the account reads its fills over REST at once:
 *
 * - the venue's `in_liquidation` flag (every portfolio while it is set: each cut makes new fills, at
 *   most one read per `minReadGapMs`), and once more when it clears (the last cut);
 * - a position that changed since the previous portfolio with no fill of ours on that instrument in
 *   between (the venue closed it, or part of it);
 * - margin exhausted: the account value fell to zero or below (a closed-out account).
 *
 * A false alarm (a fill whose push is still on its way) costs one fills read.
 */
import { compareDecimal } from '../../decimal.ts'

export interface WatchedPortfolio {
  in_liquidation: boolean
  margin: { total_account_value: string }
  positions: readonly { instrument_id: number; size: string }[]
}

/** Why the fills are read now. */
export type LiquidationSign =
  | 'in liquidation'
  | 'liquidation ended'
  | 'position moved without our fills'
  | 'margin exhausted'

/** Time between two reads asked for by the same standing sign (the flag over several portfolios). */
export const MIN_READ_GAP_MS = 1_000

export class LiquidationWatch {
  #sizes: Map<number, string> | undefined
  /** Instruments with a fill of ours since the last portfolio. */
  readonly #filled = new Set<number>()
  #inLiquidation = false
  #exhausted = false
  #lastReadAt = Number.NEGATIVE_INFINITY

  /** A fill reached the ledger (ours, or the venue's read back). */
  observeFill(instrumentId: number): void {
    this.#filled.add(instrumentId)
  }

  /** The signs of a trade without us in this portfolio; read the fills when one is returned. */
  observePortfolio(p: WatchedPortfolio, now: number): LiquidationSign | undefined {
    const sizes = new Map(p.positions.map((x) => [x.instrument_id, x.size]))
    const previous = this.#sizes
    this.#sizes = sizes
    const filled = new Set(this.#filled)
    this.#filled.clear()
    const wasLiquidating = this.#inLiquidation
    this.#inLiquidation = p.in_liquidation
    const wasExhausted = this.#exhausted
    this.#exhausted = compareDecimal(p.margin.total_account_value, '0') <= 0

    let sign: LiquidationSign | undefined
    if (p.in_liquidation) {
      if (!wasLiquidating || now - this.#lastReadAt >= MIN_READ_GAP_MS) sign = 'in liquidation'
    } else if (wasLiquidating) sign = 'liquidation ended'
    else if (this.#exhausted && !wasExhausted) sign = 'margin exhausted'
    else if (previous !== undefined && movedWithoutFills(previous, sizes, filled))
      sign = 'position moved without our fills'
    if (sign !== undefined) this.#lastReadAt = now
    return sign
  }
}

function movedWithoutFills(
  before: ReadonlyMap<number, string>,
  after: ReadonlyMap<number, string>,
  filled: ReadonlySet<number>,
): boolean {
  for (const iid of new Set([...before.keys(), ...after.keys()])) {
    if (filled.has(iid)) continue
    if (compareDecimal(before.get(iid) ?? '0', after.get(iid) ?? '0') !== 0) return true
  }
  return false
}
