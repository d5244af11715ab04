/** Typed errors the stream client reports through its `error` event (never thrown from a callback). */
import { BotError, type BotErrorOptions } from '../../errors.ts'

/** Codes that say the credentials themselves are wrong or gone (not a transient refusal). */
const DEFINITE_AUTH_RE =
  /invalid|unauthori[sz]ed|credential|expired|revoked|not[ _]found|unknown[ _]proxy|forbidden/i

/** Whether an auth refusal's code says the credentials are bad (an operator must act), not a hiccup. */
export function isDefiniteAuthRefusal(code: string): boolean {
  return DEFINITE_AUTH_RE.test(code)
}

/**
 * The server refused the socket's `auth`. The client retries with back-off like the official client
 * (a venue restart can refuse good credentials for a moment); `definite` says the code names bad or
 * expired credentials, which deserves an alert while REST keeps working.
 */
export class StreamAuthError extends BotError {
  override name = 'StreamAuthError' as const
  readonly code: string
  readonly definite: boolean
  constructor(code: string, options: BotErrorOptions = {}) {
    super(`stream authentication refused: ${code}`, options)
    this.code = code
    this.definite = isDefiniteAuthRefusal(code)
  }
}

/** The server refused a subscription; the channel is dropped from the wanted set. */
export class StreamSubscriptionError extends BotError {
  override name = 'StreamSubscriptionError' as const
  readonly channel: string
  readonly code: string
  constructor(channel: string, code: string, options: BotErrorOptions = {}) {
    super(`subscription to ${channel} refused: ${code}`, options)
    this.channel = channel
    this.code = code
  }
}

/** A subscription would exceed a documented limit; raised before anything is sent. */
export class StreamLimitError extends BotError {
  override name = 'StreamLimitError' as const
}

/** A frame that is not JSON or not a valid push/response; the frame is dropped. */
export class StreamProtocolError extends BotError {
  override name = 'StreamProtocolError' as const
}

/** The server sent an error frame (e.g. `message_rate_limited`, `slow_consumer`). */
export class StreamServerError extends BotError {
  override name = 'StreamServerError' as const
  readonly code: string
  constructor(code: string, options: BotErrorOptions = {}) {
    super(`stream server error: ${code}`, options)
    this.code = code
  }
}

export type StreamError = StreamAuthError | StreamSubscriptionError | StreamProtocolError | StreamServerError
