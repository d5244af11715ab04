/**
 * Raw HTTP over undici: one keep-alive pool per origin, connect/headers/body timeouts, AbortSignal.
 * It returns status, headers and text for every answer the server gives, and throws `TransportError`
 * only when no answer came. Status mapping and schemas live in `callJson.ts`.
 */
import { type Dispatcher, Pool, errors as undiciErrors } from 'undici'
import { TransportError } from '../errors.ts'

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
}

export interface HttpTransport {
  readonly origin: string
  request(req: HttpRequest): Promise<HttpResponse>
  close(): Promise<void>
}

export interface HttpTransportOptions {
  /** Origin plus optional base path, e.g. `http://127.0.0.1:8080` or `https://host/api`. */
  baseUrl: string
  connectTimeoutMs?: number | undefined
  headersTimeoutMs?: number | undefined
  bodyTimeoutMs?: number | undefined
  keepAliveTimeoutMs?: number | undefined
  connections?: number | undefined
  /** Replaces the pool (tests pass an undici `MockAgent`). */
  dispatcher?: Dispatcher | undefined
  userAgent?: string | undefined
}

/** Creates a transport with its own keep-alive pool for `baseUrl`'s origin. */
export function createHttpTransport(options: HttpTransportOptions): HttpTransport {
  const url = new URL(options.baseUrl)
  const origin = url.origin
  const basePath = url.pathname.replace(/\/+$/, '')
  const headersTimeout = options.headersTimeoutMs ?? 10_000
  const bodyTimeout = options.bodyTimeoutMs ?? 10_000
  const ownsDispatcher = options.dispatcher === undefined
  const dispatcher: Dispatcher =
    options.dispatcher ??
    new Pool(origin, {
      connections: options.connections ?? 8,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      connect: { timeout: options.connectTimeoutMs ?? 5_000 },
      headersTimeout,
      bodyTimeout,
    })
  const userAgent = options.userAgent ?? 'perpbot/0.1'

  return {
    origin,
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
      let sent = false
      try {
        const res = await dispatcher.request({
          origin,
          method: req.method,
          path,
          headers,
          body: body ?? null,
          ...(req.signal ? { signal: req.signal } : {}),
          headersTimeout,
          bodyTimeout,
        })
        sent = true
        const text = await res.body.text()
        return { status: res.statusCode, headers: res.headers, text }
      } catch (e) {
        throw toTransportError(req.path, e, sent)
      }
    },
    async close(): Promise<void> {
      if (ownsDispatcher) await dispatcher.close()
    },
  }
}

function toTransportError(path: string, e: unknown, gotHeaders: boolean): TransportError {
  const code = (e as { code?: unknown } | null)?.code
  // Before the socket was connected the request cannot have reached the server.
  const neverSent =
    e instanceof undiciErrors.ConnectTimeoutError ||
    code === 'ECONNREFUSED' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN'
  const timedOut =
    e instanceof undiciErrors.HeadersTimeoutError ||
    e instanceof undiciErrors.BodyTimeoutError ||
    e instanceof undiciErrors.ConnectTimeoutError
  const aborted = (e as { name?: unknown } | null)?.name === 'AbortError'
  const reason = aborted
    ? 'aborted'
    : timedOut
      ? `timed out (${(e as Error).name})`
      : typeof code === 'string'
        ? code
        : e instanceof Error
          ? e.message
          : String(e)
  return new TransportError(path, reason, { cause: e, maybeDelivered: gotHeaders || !neverSent, timedOut })
}
