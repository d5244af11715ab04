/**
 * Raw HTTP over undici: one keep-alive pool per origin, connect/headers/body idle timeouts, an overall
 * deadline per request, a cap on body size, AbortSignal. It returns status, headers and text for every
 * answer the server gives, and throws `TransportError` when no complete answer came (its subclass
 * `ResponseTooLargeError` when the body passed the cap) and `InputValidationError` for headers it
 * refuses to send. Status mapping and schemas live in `callJson.ts`.
 */
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici'
import { BotError, InputValidationError, ResponseTooLargeError, TransportError } from '../errors.ts'
import { errorMessage, fieldOf } from '../guards.ts'
import { pendingWrites } from './writeFirst.ts'

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Path without origin, e.g. `/v1/info/index`. */
  path: string
  query?: URLSearchParams | undefined
  headers?: Readonly<Record<string, string>> | undefined
  /** Serialized as JSON with `Content-Type: application/json`. */
  body?: unknown
  signal?: AbortSignal | undefined
}

export interface HttpResponse {
  status: number
  headers: Readonly<Record<string, string | string[] | undefined>>
  text: string
  /**
   * The body as a value, from a venue in this process: a typed command's answer (never written as text,
   * `text` is then '') or an in-process read's (`text` holds the same body, for its size). Parsed first.
   */
  json?: unknown
}

export interface HttpTransport {
  readonly origin: string
  request(req: HttpRequest): Promise<HttpResponse>
  close(): Promise<void>
  /**
   * True from a request handed to the HTTP client until the check phase that writes it (writeFirst.ts):
   * work deferred to a later turn waits for it. Absent: requests are delivered at once (in process).
   */
  readonly writing?: (() => boolean) | undefined
}

/** Default cap on a response body. The largest legitimate perps answer is `/v1/info/statistics` (every
 * instrument with 24 h of 1-minute klines, about 95 kB per instrument on the mock): 8 MiB fits ~80. */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024
/** Cap for the catalogue: a 500-event keyset page with nested markets is 6.6 MB on the mock already. */
export const CATALOGUE_MAX_BODY_BYTES = 32 * 1024 * 1024

export interface HttpTransportOptions {
  /** Origin plus optional base path, e.g. `http://127.0.0.1:8080` or `https://host/api`. */
  baseUrl: string
  connectTimeoutMs?: number | undefined
  /** Idle limit before the response headers arrive. */
  headersTimeoutMs?: number | undefined
  /** Idle limit between body chunks (a trickling body resets it; `deadlineMs` does not). */
  bodyTimeoutMs?: number | undefined
  /** Overall limit for one request, headers and whole body included. Default: the larger idle limit. */
  deadlineMs?: number | undefined
  /** Largest body read; the read stops (connection dropped) as soon as it is passed. Default 8 MiB. */
  maxBodyBytes?: number | undefined
  keepAliveTimeoutMs?: number | undefined
  connections?: number | undefined
  /** Replaces the pool (tests pass an undici `MockAgent`). */
  dispatcher?: Dispatcher | undefined
  userAgent?: string | undefined
}

/** RFC 9110 token characters: what a header name may contain. */
const HEADER_NAME_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** What we send in a header value: visible ASCII, space and tab (undici also passes Latin-1 bytes). */
const HEADER_VALUE_RE = /^[\t\x20-\x7e]*$/

/** Creates a transport with its own keep-alive pool for `baseUrl`'s origin. */
export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const url = new URL(options.baseUrl)
  const origin = url.origin
  const basePath = url.pathname.replace(/\/+$/, '')
  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const bodyTimeout = options.bodyTimeoutMs ?? 10_000
  const deadlineMs = options.deadlineMs ?? Math.max(headersTimeout, bodyTimeout)
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  if (!(Number.isFinite(deadlineMs) && deadlineMs > 0))
    throw new InputValidationError('deadlineMs must be a positive number of ms')
  if (!(Number.isSafeInteger(maxBodyBytes) && maxBodyBytes > 0))
    throw new InputValidationError('maxBodyBytes must be a positive integer')
  const ownsDispatcher = options.dispatcher === undefined
  const newPool = (): Dispatcher =>
    new Pool(origin, {
      connections: options.connections ?? 8,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      connect: { timeout: options.connectTimeoutMs ?? 5_000 },
      headersTimeout,
      bodyTimeout,
    })
  let dispatcher: Dispatcher = options.dispatcher ?? newPool()
  const retired: Dispatcher[] = []
  const userAgent = options.userAgent ?? 'perpbot/0.1'
  const writes = pendingWrites()

  /**
   * undici's Pool marks a client "needs drain" when dispatch throws synchronously (an invalid argument)
   * and never clears it: after `connections` such failures every later request queues forever. A fresh
   * pool is the only way out; the old one is closed once its in-flight requests end.
   */
  const replacePool = (): void => {
    if (!ownsDispatcher) return
    const old = dispatcher
    dispatcher = newPool()
    retired.push(old)
    old.close().then(
      () => retired.splice(retired.indexOf(old), 1),
      () => undefined,
    )
  }

  return {
    origin,
    writing: writes.writing,
    async request(req: HttpRequest): Promise<HttpResponse> {
      const qs = req.query?.toString()
      const path = `${basePath}${req.path}${qs ? `?${qs}` : ''}`
      const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent }
      let body: string | undefined
      if (req.body !== undefined) {
        body = JSON.stringify(req.body)
        headers['content-type'] = 'application/json'
      }
      Object.assign(headers, req.headers)
      checkHeaders(req.path, headers)
      if (req.signal?.aborted) throw new TransportError(req.path, 'aborted', { maybeDelivered: false })

      // One controller ends the request: the caller's abort or the overall deadline, whichever first.
      const controller = new AbortController()
      let deadlineHit = false
      const timer = setTimeout(() => {
        deadlineHit = true
        controller.abort(new Error('deadline'))
      }, deadlineMs)
      timer.unref?.()
      const onCallerAbort = (): void => controller.abort(req.signal?.reason)
      req.signal?.addEventListener('abort', onCallerAbort, { once: true })
      let sent = false
      try {
        const answer = dispatcher.request({
          origin,
          method: req.method,
          path,
          headers,
          body: body ?? null,
          signal: controller.signal,
          headersTimeout,
          bodyTimeout,
        })
        // Dispatched (undici books the write on a kept-alive socket): later turns wait for it.
        writes.made()
        // Raced as well: a request stuck in a pool queue does not see undici's signal until dispatched.
        const res = await raceAbort(answer, controller.signal)
        sent = true
        const text = await raceAbort(readCapped(req.path, res, maxBodyBytes), controller.signal)
        return { status: res.statusCode, headers: res.headers, text }
      } catch (e) {
        if (e instanceof BotError) throw e
        if (deadlineHit) {
          throw new TransportError(req.path, `no complete answer within the ${deadlineMs} ms deadline`, {
            cause: e,
            maybeDelivered: true,
            timedOut: true,
          })
        }
        if (controller.signal.aborted) throw new TransportError(req.path, 'aborted', { maybeDelivered: true })
        if (isInvalidArgument(e)) replacePool()
        throw toTransportError(req.path, e, sent)
      } finally {
        clearTimeout(timer)
        req.signal?.removeEventListener('abort', onCallerAbort)
      }
    },
    async close(): Promise<void> {
      if (!ownsDispatcher) return
      // A retired pool may hold requests queued forever (see `replacePool`): destroy, do not wait.
      await Promise.allSettled([dispatcher.close(), ...retired.map((d) => d.destroy())])
    },
  }
}

/**
 * Refuses, before the pool sees them, headers undici would reject (see `replacePool`) or send as
 * Latin-1. The message names the header, never its value (it may be the API secret).
 */
function checkHeaders(path: string, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME_RE.test(name))
      throw new InputValidationError(`request to ${path} not sent: invalid header name "${safeName(name)}"`)
    if (typeof value !== 'string' || !HEADER_VALUE_RE.test(value))
      throw new InputValidationError(
        `request to ${path} not sent: header ${name} must be visible ASCII (its value is not shown)`,
      )
  }
}

function safeName(name: string): string {
  return name.replace(/[^\x21-\x7e]/g, '?').slice(0, 64)
}

/** Reads the body as UTF-8 text, dropping the connection as soon as it passes `limit` bytes. */
async function readCapped(path: string, res: Dispatcher.ResponseData, limit: number): Promise<string> {
  const declared = Number(res.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) {
    drop(res.body)
    throw new ResponseTooLargeError(path, limit, declared, true)
  }
  const chunks: Buffer[] = []
  let total = 0
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    total += chunk.length
    if (total > limit) {
      drop(res.body)
      throw new ResponseTooLargeError(path, limit, total)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, total).toString('utf8')
}

/** Destroys a body we stop reading (which drops the connection); its abort error has no one to tell. */
function drop(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined)
  body.destroy()
}

/** Settles with `p`, or rejects as soon as `signal` aborts (the loser's rejection is swallowed). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined)
    return Promise.reject(signal.reason)
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      },
    )
  })
}

function isInvalidArgument(e: unknown): boolean {
  return e instanceof undiciErrors.InvalidArgumentError || fieldOf(e, 'code') === 'UND_ERR_INVALID_ARG'
}

function toTransportError(path: string, e: unknown, gotHeaders: boolean): TransportError {
  const code = fieldOf(e, 'code')
  // Before the socket was connected, or refused by the client itself, the request did not go out.
  const neverSent =
    e instanceof undiciErrors.ConnectTimeoutError ||
    isInvalidArgument(e) ||
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN'
  const timedOut =
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    e instanceof undiciErrors.ConnectTimeoutError
  const aborted = fieldOf(e, 'name') === 'AbortError'
  const reason = aborted
    ? 'aborted'
    : timedOut
      ? `timed out (${String(fieldOf(e, 'name'))})`
      : isInvalidArgument(e)
        ? `refused by the HTTP client before sending (${errorMessage(e)})`
        : typeof code === 'string'
          ? code
          : e instanceof Error
            ? e.message
            : String(e)
  return new TransportError(path, reason, { cause: e, maybeDelivered: gotHeaders || !neverSent, timedOut })
}
