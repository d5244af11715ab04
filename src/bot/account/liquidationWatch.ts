/**
 * When the venue has traded on the account without us, pure: liquidation fills are not pushed on the
 * `fills` stream (protocol-notes d), and the fills poller stands down while the stream is fresh, so a
 * liquidation reached the ledger only with the next resync (~30 bot-minutes in issue 33). Each
 * portfolio is checked for the signs of one, and the account reads its fills over REST at once:
 *
 * - the venue's `in_liquidation` flag (every portfolio while it is set: each cut makes new fills, at
 *   most one read per `MIN_READ_GAP_MS`), and once more when it clears (the last cut);
 * - a position that changed with no fill of ours on that instrument, and still none has come by a
 *   later portfolio a second on (the venue closed it, or part of it; a fill push may trail the
 *   portfolio that shows it, and a read per fill would cost the limiter's budget);
 * - margin exhausted: the account value fell to zero or below (a closed-out account).
 *
 * A false alarm (a fill whose push is later still) costs one fills read.
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
  /** Instruments whose position moved without our fills, and when that was seen. */
  readonly #suspects = new Map<number, number>()
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

    const unexplained = this.#unexplained(previous, sizes, filled, now)
    let sign: LiquidationSign | undefined
    if (p.in_liquidation) {
      if (!wasLiquidating || now - this.#lastReadAt >= MIN_READ_GAP_MS) sign = 'in liquidation'
    } else if (wasLiquidating) sign = 'liquidation ended'
    else if (this.#exhausted && !wasExhausted) sign = 'margin exhausted'
    else if (unexplained) sign = 'position moved without our fills'
    if (sign !== undefined) {
      this.#lastReadAt = now
      // The read brings whatever moved them.
      this.#suspects.clear()
    }
    return sign
  }

  /** Whether a move without our fills has stood for a later portfolio and a second (see the header). */
  #unexplained(
    before: ReadonlyMap<number, string> | undefined,
    after: ReadonlyMap<number, string>,
    filled: ReadonlySet<number>,
    now: number,
  ): boolean {
    for (const iid of filled) this.#suspects.delete(iid)
    let due = false
    for (const at of this.#suspects.values()) if (now - at >= MIN_READ_GAP_MS) due = true
    if (before !== undefined)
      for (const iid of new Set([...before.keys(), ...after.keys()])) {
        if (filled.has(iid) || this.#suspects.has(iid)) continue
        if (compareDecimal(before.get(iid) ?? '0', after.get(iid) ?? '0') !== 0) this.#suspects.set(iid, now)
      }
    return due
  }
}
