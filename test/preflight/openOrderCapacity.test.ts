import { describe, expect, it } from 'vitest'
import { DEFAULT_ACCOUNT_OPEN_ORDER_CAP } from '../../src/perps/weights.ts'
import { openOrderCapacity } from '../../src/preflight/openOrderCapacity.ts'

const ladder = (n: number, maxOrders: number | undefined, venueMax?: number) =>
  Array.from({ length: n }, (_, i) => ({ symbol: `I${i}-USDC`, maxOrders, venueMax }))

describe('open-order capacity', () => {
  it('is ok up to the account cap; one order past it, it warns that the bot trims ladders', () => {
    const at = openOrderCapacity(ladder(250, 4))
    expect(at).toMatchObject({ status: 'ok', total: DEFAULT_ACCOUNT_OPEN_ORDER_CAP })
    const past = openOrderCapacity([...ladder(250, 4), { symbol: 'X-USDC', maxOrders: 1 }])
    expect(past.status).toBe('warn')
    expect(past.total).toBe(1_001)
    expect(past.detail).toContain(
      'the bot trims 1 ladder(s) to a fair share of the cap, down to 3 order(s) each',
    )
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

  it("counts an instrument whose strategy does not say at the venue's limit, naming at most five", () => {
    const v = openOrderCapacity(ladder(7, undefined, 20))
    expect(v).toMatchObject({ status: 'ok', total: 140 })
    expect(v.detail).toContain('7 instrument(s) whose strategy gives no maxOrders')
    expect(v.detail).toContain('I0-USDC, I1-USDC, I2-USDC, I3-USDC, I4-USDC and 2 more')
  })

  it('takes the configured cap, and fails when it cannot give each instrument one order', () => {
    expect(openOrderCapacity(ladder(3, 4), 10).status).toBe('warn')
    const none = openOrderCapacity(ladder(3, 4), 2)
    expect(none.status).toBe('fail')
    expect(none.detail).toContain(
      'quoting.accountOpenOrderCap: 2 open orders cannot give each of 3 instruments one',
    )
  })
})
