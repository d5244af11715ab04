/**
 * Building blocks for the catalogue's tolerant wire schemas. The real service omits fields and sends
 * nulls freely, so every field that is not explicitly required is `nullish` (null or absent).
 */
import { z } from 'zod'

/** A date-time on the wire. Kept as the string the server sent: its formats vary (fractional digits, offsets). */
export const DateTimeString = z.string()

/** The shape `nullishFields` builds: every listed key maps to `schema | null | undefined`. */
export type NullishShape<K extends string, S extends z.ZodType> = {
  [P in K]: z.ZodOptional<z.ZodNullable<S>>
}

/** One nullish entry per field name, all of the same type (mirrors the spec's "Type | Fields" tables). */
export function nullishFields<const K extends readonly string[], S extends z.ZodType>(
  keys: K,
  schema: S,
): NullishShape<K[number], S> {
  // One shared instance per call: cheaper to build, and the parser sees a single callee.
  const field = schema.nullish()
  const out: Record<string, z.ZodType> = {}
  for (const k of keys) out[k] = field
  return out as NullishShape<K[number], S>
}

/**
 * An id the service writes as a string or, on some rows, as a JSON number (the official client takes
 * both for event and series ids); always a string once parsed.
 */
export const GammaId = z.union([z.string(), z.number().int().transform(String)])

/**
 * A number the service writes as a JSON number or a numeric string (volumes, liquidity, fee rates:
 * the official client's `Decimalish`); a number once parsed, and `''` reads as null (no value). Any
 * other non-numeric string is an error: these values are compared and summed, never shown verbatim.
 */
export const NumberLike = z.union([
  z.number(),
  z.string().transform((s, ctx) => {
    if (s.trim() === '') return null
    const n = Number(s)
    if (!Number.isFinite(n)) {
      ctx.addIssue({ code: 'custom', message: 'expected a number or a numeric string' })
      return z.NEVER
    }
    return n
  }),
])

/**
 * A JSON-encoded array string (`outcomes`, `outcomePrices`, `clobTokenIds`); an array sent as such is
 * encoded back, so readers always see the string form the spec shows.
 */
export const JsonArrayString = z.union([z.string(), z.array(z.unknown()).transform((a) => JSON.stringify(a))])
