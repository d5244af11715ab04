/** The fleet's typed errors. */
import { BotError, type BotErrorOptions, ThrottledError } from '../errors.ts'

/** Redis could not be reached or answered with an error; nothing was admitted or changed. */
export class FleetUnavailableError extends BotError {
  override name = 'FleetUnavailableError' as const
  constructor(what: string, options: BotErrorOptions = {}) {
    super(`fleet Redis unavailable during ${what}`, options)
  }
}

/** A caller waited longer than it allowed for the shared budget (nothing was sent). */
export class SharedBudgetTimeoutError extends ThrottledError {
  override name = 'SharedBudgetTimeoutError' as const
  constructor(weight: number, waitedMs: number) {
    super(`shared request budget: weight ${weight} not admitted within ${waitedMs} ms`)
  }
}

/** The wait for the shared budget was aborted by the caller's signal. */
export class SharedBudgetAbortedError extends BotError {
  override name = 'SharedBudgetAbortedError' as const
}
