/**
 * What the account watch journals across restarts (its open episodes), as a zod schema: the journal is
 * parsed on read, field by field, so a malformed or unknown field is dropped and the rest restored (a
 * missing field keeps the fresh watch's value).
 */
import { z } from 'zod'

export const MarginLevel = z.enum(['ok', 'warning', 'critical'])
export type MarginLevel = z.infer<typeof MarginLevel>

/** A withdrawal the watch follows: its last status and which alerts it has had. */
export const TrackedWithdrawal = z.object({
  status: z.string(),
  createdAt: z.number(),
  pendingAlerted: z.unknown().transform((v) => v === true),
  terminalAlerted: z.unknown().transform((v) => v === true),
})
export type TrackedWithdrawal = z.infer<typeof TrackedWithdrawal>

const WithdrawalEntry = z.tuple([z.number(), TrackedWithdrawal])

/** One field: its value when it parses, otherwise absent. */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined)

export const AccountJournal = z.object({
  marginLevel: lenient(MarginLevel),
  inLiquidation: lenient(z.boolean()),
  marginExhausted: lenient(z.boolean()),
  proxyExpiring: lenient(z.boolean()),
  rateLimited: lenient(z.boolean()),
  openOrderCapped: lenient(z.boolean()),
  clockSkewed: lenient(z.boolean()),
  /** Entries that do not parse are dropped one by one. */
  withdrawals: lenient(
    z.array(z.unknown()).transform((entries) =>
      entries.flatMap((e) => {
        const r = WithdrawalEntry.safeParse(e)
        return r.success ? [r.data] : []
      }),
    ),
  ),
})
export type AccountJournal = z.infer<typeof AccountJournal>

/** The journal as read from disk: anything that is not an object is an empty journal. */
export function parseAccountJournal(value: unknown): AccountJournal {
  const r = AccountJournal.safeParse(value)
  return r.success ? r.data : {}
}
