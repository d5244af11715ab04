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
  override name = 'TransportError' as const
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
