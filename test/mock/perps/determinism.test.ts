import { describe, expect, it } from 'vitest'
import { buildCancelAll, buildCreateOrders, buildModifyOrders } from '../../../src/perps/signing/ops.ts'
import { rig } from './helpers.ts'

/** One scripted session; returns every response (status, headers, body) as JSON text. */
async function session(seed: number, scenario: string): Promise<string> {
  const r = await rig({ seed, scenario, historyMinutes: 120 })
  const out: unknown[] = []
  const log = async (p: Promise<unknown>) => out.push(await p)
  for (let i = 0; i < 6; i++) {
    r.clock.advance(7_000 + i * 333)
    await log(r.call('GET', '/v1/info/index', { query: { asset: 'BTC' } }))
    await log(r.call('GET', '/v1/info/statistics', { query: { instrument_id: '2' } }))
    const res = await r.send(
      'POST',
      '/v1/trade/orders',
      buildCreateOrders({
        orders: [
          { iid: 3, buy: true, p: '145', qty: '20', tif: 'gtc' },
          { iid: 2, buy: i % 2 === 0, qty: '0.5', tif: 'ioc' },
        ],
      }),
    )
    out.push(res)
    const oid = (res.body as { oid?: number }[])[0]?.oid
    if (oid !== undefined)
      await log(
        r.send('PATCH', '/v1/trade/orders', buildModifyOrders({ orders: [{ oid, p: '146', qty: '25' }] })),
      )
    await log(r.call('GET', '/v1/account/portfolio'))
    await log(r.call('GET', '/v1/account/open-orders'))
  }
  r.clock.advance(3_600_000)
  await log(r.send('DELETE', '/v1/trade/orders/all', buildCancelAll()))
  for (const path of [
    '/v1/account/funding',
    '/v1/account/withdrawals',
    '/v1/account/orders',
    '/v1/account/credentials',
    '/v1/account/referral',
  ])
    await log(r.call('GET', path))
  await log(r.call('GET', '/v1/info/statistics'))
  out.push(r.ex.snapshot())
  return JSON.stringify(out)
}

describe('determinism', () => {
  it('gives byte-identical responses for the same seed and the same requests at the same virtual times', async () => {
    for (const scenario of ['calm', 'liquidation']) {
      const a = await session(5, scenario)
      const b = await session(5, scenario)
      expect(a.length).toBeGreaterThan(10_000)
      expect(a === b).toBe(true)
    }
    const other = await session(6, 'calm')
    expect(other === (await session(5, 'calm'))).toBe(false)
  })
})
