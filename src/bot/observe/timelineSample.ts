/**
 * The timeline's sampling, pure: the same snapshots the status view reads (see statusView.ts) become
 * one chart sample (per instrument: state, index and mark, our best quotes, position; the account's
 * PnL and margin ratio; the two weight budgets) and the board (recent fills, open and recent alerts).
 */
import type { Alert } from '../../alerts/alert.ts'
import { type OpenEpisode, openEpisodes } from '../../alerts/episodes.ts'
import type {
  TimelineAlert,
  TimelineBoard,
  TimelineFill,
  TimelineInstrument,
  TimelineSample,
} from '../../ops/dashboard/timelineTypes.ts'
import type { WindowBudgetState } from '../../perps/throttle/windowBudget.ts'
import type { AccountWatchSnapshot } from '../account/accountWatch.ts'
import type { LedgerFill, PnlSnapshot } from '../account/pnlLedger.ts'
import { inSlices } from '../shared/slices.ts'
import { currencyOf, type InstrumentView, instrumentBasics, type StatusInputs } from './statusView.ts'

/** The part of the status inputs a sample reads (`StatusInputs` is one). */
export interface TimelineInputs
  extends Pick<StatusInputs, 'mode' | 'now' | 'venueNow' | 'instruments' | 'alerts'> {
  /** The episodes open now (the alert hub's book: not bounded by the recent list). */
  openEpisodes: readonly OpenEpisode[]
  account: Pick<AccountWatchSnapshot, 'marginRatio'>
  pnl: PnlSnapshot
  limiter: {
    request: Pick<WindowBudgetState, 'used' | 'limit'>
    action: Pick<WindowBudgetState, 'used' | 'limit'>
  }
}

/** How many fills and alerts the board lists. */
export const BOARD_ROWS = 20

/** A decimal string as a chart value; null when absent or not a number. */
function num(s: string | undefined | null): number | null {
  if (s === undefined || s === null || s === '') return null
  const n = Number(s)
  return Number.isFinite(n) ? n : null
}

/** Our best resting bid (highest buy) and ask (lowest sell). */
export function bestQuotes(orders: readonly { buy: boolean; p: string }[]): {
  bid: number | null
  ask: number | null
} {
  let bid: number | null = null
  let ask: number | null = null
  for (const o of orders) {
    const p = num(o.p)
    if (p === null) continue
    if (o.buy) bid = bid === null ? p : Math.max(bid, p)
    else ask = ask === null ? p : Math.min(ask, p)
  }
  return { bid, ask }
}

function instrumentSample(view: InstrumentView, s: TimelineInputs): TimelineInstrument {
  const st = instrumentBasics(view)
  const ctx = view.actor?.context
  // The index input may carry the venue's mark price (optional field).
  const index: { price: string; mark?: string | undefined } | undefined = ctx?.index
  const position = s.pnl.instruments[view.id]?.position ?? ctx?.position?.size
  // No spread in the literal: a spread in the middle made every sample object (1,000 every 2 s at
  // 1,000 instruments) a slow-path copy with its properties out of line.
  const quotes = bestQuotes(ctx?.openOrders ?? [])
  return {
    id: view.id,
    symbol: view.symbol,
    state: st.state,
    reason: st.reason ?? '',
    mode: st.mode ?? '',
    index: num(index?.price),
    mark: num(index?.mark),
    bid: quotes.bid,
    ask: quotes.ask,
    position: num(position) ?? 0,
    openOrders: st.openOrders,
    priceDecimals: ctx?.instrument.priceDecimals,
    quantityDecimals: ctx?.instrument.quantityDecimals,
  }
}

export function sampleTimeline(s: TimelineInputs): TimelineSample {
  return sampleOf(
    s,
    s.instruments.map((i) => instrumentSample(i, s)),
  )
}

/**
 * The same sample, its instruments sampled a slice at a time with a turn of the event loop between
 * (slices.ts). The inputs are snapshots taken at once (each actor's immutable snapshot, the ledger's
 * snapshot), so the sample is the one `sampleTimeline` makes of them, only not in one stretch.
 */
export async function sampleTimelineInSlices(s: TimelineInputs): Promise<TimelineSample> {
  const instruments: TimelineInstrument[] = []
  await inSlices(s.instruments, (i) => void instruments.push(instrumentSample(i, s)))
  return sampleOf(s, instruments)
}

function sampleOf(s: TimelineInputs, instruments: TimelineInstrument[]): TimelineSample {
  const a = s.pnl.account
  const marginRatio = s.account.marginRatio
  return {
    at: s.now,
    instruments,
    account: {
      realizedPnl: num(a.realizedPnl) ?? 0,
      unrealizedPnl: num(a.unrealizedPnl) ?? 0,
      fees: num(a.fees) ?? 0,
      funding: num(a.funding) ?? 0,
      netPnl: num(a.netPnl) ?? 0,
      marginRatio: marginRatio !== undefined && Number.isFinite(marginRatio) ? marginRatio : null,
      ...(a.since === undefined ? {} : { since: a.since }),
    },
    limiter: {
      request: { used: s.limiter.request.used, capacity: s.limiter.request.limit },
      action: { used: s.limiter.action.used, capacity: s.limiter.action.limit },
    },
  }
}

const alertView = (a: Alert): TimelineAlert => ({
  key: a.key,
  severity: a.severity,
  title: a.title,
  message: a.message,
  at: a.at,
  resolved: a.resolved === true,
})

/**
 * The open episodes (alerts/episodes.ts), newest first, each as its latest alert shown at the level it
 * is open at: after critical → warning, the "below critical" message as a warning.
 */
export function openAlerts(alerts: readonly Alert[]): Alert[] {
  return shownOpen(openEpisodes(alerts))
}

/** Each open episode as its latest alert, at the level it is open at. */
function shownOpen(episodes: readonly OpenEpisode[]): Alert[] {
  return episodes.map(({ latest, level }) => ({
    ...latest,
    severity: level,
    resolved: false,
    remaining: undefined,
  }))
}

export function boardOf(s: TimelineInputs, fills: readonly LedgerFill[]): TimelineBoard {
  const symbolOf = (iid: number): string => s.instruments.find((i) => i.id === iid)?.symbol ?? `#${iid}`
  const fillView = (f: LedgerFill): TimelineFill => ({
    at: f.ts,
    symbol: symbolOf(f.iid),
    side: f.side,
    price: f.p,
    qty: f.qty,
    fee: f.fee,
    pnl: f.pnl,
    maker: !f.taker,
    liquidation: f.liq === true,
    // A fill that realized nothing opened or added to a position: its PnL cell stays blank.
    closes: Number(f.pnl) !== 0,
  })
  return {
    botMode: s.mode,
    currency: currencyOf(s.instruments),
    fills: fills.slice(-BOARD_ROWS).reverse().map(fillView),
    openAlerts: shownOpen(s.openEpisodes.slice(0, BOARD_ROWS)).map(alertView),
    recentAlerts: s.alerts.slice(-BOARD_ROWS).reverse().map(alertView),
  }
}
