import { describe, expect, it } from 'vitest'
import { DEFAULT_ACCOUNT_OPEN_ORDER_CAP, openOrderCapacity } from '../../src/preflight/openOrderCapacity.ts'

const ladder = (n: number, maxOrders: number | undefined, venueMax?: number) =>
  Array.from({ length: n }, (_, i) => ({ symbol: `I${i}-USDC`, maxOrders, venueMax }))

describe('open-order capacity', () => {
  it('is ok up to the account cap and warns one order past it, naming the venue refusal', () => {
    const at = openOrderCapacity(ladder(250, 4))
    expect(at).toMatchObject({ status: 'ok', total: DEFAULT_ACCOUNT_OPEN_ORDER_CAP })
    const past = openOrderCapacity([...ladder(250, 4), { symbol: 'X-USDC', maxOrders: 1 }])
    expect(past.status).toBe('warn')
    expect(past.total).toBe(1_001)
    expect(past.detail).toContain('429 open_orders_limit')
  })

  it("counts an instrument at most at the venue's own order count, and says it trims", () => {
    const v = openOrderCapacity([{ symbol: 'BTC-USDC', maxOrders: 10, venueMax: 4 }])
    expect(v).toMatchObject({ status: 'warn', total: 4 })
    expect(v.detail).toContain('trimmed: BTC-USDC (10 > 4)')
    // 0 is "no limit" on the venue's instrument.
    expect(openOrderCapacity([{ symbol: 'BTC-USDC', maxOrders: 10, venueMax: 0 }])).toMatchObject({
      status: 'ok',
      total: 10,
    })
  })

  it('lists the instruments whose strategy does not say, at most five by name', () => {
    const v = openOrderCapacity(ladder(7, undefined))
    expect(v).toMatchObject({ status: 'ok', total: 0 })
    expect(v.detail).toContain('7 instrument(s) whose strategy gives no maxOrders: I0-USDC, I1-USDC')
    expect(v.detail).toContain('and 2 more')
  })

  it('takes another cap', () => {
    expect(openOrderCapacity(ladder(3, 4), 10).status).toBe('warn')
  })
})
