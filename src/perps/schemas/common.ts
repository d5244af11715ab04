/** Shared zod primitives of the perps wire format. */
import { z } from 'zod'
import { isDecimalString } from '../../decimal.ts'

/** A decimal number carried as a JSON string ("100.5", "-0.25"). Never converted to float here. */
export const DecimalString = z.string().refine(isDecimalString, { message: 'expected a decimal string' })
export type DecimalString = z.infer<typeof DecimalString>

/** 0x-prefixed 20-byte hex address, kept exactly as sent (signatures hash the string verbatim). */
export const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'expected a 0x-prefixed 20-byte hex address')

/** 0x-prefixed hex of any length (signatures, hashes; `0x` alone for a not-yet-mined hash). */
export const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex')

export const InstrumentId = z.number().int().min(0).max(4294967295)
export const OrderId = z.number().int().nonnegative()
/** Unix milliseconds. */
export const TimestampMs = z.number().int().nonnegative()

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
