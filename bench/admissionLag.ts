/**
 * Comparing two logs of the same requests' weight (pure): the admissions as Redis stamped them and
 * the arrivals as the mock stamped them, for `bench/fleetRun.ts`.
 */

export interface Weighed {
  readonly at: number
  readonly weight: number
}

/** The window (start, end] holding the most weight, ending at an entry (end = 0 when empty). */
export function worstWindow(log: readonly Weighed[], windowMs: number): { end: number; weight: number } {
  const sorted = [...log].sort((a, b) => a.at - b.at)
  let best = { end: 0, weight: 0 }
  let sum = 0
  let lo = 0
  for (const a of sorted) {
    sum += a.weight
    while ((sorted[lo]?.at ?? a.at) <= a.at - windowMs) sum -= sorted[lo++]?.weight ?? 0
    if (sum > best.weight) best = { end: a.at, weight: sum }
  }
  return best
}

/** The weight stamped in (from, to]. */
export function weightIn(log: readonly Weighed[], from: number, to: number): number {
  return log.reduce((s, a) => (a.at > from && a.at <= to ? s + a.weight : s), 0)
}

/**
 * How long after its admission each unit of weight arrived, matching the two logs first in, first
 * out by cumulative weight (requests overtake each other, so this is the lag of the flow, not of a
 * request): for each arrival, its time minus the time the admissions had reached the same total.
 * In arrival order; arrivals beyond the admitted total are left out.
 */
export function flowLags(
  admissions: readonly Weighed[],
  arrivals: readonly Weighed[],
): { at: number; lag: number }[] {
  const adm = [...admissions].sort((a, b) => a.at - b.at)
  const arr = [...arrivals].sort((a, b) => a.at - b.at)
  const lags: { at: number; lag: number }[] = []
  let i = 0
  let admitted = 0
  let arrived = 0
  for (const a of arr) {
    arrived += a.weight
    while (admitted < arrived && i < adm.length) admitted += adm[i++]?.weight ?? 0
    if (admitted < arrived) break
    lags.push({ at: a.at, lag: a.at - (adm[i - 1]?.at ?? a.at) })
  }
  return lags
}

export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}
