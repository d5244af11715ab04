/**
 * Issue 35, point 7: key rotation without downtime, over loopback against the mock. While commands and
 * private reads run without pause, the owner registers a new proxy, hands it to the bot's key rotation
 * through the ops endpoint's handler, and revokes the old key once the handler answers. No command
 * fails across the switch; the old key is refused afterwards; a new key the venue refuses leaves the
 * bot on the old one.
 */

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createKeyRotation } from '../../src/bot/startup/keyRotation.ts'
import { main } from '../../src/cli/main.ts'
import { systemClock } from '../../src/clock.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createControlRoutes } from '../../src/ops/control/controlRoutes.ts'
import { rotateKeyReply } from '../../src/ops/rotateKeyEndpoint.ts'
import { ProxyCredentials } from '../../src/perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { RotatingProxyKey } from '../../src/perps/client/rotatingKey.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { DEFAULT_PERPS_DOMAIN } from '../../src/perps/signing/domain.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { OWNER_PK } from '../mock/perps/helpers.ts'
import { OWNER, PROXY, PROXY_PK, SECRET, T0 } from '../perps/stream/streamHarness.ts'

let mock: RunningMock | undefined
const clients: PerpsClient[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await mock?.close()
})

async function setup() {
  mock = await startMockServer({
    clock: 'stepped',
    startTime: T0,
    seed: 9,
    exchange: {
      historyMinutes: 1,
      accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: SECRET, expiry: T0 + 86_400_000 }] }],
    },
  })
  const m = mock
  // A still market: the resting orders stay within the price bounds however long the switch takes.
  m.exchange.setRegime('BTC', 'frozen')
  const salts = new SaltSource(seededRandom(4))
  const old = new CommandSigner({ privateKey: PROXY_PK, clock: m.clock, salts })
  const key = new RotatingProxyKey({ signer: old, credentials: new ProxyCredentials(PROXY, SECRET) })
  const client = (o: Parameters<typeof createPerpsClient>[0]) => {
    const c = createPerpsClient(o)
    clients.push(c)
    return c
  }
  const bot = client({
    baseUrl: m.url,
    clock: m.clock,
    random: seededRandom(1),
    credentials: key,
    signer: key,
  })
  const owner = new CommandSigner({
    privateKey: OWNER_PK,
    clock: m.clock,
    salts: new SaltSource(seededRandom(5)),
  })
  const admin = client({ baseUrl: m.url, clock: m.clock, random: seededRandom(2) })
  const rotation = createKeyRotation({
    key,
    perps: bot,
    clock: m.clock,
    domain: DEFAULT_PERPS_DOMAIN,
    salts,
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    drainMs: 2_000,
  })
  return { m, key, bot, owner, admin, rotation, client }
}

/** Settles `p` while stepping the shared clock (the rotation's drain waits on it). */
async function stepping<T>(m: RunningMock, p: Promise<T>): Promise<T> {
  let done = false
  void p.finally(() => {
    done = true
  })
  for (let i = 0; i < 2_000 && !done; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2))
    if (!done) m.clock.advance(100)
  }
  return p
}

describe('proxy key rotation without downtime', () => {
  it('no command or private read fails across the switch; the old key is revoked after it', async () => {
    const { m, bot, owner, admin, rotation } = await setup()
    const failures: string[] = []
    let commands = 0
    let stop = false
    const mark = Number((await bot.getTickers()).find((t) => t.instrument_id === 1)?.mark_price ?? '0')
    const order = {
      iid: 1,
      buy: true,
      p: String(Math.floor(mark * 0.98)),
      qty: '0.01',
      tif: 'gtc' as const,
      po: true,
    }
    const traffic = (async () => {
      while (!stop) {
        try {
          const [ack] = await bot.createOrders([order])
          if (ack?.status !== 'ok') failures.push(`create: ${JSON.stringify(ack)}`)
          else {
            const [c] = await bot.cancelOrders([ack.oid])
            if (c?.status !== 'ok') failures.push(`cancel: ${JSON.stringify(c)}`)
          }
          await bot.getOpenOrders()
          commands += 3
        } catch (e) {
          failures.push(String(e))
        }
        // Timers and sockets get their turn (a call refused at once would otherwise spin on microtasks).
        await new Promise((resolve) => setImmediate(resolve))
        if (failures.length > 0) return
      }
    })()
    // The owner registers the new proxy (as `perpbot rotate-key --live` does) ...
    const nextKey = generatePrivateKey()
    const next = privateKeyToAccount(nextKey).address
    const created = await admin.createProxy({ proxy: next, expiry: m.clock.now() + 86_400_000 }, { owner })
    const before = commands
    // ... hands it to the bot through the ops endpoint ...
    const reply = await stepping(
      m,
      rotateKeyReply({ privateKey: nextKey, secret: created.credentials.secret }, rotation),
    )
    expect(reply).toMatchObject({ status: 200, body: { status: 'ok', previous: PROXY, current: next } })
    // ... and revokes the old key once the bot answered.
    await admin.deleteProxy({ proxy: PROXY }, { owner })
    const atRevoke = commands
    for (let i = 0; i < 2_000 && commands < atRevoke + 9 && failures.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 2))
    stop = true
    await traffic
    expect(failures).toEqual([])
    expect(commands).toBeGreaterThan(before)
    expect(rotation.state()).toMatchObject({ switches: 1, rotating: false, current: next })
    // The old key is refused from now on.
    const stale = createPerpsClient({
      baseUrl: m.url,
      clock: m.clock,
      random: seededRandom(3),
      signer: new CommandSigner({
        privateKey: PROXY_PK,
        clock: m.clock,
        salts: new SaltSource(seededRandom(6)),
      }),
    })
    await expect(stale.cancelOrders([1])).rejects.toMatchObject({ status: 400 })
    await stale.close()
  }, 15_000)

  it('a new key the venue refuses: the bot stays on the old one and the endpoint says why', async () => {
    const { m, bot, rotation } = await setup()
    // Never registered: its commands are refused as "account not found for proxy".
    const reply = await stepping(
      m,
      rotateKeyReply({ privateKey: generatePrivateKey(), secret: 'x'.repeat(32) }, rotation),
    )
    expect(reply.status).toBe(409)
    expect(String(reply.body.reason)).toMatch(/refused the new proxy key/)
    expect(rotation.state()).toMatchObject({ switches: 2, current: PROXY })
    const [r] = await bot.cancelOrders([1])
    expect(r).toMatchObject({ status: 'err' })
    expect(await rotateKeyReply({ privateKey: 'nope', secret: '' }, rotation)).toMatchObject({ status: 400 })
  }, 15_000)
})

describe('perpbot rotate-key --live', () => {
  it('registers the new key, hands it to the bot through the ops endpoint, revokes the old key, prints the new pair once', async () => {
    mock = await startMockServer({
      port: 0,
      exchange: {
        accounts: [
          { owner: OWNER, proxies: [{ proxy: PROXY, secret: SECRET, expiry: Date.now() + 86_400_000 }] },
        ],
      },
    })
    const m = mock
    const salts = new SaltSource(seededRandom(4))
    const key = new RotatingProxyKey({
      signer: new CommandSigner({ privateKey: PROXY_PK, clock: systemClock, salts }),
      credentials: new ProxyCredentials(PROXY, SECRET),
    })
    const bot = createPerpsClient({
      baseUrl: m.url,
      clock: systemClock,
      random: seededRandom(1),
      credentials: key,
      signer: key,
    })
    clients.push(bot)
    const rotation = createKeyRotation({
      key,
      perps: bot,
      clock: systemClock,
      domain: DEFAULT_PERPS_DOMAIN,
      salts,
      logger: createLogger({ level: 'silent', pretty: 'never' }),
      drainMs: 50,
    })
    // The bot's control routes as the ops server mounts them (no token: the CLI reads the session's
    // CSRF token on loopback, as for every control command).
    const routes = createControlRoutes({
      target: { run: async () => ({ ok: true, command: 'none', changed: false, message: 'unused' }) },
      token: undefined,
      readOnly: false,
      instruments: () => [],
      rotateKey: rotation,
    })
    const ops = createServer((req, res) => {
      void routes.handle(req, new URL(req.url ?? '/', 'http://127.0.0.1')).then((r) => {
        res.writeHead(r?.status ?? 404, { 'content-type': r?.contentType ?? 'application/json' })
        res.end(r?.body ?? '{}')
      })
    })
    await new Promise<void>((resolve) => ops.listen(0, '127.0.0.1', () => resolve()))
    const { port } = ops.address() as AddressInfo
    const out: string[] = []
    const err: string[] = []
    try {
      const code = await main(['rotate-key', '--live', '--ops-url', `http://127.0.0.1:${port}`], {
        env: { PERPS_URL: m.url, PERPS_OWNER_PRIVATE_KEY: OWNER_PK },
        stdout: (l) => void out.push(l),
        stderr: (l) => void err.push(l),
        configDir: 'config',
        isTty: false,
        signal: new AbortController().signal,
      })
      expect({ code, err }).toMatchObject({ code: 0 })
    } finally {
      await new Promise((resolve) => ops.close(resolve))
    }
    expect(out[1]).toMatch(/^PERPS_PROXY_PRIVATE_KEY=0x[0-9a-f]{64}$/)
    expect(out[2]).toMatch(/^PERPS_PROXY_SECRET=.+/)
    const nextAddress = privateKeyToAccount((out[1] ?? '').split('=')[1] as `0x${string}`).address
    expect(key.address).toBe(nextAddress)
    // The bot trades on with the new key; the old one is gone from the account.
    expect((await bot.cancelOrders([1]))[0]).toMatchObject({ status: 'err', error: 'order_not_found' })
    const keys = (await bot.getCredentials()).keys.map((k) => k.proxy.toLowerCase())
    expect(keys).toContain(nextAddress.toLowerCase())
    expect(keys).not.toContain(PROXY.toLowerCase())
  }, 60_000)
})
