import { describe, expect, it } from 'vitest'
import { diffQuotes, minCostAssignment } from '../../../src/bot/quoting/quoteDiff.ts'
import { InputValidationError } from '../../../src/errors.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { ask, bid, diff, INSTRUMENT, NOW, none, order, TOL } from './quoteDiffFixtures.ts'

describe('quoteDiff', () => {
  it.each([
    [
      'unchanged quotes: nothing to do',
      [bid('99.9'), ask('100.1')],
      [order({ oid: 1 }), order({ oid: 2, buy: false, p: '100.1' })],
      {},
      none,
    ],
    ['within the tick tolerance: kept', [bid('99.9')], [order({ oid: 1, p: '99.91' })], {}, none],
    [
      'outside the tick tolerance: repriced in place',
      [bid('99.9')],
      [order({ oid: 1, p: '99.92' })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '1' }], create: [], cancel: [] },
    ],
    // 2 bps of 99.90 = 0.01998 → 1 tick.
    [
      'bps tolerance: 1 tick at 2 bps of 99.9',
      [bid('99.9')],
      [order({ oid: 1, p: '99.91' })],
      { priceTicks: 0, priceBps: 2 },
      none,
    ],
    [
      'bps tolerance: 2 ticks exceed 2 bps of 99.9',
      [bid('99.9')],
      [order({ oid: 1, p: '99.92' })],
      { priceTicks: 0, priceBps: 2 },
      { modify: [{ oid: 1, p: '99.9', qty: '1' }], create: [], cancel: [] },
    ],
    [
      'the looser tolerance wins',
      [bid('99.9')],
      [order({ oid: 1, p: '99.95' })],
      { priceTicks: 5, priceBps: 2 },
      none,
    ],
    [
      'an order as old as maxOrderAgeMs is refreshed',
      [bid('99.9')],
      [order({ oid: 1, uts: NOW - 120_000 })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '1' }], create: [], cancel: [] },
    ],
    [
      'maxOrderAgeMs 0 disables the age refresh',
      [bid('99.9')],
      [order({ oid: 1, uts: 0 })],
      { maxOrderAgeMs: 0 },
      none,
    ],
    [
      'a new size: total quantity modified',
      [bid('99.9', '2')],
      [order({ oid: 1 })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '2' }], create: [], cancel: [] },
    ],
    [
      'partly filled: total = filled + desired, so the rest is the desired size',
      [bid('99.9', '1')],
      [order({ oid: 1, fill: '0.4' })],
      {},
      { modify: [{ oid: 1, p: '99.9', qty: '1.4' }], create: [], cancel: [] },
    ],
    [
      'partly filled within the quantity tolerance: kept',
      [bid('99.9', '1')],
      [order({ oid: 1, fill: '0.4' })],
      { qtyFraction: 0.5 },
      none,
    ],
    [
      'a total with more than 5 significant figures: cancel and create',
      [bid('99.9', '100.5')],
      [order({ oid: 1, qty: '1', fill: '0.123' })],
      {},
      {
        modify: [],
        create: [{ iid: 7, buy: true, p: '99.9', qty: '100.5', tif: 'gtc', po: true }],
        cancel: [1],
      },
    ],
    [
      'reduce-only cannot be modified in: cancel and create',
      [bid('99.9', '1', true)],
      [order({ oid: 1 })],
      {},
      {
        modify: [],
        create: [{ iid: 7, buy: true, p: '99.9', qty: '1', tif: 'gtc', po: true, ro: true }],
        cancel: [1],
      },
    ],
    [
      'unmatched live orders cancelled, unmatched quotes created',
      [ask('100.1')],
      [order({ oid: 3 }), order({ oid: 1, p: '99.8' })],
      {},
      {
        modify: [],
        create: [{ iid: 7, buy: false, p: '100.1', qty: '1', tif: 'gtc', po: true }],
        cancel: [1, 3],
      },
    ],
    [
      'other instruments and finished orders are left alone',
      [],
      [
        order({ oid: 1, iid: 8 }),
        order({ oid: 2, status: 'filled', fill: '1' }),
        order({ oid: 3, status: 'cancelled' }),
      ],
      {},
      none,
    ],
    [
      'levels pair level to level when the ladder moves',
      [bid('99.85'), bid('99.75')],
      [order({ oid: 2, p: '99.8' }), order({ oid: 1, p: '99.9' })],
      {},
      {
        modify: [
          { oid: 1, p: '99.85', qty: '1' },
          { oid: 2, p: '99.75', qty: '1' },
        ],
        create: [],
        cancel: [],
      },
    ],
    [
      'levels keep their orders when the ladder is unchanged',
      [bid('99.9'), bid('99.8')],
      [order({ oid: 2, p: '99.8' }), order({ oid: 1 })],
      {},
      none,
    ],
  ] as const)('%s', (_n, desired, live, tol, expected) => {
    expect(diff([...desired], [...live], tol)).toEqual(expected)
  })

  it('prefers keeping an order to repricing one (fewest actions)', () => {
    // Desired 99.9×1: oid 1 is nearer in price but the wrong size; oid 2 is within tolerance.
    expect(diff([bid('99.9')], [order({ oid: 1, qty: '2' }), order({ oid: 2, p: '99.91' })])).toEqual({
      modify: [],
      create: [],
      cancel: [1],
    })
  })

  it('pairs same-price quotes by size so that a second diff has nothing to do', () => {
    const instrument = { id: 7, priceDecimals: 0, quantityDecimals: 4 }
    const desired = [bid('1460', '0.0012'), bid('11', '0.0005'), bid('11', '34.483')]
    const live = [order({ oid: 100, p: '12', qty: '0.0005' })]
    const run = (l: Order[]) => diffQuotes({ desired, live: l, instrument, now: NOW, tolerance: TOL })
    const first = run(live)
    expect(first).toEqual({
      modify: [],
      create: [
        { iid: 7, buy: true, p: '1460', qty: '0.0012', tif: 'gtc', po: true },
        { iid: 7, buy: true, p: '11', qty: '34.483', tif: 'gtc', po: true },
      ],
      cancel: [],
    })
    const after = [
      ...live,
      order({ oid: 101, p: '1460', qty: '0.0012' }),
      order({ oid: 102, p: '11', qty: '34.483' }),
    ]
    expect(run(after)).toEqual(none)
  })

  it.each([
    [
      [
        [4, 1, 3],
        [2, 0, 5],
        [3, 2, 2],
      ],
      [1, 0, 2],
    ],
    [
      [
        [1, 2],
        [2, 1],
      ],
      [0, 1],
    ],
    [[[0]], [0]],
  ])('minCostAssignment(%j) = %j', (cost, expected) => {
    expect(minCostAssignment(cost)).toEqual(expected)
  })

  it('creates with the requested tif and post-only flag', () => {
    const d = diffQuotes({
      desired: [bid('99.9')],
      live: [],
      instrument: INSTRUMENT,
      now: NOW,
      tolerance: TOL,
      createOptions: { tif: 'ioc', postOnly: false },
    })
    expect(d.create).toEqual([{ iid: 7, buy: true, p: '99.9', qty: '1', tif: 'ioc', po: false }])
  })

  it('rejects desired quotes that are not valid for the instrument', () => {
    expect(() => diff([bid('99.905')], [])).toThrow(InputValidationError)
  })
})
