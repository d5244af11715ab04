/**
 * fast-check arbitraries generated from a zod 4 schema (the official bindings' schemas), biased to the
 * edges the venue may send: decimal strings in every spelling the official type admits (`""`, `"1e-7"`,
 * `".5"`, `"+1"`, `"1."`), non-numeric strings, ids at the u32 boundary, millisecond and microsecond
 * times, nulls where allowed, absent optionals and unknown extra fields. Walks `schema._zod.def`; a
 * preprocess pipe is generated from its output side, any other pipe from its input side.
 */
import fc from 'fast-check'
import type { z } from 'zod'

interface Check {
  check?: string
  format?: string
  pattern?: RegExp
  minimum?: number
  maximum?: number
  value?: number
  inclusive?: boolean
}

interface Def {
  type: string
  /** A string format of the schema itself (zod 4's `z.uuid()` and kin). */
  format?: string
  checks?: { _zod: { def: Check } }[]
  shape?: Record<string, z.ZodType>
  element?: z.ZodType
  items?: z.ZodType[]
  rest?: z.ZodType | null
  options?: z.ZodType[]
  innerType?: z.ZodType
  in?: z.ZodType
  out?: z.ZodType
  entries?: Record<string, string | number>
  values?: unknown[]
  getter?: () => z.ZodType
  valueType?: z.ZodType
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def
const checksOf = (d: Def): Check[] => (d.checks ?? []).map((c) => c._zod.def)

/** Spellings a decimal field may carry on the wire (the official type is any string). */
export const DECIMAL_EDGES = [
  '0',
  '1',
  '-1',
  '100.5',
  '-0.0001',
  '.5',
  '+1',
  '1.',
  '1e-7',
  '-2.5E+3',
  '',
  'NaN',
  'n/a',
]

const hexAddress = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((b) => `0x${Buffer.from(b).toString('hex')}`)

const txHash = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => `0x${Buffer.from(b).toString('hex')}`)

const plainString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...DECIMAL_EDGES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 2, arbitrary: hexAddress },
  { weight: 1, arbitrary: txHash },
  { weight: 1, arbitrary: fc.constantFrom('0x', 'pUSD', 'BTC-USD', 'long', 'short') },
)

function stringArb(d: Def): fc.Arbitrary<string> {
  const checks = checksOf(d)
  if (d.format === 'uuid' || checks.some((c) => c.format === 'uuid')) return fc.uuid()
  const regex = checks.find((c) => c.format === 'regex')?.pattern
  const min = checks.find((c) => c.check === 'min_length')?.minimum ?? 0
  const base = regex !== undefined ? fc.stringMatching(regex) : plainString
  return min > 0 ? base.filter((s) => s.length >= min) : base
}

function numberArb(d: Def): fc.Arbitrary<number> {
  const checks = checksOf(d)
  const int = checks.some((c) => c.format === 'safeint' || c.format === 'int32' || c.format === 'uint32')
  const lower = checks.find((c) => c.check === 'greater_than')
  const upper = checks.find((c) => c.check === 'less_than')
  const lo = lower?.value ?? -Number.MAX_SAFE_INTEGER
  const hi = upper?.value ?? Number.MAX_SAFE_INTEGER
  const ok = (n: number) =>
    (lower === undefined || (lower.inclusive ? n >= lo : n > lo)) &&
    (upper === undefined || (upper.inclusive ? n <= hi : n < hi))
  // Ids at the u32 boundary, ms and µs times, small counts.
  const edges = [
    0, 1, 2, 7, 100, 4_294_967_295, 4_294_967_296, 1_767_000_000_000, 1_767_000_000_000_000,
  ].filter(ok)
  const body = int
    ? fc.integer({ min: Math.max(lo, -1_000_000), max: Math.min(hi, 2 ** 40) })
    : fc.double({ min: Math.max(lo, -1e9), max: Math.min(hi, 1e9), noNaN: true, noDefaultInfinity: true })
  return fc
    .oneof(
      { weight: 1, arbitrary: fc.constantFrom(...(edges.length > 0 ? edges : [0])) },
      { weight: 2, arbitrary: body },
    )
    .filter(ok)
}

const ABSENT = Symbol('absent')

/** An arbitrary of values the schema accepts (most of the time: refinements are not inverted). */
export function arbitraryOf(schema: z.ZodType): fc.Arbitrary<unknown> {
  const d = defOf(schema)
  switch (d.type) {
    case 'string':
      return stringArb(d)
    case 'number':
      return numberArb(d)
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'undefined':
      return fc.constant(ABSENT)
    case 'literal':
      return fc.constantFrom(...(d.values ?? [null]))
    case 'enum':
      return fc.constantFrom(...Object.values(d.entries ?? {}))
    case 'optional':
      return fc.oneof(fc.constant(ABSENT), arbitraryOf(inner(d)))
    case 'nullable':
      return fc.oneof(fc.constant(null), arbitraryOf(inner(d)))
    case 'default':
    case 'prefault':
    case 'catch':
    case 'readonly':
    case 'nonoptional':
      return arbitraryOf(inner(d))
    case 'lazy':
      return d.getter ? arbitraryOf(d.getter()) : fc.constant(null)
    case 'pipe': {
      const from = d.in !== undefined && defOf(d.in).type === 'transform' ? d.out : d.in
      return from === undefined ? fc.constant(null) : arbitraryOf(from)
    }
    case 'array':
      return d.element ? fc.array(arbitraryOf(d.element), { maxLength: 3 }) : fc.constant([])
    case 'tuple':
      return fc.tuple(...(d.items ?? []).map(arbitraryOf))
    case 'union':
      return fc.oneof(...(d.options ?? []).map(arbitraryOf))
    case 'record':
      return d.valueType
        ? fc.dictionary(fc.string({ maxLength: 4 }), arbitraryOf(d.valueType), { maxKeys: 2 })
        : fc.constant({})
    case 'object':
      return objectArb(d.shape ?? {})
    case 'unknown':
    case 'any':
      return fc.jsonValue({ maxDepth: 1 })
    default:
      return fc.constant(null)
  }
}

function inner(d: Def): z.ZodType {
  if (d.innerType === undefined) throw new Error(`zod ${d.type} without innerType`)
  return d.innerType
}

function objectArb(shape: Record<string, z.ZodType>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(shape)
  const fields = keys.map((k) => {
    const s = shape[k]
    return s === undefined ? fc.constant(ABSENT) : arbitraryOf(s)
  })
  return fc
    .tuple(fc.tuple(...fields), fc.option(fc.constantFrom('adl', 'extra_field', 'x'), { nil: undefined }))
    .map(([values, extra]) => {
      const o: Record<string, unknown> = {}
      keys.forEach((k, i) => {
        const v = values[i]
        if (v !== ABSENT) o[k] = v
      })
      // An unknown field the venue may add later.
      if (extra !== undefined) o[extra] = extra === 'adl' ? false : 'future'
      return o
    })
}
