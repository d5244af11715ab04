/** Private account resources: withdrawals, funding charges, portfolio, credentials. */
import { z } from 'zod'
import { Address, DecimalString, InstrumentId, PendingTxHash, ProxyExpiryMs, TimestampMs } from './common.ts'

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
  z.looseObject({ data: z.array(item), more: z.boolean() })
export const WithdrawalsPage = page(Withdrawal)
export type WithdrawalsPage = z.infer<typeof WithdrawalsPage>
/**
 * A fill (`GET /v1/account/fills`, and the `fills` channel): terse keys as the official client reads
 * them. `side` long|short; `fee` paid (a rebate is negative) in `fea`; `psz`/`pep` the position size
 * and entry after the fill; `pnl` the realized PnL it closed; `liq` a liquidation fill.
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
  pep: DecimalString,
  pnl: DecimalString,
  liq: z.boolean(),
  ts: TimestampMs,
  coid: z.string().optional(),
})
export type Fill = z.infer<typeof Fill>
export const FillsPage = page(Fill)
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
  liquidation_price: DecimalString,
  unrealized_pnl: DecimalString,
  return_on_equity: DecimalString,
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
  positions: z.array(Position),
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
