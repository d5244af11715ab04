/** The mock's dead-man switch: `PATCH /v1/trade/auto-cancel` and `GET /v1/account/auto-cancel`. */
import { describe, expect, it } from 'vitest'
import { AUTO_CANCEL_DAILY_LIMIT } from '../../../src/mock/perps/autoCancel.ts'
import type { OrderDataWire } from '../../../src/perps/schemas/orders.ts'
import { buildCreateOrders } from '../../../src/perps/signing/ops.ts'
import { type Rig, rig, START } from './helpers.ts'

const DAY = 86_400_000

async function pinned(options: Parameters<typeof rig>[0] = {}): Promise<Rig> {
  const r = await rig({ maxCatchUpMs: 60_000, ...options })
  r.ex.setRegime('ETH', 'frozen')
  r.ex.setIndexPrice('ETH', '3000')
  return r
}

/** Signs `["autoCancel", [time]]` with the proxy and sends it. */
function autoCancel(r: Rig, time: number, signedTime = time) {
  return r.send('PATCH', '/v1/trade/auto-cancel', {
    op: { type: 'autoCancel', args: { time } },
    signedOp: ['autoCancel', [signedTime]],
  })
}

async function placeBids(r: Rig, prices: string[]): Promise<number[]> {
  const res = await r.send(
    'POST',
    '/v1/trade/orders',
    buildCreateOrders({
      orders: prices.map((p) => ({ iid: 2, buy: true, p, qty: '0.01', tif: 'gtc' as const })),
    }),
  )
  expect(res.status).toBe(200)
  return (res.body as { oid: number }[]).map((a) => a.oid)
}

async function openOids(r: Rig): Promise<number[]> {
  const res = await r.call('GET', '/v1/account/open-orders')
  return (res.body as OrderDataWire[]).map((o) => o.order_id)
}

async function status(r: Rig): Promise<unknown> {
  return (await r.call('GET', '/v1/account/auto-cancel')).body
}

describe('dead-man switch (auto-cancel)', () => {
  it('arms, and cancels every open order when the deadline passes on the virtual clock (one-shot)', async () => {
    const r = await pinned()
    const oids = await placeBids(r, ['2990', '2980'])
    const deadline = START + 30_000
    expect(await autoCancel(r, deadline)).toMatchObject({ status: 200, body: { status: 'ok', deadline } })
    expect(await status(r)).toEqual({ deadline, triggered: 0, daily_limit: 10, next_reset: START + DAY })
    r.clock.advance(29_999)
    expect(await openOids(r)).toEqual(oids)
    r.clock.advance(1)
    expect(await openOids(r)).toEqual([])
    const history = (await r.call('GET', '/v1/account/orders')).body as OrderDataWire[]
    expect(history.map((o) => [o.order_id, o.status, o.updated_timestamp])).toEqual(
      oids.map((oid) => [oid, 'auto_cancelled', deadline]).reverse(),
    )
    expect(await status(r)).toMatchObject({ deadline: 0, triggered: 1 })
    // One-shot: orders placed after the fire stay.
    const later = await placeBids(r, ['2970'])
    r.clock.advance(60_000)
    expect(await openOids(r)).toEqual(later)
  })

  it('fires at the deadline even between simulation steps, before the next request is handled', async () => {
    const r = await pinned()
    const [first] = await placeBids(r, ['2990'])
    const deadline = START + 5_500
    await autoCancel(r, deadline)
    r.clock.advance(5_600)
    const after = await placeBids(r, ['2985'])
    expect(await openOids(r)).toEqual(after)
    const row = (
      (await r.call('GET', '/v1/account/orders', { query: { order_id: String(first) } }))
        .body as OrderDataWire[]
    )[0]
    expect(row).toMatchObject({ status: 'auto_cancelled', updated_timestamp: deadline })
  })

  it('keeps the orders while the deadline is refreshed before it passes', async () => {
    const r = await pinned()
    const oids = await placeBids(r, ['2990'])
    await autoCancel(r, START + 30_000)
    for (let i = 1; i <= 5; i++) {
      r.clock.advance(20_000)
      expect(await autoCancel(r, START + i * 20_000 + 30_000)).toMatchObject({ status: 200 })
      expect(await openOids(r)).toEqual(oids)
    }
    expect(await status(r)).toMatchObject({ deadline: START + 130_000, triggered: 0 })
    r.clock.advance(30_000)
    expect(await openOids(r)).toEqual([])
  })

  it('clears with time 0: nothing is cancelled and no trigger is counted', async () => {
    const r = await pinned()
    const oids = await placeBids(r, ['2990'])
    await autoCancel(r, START + 10_000)
    expect(await autoCancel(r, 0)).toMatchObject({ status: 200, body: { status: 'ok', deadline: 0 } })
    r.clock.advance(60_000)
    expect(await openOids(r)).toEqual(oids)
    expect(await status(r)).toMatchObject({ deadline: 0, triggered: 0 })
  })

  it('rejects arming past the daily trigger limit (clearing still works) until the next UTC day', async () => {
    const r = await pinned()
    for (let i = 0; i < AUTO_CANCEL_DAILY_LIMIT; i++) {
      expect((await autoCancel(r, r.clock.now() + 5_000)).status).toBe(200)
      r.clock.advance(5_000)
    }
    expect(await status(r)).toMatchObject({ deadline: 0, triggered: AUTO_CANCEL_DAILY_LIMIT })
    expect(await autoCancel(r, r.clock.now() + 5_000)).toMatchObject({
      status: 422,
      body: { status: 'err', error: 'auto_cancel_daily_limit_reached' },
    })
    expect(await autoCancel(r, 0)).toMatchObject({ status: 200, body: { deadline: 0 } })
    r.clock.set(START + DAY)
    expect(await status(r)).toMatchObject({ triggered: 0, next_reset: START + 2 * DAY })
    expect((await autoCancel(r, START + DAY + 10_000)).status).toBe(200)
  })

  it('validates the time, the signature and the action weight', async () => {
    const r = await pinned({ actionBudgetPerMinute: 15 })
    const tooSoon = await autoCancel(r, START + 4_999)
    expect(tooSoon).toMatchObject({ status: 400, body: { status: 'err' } })
    expect((tooSoon.body as { error: string }).error).toMatch(/at least 5 seconds/)
    expect(await autoCancel(r, START + 60_000, START + 61_000)).toMatchObject({
      status: 400,
      body: { status: 'err', error: 'account not found for proxy' },
    })
    expect((await autoCancel(r, START + 60_000)).status).toBe(200)
    // 10 action tokens a call: the second within the minute exceeds a budget of 15.
    const limited = await autoCancel(r, START + 70_000)
    expect(limited.status).toBe(429)
    expect(limited.body).toEqual({ status: 'err', error: 'action_rate_limited' })
    expect(limited.headers?.['retry-after']).toBeDefined()
    expect(await status(r)).toMatchObject({ deadline: START + 60_000 })
  })
})
