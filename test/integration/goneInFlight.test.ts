/**
 * Issue 35, point 1: an order fills while its modify and its cancel are in flight. For each official
 * "order is gone" code the mock answers with (`goneCodes`, one at a time), over real loopback: the
 * order desk reconciles the instrument, the actor's applied plan counts both orders gone (no
 * rejection), and the results step starts no back-off.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { applyOutcome, resultsStep } from '../../src/bot/instrument/results.ts'
import type { BatchSend } from '../../src/bot/orders/batcher.ts'
import { createOrderDesk } from '../../src/bot/orders/orderDesk.ts'
import { createLogger } from '../../src/logging/logger.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createPerpsClient, type PerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { ORDER_GONE_CODES, type Order, type OrderGoneCode } from '../../src/perps/schemas/orders.ts'
import { CommandSigner } from '../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../src/perps/signing/salt.ts'
import { seededRandom } from '../../src/random.ts'
import { loadSettings } from '../../src/settings/load.ts'
import { harness, oneBid } from '../bot/instrument/helpers.ts'
import { OWNER, PROXY, PROXY_PK, SECRET, T0 } from '../perps/stream/streamHarness.ts'

const SOL = 3

let mock: RunningMock | undefined
let perps: PerpsClient | undefined
afterEach(async () => {
  await perps?.close()
  await mock?.close()
})

async function session(code: OrderGoneCode) {
  mock = await startMockServer({
    clock: 'stepped',
    startTime: T0,
    seed: 7,
    exchange: {
      historyMinutes: 5,
      goneCodes: [code],
      accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: SECRET, expiry: T0 + 86_400_000 }] }],
    },
  })
  const m = mock
  m.exchange.setRegime('SOL', 'frozen')
  m.exchange.setIndexPrice('SOL', '150')
  perps = createPerpsClient({
    baseUrl: m.url,
    clock: m.clock,
    random: seededRandom(3),
    credentials: { proxy: PROXY, secret: SECRET },
    signer: new CommandSigner({
      privateKey: PROXY_PK,
      clock: m.clock,
      salts: new SaltSource(seededRandom(9)),
    }),
  })
  return { m, perps }
}

describe('an order filled while its modify and cancel are in flight (every official gone code)', () => {
  for (const code of ORDER_GONE_CODES) {
    it(`${code}: both orders gone, the instrument reconciled, no rejection and no back-off`, async () => {
      const { m, perps: client } = await session(code)
      const acks = await client.createOrders([
        { iid: SOL, buy: true, p: '149.5', qty: '1', tif: 'gtc', po: true },
        { iid: SOL, buy: true, p: '149.4', qty: '1', tif: 'gtc', po: true },
      ])
      const [a, b] = acks.map((x) => (x.status === 'ok' ? x.oid : -1))
      if (a === undefined || b === undefined || a < 0 || b < 0) throw new Error('orders not placed')
      /** The market trades through both bids while the batch is admitted but not yet sent. */
      const fillBoth = () => {
        m.exchange.setIndexPrice('SOL', '140')
        for (let i = 0; i < 30 && m.exchange.openOrders(OWNER).length > 0; i++) m.clock.advance(1_000)
        expect(m.exchange.openOrders(OWNER)).toEqual([])
      }
      // Admitted by the gate, then the market moves, then the batcher sends: the handle's send.
      const admitted: BatchSend = {
        ...client.admitted,
        modifyOrders: async (items, o) => {
          const h = await client.admitted.modifyOrders(items, o)
          return {
            send: () => {
              fillBoth()
              return h.send()
            },
            release: h.release,
          }
        },
        cancelOrders: async (items, o) => {
          const h = await client.admitted.cancelOrders(items, o)
          return {
            send: () => {
              fillBoth()
              return h.send()
            },
            release: h.release,
          }
        },
      }
      const reconciled: (readonly number[] | undefined)[] = []
      const { settings } = loadSettings({
        configDir: 'config',
        mode: 'dry-run',
        overrides: { 'batcher.windowMs': 0 },
        env: {},
      })
      const desk = createOrderDesk({
        perps: { ...client, admitted },
        openOrders: {
          reconcile: async (ids) => {
            reconciled.push(ids)
          },
        },
        settings,
        clock: m.clock,
        logger: createLogger({ level: 'silent', pretty: 'never' }),
      })
      const plan = { modify: [{ oid: a, p: '149.6', qty: '1' }], create: [], cancel: [b] }
      const outcome = await desk.gateway.submitPlan({ instrumentId: SOL, plan, priority: 'quote' })
      // No orders push told the book how they ended: after the settle time, the instrument is read.
      expect(reconciled).toEqual([])
      m.clock.advance(2_000)
      for (let i = 0; i < 100 && reconciled.length === 0; i++) await new Promise((r) => setTimeout(r, 1))
      await desk.batcher.stop()

      expect(outcome.modify).toEqual([{ status: 'err', error: code, oid: a }])
      expect(outcome.cancel).toEqual([{ status: 'err', error: code, oid: b }])
      expect(reconciled.flat()).toContain(SOL)

      const resting = (oid: number, p: string): Order => ({
        oid,
        iid: SOL,
        buy: true,
        p,
        qty: '1',
        tif: 'gtc',
        po: true,
        ro: false,
        rest: '1',
        fill: '0',
        cts: T0,
        uts: T0,
        status: 'open',
      })
      const applied = applyOutcome([resting(a, '149.5'), resting(b, '149.4')], plan, outcome, SOL, T0)
      expect(applied).toMatchObject({ orders: [], rejected: [], domain: [], gone: [a, b] })
      const h = harness(oneBid)
      const step = resultsStep(h.actor.getSnapshot().context, applied, T0)
      expect(step.update).toMatchObject({ rejectStreak: 0, backoffUntil: 0, backoffMs: 0 })
      expect(step.update?.stats?.gone).toBe(2)
      h.actor.stop()
    })
  }
})
