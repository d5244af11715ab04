import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { toTicks } from '../../src/decimal.ts'
import {
  barPrints,
  matchPrint,
  type QueuedOrder,
  queueAheadFromBook,
} from '../../src/research/replay/fillModel.ts'
import { queueOnJoin, ticksOf } from '../../src/research/replay/replayDriver.ts'

const trades = { tier: 'trades' as const, participationPpm: 1_000_000n }
const klines = { tier: 'klines' as const, participationPpm: 1_000_000n }
const order = (o: Partial<QueuedOrder<string>> & { key: string }): QueuedOrder<string> => ({
  buy: true,
  price: 100n,
  leaves: 10n,
  activeFrom: 0,
  queueAhead: undefined,
  ...o,
})

describe('fill model', () => {
  it('fills a buy on a print through its price, at its price, up to the print', () => {
    const o = order({ key: 'a' })
    expect(matchPrint([o], { t: 1, price: 99n, qty: 4n }, trades)).toEqual([
      { key: 'a', qty: 4n, price: 100n },
    ])
    expect(o.leaves).toBe(6n)
    expect(matchPrint([o], { t: 2, price: 98n, qty: 50n }, trades)).toEqual([
      { key: 'a', qty: 6n, price: 100n },
    ])
    expect(o.leaves).toBe(0n)
  })

  it('never fills a buy on a print above its price, nor a sell below', () => {
    expect(matchPrint([order({ key: 'a' })], { t: 1, price: 101n, qty: 5n }, trades)).toEqual([])
    expect(matchPrint([order({ key: 's', buy: false })], { t: 1, price: 99n, qty: 5n }, trades)).toEqual([])
  })

  it('at its price fills only after the queue ahead is consumed (100 ahead, trades 80 then 30: fill 10)', () => {
    const o = order({ key: 'a', leaves: 50n, queueAhead: 100n })
    expect(matchPrint([o], { t: 1, price: 100n, qty: 80n }, trades)).toEqual([])
    expect(o.queueAhead).toBe(20n)
    expect(matchPrint([o], { t: 2, price: 100n, qty: 30n }, trades)).toEqual([
      { key: 'a', qty: 10n, price: 100n },
    ])
    expect(o.queueAhead).toBe(0n)
  })

  it('without a book the queue is the whole level: a print at our price never fills', () => {
    const o = order({ key: 'a' })
    expect(matchPrint([o], { t: 1, price: 100n, qty: 1_000n }, trades)).toEqual([])
  })

  it('a print at a buy price from a buying taker does not reach the bid', () => {
    const o = order({ key: 'a', queueAhead: 0n })
    expect(matchPrint([o], { t: 1, price: 100n, qty: 5n, buyAggressor: true }, trades)).toEqual([])
    expect(matchPrint([o], { t: 2, price: 100n, qty: 5n, buyAggressor: false }, trades)).toEqual([
      { key: 'a', qty: 5n, price: 100n },
    ])
  })

  it('klines: only through by at least one tick fills, even at the front of the queue', () => {
    const o = order({ key: 'a', queueAhead: 0n })
    expect(matchPrint([o], { t: 1, price: 100n, qty: 5n }, klines)).toEqual([])
    expect(matchPrint([o], { t: 1, price: 99n, qty: 5n }, klines)).toEqual([
      { key: 'a', qty: 5n, price: 100n },
    ])
  })

  it('shares a print once: best-priced order first, participation caps the share', () => {
    const hi = order({ key: 'hi', price: 101n })
    const lo = order({ key: 'lo', price: 100n })
    expect(matchPrint([lo, hi], { t: 1, price: 99n, qty: 12n }, trades)).toEqual([
      { key: 'hi', qty: 10n, price: 101n },
      { key: 'lo', qty: 2n, price: 100n },
    ])
    const half = order({ key: 'h' })
    expect(
      matchPrint([half], { t: 1, price: 99n, qty: 8n }, { ...trades, participationPpm: 500_000n }),
    ).toEqual([{ key: 'h', qty: 4n, price: 100n }])
  })

  it('an order takes part only from its active time (order latency)', () => {
    const o = order({ key: 'a', activeFrom: 500 })
    expect(matchPrint([o], { t: 499, price: 90n, qty: 5n }, trades)).toEqual([])
    expect(matchPrint([o], { t: 500, price: 90n, qty: 5n }, trades)).toHaveLength(1)
  })

  it('turns a bar into open, nearer extreme, farther extreme, close', () => {
    expect(barPrints(60, 100n, 103n, 90n, 95n, 8n).map((p) => p.price)).toEqual([100n, 103n, 90n, 95n])
    expect(barPrints(60, 100n, 110n, 99n, 105n, 8n).map((p) => p.price)).toEqual([100n, 99n, 110n, 105n])
    expect(barPrints(60, 100n, 110n, 99n, 105n, 8n).every((p) => p.qty === 2n && p.t === 60)).toBe(true)
  })
})

describe('queue ahead on joining, from the recorded touch', () => {
  const touch = { bp: 100n, bq: 7n, ap: 102n, aq: 9n }
  it('is the displayed size at the best, nothing when improving, the whole level behind or without a book', () => {
    expect(queueOnJoin(touch, true, 100n)).toBe(7n)
    expect(queueOnJoin(touch, false, 102n)).toBe(9n)
    expect(queueOnJoin(touch, true, 101n)).toBe(0n)
    expect(queueOnJoin(touch, false, 101n)).toBe(0n)
    expect(queueOnJoin(touch, true, 99n)).toBeUndefined()
    expect(queueOnJoin(undefined, true, 100n)).toBeUndefined()
  })
})

describe('dataset decimals to ticks', () => {
  it('gives what toTicks gives, half-even beyond the decimals', () => {
    for (const [s, d] of [
      ['12', 2],
      ['-0.5', 1],
      ['0.125', 2],
      ['0.135', 2],
      ['-1.005', 2],
      ['007.10', 3],
    ] as const)
      expect(ticksOf(s, d)).toBe(toTicks(s, d, 'half-even'))
    const decimal = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 10 }))
      .map(([neg, units, scale]) => {
        const digits = units.toString().padStart(scale + 1, '0')
        const body = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`
        return neg ? `-${body}` : body
      })
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 10 }), (s, d) => {
        expect(ticksOf(s, d)).toBe(toTicks(s, d, 'half-even'))
      }),
    )
  })
})

describe('queue ahead from a recorded book', () => {
  const book = {
    bids: [
      [1000n, 5n],
      [998n, 7n],
    ],
    asks: [
      [1002n, 3n],
      [1003n, 4n],
    ],
  } as const
  it('is the size shown at our price, on either side', () => {
    expect(queueAheadFromBook(book, true, 1000n)).toBe(5n)
    expect(queueAheadFromBook(book, true, 998n)).toBe(7n)
    expect(queueAheadFromBook(book, false, 1003n)).toBe(4n)
  })
  it('is nothing when we improve on the best price or join an empty price inside the depth', () => {
    expect(queueAheadFromBook(book, true, 1001n)).toBe(0n)
    expect(queueAheadFromBook(book, false, 1001n)).toBe(0n)
    expect(queueAheadFromBook(book, true, 999n)).toBe(0n)
  })
  it('is the whole level (unknown) past the recorded depth or on an empty side', () => {
    expect(queueAheadFromBook(book, true, 990n)).toBeUndefined()
    expect(queueAheadFromBook(book, false, 1010n)).toBeUndefined()
    expect(queueAheadFromBook({ bids: [], asks: book.asks }, true, 1000n)).toBeUndefined()
  })
})
