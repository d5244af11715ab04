/**
 * After a key rotation the bot's `/status` names the new proxy at once (it read a copy of the address
 * taken at start before): the real bot (startBot, live-style credentials) against the mock over
 * loopback, a second proxy registered on the same account, handed to the bot's key rotation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startBot } from '../../src/bot/startBot.ts'
import { resolveStrategies } from '../../src/bot/startup/resolveConfig.ts'
import { createLogger, SecretBag } from '../../src/logging/logger.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { seededRandom } from '../../src/random.ts'
import { loadSettings } from '../../src/settings/load.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'

let mock: RunningMock
beforeAll(async () => {
  // Ten times wall speed: the rotation's 10-s drain (bot-clock time) takes a second.
  mock = await startMockServer({ port: 0, seed: 6, clock: 'accelerated', speed: 10 })
})
afterAll(async () => {
  await mock.close()
})

describe('/status after a key rotation', () => {
  it('names the proxy in use, the new one once the rotation answered', { timeout: 60_000 }, async () => {
    const first = await registerMockProxy(mock.url, 'first')
    const next = await registerMockProxy(mock.url, 'next', first.ownerKey)
    expect(next.owner).toBe(first.owner)
    const { settings } = loadSettings({
      configDir: 'config',
      mode: 'dry-run',
      overrides: {
        'ops.port': 0,
        'streams.enabled': false,
        instruments: [
          { symbol: 'BTC-USDC', strategy: 'index-peg', params: { size: '0.01', positionCap: '0.2' } },
        ],
      },
      env: {},
    })
    const secrets = [first.key, first.credentials.secret, next.key, next.credentials.secret]
    const bot = await startBot({
      settings,
      secrets: { PERPS_PROXY_PRIVATE_KEY: first.key, PERPS_PROXY_SECRET: first.credentials.secret },
      logger: createLogger({ level: 'silent', pretty: 'never' }),
      secretBag: new SecretBag(secrets),
      strategies: await resolveStrategies(settings),
      clock: mock.clock,
      random: seededRandom(7),
      perpsUrl: mock.url,
      catalogueUrl: mock.url,
      selfProvision: false,
    })
    try {
      const proxyOf = () => JSON.stringify(bot.status()).match(/"proxy":"(0x[0-9a-fA-F]{40})"/)?.[1]
      expect(proxyOf()).toBe(first.credentials.proxy)
      const rotated = await bot.keyRotation.rotate({ privateKey: next.key, secret: next.credentials.secret })
      expect(rotated.current.toLowerCase()).toBe(next.credentials.proxy.toLowerCase())
      expect(proxyOf()?.toLowerCase()).toBe(next.credentials.proxy.toLowerCase())
    } finally {
      await bot.stop('test over')
    }
  })
})
