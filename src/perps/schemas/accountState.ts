/**
 * Account settings and state reads and the answers of the setting commands (bindings
 * `perps/account.ts`, `perps/funds.ts`, `perps/orders.ts`): balances, deposits, equity and PnL
 * history, per-instrument leverage and margin mode, the dead-man switch's status.
 */
import { z } from 'zod'
import { Address, DecimalString, InstrumentId, TimestampMs } from './common.ts'
import { tolerantArray } from './tolerantArray.ts'

export const Balance = z.looseObject({ asset: z.string(), balance: DecimalString, value: DecimalString })
export type Balance = z.infer<typeof Balance>
/** `GET /v1/account/balances`. */
export const Balances = tolerantArray(Balance)

/** Base units of the collateral (`"100000000"` = 100 pUSD). */
const BaseUnits = z.string().regex(/^\d+$/, 'expected an amount in base units')

export const Deposit = z.looseObject({
  hash: z.string(),
  asset: z.string(),
  amount: BaseUnits,
  /** pending | confirmed | removed; a new status passes as a string. */
  status: z.string(),
  from: Address,
  to: Address,
  confirmations: z.number().int().nonnegative(),
  required_confirmations: z.number().int().nonnegative(),
  created_timestamp: TimestampMs,
  confirmed_timestamp: TimestampMs.nullish(),
})
export type Deposit = z.infer<typeof Deposit>
/** `GET /v1/account/deposits`: newest first, at most 100 per page. */
export const DepositsPage = z.looseObject({ data: tolerantArray(Deposit), more: z.boolean() })
export type DepositsPage = z.infer<typeof DepositsPage>

/** `[timestamp ms, value]`: one point of the equity or PnL history. */
export const HistoryPoint = z.tuple([TimestampMs, DecimalString])
export type HistoryPoint = z.infer<typeof HistoryPoint>
/** `GET /v1/account/equity` and `/v1/account/pnl`: points oldest first. */
export const HistoryPointsPage = z.looseObject({ data: tolerantArray(HistoryPoint), more: z.boolean() })
export type HistoryPointsPage = z.infer<typeof HistoryPointsPage>
export const PNL_INTERVALS = ['1h', '4h', '1d', '1w'] as const
export type PnlInterval = (typeof PNL_INTERVALS)[number]

/** Leverage and margin mode of one instrument: `cross` false = isolated. */
export const InstrumentConfig = z.looseObject({
  instrument_id: InstrumentId,
  leverage: z.number().int().positive(),
  cross: z.boolean(),
})
export type InstrumentConfig = z.infer<typeof InstrumentConfig>
/** `GET /v1/account/config`. */
export const AccountConfig = tolerantArray(InstrumentConfig)

/** `PATCH /v1/trade/leverage`: the setting now in force. */
export const UpdateLeverageResult = z.looseObject({
  status: z.literal('ok'),
  instrument_id: InstrumentId,
  leverage: z.number().int().positive(),
  cross: z.boolean(),
})
export type UpdateLeverageResult = z.infer<typeof UpdateLeverageResult>

/** `PATCH /v1/trade/margin` (no official schema): `{status:"ok"}`, maybe with the position's new margin. */
export const UpdateMarginResult = z.looseObject({
  status: z.literal('ok'),
  instrument_id: InstrumentId.optional(),
  margin: DecimalString.optional(),
})
export type UpdateMarginResult = z.infer<typeof UpdateMarginResult>

/** `GET /v1/account/auto-cancel`: the dead-man switch (no official schema; protocol-notes d). */
export const AutoCancelStatus = z.looseObject({
  /** Unix ms of the armed deadline; 0 (or null) when not armed. */
  deadline: z.preprocess((v) => (v === null ? 0 : v), TimestampMs),
  /** Triggers used in the current UTC day. */
  triggered: z.number().int().nonnegative(),
  daily_limit: z.number().int().nonnegative(),
  /** Unix ms when the day's counter resets. */
  next_reset: TimestampMs,
})
export type AutoCancelStatus = z.infer<typeof AutoCancelStatus>
