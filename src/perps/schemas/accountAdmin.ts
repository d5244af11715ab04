/**
 * Answers of the account's owner-level commands and reads (bindings 0.2.0 / 0.10.0 schemas): the 7-day
 * trading statistics (`GET /v1/account/stats`), revoking a proxy (`DELETE /v1/account/proxy`) and a
 * withdrawal request (`POST /v1/account/withdraw`). Decimals follow the one rule (common.ts).
 */
import { z } from 'zod'
import { DecimalString, OptionalDecimal } from './common.ts'

/** `GET /v1/account/stats`: 7-day volumes (USD) and the maker share; the entity's when the account has one. */
export const AccountStats = z.looseObject({
  volume_7d: DecimalString,
  taker_volume_7d: DecimalString,
  maker_volume_7d: DecimalString,
  account_maker_share_7d: DecimalString,
  entity_maker_share_7d: OptionalDecimal,
  entity_id: z.union([z.string(), z.number()]).optional(),
  entity_name: z.string().optional(),
})
export type AccountStats = z.infer<typeof AccountStats>

/** `DELETE /v1/account/proxy`: `{status}`; an `err` carries the venue's reason. */
export const DeleteProxyResult = z.looseObject({
  status: z.enum(['ok', 'err']),
  error: z.string().optional(),
})
export type DeleteProxyResult = z.infer<typeof DeleteProxyResult>

/** `POST /v1/account/withdraw`: the withdrawal's id when accepted; an `err` carries the venue's reason. */
export const WithdrawResult = z.looseObject({
  status: z.enum(['ok', 'err']),
  withdraw_id: z.number().int().nonnegative().optional(),
  error: z.string().optional(),
})
export type WithdrawResult = z.infer<typeof WithdrawResult>
