import { describe, expect, it } from 'vitest'
import { createClientOrderIds, DEFAULT_ORDER_TAG_NAME, orderTagFor } from '../../src/perps/orderTag.ts'
import { foreignOrdersLine, summarizeForeignOrders } from '../../src/preflight/foreignOrders.ts'

const ours = createClientOrderIds({ tag: orderTagFor(DEFAULT_ORDER_TAG_NAME), startMs: 1_767_000_000_000 })
const symbolOf = (iid: number): string => (iid === 1 ? 'BTC-USDC' : 'ETH-USDC')

describe('foreign orders before the start', () => {
  it('counts the orders without our tag, per instrument and side, with what rests', () => {
    const s = summarizeForeignOrders(
      [
        { iid: 1, buy: true, rest: '0.2', coid: undefined },
        { iid: 1, buy: true, rest: '0.1', coid: `${orderTagFor('someone-else')}${'0'.repeat(24)}` },
        { iid: 1, buy: false, rest: '0.05', coid: ours.next() },
        { iid: 2, buy: false, rest: '1.5', coid: undefined },
      ],
      symbolOf,
    )
    expect(s).toEqual({
      count: 3,
      own: 1,
      lines: ['BTC-USDC: 2 buy (0.3 resting)', 'ETH-USDC: 1 sell (1.5 resting)'],
    })
    const [check, status, detail] = foreignOrdersLine(s, true)
    expect([check, status]).toEqual(['foreign orders', 'warn'])
    expect(detail).toContain('3 open order(s) were not placed by perpbot')
    expect(detail).toContain('dead-man switch')
    expect(detail).toContain('cancels every order of the account')
  })

  it('is ok when every open order is ours, or there are none', () => {
    const s = summarizeForeignOrders([{ iid: 1, buy: true, rest: '1', coid: ours.next() }], symbolOf)
    expect(foreignOrdersLine(s, true)[1]).toBe('ok')
    expect(foreignOrdersLine(summarizeForeignOrders([], symbolOf), true)).toEqual([
      'foreign orders',
      'ok',
      'no open orders',
    ])
  })
})
