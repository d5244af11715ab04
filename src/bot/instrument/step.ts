/** What one pure step of the instrument actor decides (steps.ts, results.ts, bbo.ts make them). */
import type { InstrumentContext } from './context.ts'
import type { HealthChange } from './health.ts'

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error'
  fields: Record<string, unknown>
  msg: string
  /** A line that repeats under a hostile venue: one per kind per interval (the bot's rate-limited log). */
  kind?: string | undefined
}

export interface Step {
  /** Context fields to assign (undefined = none). */
  update: Partial<InstrumentContext> | undefined
  /** The context with `update` stored over it, when the step made that copy anyway (`thenPlan`). */
  whole?: InstrumentContext | undefined
  logs: readonly LogEntry[]
  changes: readonly HealthChange[]
  /**
   * When a deferred plan is due (undefined = none): the machine schedules its `WAKE` for then, or for
   * the next moment time alone matters (`nextTimeDue`) when that comes first.
   */
  due: number | undefined
}

/** No logs, no changes (shared, never mutated). */
export const NONE: readonly never[] = []
