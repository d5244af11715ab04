/**
 * The venue's passing conditions, in front of the batcher (the gateway submits through this):
 * - a cancel refused per item with a retryable error (`order_in_flight`: the order is still being
 *   placed) is tried again after `itemRetryMs`, at most `maxTries` times in all;
 * - 425 (engine restarting, `EngineRestartingError`): every submit waits out the venue's
 *   `retryAfterMs` (or `defaultHoldMs`), then the refused command is sent again (bounded likewise);
 * - 503 post-only mode (`PostOnlyModeError`): one alert, post-only creates go on (our quotes are
 *   post-only), creates that are not post-only are refused here without a request while it lasts.
 * Nothing here resends a command whose outcome is unknown: only definite refusals are retried.
 */
import type { AlertSink } from '../../alerts/alert.ts'
import type { Clock } from '../../clock.ts'
import { EngineRestartingError, PostOnlyModeError } from '../../errors.ts'
import type { Logger } from '../../logging/logger.ts'
import {
  type CancelResult,
  type CreateOrderAck,
  isRetryableItemError,
  type ModifyResult,
} from '../../perps/schemas/orders.ts'
import type { Batcher, CancelCommand, CreateCommand, ItemOutcome, ModifyCommand } from './batcher.ts'

export interface VenueConditionsOptions {
  clock: Clock
  logger: Pick<Logger, 'warn' | 'info'>
  alerts?: AlertSink | undefined
  /** Pause before a retryable cancel item is tried again. Default 200 ms. */
  itemRetryMs?: number | undefined
  /** Tries per command in all (first one included). Default 3. */
  maxTries?: number | undefined
  /** Hold after a 425 that names no Retry-After. Default 1 s. */
  defaultHoldMs?: number | undefined
  /** How long post-only mode is assumed after a 503 that names no Retry-After. Default 60 s. */
  postOnlyMs?: number | undefined
}

export interface VenueConditionsState {
  /** Base-clock ms until which submits wait (425); 0 when not held. */
  heldUntil: number
  /** Base-clock ms until which non-post-only creates are refused here; 0 when not in post-only mode. */
  postOnlyUntil: number
  cancelRetries: number
  engineRetries: number
  skippedCreates: number
}

export const POST_ONLY_ALERT_KEY = 'venue-post-only'

/** The batcher with the venue's conditions honoured (see the file comment); `state` adds their counts. */
export function withVenueConditions(
  batcher: Batcher,
  o: VenueConditionsOptions,
): Batcher & { conditions(): VenueConditionsState } {
  const itemRetryMs = o.itemRetryMs ?? 200
  const maxTries = o.maxTries ?? 3
  const s: VenueConditionsState = {
    heldUntil: 0,
    postOnlyUntil: 0,
    cancelRetries: 0,
    engineRetries: 0,
    skippedCreates: 0,
  }
  let postOnlyAlerted = false
  const wait = (ms: number): Promise<void> =>
    ms <= 0 ? Promise.resolve() : new Promise((resolve) => o.clock.setTimeout(resolve, ms))
  const held = (): Promise<void> => wait(s.heldUntil - o.clock.now())

  /** A request-level refusal: true when the command is worth sending again (after the hold). */
  const onFailed = (error: Error): boolean => {
    const now = o.clock.now()
    if (error instanceof EngineRestartingError) {
      s.heldUntil = Math.max(s.heldUntil, now + (error.retryAfterMs ?? o.defaultHoldMs ?? 1_000))
      o.logger.warn({ holdMs: s.heldUntil - now }, 'venue engine restarting (425): order commands held')
      return true
    }
    if (error instanceof PostOnlyModeError) {
      s.postOnlyUntil = Math.max(s.postOnlyUntil, now + (error.retryAfterMs ?? o.postOnlyMs ?? 60_000))
      if (!postOnlyAlerted) {
        postOnlyAlerted = true
        o.alerts?.send({
          key: POST_ONLY_ALERT_KEY,
          severity: 'warning',
          title: 'venue in post-only mode',
          message:
            'The venue accepts only post-only orders for now: quoting goes on (our quotes are post-only); other creates (reduce-only exits that take liquidity) are skipped until it ends.',
          at: now,
        })
      }
    }
    return false
  }

  async function run<R extends { status: 'ok' | 'err' }>(
    send: () => Promise<ItemOutcome<R>>,
    retryItem: (r: ItemOutcome<R>) => boolean,
  ) {
    for (let attempt = 1; ; attempt++) {
      // Awaited only while a 425 holds: a command not held reaches the batcher in this turn.
      if (s.heldUntil > o.clock.now()) await held()
      const r = await send()
      if (attempt >= maxTries) return r
      const failed = failedError(r)
      if (failed !== undefined) {
        if (!onFailed(failed)) return r
        s.engineRetries++
        continue
      }
      if (!retryItem(r)) return r
      s.cancelRetries++
      await wait(itemRetryMs)
    }
  }

  const isPostOnlyRefused = (c: CreateCommand): boolean =>
    c.order.po !== true && o.clock.now() < s.postOnlyUntil

  function submit(c: ModifyCommand): Promise<ItemOutcome<ModifyResult>>
  function submit(c: CreateCommand): Promise<ItemOutcome<CreateOrderAck>>
  function submit(c: CancelCommand): Promise<ItemOutcome<CancelResult>>
  async function submit(
    c: ModifyCommand | CreateCommand | CancelCommand,
  ): Promise<ItemOutcome<ModifyResult | CreateOrderAck | CancelResult>> {
    switch (c.type) {
      case 'cancelOrders':
        return run(
          () => batcher.submit(c),
          (r) =>
            r.status === 'err' &&
            'error' in r &&
            isRetryableItemError({ status: r.status, error: String(r.error) }),
        )
      case 'modifyOrders':
        return run(
          () => batcher.submit(c),
          () => false,
        )
      case 'createOrders': {
        if (isPostOnlyRefused(c)) {
          s.skippedCreates++
          return {
            status: 'failed',
            error: new PostOnlyModeError('createOrders', 'post_only_mode', undefined),
          }
        }
        const r = await run(
          () => batcher.submit(c),
          () => false,
        )
        // A create that is not post-only went through after the mode: the episode is over.
        if (postOnlyAlerted && c.order.po !== true && r.status === 'ok' && o.clock.now() >= s.postOnlyUntil) {
          postOnlyAlerted = false
          s.postOnlyUntil = 0
          o.alerts?.send({
            key: POST_ONLY_ALERT_KEY,
            severity: 'info',
            title: 'venue out of post-only mode',
            message: 'The venue accepts every order type again.',
            resolved: true,
            at: o.clock.now(),
          })
        }
        return r
      }
    }
  }

  return {
    submit,
    flush: () => batcher.flush(),
    state: () => batcher.state(),
    stop: () => batcher.stop(),
    conditions: () => ({ ...s }),
  }
}

/** The request-level error of a `failed` outcome. */
function failedError(r: { status: string }): Error | undefined {
  return r.status === 'failed' && 'error' in r && r.error instanceof Error ? r.error : undefined
}
