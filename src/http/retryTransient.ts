/**
 * A start-up read (or an idempotent check) through a transient refusal: the venue's 429 (after its
 * Retry-After), the fleet's shared budget busy past its wait, a 5xx, a transport failure or a malformed body are tried again a few times with
 * backoff before the start fails. A bot restarted by its supervisor into a busy venue should start, not crash-loop; a
 * persistent refusal (4xx other than 429, config errors) still fails at once.
 */
import type { Clock } from '../clock.ts'
import {
  RateLimitError,
  RequestRejectedError,
  ThrottledError,
  TransportError,
  UnexpectedResponseError,
} from '../errors.ts'

export interface StartupReadOptions {
  clock: Clock
  logger: { warn(fields: object, message: string): void }
  /** Tries in all. Default 5. */
  attempts?: number | undefined
  /** First backoff; doubles each time, capped at `maxDelayMs`. Default 500 ms. */
  baseDelayMs?: number | undefined
  /** Longest wait between tries, Retry-After included. Default 10 s. */
  maxDelayMs?: number | undefined
  /** Which errors are worth another try. Default `isTransient`. */
  transient?: ((e: unknown) => boolean) | undefined
}

export function isTransient(e: unknown): boolean {
  if (
    e instanceof RateLimitError ||
    e instanceof ThrottledError ||
    e instanceof TransportError ||
    e instanceof UnexpectedResponseError
  )
    return true
  return e instanceof RequestRejectedError && e.status >= 500
}

export async function retryTransient<T>(
  what: string,
  read: () => Promise<T>,
  o: StartupReadOptions,
): Promise<T> {
  const attempts = o.attempts ?? 5
  const base = o.baseDelayMs ?? 500
  const max = o.maxDelayMs ?? 10_000
  for (let attempt = 1; ; attempt++) {
    try {
      return await read()
    } catch (e) {
      if (!(o.transient ?? isTransient)(e) || attempt >= attempts) throw e
      const backoff = base * 2 ** (attempt - 1)
      const delay = Math.min(max, Math.max(backoff, e instanceof RateLimitError ? (e.retryAfterMs ?? 0) : 0))
      o.logger.warn(
        { attempt, delayMs: delay, err: e instanceof Error ? e.message : String(e) },
        `${what} failed (${e instanceof Error ? e.message : String(e)}); trying again in ${delay} ms (${attempt}/${attempts})`,
      )
      await new Promise<void>((resolve) => o.clock.setTimeout(resolve, delay))
    }
  }
}
