/** A resting GTC post-only bid as the venue lists it (fields overridable), for tests of order views. */
import type { Order } from '../../src/perps/schemas/orders.ts'

export const restingOrder = (oid: number, over: Partial<Order> = {}): Order => ({
  oid,
  iid: 7,
  buy: true,
  p: '49990',
  qty: '0.01',
  tif: 'gtc',
  po: true,
  ro: false,
  rest: '0.01',
  fill: '0',
  cts: 0,
  uts: 0,
  status: 'open',
  ...over,
})
