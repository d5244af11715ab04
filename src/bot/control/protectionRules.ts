/**
 * The protections' decisions, pure: from the account's net PnL and each instrument's position, mark
 * and realized PnL (quote currency, exact decimals), which limits are breached now, which cooldowns
 * start or end, and the figures `/status` shows. Nothing here halts or cancels: the part
 * (protections.ts) applies what this returns.
 *
 * - Daily loss: the net PnL at 00:00 UTC (or when first seen that day) less the net PnL now.
 * - Drawdown: the highest net PnL seen less the net PnL now.
 * - A loss or drawdown breaches when it reaches its limit; a notional when it exceeds its cap.
 * - A breach stays until resumed (`resume`, which re-bases the daily loss and the drawdown to now: the
 *   operator accepts the loss so far) or, with `resume: next-utc-day`, until the next 00:00 UTC.
 */
import { addDecimal, compareDecimal, mulDecimal, subDecimal } from '../../decimal.ts'
import { instrumentNotionalCap, type ProtectionSettings } from '../../settings/protectionSettings.ts'

export type LimitName = 'maxDailyLoss' | 'maxDrawdown' | 'maxInstrumentNotional' | 'maxAccountNotional'

export interface Breach {
  limit: LimitName
  /** The instrument a notional cap halts; undefined: the account (every instrument). */
  instrumentId: number | undefined
  symbol: string | undefined
  /** The figure that breached and its limit, in `currency`. */
  value: string
  threshold: string
  currency: string
  /** One sentence with the figures, for the alert and `/status`. */
  message: string
  at: number
  /** When it ends by itself (`resume: next-utc-day`); undefined: at `perpbot resume`. */
  until: number | undefined
}

export interface ProtectionState {
  /** The UTC day (YYYY-MM-DD) `dayStartNet` belongs to. */
  day: string | undefined
  dayStartNet: string | undefined
  peakNet: string | undefined
  breaches: Breach[]
  /** Each instrument's realized PnL at the last evaluation (a fall is a realized loss). */
  lastRealized: Record<number, string>
  /** Each instrument's cooldown end (bot clock), while one runs. */
  cooldownUntil: Record<number, number>
}

export interface ProtectionInputs {
  now: number
  /** The account's net PnL (realized + unrealized − fees − funding); undefined while unknown. */
  netPnl: string | undefined
  currency: string
  instruments: readonly {
    id: number
    symbol: string
    /** Signed contracts. */
    position: string
    /** The mark (or index) price; undefined while unknown. */
    mark: string | undefined
    realizedPnl: string
  }[]
}

export interface Cooldown {
  id: number
  symbol: string
  loss: string
  until: number
}

export interface ProtectionStep {
  state: ProtectionState
  breached: Breach[]
  /** Breaches that ended by themselves (the next UTC day). */
  expired: Breach[]
  cooldownsStarted: Cooldown[]
  cooldownsEnded: number[]
  figures: ProtectionFigures
}

/** What `/status` shows: each figure beside its limit (undefined: no limit or unknown). */
export interface ProtectionFigures {
  currency: string
  dailyLoss: string | undefined
  drawdown: string | undefined
  accountNotional: string | undefined
  instrumentNotional: Record<string, string>
}

export const initialProtectionState = (): ProtectionState => ({
  day: undefined,
  dayStartNet: undefined,
  peakNet: undefined,
  breaches: [],
  lastRealized: {},
  cooldownUntil: {},
})

const DAY_MS = 86_400_000

/** The UTC day of a time, YYYY-MM-DD. */
export const utcDay = (t: number): string => new Date(t).toISOString().slice(0, 10)
/** The next 00:00 UTC after `t`. */
export const nextUtcMidnight = (t: number): number => Math.floor(t / DAY_MS) * DAY_MS + DAY_MS

const abs = (s: string): string => (s.startsWith('-') ? s.slice(1) : s)
const max = (a: string, b: string): string => (compareDecimal(a, b) >= 0 ? a : b)

/** Whether a breach of this limit and scope is already active. */
const active = (breaches: readonly Breach[], limit: LimitName, id: number | undefined): boolean =>
  breaches.some((b) => b.limit === limit && b.instrumentId === id)

export function evaluateProtections(
  prior: ProtectionState,
  inputs: ProtectionInputs,
  cfg: ProtectionSettings,
): ProtectionStep {
  const { now, netPnl, currency } = inputs
  const day = utcDay(now)
  const state: ProtectionState = {
    ...prior,
    lastRealized: { ...prior.lastRealized },
    cooldownUntil: { ...prior.cooldownUntil },
  }
  const expired = state.breaches.filter((b) => b.until !== undefined && b.until <= now)
  state.breaches = state.breaches.filter((b) => !expired.includes(b))
  if (netPnl !== undefined) {
    if (state.day !== day || state.dayStartNet === undefined) {
      state.day = day
      state.dayStartNet = netPnl
    }
    state.peakNet = state.peakNet === undefined ? netPnl : max(state.peakNet, netPnl)
  }
  const until = cfg.resume === 'next-utc-day' ? nextUtcMidnight(now) : undefined
  const breached: Breach[] = []
  const breach = (b: Omit<Breach, 'currency' | 'at' | 'until'>): void => {
    if (active(state.breaches, b.limit, b.instrumentId)) return
    const full: Breach = { ...b, currency, at: now, until }
    breached.push(full)
    state.breaches.push(full)
  }
  const money = (v: string): string => `${v} ${currency}`

  const dailyLoss =
    netPnl !== undefined && state.dayStartNet !== undefined
      ? subDecimal(state.dayStartNet, netPnl)
      : undefined
  if (
    cfg.maxDailyLoss !== undefined &&
    dailyLoss !== undefined &&
    compareDecimal(dailyLoss, cfg.maxDailyLoss) >= 0
  )
    breach({
      limit: 'maxDailyLoss',
      instrumentId: undefined,
      symbol: undefined,
      value: dailyLoss,
      threshold: cfg.maxDailyLoss,
      message: `daily loss ${money(dailyLoss)} reached protections.maxDailyLoss ${money(cfg.maxDailyLoss)} (net PnL ${money(state.dayStartNet ?? '?')} at the day's start, ${money(netPnl ?? '?')} now)`,
    })
  const drawdown =
    netPnl !== undefined && state.peakNet !== undefined ? subDecimal(state.peakNet, netPnl) : undefined
  if (
    cfg.maxDrawdown !== undefined &&
    drawdown !== undefined &&
    compareDecimal(drawdown, cfg.maxDrawdown) >= 0
  )
    breach({
      limit: 'maxDrawdown',
      instrumentId: undefined,
      symbol: undefined,
      value: drawdown,
      threshold: cfg.maxDrawdown,
      message: `drawdown ${money(drawdown)} reached protections.maxDrawdown ${money(cfg.maxDrawdown)} (net PnL peaked at ${money(state.peakNet ?? '?')}, ${money(netPnl ?? '?')} now)`,
    })

  const instrumentNotional: Record<string, string> = {}
  let accountNotional = '0'
  let accountKnown = true
  const cooldownsStarted: Cooldown[] = []
  const cooldownsEnded: number[] = []
  for (const i of inputs.instruments) {
    const flat = compareDecimal(i.position, '0') === 0
    const notional = flat ? '0' : i.mark === undefined ? undefined : abs(mulDecimal(i.position, i.mark))
    if (notional === undefined) accountKnown = false
    else {
      instrumentNotional[i.symbol] = notional
      accountNotional = addDecimal(accountNotional, notional)
    }
    const cap = instrumentNotionalCap(cfg, i.symbol)
    if (cap !== undefined && notional !== undefined && compareDecimal(notional, cap) > 0)
      breach({
        limit: 'maxInstrumentNotional',
        instrumentId: i.id,
        symbol: i.symbol,
        value: notional,
        threshold: cap,
        message: `${i.symbol} notional ${money(notional)} (position ${i.position} × mark ${i.mark}) exceeds protections.maxInstrumentNotional ${money(cap)}`,
      })
    // Cooldown: a fall of the realized PnL is a fill that closed at a loss.
    const last = state.lastRealized[i.id]
    state.lastRealized[i.id] = i.realizedPnl
    const running = state.cooldownUntil[i.id]
    if (running !== undefined && running <= now) {
      delete state.cooldownUntil[i.id]
      cooldownsEnded.push(i.id)
    }
    if (cfg.cooldownAfterLossMs > 0 && last !== undefined && compareDecimal(i.realizedPnl, last) < 0) {
      const c = {
        id: i.id,
        symbol: i.symbol,
        loss: subDecimal(last, i.realizedPnl),
        until: now + cfg.cooldownAfterLossMs,
      }
      state.cooldownUntil[i.id] = c.until
      cooldownsStarted.push(c)
    }
  }
  // Unknown marks make the account's figure a lower bound: past the cap it is a breach all the same.
  if (cfg.maxAccountNotional !== undefined && compareDecimal(accountNotional, cfg.maxAccountNotional) > 0)
    breach({
      limit: 'maxAccountNotional',
      instrumentId: undefined,
      symbol: undefined,
      value: accountNotional,
      threshold: cfg.maxAccountNotional,
      message: `account notional ${money(accountNotional)}${accountKnown ? '' : ' (at least; some marks unknown)'} exceeds protections.maxAccountNotional ${money(cfg.maxAccountNotional)}`,
    })
  return {
    state,
    breached,
    expired,
    cooldownsStarted,
    cooldownsEnded,
    figures: {
      currency,
      dailyLoss,
      drawdown,
      accountNotional: accountKnown ? accountNotional : undefined,
      instrumentNotional,
    },
  }
}

/**
 * `perpbot resume`: every breach ends; the daily loss and the drawdown are re-based to the net PnL
 * now (the loss so far is accepted), so they breach again only after a further loss of their limit.
 * A notional still over its cap breaches again at the next evaluation.
 */
export function resumeProtections(
  prior: ProtectionState,
  netPnl: string | undefined,
): { state: ProtectionState; resumed: Breach[] } {
  return {
    state: {
      ...prior,
      breaches: [],
      ...(netPnl === undefined ? {} : { dayStartNet: netPnl, peakNet: netPnl }),
    },
    resumed: prior.breaches,
  }
}
