/** Shared records for the journal's tests. */

export const T0 = Date.UTC(2026, 10, 20, 12, 0, 0)

export const fill = (n: number, over: Record<string, unknown> = {}) => ({
  tradeId: `t${n}`,
  orderId: 1000 + n,
  iid: 1 + (n % 2),
  side: n % 2 === 0 ? 'long' : 'short',
  price: '100.5',
  qty: '2',
  taker: n % 3 === 0,
  fee: n % 3 === 0 ? '0.1' : '-0.02',
  feeAsset: 'USDC',
  realizedPnl: n % 2 === 0 ? '0' : '1.5',
  liquidation: false,
  ts: T0 + n * 1_000,
  ...over,
})

/** Whose rows a journal opened without an account writes (`createJournal`'s default scope). */
export const SCOPE = { account: 'unknown', venue: '' }
