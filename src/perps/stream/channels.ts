/**
 * Channel names of the venue's WebSocket (ws-protocol §5): public `kind::iid` / `kind::all` channels
 * and bare private names, bound to the account by the socket's `auth`, plus the private `tpsl::{n}`
 * (TP/SL lifecycle updates, bindings `PerpsTpSlUpdateEventSchema`). One parser for the client
 * (which data schema a push gets) and the mock (which subscriptions it accepts).
 */
import { isOneOf } from '../../guards.ts'

export const PUBLIC_CHANNEL_KINDS = ['tickers', 'statistics', 'bbo', 'book', 'klines', 'trades'] as const
export const PRIVATE_CHANNELS = [
  'portfolio',
  'orders',
  'fills',
  'funding',
  'withdrawals',
  'balances',
  'deposits',
  // Not in the official client's session list, but named by the venue (protocol-notes d): its own warnings.
  'notifications',
] as const
/** Streamed candle intervals (`1s` is not streamed). */
export const KLINE_INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d', '1w'] as const

export type PublicChannelKind = (typeof PUBLIC_CHANNEL_KINDS)[number]
export type PrivateChannel = (typeof PRIVATE_CHANNELS)[number]
/** `tpsl::{n}`: TP/SL lifecycle updates (private; the bot places no TP/SL orders, so it reads but does not subscribe). */
export type TpslChannelKind = 'tpsl'
export type ChannelKind = PublicChannelKind | PrivateChannel | TpslChannelKind
export type KlineInterval = (typeof KLINE_INTERVALS)[number]

export interface ParsedChannel {
  kind: ChannelKind
  /** Instrument id of a per-instrument channel; undefined for `::all` and private channels. */
  iid: number | undefined
  /** Candle interval of a `klines` channel. */
  interval: KlineInterval | undefined
  private: boolean
}

const PER_INSTRUMENT = /^(bbo|book|trades)::(\d{1,10})$/
const ALL_OR_ONE = /^(tickers|statistics)::(all|\d{1,10})$/
const KLINES = /^klines::(\d{1,10})::(1m|5m|15m|1h|4h|1d|1w)$/
const TPSL = /^tpsl::\d{1,10}$/

/** Parses a channel name; undefined when it is not one of the venue's (ws-protocol §5 regexes). */
export function parseChannel(ch: string): ParsedChannel | undefined {
  if (isOneOf(PRIVATE_CHANNELS, ch)) return { kind: ch, iid: undefined, interval: undefined, private: true }
  if (TPSL.test(ch)) return { kind: 'tpsl', iid: undefined, interval: undefined, private: true }
  let m = PER_INSTRUMENT.exec(ch)
  if (m !== null && isOneOf(PUBLIC_CHANNEL_KINDS, m[1])) return publicChannel(m[1], Number(m[2]), undefined)
  m = ALL_OR_ONE.exec(ch)
  if (m !== null && isOneOf(PUBLIC_CHANNEL_KINDS, m[1]))
    return publicChannel(m[1], m[2] === 'all' ? undefined : Number(m[2]), undefined)
  m = KLINES.exec(ch)
  if (m !== null && isOneOf(KLINE_INTERVALS, m[2])) return publicChannel('klines', Number(m[1]), m[2])
  return undefined
}

function publicChannel(
  kind: PublicChannelKind,
  iid: number | undefined,
  interval: KlineInterval | undefined,
) {
  return { kind, iid, interval, private: false }
}

/** Builders, so callers never format channel names by hand. */
export const channel = {
  tickers: (iid: number | 'all' = 'all'): string => `tickers::${iid}`,
  statistics: (iid: number | 'all' = 'all'): string => `statistics::${iid}`,
  bbo: (iid: number): string => `bbo::${iid}`,
  book: (iid: number): string => `book::${iid}`,
  trades: (iid: number): string => `trades::${iid}`,
  klines: (iid: number, interval: KlineInterval): string => `klines::${iid}::${interval}`,
} as const
