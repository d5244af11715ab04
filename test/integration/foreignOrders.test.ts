/**
 * Orders the bot did not place are left alone: a trader's manual order rests on the account before
 * the start (no client order id); the real bot (startBot, live-style credentials) quotes the same
 * instrument over loopback against the mock, tags its own creates with its coid, says at start that it
 * leaves the manual order alone, never reprices or cancels it, and its exit policy cancels its own
 * orders by id: after the stop only the manual order rests.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startBot } from '../../src/bot/startBot.ts'
import { resolveStrategies } from '../../src/bot/startup/resolveConfig.ts'
import { systemClock } from '../../src/clock.ts'
import { createLogger, SecretBag } from '../../src/logging/logger.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { DEFAULT_ORDER_TAG_NAME, isOwnOrder, orderTagFor } from '../../src/perps/orderTag.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { loadSettings } from '../../src/settings/load.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'

const TAG = orderTagFor(DEFAULT_ORDER_TAG_NAME)
let mock: RunningMock
let trader: PerpsClient
let key: `0x${string}`
let secret: string

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 5 })
  const account = await registerMockProxy(mock.url, 'trader')
  key = account.key
  secret = account.credentials.secret
  trader = createPerpsClient({
    baseUrl: mock.url,
    clock: systemClock,
    random: seededRandom(3),
    credentials: account.credentials,
    signer: new CommandSigner({
      privateKey: key,
      clock: systemClock,
      salts: new SaltSource(seededRandom(4)),
      domain: account.domain,
    }),
  })
})
afterAll(async () => {
  await trader.close()
  await mock.close()
})

describe('foreign orders', () => {
  it('a manual order survives the bot quoting beside it and the exit policy', {
    timeout: 60_000,
  }, async () => {
    const btc = (await trader.getInstruments()).find((i) => i.symbol === 'BTC-USDC')
    if (!btc) throw new Error('the mock lists no BTC-USDC')
    const index = Number((await trader.getTickers({ instrumentId: btc.instrument_id }))[0]?.index_price)
    const price = String(Math.floor(index * 0.97))
    const [ack] = await trader.createOrders([
      { iid: btc.instrument_id, buy: true, p: price, qty: '0.01', tif: 'gtc', po: true },
    ])
    if (ack?.status !== 'ok') throw new Error(`the manual order was refused: ${JSON.stringify(ack)}`)
    const manual = ack.oid

    const { settings } = loadSettings({
      configDir: 'config',
      mode: 'dry-run',
      overrides: {
        'ops.port': 0,
        'streams.enabled': false,
        'logging.level': 'info',
        instruments: [
          { symbol: 'BTC-USDC', strategy: 'index-peg', params: { size: '0.01', positionCap: '0.2' } },
        ],
      },
      env: {},
    })
    const lines: string[] = []
    const bot = await startBot({
      settings,
      secrets: { PERPS_PROXY_PRIVATE_KEY: key, PERPS_PROXY_SECRET: secret },
      logger: createLogger({ destination: { write: (l: string) => void lines.push(l) }, pretty: 'never' }),
      secretBag: new SecretBag([key, secret]),
      strategies: await resolveStrategies(settings),
      clock: systemClock,
      random: seededRandom(7),
      perpsUrl: mock.url,
      catalogueUrl: mock.url,
      selfProvision: false,
    })
    let stopped = false
    try {
      // The bot quotes: its own orders rest beside the manual one, tagged with our coid.
      await vi.waitFor(
        async () => {
          const open = await trader.getOpenOrders()
          expect(open.filter((o) => isOwnOrder(o.coid, TAG)).length).toBeGreaterThan(0)
        },
        { timeout: 30_000, interval: 250 },
      )
      const open = await trader.getOpenOrders()
      expect(open.find((o) => o.oid === manual)).toMatchObject({ p: price, rest: '0.01', status: 'open' })
      // Every order but the manual one is ours.
      expect(open.filter((o) => o.oid !== manual).every((o) => isOwnOrder(o.coid, TAG))).toBe(true)
      expect(
        lines.some((l) => l.includes('foreign orders: leaving 1 order(s) the bot did not place alone')),
      ).toBe(true)
      const report = await bot.stop('test over')
      stopped = true
      expect(report.cancelAllFailed ?? false).toBe(false)
      const after = await trader.getOpenOrders()
      expect(after.map((o) => o.oid)).toEqual([manual])
    } finally {
      if (!stopped) await bot.stop('test failed')
      await trader.cancelOrders([manual]).catch(() => undefined)
    }
  })
})
