/**
 * Degradation episodes of one instrument actor, as data (pure). Each cause is tracked on its own:
 * `degradeAfter` bad observations in a row open an episode (one `degraded` alert), the first good one
 * closes it (one `recovered`). Between the two, more bad observations change nothing, so an episode
 * raises exactly one alert however long it lasts.
 *
 * Causes: `strategy` (the strategy threw), `quotes` (the price guard dropped quotes of a plan),
 * `index` (an index update was rejected as implausible or jumped), `rejections` (every order of a plan
 * was rejected by the venue's domain rules: insufficient margin, post-only crossing, bounds, …; the
 * first plan with an accepted order closes it).
 */

export type DegradeCause = 'strategy' | 'quotes' | 'index' | 'rejections'

/** Every cause, in the order status lists them. */
export const DEGRADE_CAUSES: readonly DegradeCause[] = ['strategy', 'quotes', 'index', 'rejections']

export interface CauseHealth {
  /** Bad observations in a row. */
  readonly streak: number
  /** Start of the open episode; undefined when healthy. */
  readonly since: number | undefined
  /** What opened the episode (the latest bad observation then). */
  readonly reason: string | undefined
}

export type InstrumentHealth = Readonly<Record<DegradeCause, CauseHealth>>

const HEALTHY: CauseHealth = { streak: 0, since: undefined, reason: undefined }

export const healthyInstrument = (): InstrumentHealth => ({
  strategy: HEALTHY,
  quotes: HEALTHY,
  index: HEALTHY,
  rejections: HEALTHY,
})

export type HealthChange =
  | { kind: 'degraded'; cause: DegradeCause; reason: string; at: number }
  | { kind: 'recovered'; cause: DegradeCause; since: number; at: number }

export interface Observation {
  /** Updated health; the same object when nothing changed. */
  health: InstrumentHealth
  change: HealthChange | undefined
}

/** Records one good (`bad` undefined) or bad (`bad` = the reason) observation of `cause`. */
export function observe(
  health: InstrumentHealth,
  cause: DegradeCause,
  bad: string | undefined,
  now: number,
  degradeAfter: number,
): Observation {
  const h = health[cause]
  if (bad === undefined) {
    if (h.streak === 0 && h.since === undefined) return { health, change: undefined }
    const change: HealthChange | undefined =
      h.since === undefined ? undefined : { kind: 'recovered', cause, since: h.since, at: now }
    return { health: { ...health, [cause]: HEALTHY }, change }
  }
  const streak = h.streak + 1
  if (h.since === undefined && streak >= degradeAfter) {
    return {
      health: { ...health, [cause]: { streak, since: now, reason: bad } },
      change: { kind: 'degraded', cause, reason: bad, at: now },
    }
  }
  return { health: { ...health, [cause]: { ...h, streak } }, change: undefined }
}

/** The open episodes, for status: empty when the instrument is healthy. */
export function degradations(
  health: InstrumentHealth,
): { cause: DegradeCause; since: number; reason: string }[] {
  const out: { cause: DegradeCause; since: number; reason: string }[] = []
  for (const cause of DEGRADE_CAUSES) {
    const h = health[cause]
    if (h.since !== undefined) out.push({ cause, since: h.since, reason: h.reason ?? cause })
  }
  return out
}
