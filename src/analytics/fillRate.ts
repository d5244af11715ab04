/**
 * Fill rate against distance from the mid (issue 39.3): how long our quotes rested in each distance
 * band (bps from the mid, on the side they quote) and how many fills each band took, so fills per
 * hour of resting can be compared band by band.
 */

/** Band edges, bps: [0,2), [2,5), [5,10), [10,20), [20,50), [50,∞). */
export const DISTANCE_BANDS_BPS = [0, 2, 5, 10, 20, 50] as const

export interface FillRateBand {
  /** Lower edge, bps. */
  fromBps: number
  /** Upper edge, bps (undefined: open). */
  toBps: number | undefined
  restingMs: number
  fills: number
  /** fills per hour of one quote resting in the band; undefined without resting time. */
  perHour: number | undefined
}

export const bandOf = (bps: number): number => {
  // A loop, not a closure: this runs for every resting quote at every market step.
  let k = 0
  for (let i = 0; i < DISTANCE_BANDS_BPS.length; i++) if (bps >= (DISTANCE_BANDS_BPS[i] ?? 0)) k = i
  return k
}

/** Distance of a quote from the mid on its own side (behind the mid is positive), bps. */
export const distanceBps = (price: number, buy: boolean, mid: number): number =>
  Math.max(0, ((buy ? mid - price : price - mid) / mid) * 10_000)

export class FillRate {
  readonly #ms = DISTANCE_BANDS_BPS.map(() => 0)
  readonly #fills = DISTANCE_BANDS_BPS.map(() => 0)

  /** Quotes resting for `ms` at these distances (bps). */
  resting(distances: readonly number[], ms: number): void {
    for (const d of distances) this.restingAt(d, ms)
  }

  /** One quote resting for `ms` at this distance (bps). */
  restingAt(distance: number, ms: number): void {
    if (!(ms > 0)) return
    const k = bandOf(distance)
    this.#ms[k] = (this.#ms[k] ?? 0) + ms
  }

  fill(distance: number): void {
    this.#fills[bandOf(distance)] = (this.#fills[bandOf(distance)] ?? 0) + 1
  }

  bands(): FillRateBand[] {
    return DISTANCE_BANDS_BPS.map((from, k) => {
      const ms = this.#ms[k] ?? 0
      const fills = this.#fills[k] ?? 0
      return {
        fromBps: from,
        toBps: DISTANCE_BANDS_BPS[k + 1],
        restingMs: ms,
        fills,
        perHour: ms > 0 ? fills / (ms / 3_600_000) : undefined,
      }
    })
  }
}
