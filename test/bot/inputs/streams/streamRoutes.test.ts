import { describe, expect, it } from 'vitest'
import { bboChannels } from '../../../../src/bot/inputs/streams/botStreams.ts'
import {
  BBO_REFRESH_MS,
  botChangeFilter,
  createChangeFilter,
  routePush,
  STREAM_ROUTES,
  type StreamRouteTable,
  type StreamRouteTargets,
} from '../../../../src/bot/inputs/streams/streamRoutes.ts'
import { createOpenOrderBook, type OpenOrdersUpdate } from '../../../../src/bot/orders/openOrderBook.ts'
import type { Fill, Portfolio } from '../../../../src/perps/schemas/account.ts'
import type { Order } from '../../../../src/perps/schemas/orders.ts'
import { StreamSettings } from '../../../../src/settings/schema.ts'

type StreamSettingsT = ReturnType<typeof StreamSettings.parse>

import { parsePush, type StreamPush, type WithdrawalPush } from '../../../../src/perps/stream/schemas.ts'

/** A push as the client hands it over: parsed against the channel's own schema. */
function push(ch: string, data: unknown, ts = 5_000, sq = 1): StreamPush {
  const parsed = parsePush({ ch, ts, sq, data })
  if (!parsed.ok) throw new Error(`bad fixture ${ch}: ${parsed.issues.join('; ')}`)
  return parsed.push
}

function targets() {
  const routed: { ids: readonly number[]; event: { type: string } & Record<string, unknown> }[] = []
  const orders: Order[] = []
  const portfolios: Portfolio[] = []
  const fills: Fill[] = []
  const withdrawals: WithdrawalPush[] = []
  const t: StreamRouteTargets = {
    now: () => 42,
    traded: new Set([1, 2]),
    route: (ids, event) => void routed.push({ ids, event }),
    klinesKept: 2,
    orders: { observe: (o) => void orders.push(o) },
    account: {
      observePortfolio: (p) => void portfolios.push(p),
      observeFill: (f) => void fills.push(f),
      observeWithdrawal: (w) => void withdrawals.push(w),
    },
  }
  return { t, routed, orders, portfolios, fills, withdrawals }
}

const ticker = (iid: number) => ({
  iid,
  idx: '100.5',
  mark: '100.6',
  last: '100.4',
  mid: '100.5',
  oi: '10',
  fr: '0.0001',
  nxf: 9_000,
})
const order = (oid: number, status: string, uts: number, iid = 1): Order => ({
  oid,
  iid,
  buy: true,
  p: '99',
  qty: '1',
  tif: 'gtc',
  po: true,
  ro: false,
  rest: '1',
  fill: '0',
  cts: 1,
  uts,
  status,
})
const fill = (tid: number, ts: number) => ({
  tid,
  oid: 7,
  iid: 1,
  side: 'long',
  p: '99',
  qty: '1',
  fee: '0.01',
  fea: 'USDC',
  taker: false,
  liq: false,
  psz: '1',
  pep: '99',
  pnl: '0',
  ts,
})
const position = {
  instrument_id: 2,
  symbol: 'X',
  size: '1',
  entry_price: '100',
  leverage: 10,
  cross: true,
  initial_margin: '10',
  maintenance_margin: '5',
  position_value: '100',
  liquidation_price: '50',
  unrealized_pnl: '0',
  return_on_equity: '0',
  cumulative_funding: '0',
}
const portfolio = {
  positions: [],
  margin: {
    total_account_value: '1000',
    total_initial_margin: '0',
    total_maintenance_margin: '0',
    total_position_value: '0',
  },
  withdrawable: '1000',
  in_liquidation: false,
  timestamp: 1,
}

describe('the stream routing table', () => {
  it('tickers: index and mark to the traded instrument, others dropped', () => {
    const { t, routed } = targets()
    expect(routePush(STREAM_ROUTES, push('tickers::all', ticker(2)), t)).toBe(true)
    routePush(STREAM_ROUTES, push('tickers::all', ticker(9)), t)
    expect(routed).toEqual([
      {
        ids: [2],
        event: {
          type: 'INDEX',
          index: { price: '100.5', ts: 5_000, mark: '100.6', fundingRate: '0.0001' },
          receivedAt: 42,
        },
      },
    ])
  })

  it('statistics: the newest klines only', () => {
    const { t, routed } = targets()
    const k = (i: number) => [i, '1', '1', '1', '1', '1', 1]
    routePush(
      STREAM_ROUTES,
      push('statistics::all', { iid: 1, vol: '5', open: '99', klines: [k(1), k(2), k(3)] }),
      t,
    )
    expect(routed[0]?.event).toEqual({
      type: 'STATISTICS',
      statistics: { volume: '5', openPrice: '99', klines: [k(2), k(3)] },
      receivedAt: 42,
    })
  })

  it('portfolio: account supervision and one ACCOUNT event per traded instrument', () => {
    const { t, routed, portfolios } = targets()
    routePush(STREAM_ROUTES, push('portfolio', portfolio), t)
    expect(portfolios).toHaveLength(1)
    expect(routed.map((r) => [r.ids, r.event.type])).toEqual([
      [[1], 'ACCOUNT'],
      [[2], 'ACCOUNT'],
    ])
  })

  it('portfolio: a margin moved by millionths (a reprice) waits for the refresh, a real move routes the exact figures', () => {
    const { t, routed, portfolios } = targets()
    let now = 0
    const withFilter: StreamRouteTargets = {
      ...t,
      now: () => now,
      changed: createChangeFilter(() => now, { index: 5_000, bbo: 1_500 }),
    }
    const margin = (value: string, im: string) => ({
      ...portfolio,
      margin: { ...portfolio.margin, total_account_value: value, total_initial_margin: im },
    })
    routePush(STREAM_ROUTES, push('portfolio', margin('100000', '5000')), withFilter)
    expect(routed).toHaveLength(2)
    now = 1_000
    routePush(STREAM_ROUTES, push('portfolio', margin('100000', '5000.01')), withFilter)
    expect(routed).toHaveLength(2)
    expect(portfolios).toHaveLength(2) // account supervision sees every portfolio
    now = 2_000
    routePush(STREAM_ROUTES, push('portfolio', margin('99000', '5000.01')), withFilter)
    expect(routed.slice(2).map((r) => [r.ids, r.event.margin])).toEqual([
      [[1], expect.objectContaining({ accountValue: '99000', initialMargin: '5000.01' })],
      [[2], expect.objectContaining({ accountValue: '99000', initialMargin: '5000.01' })],
    ])
    // Unchanged in its figures, the exact margin arrives with the refresh.
    now = 3_000
    routePush(STREAM_ROUTES, push('portfolio', margin('99000.5', '5000.02')), withFilter)
    expect(routed).toHaveLength(4)
    now = 7_000
    routePush(STREAM_ROUTES, push('portfolio', margin('99000.5', '5000.02')), withFilter)
    expect(routed.slice(4).map((r) => r.event.margin)).toEqual([
      expect.objectContaining({ accountValue: '99000.5', initialMargin: '5000.02' }),
      expect.objectContaining({ accountValue: '99000.5', initialMargin: '5000.02' }),
    ])
  })

  it('portfolio: a margin total counts in 1e-4 of the account value, a liquidation price by its leading figures', () => {
    const { t, routed } = targets()
    const withFilter: StreamRouteTargets = {
      ...t,
      now: () => 0,
      changed: createChangeFilter(() => 0, { index: 5_000, bbo: 1_500 }, ['margin']),
    }
    const at = (im: string, liq: string) => ({
      ...portfolio,
      margin: { ...portfolio.margin, total_account_value: '100000', total_initial_margin: im },
      positions: [{ ...position, liquidation_price: liq }],
    })
    routePush(STREAM_ROUTES, push('portfolio', at('381.0', '47642.29')), withFilter)
    expect(routed).toHaveLength(2)
    // The initial margin moved in its own 4th figure but by 2 of 100,000; the liquidation price
    // in its 7th figure: a mark's move, nothing for the actors' risk (the margin ratio within 1e-4).
    routePush(STREAM_ROUTES, push('portfolio', at('383.0', '47642.54')), withFilter)
    expect(routed).toHaveLength(2)
    // 12 of 100,000: every instrument's margin; the liquidation price in its 4th figure: its own only.
    routePush(STREAM_ROUTES, push('portfolio', at('396.0', '47642.54')), withFilter)
    expect(routed).toHaveLength(4)
    routePush(STREAM_ROUTES, push('portfolio', at('396.0', '47662.54')), withFilter)
    expect(routed.slice(4).map((r) => [r.ids, r.event.position])).toEqual([
      [[position.instrument_id], expect.objectContaining({ liquidationPrice: '47662.54' })],
    ])
  })

  it('orders to the open-order book, fills oldest first and withdrawals to account supervision', () => {
    const { t, orders, fills, withdrawals } = targets()
    routePush(STREAM_ROUTES, push('orders', order(7, 'open', 3)), t)
    routePush(STREAM_ROUTES, push('fills', [fill(2, 20), fill(1, 10)]), t)
    routePush(
      STREAM_ROUTES,
      push('withdrawals', {
        withdraw_id: 3,
        asset: 'USDC',
        amount: '1',
        fee: '0',
        status: 'failed',
        to: '0x1',
      }),
      t,
    )
    expect(orders.map((o) => o.oid)).toEqual([7])
    expect(fills.map((f) => f.tid)).toEqual([1, 2])
    expect(withdrawals.map((w) => w.status)).toEqual(['failed'])
  })

  it('bbo: the best bid and offer to the traded instrument, others dropped', () => {
    const { t, routed } = targets()
    expect(
      routePush(STREAM_ROUTES, push('bbo::1', { iid: 1, bp: '99', bq: '1', ap: '101', aq: '2' }), t),
    ).toBe(true)
    routePush(STREAM_ROUTES, push('bbo::9', { iid: 9, bp: '99', bq: '1', ap: '101', aq: '2' }), t)
    expect(routed).toEqual([
      {
        ids: [1],
        event: {
          type: 'BBO',
          bbo: { bid: { price: '99', qty: '1' }, ask: { price: '101', qty: '2' } },
          receivedAt: 42,
        },
      },
    ])
  })

  it('a kind without a route is reported, and adding one is one entry', () => {
    const { t } = targets()
    const book = push('book::1', { b: [['99', '1']], a: [['101', '1']] })
    expect(routePush(STREAM_ROUTES, book, t)).toBe(false)
    const seen: number[] = []
    const table: StreamRouteTable = { ...STREAM_ROUTES, book: (p) => void seen.push(p.data.b.length) }
    expect(routePush(table, book, t)).toBe(true)
    expect(seen).toEqual([1])
  })
})

describe('change filter', () => {
  it('routes a changed value at once, an unchanged one only when its refresh is due', () => {
    let now = 0
    const changed = createChangeFilter(() => now, { index: 5_000, bbo: 1_500 })
    expect(changed('i1', '100|100.1', 'index')).toBe(true)
    now = 1_000
    expect(changed('i1', '100|100.1', 'index')).toBe(false)
    expect(changed('i2', '100|100.1', 'index')).toBe(true)
    expect(changed('i1', '100.5|100.1', 'index')).toBe(true)
    now = 5_999
    expect(changed('i1', '100.5|100.1', 'index')).toBe(false)
    now = 6_000
    expect(changed('i1', '100.5|100.1', 'index')).toBe(true)
    expect(changed('b1', '99|1|101|1', 'bbo')).toBe(true)
    now = 7_500
    expect(changed('b1', '99|1|101|1', 'bbo')).toBe(true)
  })

  it('the tickers and bbo routes skip what the filter holds back', () => {
    const { t, routed } = targets()
    const seen = new Set<string>()
    const filtered = {
      ...t,
      changed: (key: string, value: string) => !seen.has(key + value) && !!seen.add(key + value),
    }
    routePush(STREAM_ROUTES, push('tickers::all', ticker(1)), filtered)
    routePush(STREAM_ROUTES, push('tickers::all', ticker(1), 6_000, 2), filtered)
    routePush(STREAM_ROUTES, push('bbo::1', { iid: 1, bp: '99', bq: '1', ap: '101', aq: '2' }), filtered)
    routePush(
      STREAM_ROUTES,
      push('bbo::1', { iid: 1, bp: '99', bq: '1', ap: '101', aq: '2' }, 6_000, 2),
      filtered,
    )
    expect(routed.map((r) => r.event.type)).toEqual(['INDEX', 'BBO'])
  })
})

describe('bbo subscriptions', () => {
  const settings = (over: Partial<StreamSettingsT> = {}): StreamSettingsT => ({
    ...StreamSettings.parse({}),
    ...over,
  })
  it('one bbo channel per traded instrument within the public sockets, a warning for the rest', () => {
    const warned: string[] = []
    const log = { warn: (_o: unknown, m: string) => void warned.push(m) }
    const inputs = ['tickers::all', 'statistics::all', 'portfolio', 'orders']
    expect(bboChannels(settings(), new Set([3, 1]), inputs, log)).toEqual(['bbo::1', 'bbo::3'])
    expect(warned).toEqual([])
    const many = new Set(Array.from({ length: 400 }, (_, i) => i + 1))
    // 4 sockets, one private: 3 × 100 public subscriptions, 2 taken by tickers and statistics.
    expect(bboChannels(settings(), many, inputs, log)).toHaveLength(298)
    expect(warned[0]).toMatch(/298 of 400/)
    expect(bboChannels(settings({ bbo: false }), many, inputs, log)).toEqual([])
  })
})

describe('open-order book: pushed order states', () => {
  it('adds resting orders, removes finished ones, never goes back to an older state', async () => {
    const reads: Order[][] = [[order(1, 'open', 10)]]
    const book = createOpenOrderBook({
      perps: { getOpenOrders: async () => reads.shift() ?? [] },
      clock: { now: () => 77 },
      instrumentIds: [1],
    })
    const updates: OpenOrdersUpdate[] = []
    book.subscribe((u) => void updates.push(u))
    await book.reconcile()
    book.observe(order(2, 'accepted', 11))
    book.observe(order(1, 'filled', 12))
    book.observe(order(2, 'open', 9)) // older than what is known: ignored
    book.observe(order(3, 'cancelled', 13)) // never known, finished: nothing to publish
    book.observe(order(4, 'open', 13, 5)) // an instrument the bot does not trade
    const ids = updates.map((u) => (u.byInstrument.get(1) ?? []).map((o) => `${o.oid}:${o.status}`))
    expect(ids).toEqual([['1:open'], ['1:open', '2:accepted'], ['2:accepted']])
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([2])
  })

  it('the snapshot is the last full read with each pushed instrument laid over it, newest push last', async () => {
    const reads: Order[][] = [
      [order(1, 'open', 10, 1), order(2, 'open', 10, 2), order(3, 'open', 10, 3), order(4, 'open', 10, 1)],
      [order(5, 'open', 20, 2)],
    ]
    const book = createOpenOrderBook({
      perps: { getOpenOrders: async () => reads.shift() ?? [] },
      clock: { now: () => 77 },
      instrumentIds: [1, 2, 3],
    })
    await book.reconcile()
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([1, 2, 3, 4])
    book.observe(order(6, 'open', 11, 1))
    book.observe(order(3, 'filled', 11, 3))
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([2, 1, 4, 6])
    book.observe(order(7, 'open', 12, 1))
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([2, 1, 4, 6, 7])
    // A read of one instrument is published but not taken as the complete picture.
    await book.reconcile([2])
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([2, 1, 4, 6, 7])
    book.observe(order(8, 'open', 21, 2))
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([1, 4, 6, 7, 5, 8])
    // A complete read replaces everything pushed before it.
    reads.push([order(9, 'open', 30, 3)])
    await book.reconcile()
    expect(book.snapshot().orders.map((o) => o.oid)).toEqual([9])
  })
})

describe('urgent and deferred routes', () => {
  function deferring() {
    const base = targets()
    const deferred: { ids: readonly number[]; event: { type: string } & Record<string, unknown> }[] = []
    let now = 0
    const changed = createChangeFilter(() => now, { index: 5_000, bbo: 1_500, margin: 10_000 })
    const t: StreamRouteTargets = {
      ...base.t,
      changed,
      defer: (ids, event) => void deferred.push({ ids, event }),
    }
    const at = (ms: number): void => {
      now = ms
    }
    return { ...base, t, deferred, at }
  }

  it('the filter tells a new value from a refresh of an unchanged one', () => {
    let now = 0
    const f = createChangeFilter(() => now, { index: 5_000, bbo: 1_500 })
    expect(f.classify('i1', 'a', 'index')).toBe('new')
    now = 4_999
    expect(f.classify('i1', 'a', 'index')).toBe('hold')
    now = 5_000
    expect(f.classify('i1', 'a', 'index')).toBe('refresh')
    expect(f.classify('i1', 'b', 'index')).toBe('new')
    // margin refreshes as often as the index unless given
    expect(f.classify('a1', 'm', 'margin')).toBe('new')
    now = 10_000
    expect(f.classify('a1', 'm', 'margin')).toBe('refresh')
  })

  it("the bot's filter: an unchanged BBO or margin only renews its age; routed again after a silence", () => {
    let now = 0
    const f = botChangeFilter(() => now, { staleIndexMs: 15_000, staleMarginMs: 30_000 })
    expect(f.classify('b1', 'touch', 'bbo')).toBe('new')
    expect(f.classify('a1', 'm', 'margin')).toBe('new')
    expect(f.classify('i1', 'x', 'index')).toBe('new')
    const verdicts: string[] = []
    for (now = 1_000; now <= 60_000; now += 1_000) {
      verdicts.push(f.classify('b1', 'touch', 'bbo'), f.classify('a1', 'm', 'margin'))
      expect(f.seenAt('bbo', 1)).toBe(now)
      expect(f.seenAt('margin', 1)).toBe(now)
      f.classify('i1', 'x', 'index')
    }
    expect(verdicts.every((v) => v === 'hold')).toBe(true)
    // A silence of the BBO's refresh period: the repeat is an event (a stale touch may be fresh again).
    now += BBO_REFRESH_MS
    expect(f.classify('b1', 'touch', 'bbo')).toBe('refresh')
    expect(f.classify('a1', 'm', 'margin')).toBe('hold') // a third of 30 s has not passed
    now += 10_000
    expect(f.classify('a1', 'm', 'margin')).toBe('refresh')
    expect(f.seenAt('bbo', 2)).toBeUndefined()
    // A restarted actor lost its inputs: the filter forgets them, so the next pushes reach it.
    f.forget(1)
    expect(f.seenAt('bbo', 1)).toBeUndefined()
    expect([
      f.classify('b1', 'touch', 'bbo'),
      f.classify('a1', 'm', 'margin'),
      f.classify('i1', 'x', 'index'),
    ]).toEqual(['new', 'new', 'new'])
  })

  it('an unchanged BBO held by the bot filter is handed to `touchRenewed` (the markouts), not routed', () => {
    const { t, routed } = targets()
    let now = 0
    const renewed: number[] = []
    const withFilter: StreamRouteTargets = {
      ...t,
      now: () => now,
      changed: botChangeFilter(() => now, { staleIndexMs: 15_000 }),
      touchRenewed: (id) => void renewed.push(id),
    }
    const touch = () => push('bbo::1', { iid: 1, bp: '99', bq: '1', ap: '101', aq: '2' })
    routePush(STREAM_ROUTES, touch(), withFilter)
    for (now = 1_000; now <= 5_000; now += 1_000) routePush(STREAM_ROUTES, touch(), withFilter)
    expect(routed.map((r) => r.event.type)).toEqual(['BBO'])
    expect(renewed).toEqual([1, 1, 1, 1, 1])
  })

  it('a changed index is routed at once, its refresh deferred, a repeat in between dropped', () => {
    const { t, routed, deferred, at } = deferring()
    routePush(STREAM_ROUTES, push('tickers::all', ticker(1)), t)
    at(1_000)
    routePush(STREAM_ROUTES, push('tickers::all', ticker(1), 6_000, 2), t)
    at(5_000)
    routePush(STREAM_ROUTES, push('tickers::all', ticker(1), 7_000, 3), t)
    expect(routed.map((r) => r.event.type)).toEqual(['INDEX'])
    expect(deferred.map((r) => [r.ids, r.event.type])).toEqual([[[1], 'INDEX']])
  })

  it('statistics are deferred; the portfolio fans out deferred, only on change or refresh, a liquidation at once', () => {
    const { t, routed, deferred, portfolios, at } = deferring()
    const k = (i: number) => [i, '1', '1', '1', '1', '1', 1]
    routePush(STREAM_ROUTES, push('statistics::all', { iid: 1, vol: '5', open: '99', klines: [k(1)] }), t)
    expect(deferred.map((r) => r.event.type)).toEqual(['STATISTICS'])
    deferred.length = 0
    routePush(STREAM_ROUTES, push('portfolio', portfolio), t)
    at(1_000)
    routePush(STREAM_ROUTES, push('portfolio', portfolio, 6_000, 2), t)
    expect(portfolios).toHaveLength(2)
    expect(deferred.map((r) => [r.ids, r.event.type])).toEqual([
      [[1], 'ACCOUNT'],
      [[2], 'ACCOUNT'],
    ])
    const withPosition = {
      ...portfolio,
      positions: [
        {
          instrument_id: 2,
          symbol: 'X',
          size: '1',
          entry_price: '100',
          leverage: 10,
          cross: true,
          initial_margin: '10',
          maintenance_margin: '5',
          position_value: '100',
          liquidation_price: '50',
          unrealized_pnl: '0',
          return_on_equity: '0',
          cumulative_funding: '0',
        },
      ],
    }
    const parsed = parsePush({ ch: 'portfolio', ts: 7_000, sq: 3, data: withPosition })
    if (parsed.ok) routePush(STREAM_ROUTES, parsed.push, t)
    else expect.fail(parsed.issues.join('; '))
    expect(deferred.map((r) => r.ids[0])).toEqual([1, 2, 2])
    expect(deferred.at(-1)?.event).toMatchObject({ position: { size: '1', entryPrice: '100' } })
    routePush(STREAM_ROUTES, push('portfolio', { ...portfolio, in_liquidation: true }, 8_000, 4), t)
    expect(routed.map((r) => [r.ids, r.event.type])).toEqual([
      [[1], 'ACCOUNT'],
      [[2], 'ACCOUNT'],
    ])
  })
})
