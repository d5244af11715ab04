import { afterEach, describe, expect, it } from 'vitest'
import { type RunningMockServer, startMockHttpServer } from '../../../src/mock/httpServer.ts'
import { createPerpsExchange } from '../../../src/mock/perps/exchange.ts'
import { createPerpsHandler } from '../../../src/mock/perps/handler.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { buildCreateOrders } from '../../../src/perps/signing/ops.ts'
import { seededRandom } from '../../../src/random.ts'
import { manualClock, OWNER_PK, PROXY, PROXY_PK, START } from './helpers.ts'

let server: RunningMockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

describe('loopback HTTP', () => {
  it('serves the venue over 127.0.0.1: createProxy, a header read, a signed order, Retry-After', async () => {
    const clock = manualClock()
    const ex = createPerpsExchange({ clock, historyMinutes: 0, actionBudgetPerMinute: 1 })
    server = await startMockHttpServer({ handler: createPerpsHandler(ex) })
    const owner = new CommandSigner({ privateKey: OWNER_PK, clock, salts: seededRandom(1) })
    const proxy = new CommandSigner({ privateKey: PROXY_PK, clock, salts: seededRandom(2) })
    const post = (path: string, body: unknown, method = 'POST') =>
      fetch(`${server?.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const created = await post(
      '/v1/account/proxy',
      await owner.signCreateProxy({ proxy: PROXY, expiry: START + 86_400_000 }),
    )
    expect(created.status).toBe(200)
    const { secret } = (await created.json()) as { secret: string }
    const pf = await fetch(`${server.url}/v1/account/portfolio`, {
      headers: { 'POLYMARKET-PROXY': PROXY, 'POLYMARKET-SECRET': secret },
    })
    expect(pf.status).toBe(200)
    expect(await pf.json()).toMatchObject({ in_liquidation: false })
    const order = buildCreateOrders({ orders: [{ iid: 2, buy: true, p: '2000', qty: '1', tif: 'ioc' }] })
    const first = await post('/v1/trade/orders', await proxy.signCommand(order))
    expect(first.status).toBe(200)
    const limited = await post('/v1/trade/orders', await proxy.signCommand(order))
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('60')
    expect(await limited.json()).toEqual({ status: 'err', error: 'action_rate_limited' })
    const missing = await fetch(`${server.url}/v1/info/nothing`)
    expect(missing.status).toBe(404)
  })
})
