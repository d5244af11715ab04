/** The summary table's figures, pure: from the recorded series and totals of a run. */
import { maxDrawdown } from '../../pnlDrawdown.ts'
import type { SeriesPoint } from './downsample.ts'
import type { FillTotals, SimRecord, StateTimes } from './model.ts'

export interface SimSummary {
  netPnl: number
  realizedPnl: number
  unrealizedPnl: number
  fees: number
  funding: number
  volume: number
  fills: number
  makerFills: number
  /** Maker fills / fills; undefined without fills. */
  makerShare: number | undefined
  /** Largest fall of net PnL from a previous peak (≥ 0), quote currency. */
  maxDrawdown: number
  /** Shares of instrument-time (0..1). */
  quotingShare: number
  haltedShare: number
  /** Halted instrument-time by reason, ms, largest first. */
  haltedBy: readonly (readonly [string, number])[]
  alerts: number
}

// The one drawdown function of report, dashboard and simulate.
export { maxDrawdown } from '../../pnlDrawdown.ts'

export function makerShare(t: Pick<FillTotals, 'fills' | 'makerFills'>): number | undefined {
  return t.fills === 0 ? undefined : t.makerFills / t.fills
}

/** Adds per-instrument state times (halted reasons merged). */
export function addStateTimes(times: readonly StateTimes[]): StateTimes {
  const haltedBy: Record<string, number> = {}
  let quotingMs = 0
  let haltedMs = 0
  let otherMs = 0
  for (const t of times) {
    quotingMs += t.quotingMs
    haltedMs += t.haltedMs
    otherMs += t.otherMs
    for (const [k, v] of Object.entries(t.haltedBy)) haltedBy[k] = (haltedBy[k] ?? 0) + v
  }
  return { quotingMs, haltedMs, otherMs, haltedBy }
}

/** What an instrument state counts as: quoting (`active…`), halted (`halted…`), or other. */
export function activityOf(state: string): 'quoting' | 'halted' | 'other' {
  if (state.startsWith('active')) return 'quoting'
  if (state.startsWith('halted')) return 'halted'
  return 'other'
}

/** "index stale (16 s old); margin stale (31 s old)" → "index stale; margin stale". */
export function haltReasonKey(reason: string | undefined): string {
  const r = (reason ?? '').replace(/\s*\([^)]*\)/g, '').trim()
  return r === '' ? 'unspecified' : r
}

/**
 * Accumulates state times from samples: the time from one sample to the next is attributed to the
 * earlier sample's state (a step function, as the bot's state holds until it changes).
 */
export class StateTimer {
  #last: { t: number; state: string; reason: string | undefined } | undefined
  #times: { quotingMs: number; haltedMs: number; otherMs: number; haltedBy: Record<string, number> } = {
    quotingMs: 0,
    haltedMs: 0,
    otherMs: 0,
    haltedBy: {},
  }

  observe(t: number, state: string, reason: string | undefined): void {
    this.#close(t)
    this.#last = { t, state, reason }
  }

  /** The times up to `t` (the last state counted until then). */
  timesUntil(t: number): StateTimes {
    this.#close(t)
    if (this.#last) this.#last.t = Math.max(this.#last.t, t)
    return { ...this.#times, haltedBy: { ...this.#times.haltedBy } }
  }

  #close(t: number): void {
    const last = this.#last
    if (!last || t <= last.t) return
    const dt = t - last.t
    const kind = activityOf(last.state)
    if (kind === 'quoting') this.#times.quotingMs += dt
    else if (kind === 'halted') {
      this.#times.haltedMs += dt
      const key = haltReasonKey(last.reason)
      this.#times.haltedBy[key] = (this.#times.haltedBy[key] ?? 0) + dt
    } else this.#times.otherMs += dt
    last.t = t
  }
}

export function summarize(r: SimRecord, netPnlColumn = 0): SimSummary {
  const totals = r.instruments.reduce(
    (a, i) => ({
      fills: a.fills + i.totals.fills,
      makerFills: a.makerFills + i.totals.makerFills,
      volume: a.volume + i.totals.volume,
      realizedPnl: a.realizedPnl + i.totals.realizedPnl,
      fees: a.fees + i.totals.fees,
    }),
    { fills: 0, makerFills: 0, volume: 0, realizedPnl: 0, fees: 0 },
  )
  const times = addStateTimes(r.instruments.map((i) => i.time))
  const total = times.quotingMs + times.haltedMs + times.otherMs
  const netPnl = totals.realizedPnl + r.unrealizedPnl - totals.fees - r.funding
  return {
    netPnl,
    realizedPnl: totals.realizedPnl,
    unrealizedPnl: r.unrealizedPnl,
    fees: totals.fees,
    funding: r.funding,
    volume: totals.volume,
    fills: totals.fills,
    makerFills: totals.makerFills,
    makerShare: makerShare(totals),
    maxDrawdown: maxDrawdown([...columnOf(r.account, netPnlColumn), netPnl]),
    quotingShare: total === 0 ? 0 : times.quotingMs / total,
    haltedShare: total === 0 ? 0 : times.haltedMs / total,
    haltedBy: Object.entries(times.haltedBy).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
    alerts: r.alertsTotal,
  }
}

function* columnOf(points: readonly SeriesPoint[], col: number): Generator<number> {
  for (const p of points) {
    const v = p.v[col]
    if (typeof v === 'number') yield v
  }
}
