/**
 * Leverage and margin mode: what the config asks per instrument (`instruments[].leverage`,
 * `marginMode`) against what the account has (`GET /v1/account/config`). Pure: the bot's start
 * applies the differences (bot/startup/instrumentLeverage.ts), `perpbot doctor` reports them.
 */
import type { InstrumentConfig } from './schemas/accountState.ts'

export interface LeverageWanted {
  symbol: string
  instrumentId: number
  leverage?: number | undefined
  marginMode?: 'cross' | 'isolated' | undefined
}

export interface LeverageChange {
  symbol: string
  instrumentId: number
  /** What to send (`updateLeverage` takes both: the one not configured is kept as the account has it). */
  leverage: number
  cross: boolean
  /** What the account has now (undefined: the venue lists no setting for it). */
  have: { leverage: number; cross: boolean } | undefined
}

/** Venue default when the account lists no setting for an instrument and the config names no leverage. */
const DEFAULT_LEVERAGE = 1

/** The changes that bring the account to the config (none for instruments that configure neither). */
export function leverageChanges(
  wanted: readonly LeverageWanted[],
  have: readonly InstrumentConfig[],
): LeverageChange[] {
  const byId = new Map(have.map((c) => [c.instrument_id, c]))
  const out: LeverageChange[] = []
  for (const w of wanted) {
    if (w.leverage === undefined && w.marginMode === undefined) continue
    const h = byId.get(w.instrumentId)
    const leverage = w.leverage ?? h?.leverage ?? DEFAULT_LEVERAGE
    const cross = w.marginMode === undefined ? (h?.cross ?? true) : w.marginMode === 'cross'
    if (h !== undefined && h.leverage === leverage && h.cross === cross) continue
    out.push({
      symbol: w.symbol,
      instrumentId: w.instrumentId,
      leverage,
      cross,
      have: h === undefined ? undefined : { leverage: h.leverage, cross: h.cross },
    })
  }
  return out
}

export const describeSetting = (s: { leverage: number; cross: boolean }): string =>
  `${s.leverage}x ${s.cross ? 'cross' : 'isolated'}`

/** One line per change: `BTC-USDC: 5x cross → 3x isolated`. */
export function describeChange(c: LeverageChange): string {
  return `${c.symbol}: ${c.have === undefined ? 'not set' : describeSetting(c.have)} → ${describeSetting(c)}`
}
