/**
 * PATCH /v1/trade/auto-cancel: the venue's dead-man switch. `time` (Unix ms, at least 5 s ahead) arms
 * it: if it is not refreshed or cleared by then, the venue cancels every open order of the account.
 * `0` clears it. Proxy-signed `{op:{type:"autoCancel", args:{time}}, sig, salt, ts, exp?}`; answers
 * `{status:"ok", deadline}`. Request weight 1, action weight 10; at most 10 triggers per UTC day
 * (`auto_cancel_daily_limit_reached`).
 *
 * @see protocol-notes d (dead-man switch), c.4 (weights)
 */
import { z } from 'zod'
import { InputValidationError } from '../../errors.ts'
import { TimestampMs } from '../schemas/common.ts'
import { type AutoCancelOp, buildAutoCancel } from '../signing/ops.ts'
import type { PerpsClientContext } from './context.ts'
import {
  expOptions,
  type PerpsCommandOptions,
  parseInput,
  perpsCommand,
  requireSigner,
  typedCommand,
  validateCommandOptions,
} from './perpsCall.ts'
import type { SameShape } from './sameShape.ts'

export const SetAutoCancelParams = z.strictObject({ time: z.number().int().nonnegative() })
export type SetAutoCancelParams = z.input<typeof SetAutoCancelParams>
export const AutoCancelAck = z.looseObject({ status: z.literal('ok'), deadline: TimestampMs.optional() })
export type AutoCancelAck = z.infer<typeof AutoCancelAck>
true satisfies SameShape<z.output<typeof SetAutoCancelParams>, AutoCancelOp['args']>

/** The venue refuses a deadline less than 5 s ahead (protocol-notes d); checked here first. */
export const MIN_AUTO_CANCEL_LEAD_MS = 5_000

/** Why `time` cannot arm the switch at `now`, or undefined when it can (0 always clears). */
export function autoCancelTimeProblem(time: number, now: number): string | undefined {
  if (time === 0) return undefined
  if (time < now + MIN_AUTO_CANCEL_LEAD_MS)
    return `time: ${time} is less than ${MIN_AUTO_CANCEL_LEAD_MS} ms ahead of the venue's now (${Math.floor(now)}); use 0 to clear`
  return undefined
}

/**
 * Arms (time > 0, at least 5 s ahead of the venue clock) or clears (0) the dead-man switch. The rule is
 * checked before the request and again when the gate admits it (a queued arm may have aged).
 * @throws {InputValidationError} / {ConfigError} before any request; the client's usual request errors after.
 */
export async function setAutoCancel(
  ctx: PerpsClientContext,
  params: SetAutoCancelParams,
  options: PerpsCommandOptions = {},
): Promise<AutoCancelAck> {
  const valid = parseInput('setAutoCancel', SetAutoCancelParams, params)
  validateCommandOptions(ctx, 'setAutoCancel', options)
  const lead = () => {
    const problem = autoCancelTimeProblem(valid.time, ctx.clock.now())
    if (problem !== undefined) throw new InputValidationError(`invalid setAutoCancel input: ${problem}`)
  }
  lead()
  const signer = requireSigner(ctx, 'setAutoCancel')
  const built = buildAutoCancel(valid)
  const typed = typedCommand(ctx, signer, built, expOptions(ctx, options))
  return perpsCommand(ctx, {
    endpoint: 'setAutoCancel',
    body: () => {
      lead()
      return signer.signCommand(built, expOptions(ctx, options))
    },
    typed:
      typed &&
      (() => {
        lead()
        return typed()
      }),
    schema: AutoCancelAck,
    signal: options.signal,
    priority: options.priority,
  })
}
