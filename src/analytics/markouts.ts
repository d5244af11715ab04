/**
 * Markouts of our fills (issue 39.3), online and in bounded memory: each fill waits for the mid at
 * its own step (the spread it captured) and at 1 s, 10 s and 60 s after it (what the market did next).
 * A markout is signed for us: side × (mid − fill price) / fill price, in bps, so positive is good;
 * averages weigh each fill by its notional. Adverse selection at a horizon is the captured spread
 * minus the markout there: what the price move took back, averaged over the fills measured at both
 * (so a fill with no 60 s mid, e.g. near the run's end, does not tip it).
 */

export const MARKOUT_HORIZONS_MS = [1_000, 10_000, 60_000] as const
/** The horizon adverse selection is measured at (60 s). */
const LAST = MARKOUT_HORIZONS_MS.length - 1

export interface AnalyticsFill {
  iid: number
  t: number
  price: number
  /** Contracts, positive. */
  qty: number
  buy: boolean
  fee: number
}

export interface MarkedFill extends AnalyticsFill {
  /** Mid at the fill's step, then at each horizon (undefined until seen, or when the run ended first). */
  mid0: number | undefined
  mids: (number | undefined)[]
}

/** Bps for us of a fill against a mid. */
export const markoutBps = (f: { price: number; buy: boolean }, mid: number): number =>
  ((f.buy ? mid - f.price : f.price - mid) / f.price) * 10_000

export interface MarkoutSummary {
  fills: number
  /** Notional-weighted mean of the spread captured (markout at 0), bps; undefined without fills. */
  capturedBps: number | undefined
  /** Per horizon (ms): notional-weighted mean markout, bps, over the fills that reached it. */
  markoutBps: Record<number, number | undefined>
  /** Captured − markout at 60 s, bps, over the fills measured at both. */
  adverseSelectionBps: number | undefined
  /**
   * Fills with a mid at the fill (the captured spread's), per horizon (ms) with a mid there, and with
   * both the fill's and the 60 s mid (adverse selection's).
   */
  measured: { captured: number; at: Record<number, number>; adverse: number }
}

interface Sum {
  w: number
  s: number
  n: number
}

/** True when the fill has its mid at every horizon. */
function allMeasured(f: MarkedFill | undefined): boolean {
  if (f === undefined) return false
  for (const m of f.mids) if (m === undefined) return false
  return true
}

/** The earliest time a fill of `list` takes a mid: its own step, else its first horizon not yet seen. */
function nextDue(list: readonly MarkedFill[]): number {
  let due = Number.POSITIVE_INFINITY
  for (const f of list) {
    if (f.mid0 === undefined) {
      due = Math.min(due, f.t)
      continue
    }
    for (let k = 0; k < MARKOUT_HORIZONS_MS.length; k++) {
      if (f.mids[k] === undefined) {
        due = Math.min(due, f.t + (MARKOUT_HORIZONS_MS[k] ?? 0))
        break
      }
    }
  }
  return due
}

/** Every fill in order of arrival; settled ones are passed to `onSettled` and dropped. */
export class MarkoutTracker {
  readonly #pending = new Map<number, MarkedFill[]>()
  /**
   * Per instrument, the earliest time at which a pending fill takes a mid (its own step, or its next
   * horizon): a step before it changes nothing, so `price` returns at once (it runs for every
   * instrument at every market step, and most steps fall between a fill's horizons).
   */
  readonly #due = new Map<number, number>()
  readonly #captured: Sum = { w: 0, s: 0, n: 0 }
  readonly #at = MARKOUT_HORIZONS_MS.map((): Sum => ({ w: 0, s: 0, n: 0 }))
  readonly #adverse: Sum = { w: 0, s: 0, n: 0 }
  readonly #onSettled: ((f: MarkedFill) => void) | undefined
  #fills = 0

  constructor(onSettled?: (f: MarkedFill) => void) {
    this.#onSettled = onSettled
  }

  fill(f: AnalyticsFill): void {
    this.#fills++
    const list = this.#pending.get(f.iid) ?? []
    list.push({ ...f, mid0: undefined, mids: MARKOUT_HORIZONS_MS.map(() => undefined) })
    this.#pending.set(f.iid, list)
    this.#due.set(f.iid, Math.min(this.#due.get(f.iid) ?? Number.POSITIVE_INFINITY, f.t))
  }

  /** The instrument's mid at `t` (after the step's fills). */
  price(iid: number, t: number, mid: number): void {
    const due = this.#due.get(iid)
    if (due === undefined || t < due) return
    const list = this.#pending.get(iid)
    if (list === undefined || list.length === 0 || !(mid > 0)) return
    for (const f of list) {
      if (f.t > t) break
      if (f.mid0 === undefined) {
        f.mid0 = mid
        this.#add(this.#captured, f, markoutBps(f, mid))
      }
      // Loops, not closures: this runs for every instrument at every market step.
      for (let k = 0; k < MARKOUT_HORIZONS_MS.length; k++) {
        const h = MARKOUT_HORIZONS_MS[k] ?? 0
        const sum = this.#at[k]
        if (f.mids[k] === undefined && t >= f.t + h && sum !== undefined) {
          f.mids[k] = mid
          this.#add(sum, f, markoutBps(f, mid))
          if (k === LAST) this.#addAdverse(f)
        }
      }
    }
    let settled = 0
    while (settled < list.length && allMeasured(list[settled])) settled++
    if (settled > 0) for (const f of list.splice(0, settled)) this.#onSettled?.(f)
    this.#due.set(iid, nextDue(list))
  }

  /**
   * A fill whose mids were measured elsewhere (the journal's, `src/journal/fillMids.ts`): counted and
   * summed as `price` would have; an undefined mid stays out of its horizon's mean.
   */
  measured(f: MarkedFill): void {
    this.#fills++
    if (f.mid0 !== undefined && f.mid0 > 0) this.#add(this.#captured, f, markoutBps(f, f.mid0))
    MARKOUT_HORIZONS_MS.forEach((_, k) => {
      const mid = f.mids[k]
      const sum = this.#at[k]
      if (mid !== undefined && mid > 0 && sum !== undefined) this.#add(sum, f, markoutBps(f, mid))
    })
    if ((f.mid0 ?? 0) > 0 && (f.mids[LAST] ?? 0) > 0) this.#addAdverse(f)
  }

  /** Hands on the fills still waiting (the run ended before their last horizon). */
  flush(): void {
    for (const list of this.#pending.values()) for (const f of list.splice(0)) this.#onSettled?.(f)
  }

  summary(): MarkoutSummary {
    const mean = (x: Sum): number | undefined => (x.w > 0 ? x.s / x.w : undefined)
    const captured = mean(this.#captured)
    const adverse = mean(this.#adverse)
    const at = Object.fromEntries(
      MARKOUT_HORIZONS_MS.map((h, k) => [h, mean(this.#at[k] ?? { w: 0, s: 0, n: 0 })]),
    )
    return {
      fills: this.#fills,
      capturedBps: captured,
      markoutBps: at,
      adverseSelectionBps: adverse,
      measured: {
        captured: this.#captured.n,
        at: Object.fromEntries(MARKOUT_HORIZONS_MS.map((h, k) => [h, this.#at[k]?.n ?? 0])),
        adverse: this.#adverse.n,
      },
    }
  }

  /** Captured − the last horizon's markout of a fill measured at both. */
  #addAdverse(f: MarkedFill): void {
    const m0 = f.mid0
    const mLast = f.mids[LAST]
    if (m0 === undefined || mLast === undefined) return
    this.#add(this.#adverse, f, markoutBps(f, m0) - markoutBps(f, mLast))
  }

  #add(sum: Sum, f: AnalyticsFill, bps: number): void {
    const w = f.price * f.qty
    sum.w += w
    sum.s += w * bps
    sum.n++
  }
}
