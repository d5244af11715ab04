/**
 * The commands and reads issue 23 adds, against the mock over loopback: leverage and margin mode
 * (enforced in the mock's margin maths), cancel by client order id, the dead-man switch's status and
 * its 5 s rule, and the market/account reads — each consistent with the mock's own state (the book
 * holds our resting order, klines follow the price path the statistics show, trades include our fills).
 */
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InputValidationError, RequestRejectedError } from '../../src/errors.ts'
import type { RunningMock } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { buildUpdateMargin } from '../../src/perps/signing/ops.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { advance, PROXY, PROXY_PK, SECRET, startStreamMock } from '../perps/stream/streamHarness.ts'

let mock: RunningMock
let perps: PerpsClient
const COID = 'c0ffee00c0ffee00c0ffee00c0ffee00'

beforeAll(async () => {
  mock = await startStreamMock()
  perps = createPerpsClient({
    baseUrl: mock.url,
    clock: mock.clock,
    random: seededRandom(3),
    credentials: { proxy: PROXY, secret: SECRET },
    signer: new CommandSigner({
      privateKey: PROXY_PK,
      clock: mock.clock,
      salts: new SaltSource(seededRandom(9)),
    }),
  })
})
afterAll(async () => {
  await perps.close()
  await mock.close()
})

describe('leverage and margin mode', () => {
  it('updateLeverage changes the initial margin the portfolio reports, and the config and mode follow', async () => {
    const iid = 1
    await perps.createOrders([{ iid, buy: true, qty: '0.05', tif: 'ioc' }])
    await perps.updateLeverage({ instrumentId: iid, leverage: 2, cross: true })
    const at2 = (await perps.getPortfolio()).positions.find((p) => p.instrument_id === iid)
    const ack = await perps.updateLeverage({ instrumentId: iid, leverage: 10, cross: false })
    expect(ack).toMatchObject({ status: 'ok', instrument_id: iid, leverage: 10, cross: false })
    const at10 = (await perps.getPortfolio()).positions.find((p) => p.instrument_id === iid)
    expect(at2?.leverage).toBe(2)
    expect(at10).toMatchObject({ leverage: 10, cross: false })
    // Five times the leverage, a fifth of the initial margin (to the cent).
    expect(Math.abs(Number(at2?.initial_margin) / Number(at10?.initial_margin) - 5)).toBeLessThan(0.01)
    expect(await perps.getAccountConfig({ instrumentId: iid })).toEqual([
      { instrument_id: iid, leverage: 10, cross: false },
    ])
    await expect(perps.updateMargin({ instrumentId: iid, amount: '2.5' })).resolves.toMatchObject({
      status: 'ok',
      margin: '2.5',
    })
    // The official body is `{amt, iid}`; the same signed op with our old `{iid, amount}` body is refused.
    const built = buildUpdateMargin({ iid, amount: '1' })
    const signer = new CommandSigner({
      privateKey: PROXY_PK,
      clock: mock.clock,
      salts: new SaltSource(seededRandom(5)),
    })
    const official = await signer.signCommand(built)
    expect(official.op).toEqual({ type: 'updateMargin', args: { amt: '1', iid } })
    const old = { ...official, op: { type: 'updateMargin', args: { iid, amount: '1' } } }
    const res = await request(`${mock.url}/v1/trade/margin`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': SECRET },
      body: JSON.stringify(old),
    })
    expect(res.statusCode).toBe(400)
    await res.body.dump()
    const refused = await perps
      .updateLeverage({ instrumentId: iid, leverage: 10_000, cross: true })
      .catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(RequestRejectedError)
    expect(refused).toMatchObject({ status: 422, code: 'invalid_leverage' })
  })
})

describe('orders by client id and the book', () => {
  it('a resting order shows in the book at its price and is cancelled by its client order id', async () => {
    const t = (await perps.getTickers()).find((x) => x.instrument_id === 1)
    if (t === undefined) expect.unreachable()
    const price = String(Math.floor(Number(t.mark_price) * 0.995))
    const [ack] = await perps.createOrders([
      { iid: 1, buy: true, p: price, qty: '0.03', tif: 'gtc', po: true, coid: COID },
    ])
    expect(ack?.status).toBe('ok')
    const book = await perps.getBook({ instrumentId: 1, depth: 10 })
    expect(book.bids.some(([p, q]) => p === price && q === '0.03')).toBe(true)
    expect(book.asks.length).toBeGreaterThan(0)
    const [res] = await perps.cancelOrdersCoid([COID])
    expect(res).toMatchObject({ status: 'ok', coid: COID })
    expect(await perps.getOpenOrders({ instrumentId: 1 })).toEqual([])
    const [again] = await perps.cancelOrdersCoid([COID])
    expect(again).toMatchObject({ status: 'err', error: 'order_unknown' })
  })
})

describe('market history', () => {
  it('klines follow the price path the statistics show; trades include our fills; funding rates settle', async () => {
    await advance(mock, 3_700_000, 60_000)
    const now = mock.clock.now()
    const stats = (await perps.getStatistics({ instrumentId: 1 }))[0]
    const k1m = await perps.getKlines({ instrumentId: 1, interval: '1m', startTimestamp: now - 3_600_000 })
    const lastStat = stats?.klines.at(-1)
    const sameMinute = k1m.data.find((k) => k[0] === lastStat?.[0])
    expect(sameMinute).toEqual(lastStat)
    const k1h = await perps.getKlines({ instrumentId: 1, interval: '1h', startTimestamp: now - 7_200_000 })
    const hour = k1h.data.at(-1)
    if (hour === undefined) expect.unreachable()
    const inHour = k1m.data.filter((k) => k[0] >= hour[0] && k[0] < hour[0] + 3_600_000)
    expect(hour[4]).toBe(inHour.at(-1)?.[4])
    expect(Number(hour[2])).toBe(Math.max(...inHour.map((k) => Number(k[2]))))
    const trades = await perps.getTrades({ instrumentId: 1, startTimestamp: 0 })
    const fills = (await perps.getFills({ startTimestamp: 0 })).data.filter((f) => f.iid === 1)
    for (const f of fills) expect(trades.data.some((x) => x.trade_id === f.tid && x.price === f.p)).toBe(true)
    expect(trades.data.length).toBeGreaterThan(fills.length)
    const funding = await perps.getFundingHistory({ instrumentId: 1 })
    expect(funding.data.length).toBeGreaterThanOrEqual(1)
    const pnl = await perps.getPnlHistory({ interval: '1h', startTimestamp: now - 7_200_000 })
    const equity = await perps.getEquityHistory({ interval: '1h', startTimestamp: now - 7_200_000 })
    expect(pnl.data.length).toBe(equity.data.length)
    expect(await perps.getBalances()).toEqual([expect.objectContaining({ asset: 'pUSD' })])
    expect(await perps.getDeposits()).toEqual({ data: [], more: false })
  }, 30_000)
})

describe('dead-man switch', () => {
  it('status reads the armed deadline and the day’s triggers; a deadline under 5 s ahead is refused before sending', async () => {
    const now = mock.clock.now()
    await expect(perps.setAutoCancel({ time: now + 4_000 })).rejects.toBeInstanceOf(InputValidationError)
    await perps.setAutoCancel({ time: now + 15_000 })
    expect(await perps.getAutoCancel()).toMatchObject({
      deadline: now + 15_000,
      triggered: 0,
      daily_limit: 10,
    })
    await advance(mock, 16_000)
    const after = await perps.getAutoCancel()
    expect(after).toMatchObject({ deadline: 0, triggered: 1 })
    expect(after.next_reset).toBeGreaterThan(mock.clock.now())
    await perps.setAutoCancel({ time: 0 })
  })
})
