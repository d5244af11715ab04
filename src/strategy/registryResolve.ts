/**
 * A registered strategy bound to its params: `resolveStrategy` parses the raw params with the
 * strategy's own schema (every issue with its path), validates its catalogue query and `maxOrders`,
 * and returns what an instrument actor holds: `quote` checked against the venue's rules, the mode and
 * the position cap (`StrategyOutputError` otherwise), `revisitAt` with a default cadence.
 */
import { isDecimalString } from '../decimal.ts'
import { ConfigError } from '../errors.ts'
import { fieldOf } from '../guards.ts'
import { positionCapProblems, validateQuotes } from './quoting.ts'
import { StrategyOutputError } from './registryErrors.ts'
import { type QuotesSeen, sameQuotes, seeQuotes } from './sameQuotes.ts'
import {
  type CatalogueQuery,
  CatalogueQuerySchema,
  type DesiredQuote,
  OPTIONAL_INPUTS,
  type OptionalInput,
  type Strategy,
  type StrategySnapshot,
} from './strategy.ts'

/** A strategy bound to parsed params: what an instrument actor holds. */
export interface ResolvedStrategy {
  readonly name: string
  readonly strategy: Strategy<unknown>
  /** Parsed params (schema output, defaults applied), frozen. */
  readonly params: unknown
  /** The params' `positionCap`, when the strategy declares one. */
  readonly positionCap: string | undefined
  /** The catalogue data the strategy wants, validated; undefined = none. */
  readonly catalogueQuery: CatalogueQuery | undefined
  /**
   * Runs the strategy and checks its output (`validateQuotes`, plus the position cap);
   * throws `StrategyOutputError` when it throws or its quotes are invalid.
   */
  quote(snapshot: StrategySnapshot): DesiredQuote[]
  /**
   * When to ask again if no input changes (see `Strategy.revisitAt`): the strategy's own answer, or
   * `snapshot.now + DEFAULT_REVISIT_MS` when it declares none, throws or names a time not after `now`.
   */
  revisitAt(snapshot: StrategySnapshot): number | undefined
  /** The optional inputs whose change re-plans (`Strategy.reads`; every one when it declares none). */
  readonly reads: ReadonlySet<OptionalInput>
  /** `Strategy.maxOrders` for these params (a whole number ≥ 0); undefined when it declares none. */
  readonly maxOrders: number | undefined
}

/** How often a strategy that does not say when its quotes age is asked again with unchanged inputs. */
export const DEFAULT_REVISIT_MS = 1_000

export interface StrategyRegistry {
  /** Registered names, sorted. */
  names(): string[]
  get(name: string): Strategy<unknown> | undefined
  /** Where a strategy came from (file path or `shipped (name)`). */
  source(name: string): string | undefined
  /** See `resolveStrategy`. */
  resolve(name: string, rawParams: unknown): ResolvedStrategy
}

/** The `positionCap` of parsed params, when it is a decimal string. */
export function positionCapOf(params: unknown): string | undefined {
  if (params === null || typeof params !== 'object') return undefined
  const cap = fieldOf(params, 'positionCap')
  return typeof cap === 'string' && isDecimalString(cap) ? cap : undefined
}

/** Renders zod-like issues as `params.a.b[0]: message`. */
export function formatIssues(
  prefix: string,
  issues: readonly { path?: readonly PropertyKey[] | undefined; message: string }[],
): string[] {
  return issues.map((i) => {
    const path = (i.path ?? []).reduce<string>(
      (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : `${acc}.${String(key)}`),
      prefix,
    )
    return `${path}: ${i.message}`
  })
}

/**
 * Finds `name` and parses `rawParams` (undefined = {}) with its schema. Throws `ConfigError` for an
 * unknown name (listing the known ones) and for invalid params (every issue with its path).
 */
export function resolveStrategy(
  registry: StrategyRegistry,
  name: string,
  rawParams: unknown,
): ResolvedStrategy {
  const strategy = registry.get(name)
  if (strategy === undefined) {
    throw new ConfigError(`unknown strategy "${name}"`, [
      `known strategies: ${registry.names().join(', ') || '(none)'}`,
    ])
  }
  const parsed = (strategy.paramsSchema as { safeParse(v: unknown): SafeParseLike }).safeParse(
    rawParams ?? {},
  )
  if (!parsed.success) {
    throw new ConfigError(
      `invalid params for strategy "${name}"`,
      formatIssues('params', parsed.error?.issues ?? [{ message: 'invalid' }]),
    )
  }
  const params: unknown = deepFreeze(parsed.data)
  let catalogueQuery: CatalogueQuery | undefined
  if (strategy.catalogue !== undefined) {
    const raw = strategy.catalogue(params)
    if (raw !== undefined) {
      const q = CatalogueQuerySchema.safeParse(raw)
      if (!q.success) {
        throw new ConfigError(
          `strategy "${name}" asked for an invalid catalogue query`,
          formatIssues('catalogue', q.error.issues),
        )
      }
      catalogueQuery = q.data
    }
  }
  const positionCap = positionCapOf(params)
  const maxOrders = maxOrdersOf(name, strategy, params)
  /** Per instrument: the last output that passed every check, with what the checks read besides it. */
  const accepted = new Map<number, AcceptedQuotes>()
  return {
    name,
    strategy,
    params,
    positionCap,
    catalogueQuery,
    reads: new Set(strategy.reads ?? OPTIONAL_INPUTS),
    maxOrders,
    quote(snapshot) {
      let quotes: DesiredQuote[]
      try {
        quotes = strategy.quote(snapshot, params)
      } catch (e) {
        throw new StrategyOutputError(
          name,
          [`quote() threw: ${e instanceof Error ? e.message : String(e)}`],
          { cause: e },
        )
      }
      // The checks read the quotes, the instrument's rules, the mode and the position alone: the same
      // output on the same of those passes again (most plans repeat their last ladder).
      const last = accepted.get(snapshot.instrument.id)
      if (last !== undefined && sameChecked(last, snapshot) && sameQuotes(last.quotes, quotes)) return quotes
      const issues = validateQuotes(snapshot, quotes)
      if (maxOrders !== undefined && quotes.length > maxOrders)
        issues.push(`${quotes.length} quotes exceed the strategy's own maxOrders ${maxOrders}`)
      if (issues.length === 0 && positionCap !== undefined)
        issues.push(...positionCapProblems(snapshot, quotes, positionCap))
      if (issues.length > 0) throw new StrategyOutputError(name, issues)
      accepted.set(snapshot.instrument.id, acceptedQuotes(snapshot, quotes))
      return quotes
    },
    revisitAt(snapshot) {
      const fallback = snapshot.now + DEFAULT_REVISIT_MS
      if (strategy.revisitAt === undefined) return fallback
      let at: unknown
      try {
        at = strategy.revisitAt(snapshot, params)
      } catch {
        // Untrusted code: a failing answer costs only the default cadence (quote() reports its errors).
        return fallback
      }
      if (at === undefined) return undefined
      return typeof at === 'number' && Number.isFinite(at) && at > snapshot.now ? at : fallback
    },
  }
}

/** An output that passed the checks, with the snapshot's fields the checks read (`validateQuotes`, the cap). */
interface AcceptedQuotes {
  readonly quotes: QuotesSeen
  readonly priceDecimals: number
  readonly quantityDecimals: number
  readonly minNotional: string
  readonly maxLimitNotional: string | undefined
  readonly maxOrderCount: number
  readonly mode: StrategySnapshot['mode']
  readonly positionSize: string | undefined
}

function acceptedQuotes(snapshot: StrategySnapshot, quotes: readonly DesiredQuote[]): AcceptedQuotes {
  const i = snapshot.instrument
  return {
    quotes: seeQuotes(quotes),
    priceDecimals: i.priceDecimals,
    quantityDecimals: i.quantityDecimals,
    minNotional: i.minNotional,
    maxLimitNotional: i.maxLimitNotional,
    maxOrderCount: i.maxOrderCount,
    mode: snapshot.mode,
    positionSize: snapshot.position?.size,
  }
}

/** True when what the checks read of `snapshot` besides the quotes is what they read for `a`. */
function sameChecked(a: AcceptedQuotes, snapshot: StrategySnapshot): boolean {
  const i = snapshot.instrument
  return (
    a.priceDecimals === i.priceDecimals &&
    a.quantityDecimals === i.quantityDecimals &&
    a.minNotional === i.minNotional &&
    a.maxLimitNotional === i.maxLimitNotional &&
    a.maxOrderCount === i.maxOrderCount &&
    a.mode === snapshot.mode &&
    a.positionSize === snapshot.position?.size
  )
}

/** `strategy.maxOrders(params)`, checked: a whole number ≥ 0, or a `ConfigError` naming the strategy. */
function maxOrdersOf(name: string, strategy: Strategy<unknown>, params: unknown): number | undefined {
  if (strategy.maxOrders === undefined) return undefined
  let n: unknown
  try {
    n = strategy.maxOrders(params)
  } catch (e) {
    throw new ConfigError(`strategy "${name}": maxOrders() threw`, [
      e instanceof Error ? e.message : String(e),
    ])
  }
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    throw new ConfigError(`strategy "${name}": maxOrders() must give a whole number ≥ 0`, [
      `got ${JSON.stringify(n)}`,
    ])
  return n
}

interface SafeParseLike {
  success: boolean
  data?: unknown
  error?: { issues: readonly { path?: readonly PropertyKey[] | undefined; message: string }[] } | undefined
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
