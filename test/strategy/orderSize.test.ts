import { describe, expect, it } from 'vitest'
import { capExcess, type OrderSizeLimits, orderSizeProblem } from '../../src/strategy/orderSize.ts'

const BTC: OrderSizeLimits = {
  quantityDecimals: 4,
  minNotional: '10',
  maxLimitNotional: '1000000',
  maxMarketNotional: '250000',
}

describe('orderSizeProblem', () => {
  it('passes an ordinary order', () => {
    expect(orderSizeProblem('0.01', '60000', '60000', BTC)).toBeUndefined()
  })

  it('refuses a 44-digit size, whatever the limits', () => {
    const huge = `99${'0'.repeat(42)}`
    expect(orderSizeProblem(huge, '60000', '60000', BTC)).toMatch(/10\^15 contracts or more/)
    expect(orderSizeProblem(huge, '60000', '60000', { quantityDecimals: 4, minNotional: '0' })).toMatch(
      /10\^15 contracts or more/,
    )
  })

  it('refuses more decimals than the instrument takes, trailing zeros aside', () => {
    expect(orderSizeProblem('0.00001', '60000000', '60000000', BTC)).toMatch(/more than 4 decimals/)
    expect(orderSizeProblem('0.0100000', '60000', '60000', BTC)).toBeUndefined()
  })

  it('refuses below the minimum notional (reduce-only exempt) and above the maximum limit notional', () => {
    expect(orderSizeProblem('0.0001', '60000', '60000', BTC)).toMatch(/below the minimum 10/)
    expect(orderSizeProblem('0.0001', '60000', '60000', BTC, true)).toBeUndefined()
    expect(orderSizeProblem('17', '60000', '60000', BTC)).toMatch(/above the maximum limit notional 1000000/)
    expect(orderSizeProblem('16', '60000', '60000', BTC)).toBeUndefined()
  })

  it('values an unpriced order at the reference for the maximum market notional', () => {
    expect(orderSizeProblem('5', undefined, '60000', BTC)).toMatch(/maximum market notional 250000/)
    expect(orderSizeProblem('4', undefined, '60000', BTC)).toBeUndefined()
    expect(orderSizeProblem('4', undefined, undefined, BTC)).toMatch(/no price/)
  })

  it('refuses what is not a plain positive decimal, briefly', () => {
    expect(orderSizeProblem('0', '1', '1', BTC)).toMatch(/not positive/)
    expect(orderSizeProblem('1e44', '1', '1', BTC)).toMatch(/not a decimal/)
    const long = orderSizeProblem('9'.repeat(100_000), '1', '1', BTC) ?? ''
    expect(long.length).toBeLessThan(200)
  })

  it('refuses more than 5 significant figures', () => {
    expect(orderSizeProblem('1.2345', '100', '100', BTC)).toBeUndefined()
    expect(orderSizeProblem('12.345', '100', '100', { ...BTC, quantityDecimals: 6 })).toBeUndefined()
    expect(orderSizeProblem('12.3456', '100', '100', { ...BTC, quantityDecimals: 6 })).toMatch(/significant/)
  })
})

describe('capExcess', () => {
  it('flags the side whose resting orders, all filled, would pass the cap', () => {
    const orders = [
      { buy: true, qty: '0.1' },
      { buy: true, qty: '0.1' },
      { buy: false, qty: '0.3' },
    ]
    expect(capExcess(undefined, '0.2', orders)).toEqual({ buys: false, sells: true })
    expect(capExcess('0.1', '0.2', orders)).toEqual({ buys: true, sells: false })
  })

  it('beyond the cap only the reducing side may rest, without overshooting', () => {
    expect(capExcess('0.5', '0.2', [{ buy: false, qty: '0.7' }])).toEqual({ buys: false, sells: false })
    expect(capExcess('0.5', '0.2', [{ buy: false, qty: '0.8' }])).toEqual({ buys: false, sells: true })
    expect(capExcess('0.5', '0.2', [{ buy: true, qty: '0.0001' }])).toEqual({ buys: true, sells: false })
  })
})
