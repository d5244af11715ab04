/** Snapshot builders for strategy tests. */
import type { Kline } from '../../src/perps/schemas/info.ts'
import type {
  StrategyInstrument,
  StrategySnapshot,
  StrategySnapshotBbo,
} from '../../src/strategy/strategy.ts'

export const NOW = 1_767_000_000_000

export const INSTRUMENT: StrategyInstrument = {
  id: 7,
  symbol: 'BTC-USDC',
  priceDecimals: 2,
  quantityDecimals: 3,
  priceBounds: '0.05',
  minNotional: '0',
  maxOrderCount: 0,
}

type Overrides = Partial<Omit<StrategySnapshot, 'instrument'>> & {
  instrument?: Partial<StrategyInstrument> | undefined
  /** Shorthand for `position: { size }`. */
  positionSize?: string | undefined
  /** Shorthand for a fresh index. */
  indexPrice?: string | undefined
}

export function makeSnapshot(o: Overrides = {}): StrategySnapshot {
  const { instrument, positionSize, indexPrice, ...rest } = o
  return {
    now: NOW,
    instrument: { ...INSTRUMENT, ...instrument },
    index: { price: indexPrice ?? '100', ts: NOW - 1_000 },
    statistics: undefined,
    position:
      positionSize === undefined
        ? undefined
        : { size: positionSize, entryPrice: '100', liquidationPrice: '0' },
    margin: {
      accountValue: '10000',
      initialMargin: '0',
      maintenanceMargin: '0',
      marginRatio: 0,
      inLiquidation: false,
    },
    openOrders: [],
    mode: 'normal',
    ...rest,
  }
}

/** 1-minute klines ending one minute before NOW with the given closes. */
export function klines(closes: readonly string[], endMs = NOW - 60_000): Kline[] {
  return closes.map((c, i): Kline => [endMs - (closes.length - 1 - i) * 60_000, c, c, c, c, '1', 1])
}

/** `side@price×qty` strings, for compact expectations. */
export function summarize(
  quotes: readonly { side: string; price: string; qty: string; reduceOnly?: boolean | undefined }[],
): string[] {
  return quotes.map((q) => `${q.side}@${q.price}x${q.qty}${q.reduceOnly ? ' ro' : ''}`)
}

/** A snapshot BBO received `ageMs` before NOW; an undefined price = an empty side. */
export function bboAt(bid: string | undefined, ask: string | undefined, ageMs = 100): StrategySnapshotBbo {
  return {
    bid: bid === undefined ? undefined : { price: bid, qty: '5' },
    ask: ask === undefined ? undefined : { price: ask, qty: '5' },
    receivedAt: NOW - ageMs,
  }
}
