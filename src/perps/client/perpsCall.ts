/**
 * What every perps endpoint file shares: the error-body parser, input parsing, auth headers, the
 * request gate's admission before every send, secret redaction of thrown errors, and the call shapes
 * (a read whose every attempt is admitted on its own and that may retry; a command admitted once,
 * signed after its admission, and never retried). The pipeline runs one way: endpoint → gate
 * (`admit`, perps/throttle/) → signing → transport; the gate answers with a value and calls nothing
 * back. A caller that must act between admission and signing (the batcher's reconcile hold) takes
 * the command's `AdmittedCommand` and sends it when ready.
 */
import { z } from 'zod'
import { sleep } from '../../clock.ts'
import { isDecimalString, parseDecimal } from '../../decimal.ts'
import {
  BotError,
  ConfigError,
  EngineRestartingError,
  InputValidationError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
} from '../../errors.ts'
import { fieldOf } from '../../guards.ts'
import {
  type CallObserver,
  callJson,
  type ErrorBodyParser,
  formatZodIssues,
  NO_RETRY,
  type RetryPolicy,
  retryDelayMs,
} from '../../http/callJson.ts'
import { parseRateLimitHeaders } from '../../http/rateLimitHeaders.ts'
import type { HttpRequest, HttpResponse } from '../../http/transport.ts'
import { PerpsErrorBody } from '../schemas/common.ts'
import type { SignCommandOptions } from '../signing/commandSigner.ts'
import type { BuiltOp } from '../signing/ops.ts'
import { MAX_EXP_AHEAD_MS } from '../signing/timing.ts'
import {
  type Admission,
  FREE_ADMISSION,
  type RequestPriority,
  sendAdmitted,
} from '../throttle/requestGate.ts'
import { type TypedCommand, type TypedOp, takesTypedCommands } from '../typedCommands.ts'
import { PERPS_WEIGHTS, type PerpsEndpoint, type WeightInput } from '../weights.ts'
import type { PerpsClientContext } from './context.ts'

export interface PerpsCallOptions {
  /** Aborts the call, also while it waits in the gate. */
  signal?: AbortSignal | undefined
}

export interface PerpsReadOptions extends PerpsCallOptions {
  /** Overrides the context's read retry policy for this call. */
  retry?: RetryPolicy | undefined
  /**
   * `exit`: a read the stop sequence's own cancels depend on (held by nothing local); `halt`: one a
   * halted instrument's cancels depend on (the fleet's halt reserve).
   */
  priority?: 'exit' | 'halt' | undefined
}

export interface PerpsCommandOptions extends PerpsCallOptions {
  /** Absolute command expiry, Unix ms: after now and at most 5 s ahead. Not signed. */
  exp?: number | undefined
  /** Relative expiry: exp = ts + min(expAfterMs, 5000). Exclusive with `exp`. */
  expAfterMs?: number | undefined
  /** Scheduling class for the gate (`risk` for cancels and reduce-only work). */
  priority?: RequestPriority | undefined
  /** Sign with the local clock while the venue clock is refused (the exit policy's cancel-all only). */
  localClockIfUntrusted?: boolean | undefined
}

/**
 * A command the gate has admitted, not yet signed: its weight is held until `send` settles or
 * `release` hands it back. Exactly one of them is called.
 */
export interface AdmittedCommand<T> {
  /** Signs (ts and exp from now) and sends it once; the outcome is the command's. */
  send(): Promise<T>
  /** Not sent after all (the caller stopped): the weight goes back. */
  release(): void
}

/**
 * Perps error bodies: `{status:"err", error}` or, from batch endpoints, a one-item array of it.
 * code = `error` (a snake_case id, or human-readable text for 400).
 */
export const parsePerpsErrorBody: ErrorBodyParser = (body) => {
  const item = Array.isArray(body) && body.length === 1 ? body[0] : body
  const parsed = PerpsErrorBody.safeParse(item)
  return parsed.success ? { code: parsed.data.error } : undefined
}

/** Parses `input` with `schema` or throws `InputValidationError` naming every bad field. */
export function parseInput<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const issues = formatZodIssues(parsed.error)
  throw new InputValidationError(`invalid ${operation} input: ${issues[0] ?? 'invalid'}`, {
    details: issues.slice(1),
  })
}

// ---- shared input primitives ------------------------------------------------------------------

/** Plain non-negative decimal as the venue takes prices and quantities (no sign, exponent, leading dot). */
const PLAIN_DECIMAL_RE = /^\d+(\.\d+)?$/
/** A price or quantity input: a plain decimal string greater than zero. */
export const PositiveDecimalInput = z
  .string()
  .refine((s) => PLAIN_DECIMAL_RE.test(s) && isDecimalString(s), {
    message: 'expected a plain decimal string',
  })
  .refine((s) => !PLAIN_DECIMAL_RE.test(s) || parseDecimal(s).units > 0n, {
    message: 'must be greater than zero',
  })

export const TimestampInput = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)

/** Command options: `exp` in (now, now + 5000], `expAfterMs` positive, not both. */
export function validateCommandOptions(
  ctx: PerpsClientContext,
  operation: string,
  opts: PerpsCommandOptions,
): void {
  const issues: string[] = []
  const now = Math.floor(ctx.clock.now())
  if (opts.exp !== undefined && opts.expAfterMs !== undefined)
    issues.push('pass either exp or expAfterMs, not both')
  if (opts.exp !== undefined) {
    if (!Number.isSafeInteger(opts.exp)) issues.push('exp: must be an integer (Unix ms)')
    else if (opts.exp <= now) issues.push(`exp: ${opts.exp} is not in the future (now ${now})`)
    else if (opts.exp > now + MAX_EXP_AHEAD_MS)
      issues.push(`exp: ${opts.exp} is more than ${MAX_EXP_AHEAD_MS} ms ahead (now ${now})`)
  }
  if (opts.expAfterMs !== undefined && !(Number.isFinite(opts.expAfterMs) && opts.expAfterMs > 0))
    issues.push('expAfterMs: must be a positive number of ms')
  if (issues.length > 0)
    throw new InputValidationError(`invalid ${operation} input: ${issues[0]}`, { details: issues.slice(1) })
}

/** The signer's options for a command: exp (the call's, else the context default) and its clock. */
export function expOptions(ctx: PerpsClientContext, opts: PerpsCommandOptions): SignCommandOptions {
  // Literals, not a spread of an optional part: this runs for every command on the order path.
  const local = opts.localClockIfUntrusted === true
  if (opts.exp !== undefined)
    return local ? { exp: opts.exp, localClockIfUntrusted: true } : { exp: opts.exp }
  const after = opts.expAfterMs ?? ctx.defaultExpAfterMs
  if (after !== undefined)
    return local ? { expAfterMs: after, localClockIfUntrusted: true } : { expAfterMs: after }
  return local ? { localClockIfUntrusted: true } : {}
}

// ---- calls ------------------------------------------------------------------------------------

interface CallSpec<S extends z.ZodType> {
  endpoint: PerpsEndpoint
  weight?: WeightInput | undefined
  /** Sends the proxy/secret header pair. */
  auth?: boolean | undefined
  query?: URLSearchParams | undefined
  schema: S
  signal?: AbortSignal | undefined
}

export interface ReadSpec<S extends z.ZodType> extends CallSpec<S> {
  retry?: RetryPolicy | undefined
  priority?: 'exit' | 'halt' | undefined
  /** The answer's typed value from a venue in this process (perps/typedReads.ts), taken without the parse. */
  typed?: ((res: HttpResponse) => z.output<S> | undefined) | undefined
}

export interface CommandSpec<S extends z.ZodType> extends CallSpec<S> {
  /** Builds (signs) the body; called after the gate admitted the request, so ts/exp are fresh. */
  body: () => unknown
  /**
   * The command as a typed value for a venue in this process that takes it (`typedCommand`): stamped
   * instead of signed, at the moment `body` would have been built; undefined = always signed.
   */
  typed?: (() => TypedCommand | undefined) | undefined
  priority?: RequestPriority | undefined
}

/**
 * The typed form of a command when the client's transport takes typed commands and its key can stamp
 * without signing (perps/typedCommands.ts); undefined otherwise (the HTTP venue: signed as always).
 */
export function typedCommand(
  ctx: PerpsClientContext,
  signer: NonNullable<PerpsClientContext['signer']>,
  built: BuiltOp<TypedOp>,
  options: SignCommandOptions,
): (() => TypedCommand | undefined) | undefined {
  if (signer.stampCommand === undefined || !takesTypedCommands(ctx.transport)) return undefined
  return () => {
    const stamped = signer.stampCommand?.(built, options)
    return stamped === undefined ? undefined : { signer: signer.address, stamped }
  }
}

/**
 * A read: every attempt passes the gate on its own (retries cost weight too, and a 429 or a success
 * reaches the gate with the answer), retried per policy on transport failures and 5xx.
 */
export async function perpsRead<S extends z.ZodType>(
  ctx: PerpsClientContext,
  spec: ReadSpec<S>,
): Promise<z.output<S>> {
  return guard(ctx, async () => {
    const request = buildRequest(ctx, spec, undefined)
    const policy = spec.retry ?? ctx.readRetry
    for (let attempt = 1; ; attempt++) {
      try {
        const send = () =>
          callJson(
            { transport: ctx.transport, clock: ctx.clock, random: ctx.random },
            {
              request,
              schema: spec.schema,
              parseErrorBody: parsePerpsErrorBody,
              retry: NO_RETRY,
              observe: observerFor(ctx, spec.endpoint),
              typed: spec.typed,
            },
          )
        // Without a gate nothing is admitted: straight to the transport.
        if (ctx.gate === undefined) return await send()
        return await sendAdmitted(await admit(ctx, spec, spec.priority), send)
      } catch (e) {
        if (attempt >= policy.attempts || spec.signal?.aborted || !isRetryableRead(e)) throw e
        // A 425's own hold (Retry-After / retry_after_seconds) wins over our jitter, capped by the policy.
        const hold = e instanceof EngineRestartingError ? Math.min(e.retryAfterMs ?? 0, policy.maxDelayMs) : 0
        await sleep(ctx.clock, Math.max(hold, retryDelayMs(policy, attempt, ctx.random)), spec.signal)
      }
    }
  })
}

/** The call's hooks onto the context's observer (none when the context has none). */
function observerFor(ctx: PerpsClientContext, endpoint: PerpsEndpoint): CallObserver | undefined {
  const o = ctx.observer
  if (o === undefined) return undefined
  return {
    response: (res) => {
      if (o.rateLimit === undefined) return
      const obs = parseRateLimitHeaders(res.headers)
      if (obs !== undefined) o.rateLimit(endpoint, obs)
    },
    dropped: (lines) => o.droppedItems?.(endpoint, lines),
  }
}

/** A transport failure, a 425 (engine restarting) or a 5xx other than 501: worth another attempt of a read. */
function isRetryableRead(e: unknown): boolean {
  if (e instanceof TransportError || e instanceof EngineRestartingError) return true
  return e instanceof RequestRejectedError && e.status >= 500 && e.status !== 501
}

/** A command: admitted once, then the body is built/signed and sent once; unknown outcomes surface as such. */
export async function perpsCommand<S extends z.ZodType>(
  ctx: PerpsClientContext,
  spec: CommandSpec<S>,
): Promise<z.output<S>> {
  return (await admitCommand(ctx, spec)).send()
}

/**
 * A command's first half: admitted by the gate, not yet signed. `send` signs it with a fresh ts/exp
 * and sends it once; `release` hands the weight back unsent.
 */
export async function admitCommand<S extends z.ZodType>(
  ctx: PerpsClientContext,
  spec: CommandSpec<S>,
): Promise<AdmittedCommand<z.output<S>>> {
  const admission = await guard(ctx, async () => {
    // Headers first: a missing credential is refused before any weight is taken.
    const headers = spec.auth ? authHeaders(ctx, spec.endpoint) : undefined
    return { headers, admission: await admit(ctx, spec, spec.priority) }
  })
  let used = false
  const once = (): void => {
    if (used) throw new BotError(`${spec.endpoint}: an admitted command is sent or released once`)
    used = true
  }
  return {
    send: () => {
      once()
      return guard(ctx, () =>
        sendAdmitted(admission.admission, async () => {
          const transport = ctx.transport
          const typed = takesTypedCommands(transport) ? spec.typed?.() : undefined
          const body = typed === undefined ? await spec.body() : undefined
          const request = buildRequest(ctx, spec, body, admission.headers)
          return callJson(
            { transport, clock: ctx.clock, random: ctx.random },
            {
              request,
              schema: spec.schema,
              parseErrorBody: parsePerpsErrorBody,
              command: true,
              observe: observerFor(ctx, spec.endpoint),
              send:
                typed && takesTypedCommands(transport) ? () => transport.command(request, typed) : undefined,
            },
          )
        }),
      )
    },
    release: () => {
      once()
      admission.admission.release()
    },
  }
}

/** The gate's admission of one request (a free one without a gate). */
function admit<S extends z.ZodType>(
  ctx: PerpsClientContext,
  spec: CallSpec<S>,
  priority: RequestPriority | undefined,
): Promise<Admission> {
  if (ctx.gate === undefined) return Promise.resolve(FREE_ADMISSION)
  const w = PERPS_WEIGHTS[spec.endpoint]
  const input = spec.weight ?? {}
  return ctx.gate.admit({
    endpoint: spec.endpoint,
    kind: w.kind,
    input,
    requestWeight: w.request(input),
    actionWeight: w.action(input),
    priority,
    signal: spec.signal,
  })
}

function buildRequest<S extends z.ZodType>(
  ctx: PerpsClientContext,
  spec: CallSpec<S>,
  body: unknown,
  headers?: Record<string, string> | undefined,
): HttpRequest {
  const w = PERPS_WEIGHTS[spec.endpoint]
  const request: HttpRequest = { method: w.method, path: w.path }
  if (spec.query !== undefined && spec.query.size > 0) request.query = spec.query
  const h = headers ?? (spec.auth ? authHeaders(ctx, spec.endpoint) : undefined)
  if (h !== undefined) request.headers = h
  if (body !== undefined) request.body = body
  if (spec.signal !== undefined) request.signal = spec.signal
  return request
}

/** The header pair; a missing credential is a configuration problem found before any request. */
function authHeaders(ctx: PerpsClientContext, endpoint: PerpsEndpoint): Record<string, string> {
  const creds = ctx.credentials
  if (creds === undefined) {
    throw new ConfigError(`${endpoint} needs proxy credentials`, ['credentials: not configured'])
  }
  return { [ctx.authHeaderNames.proxy]: creds.proxy, [ctx.authHeaderNames.secret]: creds.secret }
}

/** The proxy signer, or a configuration error before any request. */
export function requireSigner(
  ctx: PerpsClientContext,
  endpoint: PerpsEndpoint,
): NonNullable<PerpsClientContext['signer']> {
  if (ctx.signer === undefined)
    throw new ConfigError(`${endpoint} needs a proxy signer`, ['signer: not configured'])
  return ctx.signer
}

/** Runs a call; every thrown error is scrubbed of the proxy secret. */
async function guard<T>(ctx: PerpsClientContext, run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (e) {
    throw redactSecrets(e, ctx.credentials === undefined ? [] : [ctx.credentials.secret])
  }
}

/**
 * Replaces every occurrence of a secret in an error, its properties and its cause chain (in place).
 * Our own messages never carry secrets, but a library error in `cause` may echo request headers
 * (undici's mock, for one, prints them on a mismatch).
 */
export function redactSecrets<T>(e: T, secrets: readonly string[]): T {
  const live = secrets.filter((s) => s.length > 0)
  if (live.length === 0) return e
  const seen = new WeakSet<object>()
  const scrub = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string')
      return live.reduce((s, secret) => s.split(secret).join('[redacted]'), value)
    if (value === null || typeof value !== 'object' || depth > 6 || seen.has(value)) return value
    seen.add(value)
    for (const key of Object.getOwnPropertyNames(value)) {
      const desc = Object.getOwnPropertyDescriptor(value, key)
      if (desc === undefined) continue
      // Newer V8 installs `stack` as an accessor; read it and pin the scrubbed text as data.
      const current: unknown =
        'value' in desc ? desc.value : key === 'stack' ? Reflect.get(value, key) : undefined
      if (current === undefined) continue
      const next = scrub(current, depth + 1)
      if (next === current) continue
      try {
        Object.defineProperty(value, key, {
          value: next,
          writable: true,
          enumerable: desc.enumerable ?? false,
          configurable: true,
        })
      } catch {
        // Frozen library object: nothing we can rewrite in place.
      }
    }
    return value
  }
  return scrub(e, 0) as T
}

/**
 * Batch answers must carry one result per requested item. A lone `err` item for a larger batch is a
 * request-level rejection sent with 200; any other count mismatch is an unexpected response.
 */
export function checkBatchLength<R extends { status: string }>(
  endpoint: PerpsEndpoint,
  results: R[],
  n: number,
): R[] {
  if (results.length === n) return results
  const path = PERPS_WEIGHTS[endpoint].path
  const only = results[0]
  if (results.length === 1 && only !== undefined && only.status === 'err') {
    const code = fieldOf(only, 'error')
    throw new RequestRejectedError(path, 200, typeof code === 'string' ? code : 'http_200')
  }
  throw new UnexpectedResponseError(path, [`(root): expected ${n} results, got ${results.length}`])
}
