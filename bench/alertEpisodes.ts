/**
 * Alert episodes as a run sees them, read by the bot's own rule (src/alerts/episodes.ts): per key, a
 * raise opens or escalates the episode, a resolve ends it or, with `remaining`, lowers it. A raise not
 * above the open level is a duplicate ("raised twice"); a resolve with nothing open (or one that
 * lowers nothing) is spurious ("resolved twice"). Pure, bounded by the number of keys.
 */
import type { Alert } from '../src/alerts/alert.ts'
import { EpisodeBook } from '../src/alerts/episodes.ts'

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
  readonly #book = new EpisodeBook()
  readonly #counts = new Map<string, EpisodeCounts>()
  readonly violations: EpisodeViolation[] = []

  observe(a: Alert): void {
    const c = this.#counts.get(a.key) ?? { raised: 0, resolved: 0 }
    this.#counts.set(a.key, c)
    if (a.resolved === true) c.resolved += 1
    else c.raised += 1
    const { step } = this.#book.observe(a)
    const kind = step === 'repeated' ? 'raised twice' : step === 'stray' ? 'resolved twice' : undefined
    if (kind !== undefined && this.violations.length < 100)
      this.violations.push({ key: a.key, severity: a.severity, kind, at: a.at })
  }

  /** Raises and resolves per key so far (a copy). */
  counts(): Map<string, EpisodeCounts> {
    return new Map([...this.#counts].map(([k, v]) => [k, { ...v }]))
  }

  /** Open episodes as `key (level)`, optionally only those whose key matches. */
  open(match: (key: string) => boolean = () => true): string[] {
    return this.#book
      .open()
      .filter((e) => match(e.key))
      .map((e) => `${e.key} (${e.level})`)
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
