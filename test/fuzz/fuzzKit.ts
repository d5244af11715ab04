/**
 * Shared pieces of the fuzz tests: bounded fast-check parameters (a fixed seed, overridable with
 * FUZZ_SEED; run counts scaled by FUZZ_RUNS, e.g. FUZZ_RUNS=20 for a long local run), hostile JSON
 * values, and mutations of valid bodies (drop a field, change a type, add an unknown field, null).
 */
import fc from 'fast-check'

const seedEnv = Number(process.env.FUZZ_SEED)
/** The seed of every property (fast-check prints it with the counterexample on failure). */
export const FUZZ_SEED = Number.isInteger(seedEnv) ? seedEnv : 20_261_123
const scaleEnv = Number(process.env.FUZZ_RUNS)
const SCALE = Number.isFinite(scaleEnv) && scaleEnv > 0 ? scaleEnv : 1

/** Parameters of one property: `runs` generated cases (times FUZZ_RUNS), the shared seed. */
export function fuzzParams<T>(runs: number): fc.Parameters<T> {
  return { numRuns: Math.max(1, Math.round(runs * SCALE)), seed: FUZZ_SEED, endOnFailure: true }
}

/** Keys that have bitten JS parsers: prototype pollution and lookalikes. */
export const NASTY_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', ''] as const

const key = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 8 }) },
  { weight: 1, arbitrary: fc.constantFrom(...NASTY_KEYS) },
)

/** Scalars a JSON body can hold, biased to the edges: huge, negative, non-integer, unicode, hex-ish. */
export const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -1,
    -0,
    1e308,
    -1e308,
    2 ** 53,
    2 ** 64,
    0.1,
    '',
    'NaN',
    'Infinity',
    '-1',
    '1e400',
    '0x',
    '0x1234',
    `0x${'f'.repeat(41)}`,
    `0x${'z'.repeat(40)}`,
    '-0.0',
    '1.',
    '.5',
    '1'.repeat(400),
    'x'.repeat(5_000),
    '\u0000',
    '\ud800',
    '😀',
    'é',
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
)

/** JSON values of bounded depth, with hostile scalars and keys. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileScalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value

type Path = (string | number)[]

/** Every path into a JSON value (the root is `[]`). */
export function pathsOf(value: unknown, prefix: Path = [], out: Path[] = [], limit = 2_000): Path[] {
  if (out.length >= limit) return out
  out.push(prefix)
  if (Array.isArray(value)) value.forEach((v, i) => void pathsOf(v, [...prefix, i], out, limit))
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out, limit)
  return out
}

export type MutationKind = 'drop' | 'null' | 'retype' | 'extra' | 'wrap' | 'replace'
export interface Mutation {
  kind: MutationKind
  /** Picks the path (modulo the number of paths). */
  at: number
  /** The value that replaces or is added. */
  value: unknown
  extraKey: string
}

export const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<MutationKind>('drop', 'null', 'retype', 'extra', 'wrap', 'replace'),
  at: fc.nat(),
  value: hostileJson,
  extraKey: fc.oneof(fc.constantFrom(...NASTY_KEYS), fc.string({ minLength: 1, maxLength: 10 })),
})

/** A copy of `valid` with one mutation applied at one of its paths. */
export function mutate(valid: unknown, m: Mutation): unknown {
  const root: unknown = structuredClone(valid)
  const paths = pathsOf(root)
  const path = paths[m.at % paths.length] ?? []
  const retyped = retype(get(root, path), m.value)
  if (path.length === 0) {
    if (m.kind === 'drop' || m.kind === 'null') return null
    if (m.kind === 'wrap') return [root]
    if (m.kind === 'extra') return addKey(root, m.extraKey, m.value)
    return m.kind === 'retype' ? retyped : m.value
  }
  const parent = get(root, path.slice(0, -1))
  const last = path[path.length - 1] as string | number
  if (typeof parent !== 'object' || parent === null) return root
  const p = parent as Record<string | number, unknown>
  const current = p[last]
  switch (m.kind) {
    case 'drop':
      if (Array.isArray(parent)) parent.splice(Number(last), 1)
      else delete p[last]
      break
    case 'null':
      p[last] = null
      break
    case 'retype':
      p[last] = retyped
      break
    case 'extra':
      p[last] = addKey(current, m.extraKey, m.value)
      break
    case 'wrap':
      p[last] = [current]
      break
    case 'replace':
      p[last] = m.value
      break
  }
  return root
}

/** A copy of `valid` with one unknown field added to one of its objects (the root or any nested one). */
export function withUnknownField(valid: unknown, at: number, k: string, value: unknown): unknown {
  const root: unknown = structuredClone(valid)
  const objects = pathsOf(root)
    .map((p) => get(root, p))
    .filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v) && !Object.hasOwn(v, k))
  const target = objects[at % Math.max(1, objects.length)]
  if (target !== undefined) addKey(target, k, value)
  return root
}

/** Up to three mutations of `valid`. */
export function mutated(valid: unknown): fc.Arbitrary<unknown> {
  return fc
    .array(mutation, { minLength: 1, maxLength: 3 })
    .map((ms) => ms.reduce((v, m) => mutate(v, m), valid))
}

function get(root: unknown, path: Path): unknown {
  let v = root
  for (const k of path) v = (v as Record<string | number, unknown>)[k]
  return v
}

/** A value of another JSON type than `v` (a string of a number, a number of a string, ...). */
function retype(v: unknown, fallback: unknown): unknown {
  if (typeof v === 'string') return Number.isNaN(Number(v)) ? v.length : Number(v)
  if (typeof v === 'number') return String(v)
  if (typeof v === 'boolean') return v ? 'true' : 0
  if (Array.isArray(v)) return Object.fromEntries(v.map((x, i) => [String(i), x]))
  if (typeof v === 'object' && v !== null) return Object.values(v)
  return fallback
}

/** Adds an own property (also `__proto__`, as JSON.parse would) to an object; other values unchanged. */
function addKey(target: unknown, k: string, value: unknown): unknown {
  if (typeof target !== 'object' || target === null || Array.isArray(target)) return target
  Object.defineProperty(target, k, { value, enumerable: true, writable: true, configurable: true })
  return target
}

/** Bounded text of a thrown value for assertion messages. */
export function brief(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message.slice(0, 300)}` : String(e).slice(0, 300)
}
