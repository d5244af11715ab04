/**
 * A log that a hostile venue cannot flood: at most one line per kind of event per interval, whatever
 * the order in which kinds alternate (each kind keeps its own window, so a rotation of nine kinds of
 * malformed frame costs nine lines per interval, not one per frame). The first event of a quiet kind is
 * logged at once; the rest of its interval is counted, and when the interval ends one summary line
 * says how many were suppressed (that line opens the next interval). Kinds are a closed set chosen by
 * the caller, so the state is bounded.
 */
import type { Clock, TimerId } from '../../clock.ts'

export type LogLevel = 'info' | 'warn' | 'error'

export interface LogSink {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}

interface KindState {
  /** Events counted but not logged in the current interval. */
  suppressed: number
  level: LogLevel
  message: string
  fields: object
  timer: TimerId | undefined
}

export const DEFAULT_LOG_INTERVAL_MS = 10_000

export class RateLimitedLog<K extends string> {
  readonly #sink: LogSink | undefined
  readonly #clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>
  readonly #intervalMs: number
  readonly #kinds = new Map<K, KindState>()
  #lines = 0

  constructor(
    sink: LogSink | undefined,
    clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
    intervalMs = DEFAULT_LOG_INTERVAL_MS,
  ) {
    this.#sink = sink
    this.#clock = clock
    this.#intervalMs = intervalMs
  }

  /** Logs the event (true), or counts it (false) when its kind already logged in this interval. */
  log(kind: K, level: LogLevel, fields: object, message: string): boolean {
    const open = this.#kinds.get(kind)
    if (open !== undefined) {
      open.suppressed++
      open.level = level
      open.message = message
      open.fields = fields
      return false
    }
    this.#write(level, { ...fields, kind }, message)
    this.#open(kind, level, fields, message)
    return true
  }

  /** Lines written so far (tests). */
  get lines(): number {
    return this.#lines
  }

  /** Writes what is still counted and stops every timer (at close). */
  flush(): void {
    for (const kind of [...this.#kinds.keys()]) this.#close(kind, false)
  }

  #open(kind: K, level: LogLevel, fields: object, message: string): void {
    const state: KindState = { suppressed: 0, level, message, fields, timer: undefined }
    state.timer = this.#clock.setTimeout(() => this.#close(kind, true), this.#intervalMs)
    this.#kinds.set(kind, state)
  }

  /** Ends the kind's interval: a summary line if anything was suppressed (which opens the next one). */
  #close(kind: K, reopen: boolean): void {
    const s = this.#kinds.get(kind)
    if (s === undefined) return
    if (s.timer !== undefined) this.#clock.clearTimeout(s.timer)
    this.#kinds.delete(kind)
    if (s.suppressed === 0) return
    this.#write(
      s.level,
      { ...s.fields, kind, suppressed: s.suppressed, intervalMs: this.#intervalMs },
      `${s.message} (and ${s.suppressed} more in the last ${Math.round(this.#intervalMs / 1000)} s)`,
    )
    if (reopen) this.#open(kind, s.level, s.fields, s.message)
  }

  #write(level: LogLevel, fields: object, message: string): void {
    this.#lines++
    this.#sink?.[level](fields, message)
  }
}
