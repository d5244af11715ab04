/**
 * Alert episodes as a run sees them: an alert opens an episode of its (key, severity), the resolved
 * alert of that key and severity closes it. A raise while the same episode is open is a duplicate;
 * a resolve with nothing open is spurious. Pure, bounded by the number of keys.
 */
import type { Alert } from '../src/alerts/alert.ts'

export interface EpisodeViolation {
  key: string
  severity: string
  kind: 'raised twice' | 'resolved twice'
  at: number
}

export interface EpisodeCounts {
  raised: number
  resolved: number
}

export class AlertEpisodes {
  readonly #open = new Map<string, number>()
  readonly #counts = new Map<string, EpisodeCounts>()
  readonly violations: EpisodeViolation[] = []

  observe(a: Alert): void {
    const id = `${a.key}|${a.severity}`
    const c = this.#counts.get(a.key) ?? { raised: 0, resolved: 0 }
    this.#counts.set(a.key, c)
    if (a.resolved === true) {
      c.resolved += 1
      if (!this.#open.has(id)) {
        if (this.violations.length < 100)
          this.violations.push({ key: a.key, severity: a.severity, kind: 'resolved twice', at: a.at })
      } else this.#open.delete(id)
    } else {
      c.raised += 1
      if (this.#open.has(id)) {
        if (this.violations.length < 100)
          this.violations.push({ key: a.key, severity: a.severity, kind: 'raised twice', at: a.at })
      } else this.#open.set(id, a.at)
    }
  }

  /** Raises and resolves per key so far (a copy). */
  counts(): Map<string, EpisodeCounts> {
    return new Map([...this.#counts].map(([k, v]) => [k, { ...v }]))
  }

  /** Open episodes as `key (severity)`, optionally only those whose key matches. */
  open(match: (key: string) => boolean = () => true): string[] {
    return [...this.#open.keys()]
      .map((id) => id.split('|') as [string, string])
      .filter(([k]) => match(k))
      .map(([k, s]) => `${k} (${s})`)
  }
}

/** Difference of two count maps (after − before), keys with any change only. */
export function countsSince(
  before: ReadonlyMap<string, EpisodeCounts>,
  after: ReadonlyMap<string, EpisodeCounts>,
): Map<string, EpisodeCounts> {
  const out = new Map<string, EpisodeCounts>()
  for (const [k, a] of after) {
    const b = before.get(k) ?? { raised: 0, resolved: 0 }
    const d = { raised: a.raised - b.raised, resolved: a.resolved - b.resolved }
    if (d.raised !== 0 || d.resolved !== 0) out.set(k, d)
  }
  return out
}
