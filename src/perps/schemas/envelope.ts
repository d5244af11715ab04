/** The signed command envelope `{op:{type,args}, sig, salt, ts, exp?, label?, code?}`. */
import { z } from 'zod'
import { Hex } from './common.ts'

/** u64 carried as a JSON number; within the safe-integer range for every value we produce. */
const U64 = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)

export const SignedCommandEnvelope = z.looseObject({
  op: z.looseObject({ type: z.string().min(1), args: z.unknown() }),
  /** 65-byte r‖s‖v hex. */
  sig: Hex.refine((s) => s.length === 132, { message: 'expected a 65-byte signature' }),
  salt: U64,
  /** Unix ms (seconds for withdrawals). */
  ts: U64,
  /** Command expiry, Unix ms, at most 5 s ahead; not signed. */
  exp: U64.optional(),
  label: z.string().optional(),
  code: z.string().optional(),
})
export type SignedCommandEnvelope = z.infer<typeof SignedCommandEnvelope>
