/**
 * `withUpdate`, the one copy of the instrument context an input makes: it must carry every field (a
 * field added to the context but not to the copy would be lost on the next input) and leave the
 * original untouched (the xstate machine's context is shared).
 */
import { describe, expect, it } from 'vitest'
import { initialContext, withUpdate } from '../../../src/bot/instrument/context.ts'
import type { InstrumentDeps } from '../../../src/bot/instrument/instrument.machine.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { risk } from './helpers.ts'

const deps: InstrumentDeps = {
  clock: { now: () => 1_000 },
  logger: createLogger({ level: 'silent', pretty: 'never', destination: { write: () => undefined } }),
  plan: () => ({ modify: [], create: [], cancel: [] }),
  risk,
  recheckMs: 1_000,
  minRepriceIntervalMs: 250,
  rejectBackoffMs: 1_000,
  maxOrderAgeMs: 0,
  guard: { maxIndexJump: '0', degradeAfter: 3 },
}
const instrument = {
  id: 7,
  symbol: 'BTC-USDC',
  priceDecimals: 1,
  quantityDecimals: 3,
  priceBounds: '0.05',
  minNotional: '10',
  maxOrderCount: 4,
}

describe('withUpdate', () => {
  it('copies every field of the context, each as it was', () => {
    const ctx = initialContext({ instrument, deps })
    const copy = withUpdate(ctx, undefined)
    expect(copy).not.toBe(ctx)
    expect(Object.keys(copy).sort()).toEqual(Object.keys(ctx).sort())
    for (const k of Object.keys(ctx) as (keyof typeof ctx)[]) expect(copy[k]).toBe(ctx[k])
  })

  it('stores the update over the copy and leaves the original alone', () => {
    const ctx = initialContext({ instrument, deps })
    const index = { price: '50000', ts: 900 }
    const copy = withUpdate(ctx, { index, indexAt: 950, dirty: false, pendingPlan: undefined })
    expect(copy.index).toBe(index)
    expect(copy.indexAt).toBe(950)
    expect(copy.dirty).toBe(false)
    expect(ctx.index).toBeUndefined()
    expect(ctx.indexAt).toBeUndefined()
    expect(ctx.dirty).toBe(true)
  })
})
