/**
 * zod building blocks for strategy params, so every strategy spells decimals, basis points and the
 * shared ladder knobs the same way. Decimal params accept a JSON string ("0.01") or a plain number
 * (0.01, converted through its shortest decimal spelling) and always come out as canonical strings,
 * so no float reaches quote math.
 */
import { z } from 'zod'
import { compareDecimal, isDecimalString, normalizeDecimal } from '../decimal.ts'

/** A decimal as string or number; output is the canonical decimal string. */
export const DecimalParam = z
  .union([z.string(), z.number()], { error: 'must be a decimal string or a number' })
  .transform((v, ctx) => {
    const s = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v.trim()
    if (!isDecimalString(s)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a plain decimal such as "0.25" (got ${JSON.stringify(v)})`,
      })
      return z.NEVER
    }
    return normalizeDecimal(s)
  })

/** A decimal strictly greater than zero. */
export const PositiveDecimalParam = DecimalParam.refine((s) => compareDecimal(s, '0') > 0, {
  error: 'must be greater than 0',
})

/**
 * A quantity can never reach 10^15 contracts (decision, like the index guard's 15 integer digits: a
 * notional that large exceeds every maximum notional at any price the bot would accept) nor carry more
 * than 18 decimals (the venue's largest quantity_decimals): a size beyond either could never pass the
 * size guard, so the config refuses it (exit 2 with its path) instead of the bot signing it.
 */
export const MAX_QUANTITY_INTEGER_DIGITS = 15
export const MAX_QUANTITY_DECIMALS = 18

/** A positive quantity in contracts within the bounds above. */
export const QuantityParam = PositiveDecimalParam.refine(
  (s) => (s.split('.')[0] ?? '').replace(/^0+/, '').length <= MAX_QUANTITY_INTEGER_DIGITS,
  {
    error: `must be below 10^${MAX_QUANTITY_INTEGER_DIGITS} contracts (no order that large could pass the size guard)`,
  },
).refine((s) => (s.split('.')[1] ?? '').length <= MAX_QUANTITY_DECIMALS, {
  error: `must have at most ${MAX_QUANTITY_DECIMALS} decimals (no venue quantity is finer)`,
})

/** A decimal fraction in (0, 1]. */
export const FractionParam = PositiveDecimalParam.refine((s) => compareDecimal(s, '1') <= 0, {
  error: 'must be at most 1',
})

/** A decimal factor ≥ 1. */
export const FactorParam = DecimalParam.refine((s) => compareDecimal(s, '1') >= 0, {
  error: 'must be at least 1',
})

/** Whole basis points in [min, max]. */
export const bpsParam = (min: number, max: number) =>
  z
    .number({ error: 'must be a number of basis points' })
    .int({ error: 'must be a whole number of basis points' })
    .min(min, { error: `must be at least ${min} bps` })
    .max(max, { error: `must be at most ${max} bps` })

/** A duration in ms (0 disables the check it controls). */
export const MsParam = z.number().int({ error: 'must be whole milliseconds' }).nonnegative()

/**
 * Params shared by the ladder strategies (see `buildLadder`). `size` and `positionCap` have no default:
 * they are the risk the operator takes and must be written in the config.
 */
export const ladderParamsShape = {
  /** Quantity per level, contracts. */
  size: QuantityParam,
  /** Largest |position| the quotes may lead to, contracts. */
  positionCap: QuantityParam,
  /** Distance of the innermost bid and ask from the centre, bps. */
  halfSpreadBps: bpsParam(1, 5_000).default(10),
  /** Quotes per side. */
  levels: z.number().int().min(1).max(50).default(1),
  /** Extra distance of each further level, bps. */
  levelSpacingBps: bpsParam(0, 5_000).default(5),
  /** Shift of both quotes against the position when |position| = positionCap (linear below it), bps. */
  skewBps: bpsParam(0, 5_000).default(5),
  /** Quote nothing when the index is older than this (0 = never stale). */
  maxIndexAgeMs: MsParam.default(60_000),
  /** Keep post-only quotes behind the best bid/offer while it is at most this old (0 = any age). */
  maxBboAgeMs: MsParam.default(5_000),
  /** Shift toward the fresh best bid/offer's size imbalance at full imbalance, bps (0 = off). */
  imbalanceSkewBps: bpsParam(0, 1_000).default(0),
  /** Shift against the funding rate (down when longs pay) at `fundingRateAtFull`, bps (0 = off). */
  fundingSkewBps: bpsParam(0, 1_000).default(0),
  /** Funding rate per interval (decimal fraction, e.g. "0.0001" = 1 bp) that gives the whole funding skew. */
  fundingRateAtFull: PositiveDecimalParam.default('0.0001'),
  /** In `widened` mode the half-spread and level spacing are multiplied by this. */
  widenedSpreadFactor: FactorParam.default('2'),
  /** In `widened` mode the size per level is multiplied by this. */
  widenedSizeFactor: FractionParam.default('0.5'),
}

export const LadderParams = z.strictObject(ladderParamsShape)
export type LadderParams = z.infer<typeof LadderParams>
