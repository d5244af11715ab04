/**
 * A rate-limited log: at most one line per kind of event per interval, whatever the order in which
 * kinds alternate, each line carrying how many events of its kind were suppressed since the last one.
 * A venue that sends a gap on every push, or rotates nine kinds of malformed frame to beat a
 * duplicate-message filter, then costs a few lines a minute instead of filling the disk.
 *
 * `RateLimitedGate` is the pure part (clock passed in, no I/O): `note(kind, now)` says whether to write
 * a line now and with which suppressed count; `drain(now)` gives the counts of kinds whose interval has
 * run out with events still unreported (a summary line each, so nothing is silently lost). The number
 * of kinds held is bounded: kinds beyond `maxKinds` share one `other` slot, so a hostile stream of
 * ever-new kinds cannot grow it. `createRateLimitedLog` binds a gate to a pino logger and a clock.
 * The one rate-limited log of the code base: the bot's repeated lines (bot/observe/repeatedLog.ts) and
 * the stream client's (perps/stream/streamClient.ts) both go through it.
 */
import type { Clock } from '../clock.ts'
import type { Logger } from './logger.ts'

/** The kind that absorbs every kind beyond `maxKinds`. */
export const OVERFLOW_KIND = 'other'

export interface RateLimitedGateOptions {
  /** One line per kind per this many ms. */
  intervalMs: number
  /** Kinds held, the overflow slot included (default 64, at least 2); later kinds share `OVERFLOW_KIND`. */
  maxKinds?: number | undefined
}

export interface GateVerdict {
  /** The kind the event was counted under (its own, or `OVERFLOW_KIND`). */
  kind: string
  /** Events of this kind suppressed since its last line. */
  suppressed: number
}

interface KindState {
  /** When its last line was written. */
  lastAt: number
  suppressed: number
}

export class RateLimitedGate {
  readonly intervalMs: number
  readonly maxKinds: number
  readonly #kinds = new Map<string, KindState>()
  #total = { written: 0, suppressed: 0 }

  constructor(options: RateLimitedGateOptions) {
    if (!(Number.isFinite(options.intervalMs) && options.intervalMs >= 0))
      throw new RangeError('intervalMs must be a non-negative number of ms')
    this.intervalMs = options.intervalMs
    this.maxKinds = Math.max(2, options.maxKinds ?? 64)
  }

  /** Counts one event; a verdict when a line is due now, undefined when it is suppressed. */
  note(kind: string, now: number): GateVerdict | undefined {
    // maxKinds − 1 kinds of their own, the last slot for the overflow.
    const own = this.#kinds.size - (this.#kinds.has(OVERFLOW_KIND) ? 1 : 0)
    const key = this.#kinds.has(kind) || own < this.maxKinds - 1 ? kind : OVERFLOW_KIND
    const state = this.#kinds.get(key)
    if (state === undefined) {
      this.#kinds.set(key, { lastAt: now, suppressed: 0 })
      this.#total.written += 1
      return { kind: key, suppressed: 0 }
    }
    if (now - state.lastAt < this.intervalMs) {
      state.suppressed += 1
      this.#total.suppressed += 1
      return undefined
    }
    const suppressed = state.suppressed
    state.lastAt = now
    state.suppressed = 0
    this.#total.written += 1
    return { kind: key, suppressed }
  }

  /**
   * Kinds whose interval has run out with suppressed events not yet reported (all of them with
   * `force`, e.g. at stop); their counts restart. Kinds quiet for a whole interval are forgotten.
   */
  drain(now: number, force = false): GateVerdict[] {
    const out: GateVerdict[] = []
    for (const [kind, state] of this.#kinds) {
      if (!force && now - state.lastAt < this.intervalMs) continue
      if (state.suppressed > 0) {
        out.push({ kind, suppressed: state.suppressed })
        this.#total.written += 1
        state.suppressed = 0
        state.lastAt = now
      } else this.#kinds.delete(kind)
    }
    return out
  }

  /** Lines allowed and events suppressed since creation. */
  totals(): { written: number; suppressed: number } {
    return { ...this.#total }
  }

  /** Kinds held now (bounded by `maxKinds`). */
  get size(): number {
    return this.#kinds.size
  }
}

export type RateLimitedLevel = 'debug' | 'info' | 'warn' | 'error'

export interface RateLimitedLog<K extends string = string> {
  /**
   * Logs `msg` under `kind` unless a line of that kind went out within the interval (then it is
   * counted). A line written after suppressed ones carries `suppressed: n`. True when a line was
   * written (the caller may do once per interval what goes with it, e.g. emit an error event).
   */
  log(level: RateLimitedLevel, kind: K, fields: Record<string, unknown>, msg: string): boolean
  warn(kind: K, fields: Record<string, unknown>, msg: string): boolean
  /** Writes a summary line for kinds with suppressed events whose interval ran out (all with `force`). */
  flush(force?: boolean): void
  /** Stops the flush timer and writes what is still pending. */
  stop(): void
  totals(): { written: number; suppressed: number }
}

/**
 * A `RateLimitedGate` over a pino logger. A timer on `clock` flushes summaries every interval while
 * something is pending (none runs while all is quiet), so the count of a burst's tail is reported too.
 */
export function createRateLimitedLog<K extends string = string>(o: {
  /** Absent: nothing is written, events are still counted. */
  logger: Pick<Logger, RateLimitedLevel> | undefined
  clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>
  intervalMs: number
  maxKinds?: number | undefined
}): RateLimitedLog<K> {
  const gate = new RateLimitedGate({ intervalMs: o.intervalMs, maxKinds: o.maxKinds })
  // A kind's summary line keeps the level of its lines (an expected, info-level event stays info).
  // Bounded like the gate: it is reset past twice the gate's kinds, and summaries then say 'warn'.
  const levels = new Map<string, RateLimitedLevel>()
  let timer: unknown
  let stopped = false
  const write = (level: RateLimitedLevel, fields: Record<string, unknown>, msg: string): void => {
    o.logger?.[level](fields, msg)
  }
  const flush = (force = false): void => {
    for (const v of gate.drain(o.clock.now(), force))
      write(
        levels.get(v.kind) ?? 'warn',
        { kind: v.kind, suppressed: v.suppressed },
        `${v.suppressed} more '${v.kind}' event(s) in the last ${Math.round(o.intervalMs / 1000)} s (not logged one by one)`,
      )
  }
  const arm = (): void => {
    if (timer !== undefined || stopped) return
    timer = o.clock.setTimeout(() => {
      timer = undefined
      flush()
      if (gate.size > 0) arm()
    }, o.intervalMs)
  }
  const log: RateLimitedLog<K>['log'] = (level, kind, fields, msg) => {
    const v = gate.note(kind, o.clock.now())
    if (v !== undefined) {
      if (levels.size >= 2 * gate.maxKinds && !levels.has(v.kind)) levels.clear()
      levels.set(v.kind, level)
    }
    if (v !== undefined)
      write(
        level,
        v.suppressed > 0
          ? { ...fields, kind: v.kind, suppressed: v.suppressed }
          : { ...fields, kind: v.kind },
        msg,
      )
    arm()
    return v !== undefined
  }
  return {
    log,
    warn: (kind, fields, msg) => log('warn', kind, fields, msg),
    flush,
    stop() {
      stopped = true
      if (timer !== undefined) o.clock.clearTimeout(timer)
      timer = undefined
      flush(true)
    },
    totals: () => gate.totals(),
  }
}
