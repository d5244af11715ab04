/**
 * One order shape from the strategy to the wire: a quote's client order id set by a strategy goes
 * plan → gateway → batcher → request gate (the real limiter) → perps client, and arrives in the signed
 * body as the venue's field `c` (undici MockAgent records the exact request).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createBatcher } from '../../../src/bot/orders/batcher.ts'
import { createOrderGateway } from '../../../src/bot/orders/orderGateway.ts'
import { createPlanFn } from '../../../src/bot/quoting/planFunction.ts'
import { DEFAULT_PERPS_DOMAIN } from '../../../src/perps/signing/domain.ts'
import { recoverOpSigner } from '../../../src/perps/signing/verify.ts'
import { createWeightLimiter, type WeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'
import type { DesiredQuote } from '../../../src/strategy/strategy.ts'
import { createHarness, FakeClock, type Harness, PROXY_ADDRESS, T0 } from '../../perps/client/harness.ts'
import { makeSnapshot } from '../../strategy/fixtures.ts'

const COID_BID = '0123456789abcdef0123456789abcdef'
const COID_ASK = 'fedcba9876543210fedcba9876543210'
const tolerance = { priceTicks: 0, priceBps: 0, maxOrderAgeMs: 0 }

describe('the order path keeps a strategy client order id', () => {
  let h: Harness
  let limiter: WeightLimiter
  afterEach(async () => {
    await limiter.stop()
    await h.close()
  })

  it('arrives on the wire as `c`, signed, and the acks come back to the plan', async () => {
    const clock = new FakeClock()
    limiter = createWeightLimiter({ clock })
    // The real limiter replaces the harness's recording gate.
    h = createHarness({ gate: limiter, clock })
    h.respond((req) => {
      const args = (req.json as { op: { args: { c?: string }[] } }).op.args
      return { body: args.map((a, i) => ({ status: 'ok', oid: 500 + i, ...(a.c ? { coid: a.c } : {}) })) }
    })
    const quotes: DesiredQuote[] = [
      { side: 'buy', price: '99.50', qty: '0.010', coid: COID_BID },
      { side: 'sell', price: '100.50', qty: '0.010', coid: COID_ASK },
      { side: 'sell', price: '101.00', qty: '0.010' },
    ]
    const plan = createPlanFn({ quote: () => quotes }, tolerance)(makeSnapshot({ now: T0 }))
    expect(plan.create.map((c) => c.coid)).toEqual([COID_BID, COID_ASK, undefined])

    const batcher = createBatcher({ send: h.client.admitted, reconcile: async () => undefined, windowMs: 0 })
    const gateway = createOrderGateway({ batcher, perps: h.client })
    const outcome = await gateway.submitPlan({ instrumentId: 7, plan, priority: 'quote' })

    const body = h.only().json as { op: { type: string; args: Record<string, unknown>[] } }
    expect(body.op.type).toBe('createOrders')
    expect(body.op.args).toEqual([
      { iid: 7, buy: true, po: true, qty: '0.01', tif: 'gtc', p: '99.5', c: COID_BID },
      { iid: 7, buy: false, po: true, qty: '0.01', tif: 'gtc', p: '100.5', c: COID_ASK },
      { iid: 7, buy: false, po: true, qty: '0.01', tif: 'gtc', p: '101' },
    ])
    expect(body.op.args.some((a) => 'coid' in a)).toBe(false)
    // The client order id is inside the signed op, not just in the body.
    expect(await recoverOpSigner(DEFAULT_PERPS_DOMAIN, body)).toBe(PROXY_ADDRESS)
    // The venue's own acks, as the client parsed them (the client order id echoed back).
    expect(outcome.create).toEqual([
      { status: 'ok', oid: 500, coid: COID_BID },
      { status: 'ok', oid: 501, coid: COID_ASK },
      { status: 'ok', oid: 502 },
    ])
    // One request, charged once by the gate: weight 1 for 3 orders, 3 actions.
    expect(limiter.state().request.used).toBe(1)
    expect(limiter.state().action.used).toBe(3)
    await batcher.stop()
  })
})

describe('a strategy client order id is checked at the plan', () => {
  it('refuses a malformed client order id from a strategy before anything is planned', () => {
    const plan = createPlanFn(
      { quote: () => [{ side: 'buy', price: '99.50', qty: '0.010', coid: 'NOT-HEX' }] },
      tolerance,
    )
    expect(() => plan(makeSnapshot({ now: T0 }))).toThrow('coid must be 32 lowercase hex')
  })
})
