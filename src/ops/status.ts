/**
 * What `/status` reports: every actor's state and reason, the account, the limiter and recent alerts.
 * The runtime builds a `BotStatus`; the ops server serializes it through `sanitizeForJson`, which drops
 * secret-named keys and scrubs known secret values defensively, whatever the runtime put in.
 */
import type { Alert } from '../alerts/alert.ts'
import type { InstrumentPnl, PnlSnapshot } from '../pnlTypes.ts'
import type { BudgetUsage, LimiterBudget } from './metrics.ts'

export type BotMode = 'dry-run' | 'live' | 'paper'

/** Free-form extra facts (public only); serialized as JSON after sanitizing. */
export type StatusDetails = Readonly<Record<string, unknown>>

export interface InstrumentStatus {
  symbol: string
  id: number
  /** Dotted state path, e.g. `active.widened.repricing` (see `formatStatePath`). */
  state: string
  /** Why the actor is in its state (risk assessment reason, halt reason). */
  reason?: string | undefined
  /** Quoting mode: `normal`, `widened`, `reduce-only`, `halted`, ... */
  mode: string
  strategy?: string | undefined
  openOrders: number
  /** Unix ms the quotes were last confirmed on the book. */
  lastQuoteAt?: number | undefined
  quoteAgeMs?: number | undefined
  /** Fills, fees, funding and PnL since start (quote currency, exact decimal strings). */
  pnl?: InstrumentPnl | undefined
  /** Open degradation episodes (`cause: reason`): a failing strategy, dropped quotes, rejected index. */
  degraded?: readonly string[] | undefined
  /** Counters such as plans, submitted, rejected, unknown. */
  stats?: Readonly<Record<string, number | string | boolean | undefined>> | undefined
  details?: StatusDetails | undefined
}

/** `/status` → `control`: each protection figure beside its limit (quote currency), the breaches, the holds. */
export interface ControlStatus {
  currency: string
  limits: {
    maxDailyLoss?: string | undefined
    maxDrawdown?: string | undefined
    maxAccountNotional?: string | undefined
    maxInstrumentNotional?: string | Readonly<Record<string, string>> | undefined
    cooldownAfterLossMs: number
    resume: string
    flattenOnBreach: boolean
  }
  /** Undefined while unknown (no PnL or mark yet). */
  figures: {
    dailyLoss: string | undefined
    drawdown: string | undefined
    accountNotional: string | undefined
    instrumentNotional: Readonly<Record<string, string>>
  }
  breaches: readonly {
    limit: string
    symbol: string | undefined
    message: string
    at: number
    until: number | undefined
  }[]
  held: readonly { symbol: string; reasons: readonly string[] }[]
}

export interface AccountStatus {
  /** Maintenance / equity; serialized as the string `Infinity` when equity is gone. */
  marginRatio?: number | undefined
  marginLevel?: 'ok' | 'warning' | 'critical' | undefined
  /** The unit of every amount here, as the venue names it (an instrument's quote asset, e.g. "USDC"). */
  currency?: string | undefined
  inLiquidation: boolean
  pendingWithdrawals: number
  /** Account totals of fills, fees, funding and PnL since start, and the maker share of fills. */
  pnl?: PnlSnapshot['account'] | undefined
  /** Unix ms of the last portfolio read. */
  updatedAt?: number | undefined
  details?: StatusDetails | undefined
}

export interface LimiterStatus {
  budgets: Partial<Record<LimiterBudget, BudgetUsage & { queued?: number | undefined }>>
  /** Unix ms until which the limiter backs off after a 429, if any. */
  backoffUntil?: number | undefined
  details?: StatusDetails | undefined
}

export interface BotStatus {
  mode: BotMode
  /** Unix ms. */
  startedAt: number
  uptimeMs: number
  instruments: readonly InstrumentStatus[]
  account: AccountStatus
  limiter: LimiterStatus
  /** The most recent alerts, newest last. */
  alerts: readonly Alert[]
  details?: StatusDetails | undefined
  /** The protections and what holds instruments halted (src/bot/control/). */
  control?: ControlStatus | undefined
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }

/** Keys whose values are never served, at any depth (case-insensitive). */
export const SECRET_KEY_PATTERN: RegExp =
  /secret|private_?key|privkey|passphrase|password|mnemonic|api_?key|authorization|webhook_?url/i

const REDACTED = '[redacted]'
const MAX_DEPTH = 12

export interface SanitizeOptions {
  /** Secret values to replace wherever they appear inside a string. */
  secrets?: readonly (string | undefined)[] | undefined
}

/**
 * Converts any value to plain JSON with secret-named keys dropped and known secret values replaced.
 * Non-finite numbers become the strings `Infinity`, `-Infinity`, `NaN` (JSON would say null), bigints
 * become strings, Maps objects, Sets arrays, Errors their message; functions, symbols, undefined and
 * cycles are dropped.
 */
export function sanitizeForJson(value: unknown, options: SanitizeOptions = {}): JsonValue {
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 8)
  const scrub = (s: string): string => {
    let out = s
    for (const secret of secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED)
    return out
  }
  const seen = new WeakSet<object>()
  const walk = (v: unknown, depth: number): JsonValue | undefined => {
    switch (typeof v) {
      case 'string':
        return scrub(v)
      case 'number':
        return Number.isFinite(v) ? v : String(v)
      case 'boolean':
        return v
      case 'bigint':
        return v.toString()
      case 'undefined':
      case 'function':
      case 'symbol':
        return undefined
    }
    if (v === null || typeof v !== 'object') return null // every other typeof is handled above
    const obj = v
    if (seen.has(obj) || depth > MAX_DEPTH) return undefined
    seen.add(obj)
    try {
      if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? null : obj.toISOString()
      if (obj instanceof Error) return scrub(`${obj.name}: ${obj.message}`)
      if (Array.isArray(obj) || obj instanceof Set) {
        const out: JsonValue[] = []
        for (const item of obj) out.push(walk(item, depth + 1) ?? null)
        return out
      }
      const entries = obj instanceof Map ? [...obj.entries()] : Object.entries(obj)
      const out: { [key: string]: JsonValue } = {}
      for (const [k, item] of entries) {
        const key = String(k)
        if (SECRET_KEY_PATTERN.test(key)) continue
        const j = walk(item, depth + 1)
        if (j !== undefined) out[key] = j
      }
      return out
    } finally {
      // Only true cycles are dropped; the same object reached twice by different paths is kept.
      seen.delete(obj)
    }
  }
  return walk(value, 0) ?? null
}
