/**
 * `protections` in the configuration: loss limits, a cooldown after a loss and notional caps, all in
 * the instruments' quote currency (read from the PnL ledger and the index). A breach cancels, halts
 * and alerts (src/bot/control/protections.ts).
 */
import { z } from 'zod'

/** A positive amount in the quote currency: a decimal string or a plain number ("250", 250.5). */
const Amount = z
  .union([z.string().regex(/^\d+(\.\d+)?$/, { error: 'must be a positive decimal, e.g. "250"' }), z.number()])
  .transform((v) => (typeof v === 'number' ? String(v) : v))
  .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) < 1e15, {
    message: 'must be a positive amount below 10^15 (quote currency)',
  })

export const ProtectionSettings = z.strictObject({
  /** Net PnL lost since 00:00 UTC (or since the start, if later) that halts everything. */
  maxDailyLoss: Amount.optional(),
  /** Net PnL lost from its highest point (since the start, kept across restarts when live) that halts everything. */
  maxDrawdown: Amount.optional(),
  /** After a fill that realized a loss, that instrument quotes nothing for this long (0: off). */
  cooldownAfterLossMs: z.number().int().min(0).max(86_400_000).default(0),
  /** |position| × mark per instrument past which it halts: one amount for all, or one per symbol. */
  maxInstrumentNotional: z.union([Amount, z.record(z.string(), Amount)]).optional(),
  /** Σ |position| × mark over the traded instruments past which everything halts. */
  maxAccountNotional: Amount.optional(),
  /** A breach holds until `perpbot resume` (`manual`), or ends by itself at the next 00:00 UTC. */
  resume: z.enum(['manual', 'next-utc-day']).default('manual'),
  /** On a breach, also close the halted instruments' positions with reduce-only IOC orders. */
  flattenOnBreach: z.boolean().default(false),
  /** The flatten orders' limit: at most this far through the mark (basis points). */
  flattenSlippageBps: z.number().int().min(1).max(1_000).default(50),
})
export type ProtectionSettings = z.infer<typeof ProtectionSettings>

/** Cross-checks with the rest of the configuration: a per-symbol cap must name a configured instrument. */
export function protectionIssues(p: ProtectionSettings, symbols: ReadonlySet<string>): string[] {
  const caps = p.maxInstrumentNotional
  if (caps === undefined || typeof caps === 'string') return []
  return Object.keys(caps)
    .filter((s) => !symbols.has(s))
    .map((s) => `protections.maxInstrumentNotional.${s}: not a configured instrument`)
}

/** The notional cap of one instrument, if any. */
export function instrumentNotionalCap(p: ProtectionSettings, symbol: string): string | undefined {
  const caps = p.maxInstrumentNotional
  return caps === undefined || typeof caps === 'string' ? caps : caps[symbol]
}
