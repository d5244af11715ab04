/**
 * An `HttpTransport` that hands each request straight to the mock's handler in the same process: no
 * sockets, so the simulator knows when the bot and the mock are idle (see steppedRun.ts). Everything
 * above the transport (the clients, callJson, schemas, signing, the limiter) is the bot's own path.
 * Request bodies cross as JSON text, as on the wire; an answer is written as JSON text (its size, the
 * body cap) and handed over with its value, which the client's schema parses instead of the text
 * read back (issue 36: a read's JSON.parse was a few % of the simulated day); a read the core
 * answers with its typed value (the tickers, the portfolio: perps/typedReads.ts) is not parsed at all.
 * The request deadline runs on the virtual clock.
 *
 * Answers are not handed back the moment the handler returns but through a `DeliveryQueue` that the
 * driver empties, one answer at a time in the order they came, only when the bot is otherwise quiet.
 * Some answers take wall time (the mock's signature recovery does a dynamic import), so handing them
 * back at once would let wall time decide how they interleave with the bot's other work; at quiet
 * points the order is a function of the seed alone.
 */
import type { Clock, TimerId } from '../../clock.ts'
import { ResponseTooLargeError, TransportError } from '../../errors.ts'
import type { HttpRequest, HttpResponse, HttpTransport } from '../../http/transport.ts'
import type { MockHandler, MockRequest, MockResponse } from '../../mock/mockHttp.ts'
import type { TypedCommand, TypedCommandTransport } from '../../perps/typedCommands.ts'
import { withTypedRead } from '../../perps/typedReads.ts'

export interface InProcessTransportOptions {
  handler: MockHandler
  /** Runs the deadline (the simulator's virtual clock). */
  clock: Clock
  /** Overall limit for one request on `clock` (the bot's request timeout). */
  deadlineMs: number
  /** The body cap of the HTTP transport it stands in for (the bot's `maxResponseBytes`). */
  maxBodyBytes: number
  /** Shown as the transport's origin; never dialled. */
  origin?: string | undefined
  /** Sees every answer (path, status, body length): request counts without keeping bodies. */
  onAnswer?: ((req: HttpRequest, status: number, bytes: number) => void) | undefined
  /** Sees every request as the mock got it with the mock's answer (the soak's wire accounting). */
  onExchange?: ((req: MockRequest, res: MockResponse) => void) | undefined
}

const INTERNAL_ERROR: MockResponse = { status: 500, body: { status: 'err', error: 'internal_error' } }

/** Answers waiting to be handed to the bot, oldest first. */
export interface DeliveryQueue {
  push(deliver: () => void): void
  /** Hands over the oldest waiting answer; false when none waits. */
  deliverOne(): boolean
  readonly size: number
}

export function createDeliveryQueue(): DeliveryQueue {
  const waiting: ((() => void) | undefined)[] = []
  let head = 0
  return {
    push: (deliver) => void waiting.push(deliver),
    deliverOne() {
      const next = waiting[head]
      if (next === undefined) return false
      // Let go of the delivered answer at once: the slots before `head` are trimmed only now and then.
      waiting[head] = undefined
      head += 1
      if (head > 1_024 && head * 2 > waiting.length) {
        waiting.splice(0, head)
        head = 0
      }
      next()
      return true
    },
    get size() {
      return waiting.length - head
    },
  }
}

export function createInProcessTransport(
  o: InProcessTransportOptions & { deliveries: DeliveryQueue },
): HttpTransport
export function createInProcessTransport(
  o: InProcessTransportOptions & { deliveries: DeliveryQueue; typedCommands: true },
): TypedCommandTransport
export function createInProcessTransport(
  o: InProcessTransportOptions & { deliveries: DeliveryQueue; typedCommands?: boolean | undefined },
): HttpTransport | TypedCommandTransport {
  /** One request through the mock, its answer handed back in delivery order within the deadline. */
  async function exchange(req: HttpRequest, mockReq: MockRequest): Promise<MockResponse> {
    const onExchange = o.onExchange
    const handled = Promise.resolve()
      .then(() => o.handler(mockReq))
      .catch(() => INTERNAL_ERROR)
    const answer = (
      onExchange === undefined
        ? handled
        : handled.then((res) => {
            onExchange(mockReq, res)
            return res
          })
    ).then((res) => new Promise<MockResponse>((resolve) => o.deliveries.push(() => resolve(res))))
    let timer: TimerId | undefined
    let onAbort: (() => void) | undefined
    const stop = new Promise<never>((_, reject) => {
      timer = o.clock.setTimeout(
        () =>
          reject(
            new TransportError(req.path, `no complete answer within the ${o.deadlineMs} ms deadline`, {
              maybeDelivered: true,
              timedOut: true,
            }),
          ),
        o.deadlineMs,
      )
      onAbort = () => reject(new TransportError(req.path, 'aborted', { maybeDelivered: true }))
      req.signal?.addEventListener('abort', onAbort, { once: true })
    })
    try {
      return await Promise.race([answer, stop])
    } finally {
      if (timer !== undefined) o.clock.clearTimeout(timer)
      if (onAbort) req.signal?.removeEventListener('abort', onAbort)
    }
  }

  const transport: HttpTransport = {
    origin: o.origin ?? 'http://127.0.0.1:0',
    async request(req: HttpRequest): Promise<HttpResponse> {
      if (req.signal?.aborted) throw new TransportError(req.path, 'aborted', { maybeDelivered: false })
      const headers: Record<string, string> = { accept: 'application/json' }
      for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v
      // As on the wire: what JSON cannot carry does not arrive.
      const body: unknown = req.body === undefined ? undefined : JSON.parse(JSON.stringify(req.body))
      if (body !== undefined) headers['content-type'] = 'application/json'
      const res = await exchange(req, {
        method: req.method,
        path: req.path,
        query: new URLSearchParams(req.query),
        headers,
        body,
        clientId: CLIENT_ID,
      })
      const text = res.raw ?? (res.body === undefined ? '' : JSON.stringify(res.body))
      // UTF-8 is at most 3 bytes per UTF-16 unit: count the bytes only when the cap may be near.
      const bytes = text.length * 3 > o.maxBodyBytes ? Buffer.byteLength(text) : text.length
      o.onAnswer?.(req, res.status, bytes)
      if (bytes > o.maxBodyBytes) throw new ResponseTooLargeError(req.path, o.maxBodyBytes, bytes, true)
      const answered = { 'content-type': 'application/json', ...res.headers }
      // The body also as the value it was (the client's schema parses it without reading the text
      // back, as for a typed command); the text stays for its size and for readers of text. A
      // fault's malformed text has no value.
      if (res.raw !== undefined || res.body === undefined)
        return { status: res.status, headers: answered, text }
      const value: HttpResponse = { status: res.status, headers: answered, text, json: res.body }
      // A read the core answers with its typed value (perps/typedReads.ts) is taken without its parse.
      return res.typed === undefined ? value : withTypedRead(value, res.typed)
    },
    async close(): Promise<void> {},
  }
  if (o.typedCommands !== true) return transport
  return {
    ...transport,
    /**
     * A typed command (perps/typedCommands.ts): the stamped op goes to the mock as a value with its
     * vouched signer, through the same limiter, faults, delivery order and deadline as a request; the
     * answer comes back as a value. Decision: no byte cap on it (a command's answer is one ack per
     * order, and there are no bytes); `onAnswer` counts it with 0 bytes.
     */
    async command(req: HttpRequest, command: TypedCommand): Promise<HttpResponse> {
      if (req.signal?.aborted) throw new TransportError(req.path, 'aborted', { maybeDelivered: false })
      const res = await exchange(req, {
        method: req.method,
        path: req.path,
        query: new URLSearchParams(req.query),
        headers: TYPED_HEADERS,
        body: command.stamped,
        clientId: CLIENT_ID,
        vouched: command,
      })
      o.onAnswer?.(req, res.status, 0)
      const headers = { 'content-type': 'application/json', ...res.headers }
      // A fault's malformed text stays text: the client reads it as it would off the wire.
      return res.raw === undefined
        ? { status: res.status, headers, text: '', json: res.body }
        : { status: res.status, headers, text: res.raw }
    },
  }
}

const CLIENT_ID = '127.0.0.1'
const TYPED_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/json',
  'content-type': 'application/json',
}
