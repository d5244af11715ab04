/**
 * Alert episodes, read one way by every consumer (the dashboard's open-alerts board, the soak's
 * checker, anything that asks "what is open"). Every alert says its episode's level after it: a raise
 * opens the episode at its severity or escalates it; a resolve ends it, unless it carries `remaining`,
 * the level the episode goes on at (critical → warning: the critical is over, the warning is not).
 * A resolve's own severity is how loudly it is told, never the level left. A `final` raise (a fact told
 * once: a failed withdrawal) leaves nothing open. Pure.
 */
import { type Alert, SEVERITY_RANK, type Severity } from './alert.ts'

/**
 * What one alert did to its episode:
 * - `opened`: a raise with nothing open;
 * - `told`: a `final` raise with nothing open (heard, leaves nothing open);
 * - `escalated`: a raise above the open level;
 * - `repeated`: a raise not above the open level (the episode was already told; its level stays);
 * - `lowered`: a resolve with `remaining` below the open level (the episode goes on at `remaining`);
 * - `closed`: a resolve without `remaining`, or a `final` raise, the episode open;
 * - `stray`: a resolve with nothing open, or whose `remaining` is not below the open level.
 *   With nothing open, its `remaining` still opens the episode (a reader that joined late, after a
 *   restart or past a bounded window, learns the level from the message alone).
 */
export type EpisodeStep = 'opened' | 'told' | 'escalated' | 'repeated' | 'lowered' | 'closed' | 'stray'

export interface EpisodeChange {
  step: EpisodeStep
  /** The episode's level before the alert; undefined: none open. */
  before: Severity | undefined
  /** The episode's level after the alert; undefined: none open. */
  after: Severity | undefined
}

/** The one rule: an episode's level before an alert of its key, and what the alert makes of it. */
export function episodeStep(before: Severity | undefined, a: Alert): EpisodeChange {
  if (a.resolved !== true) {
    if (a.final === true)
      return before === undefined
        ? { step: 'told', before, after: undefined }
        : { step: 'closed', before, after: undefined }
    if (before === undefined) return { step: 'opened', before, after: a.severity }
    if (SEVERITY_RANK[a.severity] > SEVERITY_RANK[before])
      return { step: 'escalated', before, after: a.severity }
    return { step: 'repeated', before, after: before }
  }
  const left = a.remaining
  if (before === undefined) return { step: 'stray', before, after: left }
  if (left === undefined) return { step: 'closed', before, after: undefined }
  if (SEVERITY_RANK[left] < SEVERITY_RANK[before]) return { step: 'lowered', before, after: left }
  return { step: 'stray', before, after: before }
}

export interface OpenEpisode {
  key: string
  /** The level it is open at now. */
  level: Severity
  /** When it opened (its first alert that left it open). */
  since: number
  /** Its latest alert (a resolve that lowered it, say, whose text tells what goes on). */
  latest: Alert
}

/**
 * Where a part that restores its state after a restart says which of its episodes that state holds
 * open (the alert hub's book, for the board), as the alerts that would have opened them: they reach no
 * sink (no log line, webhook, phone, journal row or metric), since the trader heard them before.
 */
export interface EpisodeRestore {
  restoreOpen(alerts: readonly Alert[]): void
}

/** Open episodes kept as alerts arrive (bounded by the keys open at once). */
export class EpisodeBook {
  readonly #open = new Map<string, OpenEpisode>()

  /** Takes the next alert (in the order sent); returns what it did to its episode. */
  observe(a: Alert): EpisodeChange {
    const cur = this.#open.get(a.key)
    const change = episodeStep(cur?.level, a)
    if (change.after === undefined) this.#open.delete(a.key)
    else this.#open.set(a.key, { key: a.key, level: change.after, since: cur?.since ?? a.at, latest: a })
    return change
  }

  /** The open episodes, most recently touched first. */
  open(): OpenEpisode[] {
    return [...this.#open.values()].sort((x, y) => y.latest.at - x.latest.at)
  }
}

/** The episodes open after these alerts (oldest first), most recently touched first. */
export function openEpisodes(alerts: Iterable<Alert>): OpenEpisode[] {
  const book = new EpisodeBook()
  for (const a of alerts) book.observe(a)
  return book.open()
}
