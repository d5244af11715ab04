import { describe, expect, it } from 'vitest'
import { channel, parseChannel } from '../../../src/perps/stream/channels.ts'
import {
  ackItems,
  classifyFrame,
  PING_FRAME,
  parsePush,
  RequestFrame,
} from '../../../src/perps/stream/schemas.ts'

const order = {
  oid: 7,
  iid: 1,
  buy: true,
  p: '100.5',
  qty: '2',
  tif: 'gtc',
  po: true,
  ro: false,
  status: 'open',
  rest: '2',
  fill: '0',
  cts: 1,
  uts: 2,
}

describe('channel names', () => {
  it('parses the venue channels and rejects others', () => {
    expect(parseChannel('tickers::all')).toMatchObject({ kind: 'tickers', iid: undefined, private: false })
    expect(parseChannel('bbo::12')).toMatchObject({ kind: 'bbo', iid: 12 })
    expect(parseChannel('klines::3::5m')).toMatchObject({ kind: 'klines', iid: 3, interval: '5m' })
    expect(parseChannel('orders')).toMatchObject({ kind: 'orders', private: true })
    for (const bad of ['book::1::20', 'klines::1::1s', 'tpsl', 'tickers::', 'bbo::all', 'Orders'])
      expect(parseChannel(bad), bad).toBeUndefined()
    expect(channel.klines(4, '1h')).toBe('klines::4::1h')
    expect(channel.tickers()).toBe('tickers::all')
  })
})

describe('pushes', () => {
  it('types a push by its channel kind', () => {
    const r = parsePush({
      ch: 'tickers::all',
      ts: 10,
      sq: 4,
      data: { iid: 1, idx: '100', mark: '100.1', last: '100', mid: '100.05', oi: '3', fr: '0.0001', nxf: 99 },
    })
    expect(r.ok).toBe(true)
    if (r.ok && r.push.kind === 'tickers') expect(r.push.data.idx).toBe('100')
    else expect.unreachable()
  })

  it('takes the instrument of a book from its channel', () => {
    const r = parsePush({ ch: 'book::5', ts: 1, sq: 0, data: { b: [['1.5', '2']], a: [] } })
    expect(r).toMatchObject({ ok: true, push: { kind: 'book', iid: 5 } })
  })

  it('rejects what the bindings drop', () => {
    const cases: [unknown, string][] = [
      [{ ch: 'fills', ts: 1, sq: 1, data: { tid: 1 } }, 'invalid_data'],
      [{ ch: 'tickers::all', ts: 1, sq: 1, data: [] }, 'invalid_data'],
      [{ ch: 'book::1', ts: 1, sq: 1, data: { b: [[1, 2]], a: [] } }, 'invalid_data'],
      [{ ch: 'book::1::20', ts: 1, sq: 1, data: { b: [], a: [] } }, 'unknown_channel'],
      [{ ch: 'orders', ts: 1, sq: -1, data: order }, 'not_a_push'],
    ]
    for (const [frame, reason] of cases) expect(parsePush(frame)).toMatchObject({ ok: false, reason })
  })

  it('accepts the private shapes', () => {
    expect(parsePush({ ch: 'orders', ts: 1, sq: 1, data: { ...order, tpsl: null } }).ok).toBe(true)
    const fill = {
      tid: 1,
      oid: 7,
      iid: 1,
      side: 'long',
      p: '100',
      qty: '1',
      taker: false,
      fee: '-0.005',
      fea: 'pUSD',
      psz: '1',
      pep: '100',
      pnl: '0',
      liq: false,
      ts: 3,
    }
    expect(parsePush({ ch: 'fills', ts: 1, sq: 2, data: [fill] }).ok).toBe(true)
    const w = { withdraw_id: 1, asset: 'pUSD', amount: '100000000', fee: '1', status: 'pending', to: '0x1' }
    expect(parsePush({ ch: 'withdrawals', ts: 1, sq: 0, data: w }).ok).toBe(true)
    expect(parsePush({ ch: 'withdrawals', ts: 1, sq: 0, data: { ...w, amount: '1.5' } }).ok).toBe(false)
  })
})

describe('frames', () => {
  it('classifies responses, pushes and errors', () => {
    expect(classifyFrame({ id: 0, data: { status: 'ok', ts: 5 } }).type).toBe('response')
    expect(classifyFrame({ ch: 'orders', ts: 1, sq: 1, data: {} }).type).toBe('push')
    expect(classifyFrame({ status: 'err', error: 'message_rate_limited' }).type).toBe('error')
    expect(classifyFrame('x').type).toBe('unknown')
  })

  it('reads acks in each form', () => {
    expect(ackItems({ id: 1, data: [{ status: 'ok' }, { status: 'err', error: 'x' }] })).toHaveLength(2)
    expect(ackItems({ id: 1, status: 'err', error: 'unauthorized' })).toEqual([
      { status: 'err', error: 'unauthorized' },
    ])
  })

  it('parses the official client frames', () => {
    expect(RequestFrame.safeParse(JSON.parse(PING_FRAME)).success).toBe(true)
    expect(RequestFrame.safeParse({ id: 2, req: 'sub', chs: ['orders'] }).success).toBe(true)
    expect(RequestFrame.safeParse({ id: 2, req: 'sub', chs: [] }).success).toBe(false)
  })
})
