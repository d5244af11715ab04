/** Shared zod primitives of the perps wire format. */
import { z } from 'zod'
import { canonicalWireDecimal } from './wireDecimal.ts'

/**
 * The one rule for the venue's decimal strings (the official bindings type them as any string). Every
 * decimal field of every read and push is one of these three, by what its row can do without it:
 * - `DecimalString`, a value the row is useless without (a price, a size, a fee): every spelling of a
 *   finite decimal is read and rewritten to canonical form (".5", "+1", "1.", "1e-7"; wireDecimal.ts),
 *   never converted to float; a blank or a string that denotes no number is refused, so that row is
 *   dropped and reported (tolerantArray.ts), never the whole read;
 * - `OptionalDecimal`, a value the row can do without (a ticker's last trade or mid of a new or
 *   illiquid instrument): blank, null or no number reads as absent, "unknown", and the row is kept;
 * - `DecimalOrBlank`, a value whose "none" is zero (a flat position's liquidation price, the entry
 *   price before a fill that opened the position): blank reads as "0".
 */
export const DecimalString = z.string().transform((s, ctx) => {
  const c = canonicalWireDecimal(s)
  if (c !== undefined) return c
  ctx.addIssue({ code: 'custom', message: 'expected a decimal string' })
  return z.NEVER
})
export type DecimalString = z.infer<typeof DecimalString>

/**
 * A decimal the row can do without (see `DecimalString`): a blank string, a string that denotes no
 * number, or null is absent; a JSON number is refused like everywhere (the official type is a string).
 */
export const OptionalDecimal = z.preprocess(
  (v) => (typeof v === 'string' ? canonicalWireDecimal(v) : v === null ? undefined : v),
  z.string().optional(),
)

/** A decimal whose "none" is zero (see `DecimalString`): `""` reads as "0". */
export const DecimalOrBlank = z.preprocess((v) => (v === '' ? '0' : v), DecimalString)

/** 0x-prefixed 20-byte hex address, kept exactly as sent (signatures hash the string verbatim). */
export const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address')

/** 0x-prefixed hex of any length (signatures, hashes; `0x` alone for a not-yet-mined hash). */
export const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex')

/**
 * A transaction hash that may not exist yet: the venue sends `0x`, `''`, null or nothing until it is
 * mined (the official client reads all of them as "none"). Normalised to `0x`, our one form of "none".
 */
export const PendingTxHash = z.preprocess((v) => (v === undefined || v === null || v === '' ? '0x' : v), Hex)

/** u32: instrument ids are signed as u32, so a larger id could not be traded (stricter than the official client). */
export const InstrumentId = z.number().int().min(0).max(4294967295)
export const OrderId = z.number().int().nonnegative()
/** Unix milliseconds (any integer, as the official client reads them). */
export const TimestampMs = z.number().int()

/**
 * A proxy expiry, Unix ms. The credentials endpoint currently answers in nanoseconds: like the official
 * client, a value above 2^53 is taken as ns and divided by 1e6 (floored).
 */
export const ProxyExpiryMs = z
  .number()
  .refine((v) => Number.isInteger(v) && v >= 0, { message: 'expected a non-negative integer' })
  .transform((v) => (v > Number.MAX_SAFE_INTEGER ? Math.floor(v / 1_000_000) : v))
  .pipe(z.number().int().nonnegative())

/** Client order id: 32 lowercase hex characters, not all zeros (protocol-notes a.2). */
export const ClientOrderId = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'expected 32 lowercase hex characters')
  .refine((s) => !/^0+$/.test(s), { message: 'client order id cannot be all zeros' })

/** Command acknowledgement: `{status:"ok"}`. */
export const OkAck = z.looseObject({ status: z.literal('ok') })

/** Perps error body `{status:"err", error}`; the gateway may add `ref`, `ts`. */
export const PerpsErrorBody = z.looseObject({
  status: z.literal('err'),
  error: z.string(),
})
export type PerpsErrorBody = z.infer<typeof PerpsErrorBody>
