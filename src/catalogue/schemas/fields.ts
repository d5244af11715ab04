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
