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

/**
 * The steps whose `at` the run has passed since the last call, in order: `next` is the index of the
 * first step not taken yet (step 0 is the start). A stepped clock can jump past several at once.
 */
export function dueSteps(
  steps: readonly SoakStep[],
  next: number,
  elapsedMs: number,
): { due: SoakStep[]; next: number } {
  const due: SoakStep[] = []
  let i = next
  for (; i < steps.length; i++) {
    const st = steps[i]
    if (st === undefined || elapsedMs < st.at) break
    due.push(st)
  }
  return { due, next: i }
}

/**
 * True once per `everyMs` of (virtual or wall) time: the first call at or past `startMs + everyMs`,
 * then the next interval boundary after that call. A jump over several intervals fires once.
 */
export function intervalGate(everyMs: number, startMs: number): (nowMs: number) => boolean {
  let due = startMs + everyMs
  return (nowMs) => {
    if (nowMs < due) return false
    due += everyMs * Math.max(1, Math.floor((nowMs - due) / everyMs) + 1)
    return true
  }
}
