/** Fills over loopback: the mock records each trade of the account and our client reads them back. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { systemClock } from '../../src/clock.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'

let mock: RunningMock
let perps: PerpsClient

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 4, clock: 'real' })
  const { key, credentials, domain } = await registerMockProxy(mock.url, 'fills')
  perps = createPerpsClient({
    baseUrl: mock.url,
    clock: systemClock,
    random: seededRandom(3),
    credentials,
    signer: new CommandSigner({
      privateKey: key,
      clock: systemClock,
      salts: new SaltSource(seededRandom(4)),
      domain,
    }),
  })
})
afterAll(async () => {
  await perps.close()
  await mock.close()
})

describe('fills', () => {
  it('an IOC that takes liquidity shows up as a taker fill with price, size, fee and the position before it', async () => {
    const [btc] = (await perps.getInstruments()).filter((i) => i.symbol === 'BTC-USDC')
    if (!btc) throw new Error('BTC-USDC not listed')
    const index = await perps.getIndex(btc.base_asset)
    const [ack] = await perps.createOrders([
      {
        iid: btc.instrument_id,
        buy: true,
        qty: '0.01',
        tif: 'ioc',
        p: String(Math.round(Number(index.index_price) * 1.05)),
        coid: '0000000000000000000000000000abcd',
      },
    ])
    expect(ack?.status).toBe('ok')
    const page = await perps.getFills()
    expect(page.data).toHaveLength(1)
    expect(page.data[0]).toMatchObject({
      iid: btc.instrument_id,
      side: 'long',
      qty: '0.01',
      taker: true,
      liq: false,
      // REST fills carry the position before the fill and no client order id (bindings PerpsAccountFillSchema).
      psz: '0',
      pep: '0',
      hash: '0x',
    })
    expect(page.data[0]?.coid).toBeUndefined()
    expect(Number(page.data[0]?.fee)).toBeGreaterThan(0)
    const all: unknown[] = []
    for await (const f of perps.iterateFills({ startTimestamp: 0 })) all.push(f)
    expect(all).toHaveLength(1)
  })
})
