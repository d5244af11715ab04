/**
 * One JSON call: send through a transport, map the status to the error taxonomy, parse the body with
 * its zod schema. Reads may retry (jittered exponential backoff on transport failures and 5xx);
 * signed commands never do, and an unknown outcome surfaces as `UnknownOutcomeError`.
 */
import type { z } from 'zod'
import { type Clock, sleep } from '../clock.ts'
import {
  EngineRestartingError,
  InputValidationError,
  PostOnlyModeError,
  RateLimitError,
  RequestRejectedError,
  ResponseTooLargeError,
  TransportError,
  UnexpectedResponseError,
  UnknownOutcomeError,
} from '../errors.ts'
import { collectDroppedItems } from './droppedRows.ts'
import type { HttpRequest, HttpResponse, HttpTransport } from './transport.ts'

export interface RetryPolicy {
  /** Total attempts including the first. 1 disables retries. */
  attempts: number
  baseDelayMs: number
  maxDelayMs: number
}

export const READ_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 }
export const NO_RETRY: RetryPolicy = { attempts: 1, baseDelayMs: 0, maxDelayMs: 0 }

export interface CallContext {
  transport: HttpTransport
  clock: Clock
  /** Uniform in [0, 1); injected so tests are deterministic. */
  random: () => number
}

/** Extracts the error code and message from a non-2xx body of one interface. */
export type ErrorBodyParser = (body: unknown) => { code: string; message?: string | undefined } | undefined

export interface CallOptions<S extends z.ZodType> {
  request: HttpRequest
  schema: S
  parseErrorBody: ErrorBodyParser
  retry?: RetryPolicy | undefined
  /** A signed command: never retried, and an undelivered-or-unknown failure is reported as such. */
  command?: boolean | undefined
  /** Sees every answer (its headers) and the rows a tolerant list dropped. */
  observe?: CallObserver | undefined
  /** Sends the request another way than `transport.request` (a typed command to an in-process venue). */
  send?: (() => Promise<HttpResponse>) | undefined
  /**
   * The answer's value when it already is the schema's output (a venue in this process, see
   * perps/typedReads.ts): taken as the parse's result; undefined = parse as always.
   */
  typed?: ((res: HttpResponse) => z.output<S> | undefined) | undefined
}

/** Hooks on what a call received: nothing here changes the outcome of the call. */
export interface CallObserver {
  /** Every HTTP answer, success or error (rate-limit headers ride on both). */
  response?(res: HttpResponse): void
  /** Rows of a list the schema dropped (`[index.field]: reason`, never a value). */
  dropped?(lines: readonly string[]): void
}

/** Performs the call and returns the parsed body. */
export async function callJson<S extends z.ZodType>(
  ctx: CallContext,
  opts: CallOptions<S>,
): Promise<z.output<S>> {
  const policy = opts.command ? NO_RETRY : (opts.retry ?? READ_RETRY)
  const path = opts.request.path
  for (let attempt = 1; ; attempt++) {
    let res: HttpResponse
    try {
      res = await (opts.send === undefined ? ctx.transport.request(opts.request) : opts.send())
    } catch (e) {
      if (opts.command && e instanceof TransportError && e.maybeDelivered) {
        throw new UnknownOutcomeError(path, { cause: e, details: [e.shortMessage] })
      }
      // An oversized body or a header we refuse would only come again: a retry costs weight for nothing.
      const retryable = !(e instanceof ResponseTooLargeError || e instanceof InputValidationError)
      if (retryable && attempt < policy.attempts && !opts.request.signal?.aborted) {
        await backoff(ctx, policy, attempt, opts.request.signal)
        continue
      }
      throw e
    }
    opts.observe?.response?.(res)
    if (res.status >= 200 && res.status < 300) {
      const typed = opts.typed?.(res)
      return typed !== undefined ? typed : parseBody(path, res, opts.schema, opts.observe)
    }
    const err = toRejection(path, res, opts.parseErrorBody)
    // A 503 naming post-only mode is a definite refusal, neither an unknown outcome nor worth a retry.
    const retryable = res.status >= 500 && res.status !== 501 && !(err instanceof PostOnlyModeError)
    if (opts.command && retryable) {
      // A 5xx on a command may have been applied (e.g. a gateway timeout); only a reconcile can tell.
      throw new UnknownOutcomeError(path, { cause: err, details: [err.shortMessage] })
    }
    if (retryable && attempt < policy.attempts && !opts.request.signal?.aborted) {
      await backoff(ctx, policy, attempt, opts.request.signal)
      continue
    }
    throw err
  }
}

function parseBody<S extends z.ZodType>(
  path: string,
  res: HttpResponse,
  schema: S,
  observe: CallObserver | undefined,
): z.output<S> {
  let json: unknown = res.json
  if (json === undefined) {
    try {
      json = JSON.parse(res.text)
    } catch {
      throw new UnexpectedResponseError(path, ['body is not valid JSON'])
    }
  }
  const { value: parsed, dropped } = collectDroppedItems(() => schema.safeParse(json))
  if (!parsed.success) throw new UnexpectedResponseError(path, formatZodIssues(parsed.error))
  if (dropped.length > 0) observe?.dropped?.(dropped)
  return parsed.data
}

/** `field.path: message` lines for a zod error (no values, so nothing secret can leak). */
export function formatZodIssues(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
}

function toRejection(path: string, res: HttpResponse, parseErrorBody: ErrorBodyParser): RequestRejectedError {
  let body: unknown = res.json
  if (body === undefined) {
    try {
      body = JSON.parse(res.text)
    } catch {
      body = undefined
    }
  }
  const parsed = parseErrorBody(body)
  const code = parsed?.code ?? `http_${res.status}`
  const retryAfterMs = () => parseRetryAfterMs(res.headers['retry-after']) ?? bodyRetryAfterMs(body)
  if (res.status === 429) return new RateLimitError(path, code, retryAfterMs())
  if (res.status === 425) return new EngineRestartingError(path, code, retryAfterMs())
  if (res.status === 503 && POST_ONLY_RE.test(code)) return new PostOnlyModeError(path, code, retryAfterMs())
  return new RequestRejectedError(path, res.status, code, parsed?.message)
}

/** How the venue names post-only mode in a 503 body (`post_only_mode`, "post-only mode", ...). */
const POST_ONLY_RE = /post[ _-]?only/i

/** Longest wait a body may ask for: an hour (a larger value is hostile or a bug). */
const MAX_BODY_RETRY_AFTER_S = 3_600

/** `retry_after_seconds` in an error body (or its one batch item), honoured like `Retry-After`. */
export function bodyRetryAfterMs(body: unknown): number | undefined {
  const item = Array.isArray(body) && body.length === 1 ? body[0] : body
  if (item === null || typeof item !== 'object') return undefined
  const v: unknown = Reflect.get(item, 'retry_after_seconds')
  const secs = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  if (typeof secs !== 'number' || !Number.isFinite(secs) || secs < 0) return undefined
  return Math.ceil(Math.min(secs, MAX_BODY_RETRY_AFTER_S) * 1000)
}

/** `Retry-After` is whole seconds on this venue; an HTTP-date is accepted too. */
export function parseRetryAfterMs(value: string | string[] | undefined, nowMs?: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v.trim() === '') return undefined
  const secs = Number(v)
  if (Number.isFinite(secs) && secs >= 0) return Math.ceil(secs * 1000)
  const date = Date.parse(v)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - (nowMs ?? Date.now()))
}

async function backoff(
  ctx: CallContext,
  policy: RetryPolicy,
  attempt: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  await sleep(ctx.clock, retryDelayMs(policy, attempt, ctx.random), signal)
}

/** The pause before retry `attempt + 1`: "full jitter", so retries of many clients do not arrive together. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, random: () => number): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1))
  return Math.round(cap * random())
}
