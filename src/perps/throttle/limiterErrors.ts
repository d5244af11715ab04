/**
 * Errors of the bot's limiter and batcher. Both are `BotError`s with literal names, like the taxonomy
 * in src/errors.ts (kept here because only the bot's scheduling layer raises them).
 */
import { BotError, type BotErrorOptions } from '../../errors.ts'

/**
 * A job's weight can never fit its budget (Bottleneck would queue it forever): rejected at once,
 * before anything is sent. Callers split the work (smaller batches) instead.
 */
export class JobTooHeavyError extends BotError {
  override name = 'JobTooHeavyError' as const
  readonly budget: 'request' | 'action'
  readonly weight: number
  readonly maxWeight: number
  readonly endpoint: string
  constructor(
    endpoint: string,
    budget: 'request' | 'action',
    weight: number,
    maxWeight: number,
    options: BotErrorOptions = {},
  ) {
    super(
      `${endpoint} needs ${budget} weight ${weight}, above the most its priority may ever use (${maxWeight})`,
      options,
    )
    this.endpoint = endpoint
    this.budget = budget
    this.weight = weight
    this.maxWeight = maxWeight
  }
}

/** The limiter or batcher was stopped; the job or command was not sent. */
export class StoppedError extends BotError {
  override name = 'StoppedError' as const
  readonly component: 'limiter' | 'batcher'
  constructor(component: 'limiter' | 'batcher', options: BotErrorOptions = {}) {
    super(`${component} is stopped; nothing was sent`, options)
    this.component = component
  }
}

/** A queued job's AbortSignal fired before the limiter admitted it; nothing was sent. */
export class LimiterAbortedError extends BotError {
  override name = 'LimiterAbortedError' as const
  constructor(waitingFor: string, options: BotErrorOptions = {}) {
    super(`aborted while waiting in the limiter for ${waitingFor}; nothing was sent`, options)
  }
}
