/**
 * Issue 35, point 2: one rule for the venue's decimal strings (src/perps/schemas/common.ts). A new or
 * illiquid instrument's ticker with a blank last, mid (and mark) keeps its row on REST and stream
 * alike, and the instrument quotes from its index; a fill with a blank previous entry price reads the
 * same from REST and from the stream.
 */
import { describe, expect, it } from 'vitest'
import { indexFromTicker } from '../../../src/bot/inputs/pollers.ts'
import { indexFromTickerPush } from '../../../src/bot/inputs/streams/streamRoutes.ts'
import { FillsPage } from '../../../src/perps/schemas/account.ts'
import { Tickers } from '../../../src/perps/schemas/tickers.ts'
import { collectDroppedItems } from '../../../src/perps/schemas/tolerantArray.ts'
import { FillsPush, TickerPush } from '../../../src/perps/stream/pushSchemas.ts'
import { harness, margin, oneBid } from '../../bot/instrument/helpers.ts'

const row = (over: Record<string, unknown>) => ({
  instrument_id: 7,
  symbol: 'NEW-USDC',
  index_price: '50000',
  mark_price: '50001',
  last_price: '50002',
  mid_price: '50000.5',
  open_interest: '12',
  funding_rate: '0.0001',
  next_funding: 1_767_000_000_000,
  ...over,
})

describe('blank decimals, one rule', () => {
  it('REST tickers: blank last/mid/mark/oi/funding read as unknown, the row kept; a blank index drops only that row', () => {
    const { value, dropped } = collectDroppedItems(() =>
      Tickers.parse([
        row({ last_price: '', mid_price: '', mark_price: '', open_interest: '', funding_rate: '' }),
        row({ instrument_id: 8, index_price: '' }),
        row({ instrument_id: 9, last_price: '.5e1' }),
      ]),
    )
    expect(value.map((t) => t.instrument_id)).toEqual([7, 9])
    expect(value[0]).toMatchObject({ index_price: '50000' })
    expect(value[0]?.last_price).toBeUndefined()
    expect(value[0]?.mid_price).toBeUndefined()
    expect(value[1]?.last_price).toBe('5')
    expect(dropped).toHaveLength(1)
    const t = value[0]
    if (t === undefined) throw new Error('row dropped')
    expect(indexFromTicker(t, 5)).toEqual({ price: '50000', ts: 5, mark: undefined })
  })

  it('stream tickers: the same push with blanks is read, not turned into a gap', () => {
    const push = TickerPush.parse({
      iid: 7,
      idx: '50000',
      mark: '',
      last: '',
      mid: '',
      oi: '',
      fr: '',
      nxf: 1_767_000_000_000,
    })
    expect(indexFromTickerPush(push, 9)).toEqual({ price: '50000', ts: 9, mark: undefined })
    expect(TickerPush.safeParse({ iid: 7, idx: '', nxf: 1 }).success).toBe(false)
  })

  it('an instrument whose ticker has blank last/mid/mark still quotes from its index', async () => {
    const h = harness(oneBid)
    const now = h.clock.now()
    // Every input but the index: nothing is quoted yet.
    h.actor.send({
      type: 'STATISTICS',
      statistics: { volume: '10', openPrice: '49000', klines: [] },
      receivedAt: now,
    })
    h.actor.send({ type: 'ACCOUNT', margin: margin(0.1), position: undefined, receivedAt: now })
    h.actor.send({ type: 'ORDERS', orders: [], receivedAt: now })
    h.clock.increment(1_000)
    expect(h.submitted).toEqual([])
    const t = Tickers.parse([row({ last_price: '', mid_price: '', mark_price: '' })])[0]
    if (t === undefined) throw new Error('row dropped')
    h.actor.send({ type: 'INDEX', index: indexFromTicker(t, h.clock.now()), receivedAt: h.clock.now() })
    h.clock.increment(1_000)
    expect(h.submitted.length).toBeGreaterThan(0)
    expect(h.snapshots.at(-1)?.index?.price).toBe('50000')
    h.actor.stop()
  })

  it('REST and stream read the same fill the same way (a blank previous entry price is 0 on both)', () => {
    const rest = FillsPage.parse({
      data: [
        {
          trade_id: 11,
          order_id: 22,
          instrument_id: 7,
          side: 'long',
          price: '50000',
          quantity: '0.01',
          taker: false,
          fee: '-0.025',
          fee_asset: 'USDC',
          previous_size: '0',
          previous_entry_price: '',
          pnl: '0',
          liquidation: false,
          timestamp: 1_767_000_000_000,
          hash: '0x',
        },
      ],
      more: false,
    }).data[0]
    const stream = FillsPush.parse([
      {
        tid: 11,
        oid: 22,
        iid: 7,
        side: 'long',
        p: '50000',
        qty: '0.01',
        taker: false,
        fee: '-0.025',
        fea: 'USDC',
        psz: '0',
        pep: '',
        pnl: '0',
        liq: false,
        ts: 1_767_000_000_000,
      },
    ])[0]
    expect(stream).toBeDefined()
    expect(rest).toEqual({ ...stream, hash: '0x' })
    expect(stream?.pep).toBe('0')
  })
})
