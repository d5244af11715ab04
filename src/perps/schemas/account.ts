/** Private account resources: withdrawals, funding charges, portfolio, credentials. */
import { z } from 'zod'
import {
  Address,
  DecimalOrBlank,
  DecimalString,
  InstrumentId,
  PendingTxHash,
  ProxyExpiryMs,
  TimestampMs,
} from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

export const WITHDRAWAL_STATUSES = ['pending', 'confirmed', 'removed', 'failed'] as const
/** Known statuses; unknown future values are tolerated as plain strings. */
export const WithdrawalStatus = z.union([z.enum(WITHDRAWAL_STATUSES), z.string()])

export const Withdrawal = z.looseObject({
  withdraw_id: z.number().int().nonnegative(),
  asset: z.string(),
  amount: DecimalString,
  to: Address,
  fee: DecimalString,
  status: WithdrawalStatus,
  /** On-chain hash; `0x` until mined (`''`, null or absent on the wire are read as `0x`). */
  hash: PendingTxHash,
  confirmations: z.number().int().nonnegative(),
  required_confirmations: z.number().int().nonnegative(),
  created_timestamp: TimestampMs,
  /** Absent (or null) until confirmed. */
  confirmed_timestamp: TimestampMs.nullish(),
})
export type Withdrawal = z.infer<typeof Withdrawal>

export const FundingCharge = z.looseObject({
  /** Absent on some live rows (protocol-notes c.1 lists no id). */
  id: z.number().int().nonnegative().optional(),
  instrument_id: InstrumentId,
  size: DecimalString,
  funding_rate: DecimalString,
  funding_asset: z.string(),
  funding: DecimalString,
  timestamp: TimestampMs,
})
export type FundingCharge = z.infer<typeof FundingCharge>

/** History pages: at most 100 rows, `more` when there are further rows in the window. */
export const page = <T extends z.ZodType>(item: T) =>
  z.looseObject({ data: tolerantArray(item), more: z.boolean() })
export const WithdrawalsPage = page(Withdrawal)
export type WithdrawalsPage = z.infer<typeof WithdrawalsPage>
/**
 * A fill as the bot consumes it: the `fills` channel's terse keys (ws-protocol §4), which REST fills are
 * normalized into (see `RestFill`). `side` long|short; `fee` paid (a rebate is negative), its asset in
 * `fea`; `psz`/`pep` the position size and entry price *before* the fill (the bindings name them
 * previousSize / previousEntryPrice); `pnl` the realized PnL it closed; `liq` a liquidation fill; `hash`
 * the settlement transaction (REST only; `0x` while unknown).
 */
export const Fill = z.looseObject({
  tid: z.union([z.number().int(), z.string()]),
  oid: z.number().int().nonnegative(),
  iid: InstrumentId,
  side: z.string(),
  p: DecimalString,
  qty: DecimalString,
  taker: z.boolean(),
  fee: DecimalString,
  fea: z.string(),
  psz: DecimalString,
  /** Blank when the fill opened the position (REST and stream alike): "0". */
  pep: DecimalOrBlank,
  pnl: DecimalString,
  liq: z.boolean(),
  ts: TimestampMs,
  coid: z.string().optional(),
  hash: z.string().optional(),
})
export type Fill = z.infer<typeof Fill>

/**
 * A REST fill (`GET /v1/account/fills`): the venue's long keys (bindings `PerpsAccountFillSchema`),
 * normalized into the domain `Fill` so the ledger reads REST and stream fills alike.
 */
export const RestFill = z
  .looseObject({
    trade_id: z.union([z.number().int(), z.string()]),
    order_id: z.number().int().nonnegative(),
    instrument_id: InstrumentId,
    side: z.string(),
    price: DecimalString,
    quantity: DecimalString,
    taker: z.boolean(),
    fee: DecimalString,
    fee_asset: z.string(),
    previous_size: DecimalString,
    previous_entry_price: DecimalOrBlank,
    pnl: DecimalString,
    liquidation: z.boolean(),
    timestamp: TimestampMs,
    /** `''`, `0x`, null or absent while unknown. */
    hash: PendingTxHash,
    /** Not in the bindings' schema; kept when a venue sends it. */
    client_order_id: z.string().nullish(),
  })
  .transform(
    (f): Fill => ({
      tid: f.trade_id,
      oid: f.order_id,
      iid: f.instrument_id,
      side: f.side,
      p: f.price,
      qty: f.quantity,
      taker: f.taker,
      fee: f.fee,
      fea: f.fee_asset,
      psz: f.previous_size,
      pep: f.previous_entry_price,
      pnl: f.pnl,
      liq: f.liquidation,
      ts: f.timestamp,
      hash: f.hash,
      ...(f.client_order_id ? { coid: f.client_order_id } : {}),
    }),
  )
export type RestFillWire = z.input<typeof RestFill>
export const FillsPage = page(RestFill)
export type FillsPage = z.infer<typeof FillsPage>

export const FundingPage = page(FundingCharge)
export type FundingPage = z.infer<typeof FundingPage>

export const Position = z.looseObject({
  instrument_id: InstrumentId,
  symbol: z.string(),
  /** Signed: negative is short. */
  size: DecimalString,
  entry_price: DecimalString,
  leverage: z.number().int().positive(),
  cross: z.boolean(),
  initial_margin: DecimalString,
  maintenance_margin: DecimalString,
  position_value: DecimalString,
  /** `""` (no liquidation price) reads as "0". */
  liquidation_price: DecimalOrBlank,
  unrealized_pnl: DecimalString,
  return_on_equity: DecimalOrBlank,
  cumulative_funding: DecimalString,
})
export type Position = z.infer<typeof Position>

export const PortfolioMargin = z.looseObject({
  total_account_value: DecimalString,
  /** In the spec; absent from the OpenAPI margin object, so optional. */
  available_order_margin: DecimalString.optional(),
  total_initial_margin: DecimalString,
  total_maintenance_margin: DecimalString,
  total_position_value: DecimalString,
})
export const Portfolio = z.looseObject({
  /** A position we cannot read is dropped and reported (tolerantArray), not the whole portfolio. */
  positions: tolerantArray(Position),
  margin: PortfolioMargin,
  /** USD. */
  withdrawable: DecimalString,
  in_liquidation: z.boolean(),
  timestamp: TimestampMs,
})
export type Portfolio = z.infer<typeof Portfolio>

export const CredentialKey = z.looseObject({
  proxy: Address,
  /** Unix ms; nanosecond values (as the endpoint currently sends) are converted. */
  expiry: ProxyExpiryMs,
  label: z.string().optional(),
})
export const Credentials = z.looseObject({
  address: Address,
  keys: z.array(CredentialKey),
  /** "described as also returned"; name not shown (decision: `account_id`, optional). */
  account_id: z.union([z.number(), z.string()]).optional(),
})
export type Credentials = z.infer<typeof Credentials>

/**
 * The secret is all that matters: the proxy is registered once it is issued, so `status` is not
 * required (the official client reads only `secret`) and an answer without it must not lose the secret.
 */
export const CreateProxyResult = z.looseObject({ status: z.unknown().optional(), secret: z.string().min(1) })
export type CreateProxyResult = z.infer<typeof CreateProxyResult>
