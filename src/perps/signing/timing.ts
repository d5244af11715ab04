/**
 * Command timing: `ts` is Unix ms on the venue's clock (we sign with an `OffsetClock` corrected by
 * `/v1/info/time`), and the optional `exp` may shorten validity but never lie more than 5 s ahead
 * (`command expiry too far in future`, protocol-notes a.3).
 */
import { InputValidationError } from '../../errors.ts'

/** The gateway's default command timeout: `exp` must be within this of now. */
export const MAX_EXP_AHEAD_MS = 5_000

/**
 * Offset to add to the local clock to get server time, assuming the server read its clock halfway
 * between our send and our receive (NTP-style midpoint). Rounded to whole ms.
 * @throws {@link InputValidationError} when the receive time precedes the send time.
 */
export function estimateClockOffset(localSendMs: number, serverTimeMs: number, localRecvMs: number): number {
  if (![localSendMs, serverTimeMs, localRecvMs].every(Number.isFinite)) {
    throw new InputValidationError('clock offset inputs must be finite numbers')
  }
  if (localRecvMs < localSendMs) throw new InputValidationError('receive time precedes send time')
  return Math.round(serverTimeMs - (localSendMs + localRecvMs) / 2)
}

/**
 * Checks an absolute expiry against `nowMs`: it must be an integer, after now, and at most 5 s ahead.
 * @throws {@link InputValidationError}
 */
export function validateExp(exp: number, nowMs: number): void {
  if (!Number.isSafeInteger(exp)) throw new InputValidationError('exp must be an integer (Unix ms)')
  if (exp <= nowMs) throw new InputValidationError(`exp ${exp} is not in the future (now ${nowMs})`)
  if (exp > nowMs + MAX_EXP_AHEAD_MS) {
    throw new InputValidationError(`exp ${exp} is more than ${MAX_EXP_AHEAD_MS} ms ahead (now ${nowMs})`)
  }
}

/**
 * A default expiry: `nowMs + aheadMs`, clamped to the 5 s maximum.
 * @throws {@link InputValidationError} when `aheadMs` is not a positive number.
 */
export function defaultExp(nowMs: number, aheadMs: number = MAX_EXP_AHEAD_MS): number {
  if (!(aheadMs > 0) || !Number.isFinite(aheadMs)) throw new InputValidationError('aheadMs must be positive')
  return Math.floor(nowMs) + Math.max(1, Math.min(Math.floor(aheadMs), MAX_EXP_AHEAD_MS))
}
