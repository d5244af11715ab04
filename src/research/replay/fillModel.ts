/**
 * The replay's fill model (pure; docs/research.md). Recorded data is never changed: our orders do not
 * move the replayed market, and each print's quantity is shared out once among our orders.
 *
 * - A print through our price (below our buy, above our sell) fills us at our price, up to the
 *   print's quantity times `participation`.
 * - A print at our price (from the aggressor on the other side, or with no side recorded) first
 *   consumes the queue ahead of us; only what is left fills us. The queue ahead is the size displayed
 *   at our price when we joined (from a recorded book), or, with no book, the whole level: then only
 *   prints through our price fill us (`queueAhead` undefined). A print through the level empties it.
 * - Klines only: bars are turned into prints (bars.ts) and only prints through our price fill.
 * - An order takes part `orderLatencyMs` after it was placed or repriced (it joins the back of the
 *   queue then); the feed latency is applied where the bot reads prices (replayFeed.ts).
 */

export type FillTier = 'trades' | 'klines'

export interface FillModelConfig {
  tier: FillTier
  /** Share of a print our orders may take, in parts per million (1,000,000 = all of it). */
  participationPpm: bigint
  orderLatencyMs: number
  feedLatencyMs: number
}

export const DEFAULT_FILL_MODEL: Omit<FillModelConfig, 'tier'> = {
  participationPpm: 1_000_000n,
  orderLatencyMs: 0,
  feedLatencyMs: 0,
}

/** One recorded print in integer ticks and lots; `buyAggressor` undefined when the side is unknown. */
export interface Print {
  t: number
  price: bigint
  qty: bigint
  buyAggressor?: boolean | undefined
}

/** Our resting order as the model sees it; `queueAhead` undefined = behind the whole level. */
export interface QueuedOrder<K> {
  key: K
  buy: boolean
  price: bigint
  leaves: bigint
  /** Virtual ms from which the order takes part (placement + order latency). */
  activeFrom: number
  queueAhead: bigint | undefined
}

export interface ModelFill<K> {
  key: K
  qty: bigint
  price: bigint
}

/**
 * Matches one print against our orders; returns the fills in order and updates each order's
 * `leaves` and `queueAhead` in place (the caller's bookkeeping, not shared state).
 */
export function matchPrint<K>(
  orders: readonly QueuedOrder<K>[],
  print: Print,
  cfg: Pick<FillModelConfig, 'tier' | 'participationPpm'>,
): ModelFill<K>[] {
  let left = (print.qty * cfg.participationPpm) / 1_000_000n
  const fills: ModelFill<K>[] = []
  // The best-priced of our orders meets the print first: highest bids, lowest asks.
  const sorted = orders
    .filter((o) => o.activeFrom <= print.t && o.leaves > 0n)
    .sort((a, b) =>
      a.buy === b.buy ? (a.buy ? cmp(b.price, a.price) : cmp(a.price, b.price)) : a.buy ? -1 : 1,
    )
  for (const o of sorted) {
    const through = o.buy ? print.price < o.price : print.price > o.price
    const at = print.price === o.price
    if (through) {
      o.queueAhead = 0n
      const q = min(o.leaves, left)
      if (q > 0n) {
        fills.push({ key: o.key, qty: q, price: o.price })
        o.leaves -= q
        left -= q
      }
      continue
    }
    if (!at || cfg.tier === 'klines' || o.queueAhead === undefined) continue
    // A buy rests on the bid: only a seller's print (or one of unknown side) reaches it.
    if (print.buyAggressor === o.buy) continue
    const excess = print.qty - o.queueAhead
    o.queueAhead = excess >= 0n ? 0n : o.queueAhead - print.qty
    const q = min(o.leaves, min(excess, left))
    if (q > 0n) {
      fills.push({ key: o.key, qty: q, price: o.price })
      o.leaves -= q
      left -= q
    }
  }
  return fills
}

/**
 * A bar as prints, stamped at its close: open, the extreme nearer the open, the farther one, close,
 * a quarter of the volume each (Nautilus's adaptive bar ordering).
 */
export function barPrints(
  closeT: number,
  open: bigint,
  high: bigint,
  low: bigint,
  close: bigint,
  volume: bigint,
): Print[] {
  const q = volume / 4n
  const highFirst = high - open <= open - low
  const [a, b] = highFirst ? [high, low] : [low, high]
  return [open, a, b, close].map((price) => ({ t: closeT, price, qty: q }))
}

const cmp = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0)
const min = (a: bigint, b: bigint): bigint => (a < b ? a : b)

/** A recorded book snapshot in ticks and lots, each side best first (dataset kind `book`). */
export interface BookLevels {
  bids: readonly (readonly [price: bigint, qty: bigint])[]
  asks: readonly (readonly [price: bigint, qty: bigint])[]
}

/**
 * Queue ahead of an order joining at `price`, from a recorded book (the deeper sibling of reading
 * the best bid/offer): the size shown at that price; nothing when it improves on the best price or
 * falls on an empty price inside the recorded depth; the whole level (undefined) past the depth or
 * with that side empty.
 */
export function queueAheadFromBook(book: BookLevels, buy: boolean, price: bigint): bigint | undefined {
  const side = buy ? book.bids : book.asks
  const best = side[0]
  if (best === undefined) return undefined
  if (buy ? price > best[0] : price < best[0]) return 0n
  for (const [p, q] of side) {
    if (p === price) return q
    // Past our price without meeting it: an empty price inside the depth.
    if (buy ? p < price : p > price) return 0n
  }
  return undefined
}
