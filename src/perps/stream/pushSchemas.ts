/**
 * The `data` of every push of the venue's WebSocket, with the terse keys the official bindings parse
 * (ws-protocol §4). Public: tickers, statistics, bbo, book, klines, trades. Private: portfolio (the
 * REST long names), orders, fills (an array, or one object), funding, withdrawals, balances, deposits,
 * notifications (schemas/notifications.ts). `tpsl::{n}` is not read: the bot places no TP/SL orders.
 */
import { z } from 'zod'
import { Fill, Portfolio } from '../schemas/account.ts'
import { DecimalString, InstrumentId, OptionalDecimal, OrderId, TimestampMs } from '../schemas/common.ts'
import { Kline } from '../schemas/info.ts'
import { NotificationsPush } from '../schemas/notifications.ts'
import { Order } from '../schemas/orders.ts'
import { tolerantArray } from '../schemas/tolerantArray.ts'

/** `tickers::{all|iid}`: one instrument per frame, also on `::all`; only the index is required (as REST `Ticker`). */
export const TickerPush = z.looseObject({
  iid: InstrumentId,
  /** Index price. */
  idx: DecimalString,
  mark: OptionalDecimal,
  last: OptionalDecimal,
  mid: OptionalDecimal,
  /** Open interest. */
  oi: OptionalDecimal,
  /** Funding rate estimate of the current window. */
  fr: OptionalDecimal,
  /** Next funding time, ms. */
  nxf: TimestampMs,
})
export type TickerPush = z.infer<typeof TickerPush>

/** `statistics::{all|iid}`. */
export const StatisticsPush = z.looseObject({
  iid: InstrumentId,
  /** 24-hour volume. */
  vol: DecimalString,
  /** Price 24 hours ago. */
  open: DecimalString,
  klines: z.array(Kline),
})
export type StatisticsPush = z.infer<typeof StatisticsPush>

/** `bbo::{iid}`: best bid and offer. */
export const BboPush = z.looseObject({
  iid: InstrumentId,
  bp: DecimalString,
  bq: DecimalString,
  ap: DecimalString,
  aq: DecimalString,
})
export type BboPush = z.infer<typeof BboPush>

/** `[price, quantity]`, both strings (numeric levels are rejected by the bindings). */
export const BookLevel = z.tuple([DecimalString, DecimalString])
/** `book::{iid}`: a complete snapshot per frame; the instrument comes from the channel name. */
export const BookPush = z.looseObject({ b: z.array(BookLevel), a: z.array(BookLevel) })
export type BookPush = z.infer<typeof BookPush>

/** `klines::{iid}::{interval}`: an array of candles. */
export const KlinesPush = z.array(Kline)
export type KlinesPush = z.infer<typeof KlinesPush>

export const Side = z.enum(['long', 'short'])

/** `trades::{iid}`: an array of public trades. */
export const TradesPush = z.array(
  z.looseObject({
    tid: z.number().int().nonnegative(),
    iid: InstrumentId,
    side: Side,
    p: DecimalString,
    qty: DecimalString,
    ts: TimestampMs,
    hash: z.string().optional(),
  }),
)
export type TradesPush = z.infer<typeof TradesPush>

/** `portfolio`: the REST portfolio, long snake_case keys. */
export const PortfolioPush = Portfolio
export type PortfolioPush = z.infer<typeof PortfolioPush>

const TpslInfo = z.looseObject({
  kind: z.enum(['tp', 'sl']),
  scope: z.enum(['order', 'position']),
  trp: DecimalString,
  parent_oid: OrderId.optional(),
  armed_qty: DecimalString.optional(),
  slip_bps: z.number().int().optional(),
})

/** `orders`: the terse order (the spec's Order), plus the TP/SL block. */
export const OrderPush = Order.extend({ tpsl: TpslInfo.nullish() })
export type OrderPush = z.infer<typeof OrderPush>

/** A fill pushed on `fills`: the terse keys, which are also the domain `Fill` REST fills are read into. */
export const FillItem = Fill
export type FillItem = z.infer<typeof FillItem>
/**
 * `fills`: an array as the bindings read it, or one object as the venue's own docs show it (the
 * bindings drop that frame; we read it as a one-fill array rather than turn it into a gap). A fill we
 * cannot read is dropped from the push and reported; the stream client turns that into a gap, so the
 * REST read that follows has the last word.
 */
export const FillsPush = z.union([tolerantArray(FillItem), FillItem.transform((f) => [f])])
export type FillsPush = z.infer<typeof FillsPush>

/** `funding`: one charge; `id` the payment's (as on REST; required by bindings 0.10.0, absent in 0.2.0). */
export const FundingPush = z.looseObject({
  id: z.number().int().nonnegative().optional(),
  iid: InstrumentId,
  /** Position size charged. */
  sz: DecimalString,
  fr: DecimalString,
  /** Amount paid (negative) or received. */
  fund: DecimalString,
  /** Funding asset. */
  fua: z.string(),
  ts: TimestampMs,
})
export type FundingPush = z.infer<typeof FundingPush>

/** Base units of the collateral (`"100000000"` = 100 pUSD). */
const BaseUnits = z.string().regex(/^\d+$/, 'expected an amount in base units')

/** `withdrawals`: status any string (the bindings keep it open). */
export const WithdrawalPush = z.looseObject({
  withdraw_id: z.number().int().nonnegative(),
  asset: z.string(),
  amount: BaseUnits,
  fee: DecimalString,
  status: z.string(),
  to: z.string(),
  hash: z.string().optional(),
})
export type WithdrawalPush = z.infer<typeof WithdrawalPush>

/** `balances`. */
export const BalancePush = z.looseObject({ asset: z.string(), balance: DecimalString, value: DecimalString })
export type BalancePush = z.infer<typeof BalancePush>

/** `deposits`. */
export const DepositPush = z.looseObject({
  hash: z.string().optional(),
  asset: z.string(),
  amount: BaseUnits,
  status: z.enum(['pending', 'confirmed', 'removed']),
})
export type DepositPush = z.infer<typeof DepositPush>

export {
  NOTIFICATION_SEVERITIES,
  type NotificationSeverity,
  NotificationsPush,
  type VenueNotification,
} from '../schemas/notifications.ts'

/** `tpsl::{n}`: one TP/SL order's lifecycle (bindings: `untriggered`, `armed`, `cancelled`, `expired`; any string read). */
export const TpslPush = z.looseObject({
  oid: OrderId,
  st: z.string(),
  reason: z.string().optional(),
})
export type TpslPush = z.infer<typeof TpslPush>

/** The data schema of each channel kind. */
export const PUSH_DATA_SCHEMAS = {
  tickers: TickerPush,
  statistics: StatisticsPush,
  bbo: BboPush,
  book: BookPush,
  klines: KlinesPush,
  trades: TradesPush,
  portfolio: PortfolioPush,
  orders: OrderPush,
  fills: FillsPush,
  funding: FundingPush,
  withdrawals: WithdrawalPush,
  balances: BalancePush,
  deposits: DepositPush,
  notifications: NotificationsPush,
  tpsl: TpslPush,
} as const

export type PushDataByKind = { [K in keyof typeof PUSH_DATA_SCHEMAS]: z.infer<(typeof PUSH_DATA_SCHEMAS)[K]> }
