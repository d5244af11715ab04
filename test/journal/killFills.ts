/** The venue's fills of killNine.test.ts (parent and child make the same fill for the same n). */
import type { FillInput } from '../../src/journal/reconcile.ts'

export const KILL_T0 = Date.UTC(2026, 10, 20)

export const killFill = (n: number): FillInput => ({
  tradeId: `k${n}`,
  orderId: 900 + (n % 11),
  iid: 1 + (n % 3),
  side: n % 2 ? 'long' : 'short',
  price: `${100 + (n % 10)}.125`,
  qty: '0.25',
  taker: n % 4 === 0,
  fee: n % 4 === 0 ? '0.0125' : '-0.0025',
  feeAsset: 'USDC',
  realizedPnl: n % 2 ? '0.375' : '0',
  liquidation: false,
  ts: KILL_T0 + n * 10,
})
