/**
 * How long each channel may be silent before it is stale. Periodic channels are pushed on every
 * change of the market or account (tickers, bbo, book, portfolio: seconds apart), statistics and
 * candles about once a minute; event channels (orders, fills, funding, withdrawals, deposits,
 * balances) are silent whenever nothing happens, so only the socket's own liveness (the heartbeat
 * and the idle bound) says whether they still work: they never go stale by silence.
 */
import { parseChannel } from './channels.ts'

/** Bounds by channel kind, in ms; `Infinity` = silence is normal. */
export const DEFAULT_STALE_AFTER_MS = {
  tickers: 15_000,
  bbo: 15_000,
  book: 15_000,
  trades: Number.POSITIVE_INFINITY,
  portfolio: 15_000,
  statistics: 150_000,
  klines: 150_000,
  orders: Number.POSITIVE_INFINITY,
  fills: Number.POSITIVE_INFINITY,
  funding: Number.POSITIVE_INFINITY,
  withdrawals: Number.POSITIVE_INFINITY,
  deposits: Number.POSITIVE_INFINITY,
  balances: Number.POSITIVE_INFINITY,
  notifications: Number.POSITIVE_INFINITY,
  tpsl: Number.POSITIVE_INFINITY,
} as const

export function defaultStaleAfterMs(channel: string): number {
  const parsed = parseChannel(channel)
  return parsed === undefined ? 15_000 : DEFAULT_STALE_AFTER_MS[parsed.kind]
}
