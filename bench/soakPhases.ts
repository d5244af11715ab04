/**
 * The soak's market script: calm → trending → crash → recovery, each a quarter of the run. The crash
 * quarter is one or more episodes of the mock's `liquidation` scenario (a leveraged long seeded on the
 * account, then a crash on one instrument), one per full hour of the phase (at least 1, at most 3);
 * recovery is calm again. Pure: times are offsets from the start in virtual ms.
 */

export interface SoakStep {
  /** Offset from the start of the run (virtual ms). */
  at: number
  phase: 'calm' | 'trending' | 'crash' | 'recovery'
  /** The mock scenario switched to at `at`. */
  scenario: 'calm' | 'trending' | 'liquidation'
  /** 1-based crash episode number (crash steps only). */
  episode?: number | undefined
}

export const MIN_EPISODE_MS = 15 * 60_000

/** The steps of a run of `totalMs`; a crash episode gets at least `MIN_EPISODE_MS` when it can. */
export function soakSteps(totalMs: number): SoakStep[] {
  const q = totalMs / 4
  const episodes = Math.max(1, Math.min(3, Math.floor(q / 3_600_000)))
  const steps: SoakStep[] = [
    { at: 0, phase: 'calm', scenario: 'calm' },
    { at: Math.round(q), phase: 'trending', scenario: 'trending' },
  ]
  for (let e = 0; e < episodes; e++)
    steps.push({
      at: Math.round(2 * q + (e * q) / episodes),
      phase: 'crash',
      scenario: 'liquidation',
      episode: e + 1,
    })
  steps.push({ at: Math.round(3 * q), phase: 'recovery', scenario: 'calm' })
  return steps
}
