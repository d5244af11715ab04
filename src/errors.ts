/**
 * The error taxonomy. Every failure the bot, its clients or the mock raise is one of these classes,
 * with a literal `name`, a one-line `shortMessage` and optional `details` lines for alerts and logs.
 * Messages never include secrets: callers pass only public facts (paths, statuses, codes).
 */

export interface BotErrorOptions extends ErrorOptions {
  /** Extra human-readable context lines (never secrets). */
  details?: readonly string[] | undefined
}

export class BotError extends Error {
  override name: string = 'BotError'
  readonly shortMessage: string
  readonly details: readonly string[]

  constructor(shortMessage: string, options: BotErrorOptions = {}) {
    const details = options.details ?? []
    super(details.length > 0 ? `${shortMessage}\n${details.map((d) => `  ${d}`).join('\n')}` : shortMessage, {
      cause: options.cause,
    })
    this.shortMessage = shortMessage
    this.details = details
  }
}

/** Configuration is invalid; `issues` lists every problem with its path. */
export class ConfigError extends BotError {
  override name = 'ConfigError' as const
  readonly issues: readonly string[]
  constructor(shortMessage: string, issues: readonly string[], options: BotErrorOptions = {}) {
    super(shortMessage, { ...options, details: issues })
    this.issues = issues
  }
}

/** A caller's input was rejected before any request was sent. */
export class InputValidationError extends BotError {
  override name = 'InputValidationError' as const
}

/**
 * The server answered, but the body did not match its schema. `path` is the endpoint; `fieldPaths` the
 * places in the body that did not match (`keys.0.expiry`, `(root)` for the body itself), so a caller
 * can degrade only the feed that read it and name the field in its alert.
 */
export class UnexpectedResponseError extends BotError {
  override name = 'UnexpectedResponseError' as const
  readonly path: string
  readonly issues: readonly string[]
  /** Distinct body paths of `issues`, in order. */
  readonly fieldPaths: readonly string[]
  constructor(
    path: string,
    issues: readonly string[],
    options: BotErrorOptions & { fieldPaths?: readonly string[] | undefined } = {},
  ) {
    super(`unexpected response from ${path}: ${issues[0] ?? 'invalid body'}`, {
      ...options,
      details: issues.slice(1),
    })
    this.path = path
    this.issues = issues
    this.fieldPaths = options.fieldPaths ?? fieldPathsOf(issues)
  }
}

/** Issues read `field.path: message` (see `formatZodIssues`); one without a path is about the whole body. */
function fieldPathsOf(issues: readonly string[]): string[] {
  const paths = issues.map((i) => {
    const at = i.indexOf(': ')
    const head = at > 0 ? i.slice(0, at) : ''
    return head === '' || /\s/.test(head) ? '(root)' : head
  })
  return [...new Set(paths.length > 0 ? paths : ['(root)'])]
}

/** The request never got an HTTP answer (connect failure, reset, timeout, abort). */
export class TransportError extends BotError {
  override name: string = 'TransportError'
  readonly path: string
  /** True when the request may have reached the server (so a command's outcome is unknown). */
  readonly maybeDelivered: boolean
  readonly timedOut: boolean
  constructor(
    path: string,
    reason: string,
    opts: BotErrorOptions & { maybeDelivered: boolean; timedOut?: boolean | undefined },
  ) {
    super(`request to ${path} failed: ${reason}`, opts)
    this.path = path
    this.maybeDelivered = opts.maybeDelivered
    this.timedOut = opts.timedOut ?? false
  }
}

/**
 * The answer's body passed the transport's size cap; the read stopped there (the connection is dropped).
 * The request reached the server, so a command's outcome is unknown.
 */
export class ResponseTooLargeError extends TransportError {
  override name = 'ResponseTooLargeError' as const
  readonly limitBytes: number
  /** Bytes seen when the read stopped, or the declared `Content-Length` when it alone passed the cap. */
  readonly receivedBytes: number
  constructor(path: string, limitBytes: number, receivedBytes: number, declared = false) {
    super(
      path,
      `response body ${declared ? 'declared as' : 'passed'} ${receivedBytes} bytes, over the ${limitBytes}-byte cap`,
      { maybeDelivered: true },
    )
    this.limitBytes = limitBytes
    this.receivedBytes = receivedBytes
  }
}

/**
 * The venue's clock is further from the local clock than the configured bound: the offset is refused
 * and nothing is signed until a measurement within the bound is accepted.
 */
export class ClockSkewError extends BotError {
  override name = 'ClockSkewError' as const
  /** The refused offset (venue minus local), ms. */
  readonly offsetMs: number
  readonly maxOffsetMs: number
  constructor(offsetMs: number, maxOffsetMs: number, options: BotErrorOptions = {}) {
    super(
      `venue clock differs from the local clock by ${formatSkew(offsetMs)} (bound ${formatSkew(maxOffsetMs)}); ` +
        'offset refused, signing refused until the clocks agree — check the host clock (NTP) and the venue',
      options,
    )
    this.offsetMs = offsetMs
    this.maxOffsetMs = maxOffsetMs
  }
}

/** `-1.79e12` → `-20717 d`, `300000` → `5 min`: the operator sees the order of magnitude. */
function formatSkew(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms)
  const abs = Math.abs(ms)
  const sign = ms < 0 ? '-' : ''
  if (abs < 10_000) return `${ms} ms`
  if (abs < 120_000) return `${sign}${Math.round(abs / 1_000)} s`
  if (abs < 7_200_000) return `${sign}${Math.round(abs / 60_000)} min`
  if (abs < 172_800_000) return `${sign}${(abs / 3_600_000).toFixed(1)} h`
  return `${sign}${Math.round(abs / 86_400_000)} d`
}

/** The server answered with a non-2xx status (other than 429). */
export class RequestRejectedError extends BotError {
  override name: string = 'RequestRejectedError'
  readonly status: number
  /** The server's error code or text (`error` field of perps bodies, `type` of catalogue bodies). */
  readonly code: string
  /** The catalogue's human-readable `error` message, when present. */
  readonly serverMessage: string | undefined
  readonly path: string
  constructor(
    path: string,
    status: number,
    code: string,
    serverMessage?: string | undefined,
    options: BotErrorOptions = {},
  ) {
    super(
      `${path} rejected with ${status} ${code}${serverMessage && serverMessage !== code ? `: ${serverMessage}` : ''}`,
      options,
    )
    this.status = status
    this.code = code
    this.serverMessage = serverMessage
    this.path = path
  }
}

/** HTTP 429. `retryAfterMs` comes from `Retry-After` (seconds on the wire) when the server sent it. */
export class RateLimitError extends RequestRejectedError {
  override name = 'RateLimitError' as const
  readonly retryAfterMs: number | undefined
  constructor(path: string, code: string, retryAfterMs: number | undefined, options: BotErrorOptions = {}) {
    super(path, 429, code, undefined, options)
    this.retryAfterMs = retryAfterMs
  }
}

/** A signed command was sent but its outcome is unknown (timeout after send, connection reset). */
export class UnknownOutcomeError extends BotError {
  override name = 'UnknownOutcomeError' as const
  readonly path: string
  constructor(path: string, options: BotErrorOptions = {}) {
    super(`outcome of ${path} is unknown; reconcile before any resend`, options)
    this.path = path
  }
}

/** Signing failed (bad key material is reported without the key). */
export class SigningError extends BotError {
  override name = 'SigningError' as const
}

/** An internal invariant broke: a bug, not an input or network problem. */
export class InvariantError extends BotError {
  override name = 'InvariantError' as const
}

/** Builds a type guard for a set of error classes. */
export function makeErrorGuard<T extends readonly (abstract new (...args: never[]) => Error)[]>(
  ...classes: T
): (e: unknown) => e is InstanceType<T[number]> {
  return (e: unknown): e is InstanceType<T[number]> => classes.some((c) => e instanceof c)
}

/** A one-line description of any thrown value, safe for logs. */
export function describeError(e: unknown): string {
  if (e instanceof BotError) return `${e.name}: ${e.shortMessage}`
  if (e instanceof Error) return `${e.name}: ${e.message}`
  return String(e)
}

/**
 * Our own throttle held a request back longer than it allows (the fleet's shared budget busy):
 * nothing was sent, so trying again later is safe (start-up reads do, as after a 429).
 */
export class ThrottledError extends BotError {
  override name: string = 'ThrottledError'
}

/**
 * HTTP 425: the venue's matching engine is restarting. Nothing was applied; hold and try again after
 * `retryAfterMs` (from `Retry-After` or the body's `retry_after_seconds`) when given.
 */
export class EngineRestartingError extends RequestRejectedError {
  override name = 'EngineRestartingError' as const
  readonly retryAfterMs: number | undefined
  readonly retryable = true as const
  constructor(path: string, code: string, retryAfterMs: number | undefined, options: BotErrorOptions = {}) {
    super(path, 425, code, undefined, options)
    this.retryAfterMs = retryAfterMs
  }
}

/**
 * HTTP 503 naming post-only mode: the venue accepts only post-only orders for now (cancels still work).
 * The command was refused, not applied: keep quoting post-only and say so.
 */
export class PostOnlyModeError extends RequestRejectedError {
  override name = 'PostOnlyModeError' as const
  readonly retryAfterMs: number | undefined
  constructor(path: string, code: string, retryAfterMs: number | undefined, options: BotErrorOptions = {}) {
    super(path, 503, code, undefined, options)
    this.retryAfterMs = retryAfterMs
  }
}
