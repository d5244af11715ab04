/**
 * The replay reads the queue ahead of a resting order from a recorded book when the dataset has one:
 * an order joining behind the best price waits for the size the book showed there, where the best
 * bid/offer alone can only assume the whole level ahead (and never fills at the price).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { toTicks } from '../../src/decimal.ts'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { createMarket } from '../../src/mock/perps/market/market.ts'
import { chunkPath, type DataKind, type RowOf } from '../../src/research/dataset/format.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { DEFAULT_FILL_MODEL } from '../../src/research/replay/fillModel.ts'
import { createReplayDriver } from '../../src/research/replay/replayDriver.ts'

const root = mkdtempSync(join(tmpdir(), 'perpbot-book-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const T0 = Date.UTC(2026, 0, 5, 3, 0)
const T1 = T0 + 10_000
const spec = firstOf(generateInstruments(1, 1))
const pd = spec.priceDecimals
const qd = spec.quantityDecimals
const px = (x: number): string => x.toFixed(pd)
const qty = (x: number): string => x.toFixed(qd)

function dataset(name: string, withBook: boolean): DatasetStore {
  const store = DatasetStore.openOrCreate(join(root, name), 'test', 1_000)
  store.setInstrument({
    id: spec.id,
    symbol: spec.symbol,
    baseAsset: spec.baseAsset,
    priceDecimals: pd,
    quantityDecimals: qd,
    spec: {},
  })
  const write = <K extends DataKind>(kind: K, rows: RowOf[K][]) =>
    store.writeChunk(
      chunkPath(kind, spec.symbol, T0),
      { kind, symbol: spec.symbol, from: T0, to: T0 + 3_600_000 },
      rows,
    )
  write('tickers', [{ t: T0, i: px(100), m: px(100) }])
  write('bbo', [{ t: T0, bp: px(100), bq: qty(5), ap: px(101), aq: qty(3) }])
  if (withBook)
    write('book', [
      {
        t: T0,
        b: [
          [px(100), qty(5)],
          [px(99), qty(7)],
        ],
        a: [[px(101), qty(3)]],
      },
    ])
  // Two sells of 5 at 99 (our price, one level behind the best bid), at 3 s and 6 s.
  write('trades', [
    { t: T0 + 3_000, p: px(99), q: qty(5), s: 'short' },
    { t: T0 + 6_000, p: px(99), q: qty(5), s: 'short' },
  ])
  return store
}

function filledWith(store: DatasetStore): bigint {
  const driver = createReplayDriver({
    store,
    symbols: [spec.symbol],
    from: T0,
    to: T1,
    model: { ...DEFAULT_FILL_MODEL, tier: 'trades' },
  })
  const m = createMarket(spec, 1, 60)
  const order = {
    buy: true,
    price: toTicks(px(99), pd),
    qty: toTicks(qty(10), qd),
    filled: 0n,
    cts: T0,
    uts: T0,
  }
  let filled = 0n
  for (let t = T0 + 1_000; t <= T1; t += 1_000) {
    driver.step(m, t, 1_000)
    for (const f of driver.fills(m, [order], t, 1_000)) {
      filled += f.qty
      order.filled += f.qty
    }
  }
  return filled
}

function firstOf<T>(xs: readonly T[]): T {
  const x = xs[0]
  if (x === undefined) throw new Error('no instrument')
  return x
}

describe('queue ahead from a recorded book in the replay', () => {
  it('waits for the size the book showed at our price, then fills the rest of the print', () => {
    // 7 ahead at 99: the first print of 5 leaves 2 ahead; the second fills us 3.
    expect(filledWith(dataset('book', true))).toBe(toTicks(qty(3), qd))
  })

  it('with the best bid/offer only, assumes the whole level ahead: a print at our price never fills us', () => {
    expect(filledWith(dataset('bbo', false))).toBe(0n)
  })
})
