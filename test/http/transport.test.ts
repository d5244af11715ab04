/**
 * The transport against a real loopback `node:http` server that misbehaves: bodies that trickle or
 * never come, bodies over the size cap (declared or streamed), and client-side argument errors that
 * used to wedge undici's pool. Deadlines are tiny (≤ 300 ms) so the wall time stays small.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { systemClock } from '../../src/clock.ts'
import {
  InputValidationError,
  ResponseTooLargeError,
  TransportError,
  UnknownOutcomeError,
} from '../../src/errors.ts'
import { callJson } from '../../src/http/callJson.ts'
import { createHttpTransport, DEFAULT_MAX_BODY_BYTES, type HttpTransport } from '../../src/http/transport.ts'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

interface Loopback {
  url: string
  requests: number
  /** Bytes the server managed to hand to the socket per response, recorded when the response closed. */
  written: number[]
  close(): Promise<void>
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

async function loopback(handler: Handler): Promise<Loopback> {
  const state: Loopback = { url: '', requests: 0, written: [], close: async () => undefined }
  const timers = new Set<ReturnType<typeof setInterval>>()
  const server: Server = createServer((req, res) => {
    state.requests++
    req.resume()
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  state.close = () =>
    new Promise<void>((resolve) => {
      for (const t of timers) clearInterval(t)
      server.close(() => resolve())
      server.closeAllConnections()
    })
  cleanups.push(() => state.close())
  return state
}

function transport(
  url: string,
  extra: Partial<Parameters<typeof createHttpTransport>[0]> = {},
): HttpTransport {
  const t = createHttpTransport({ baseUrl: url, ...extra })
  cleanups.push(() => t.close())
  return t
}

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a failure')
    },
    (e: unknown) => e,
  )
}

/** Waits (bounded) for the server side to observe what the client did. */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5))
  expect(cond()).toBe(true)
}

/** Sends `total` bytes in `chunk`-sized writes, honouring backpressure; records what reached the socket. */
function oversend(res: ServerResponse, total: number, chunk: number, written: number[]): void {
  const block = Buffer.alloc(chunk, 0x20)
  let sent = 0
  const pump = (): void => {
    while (sent < total && !res.destroyed) {
      sent += chunk
      if (!res.write(block)) {
        res.once('drain', pump)
        return
      }
    }
    if (sent >= total) res.end()
  }
  res.on('close', () => written.push(sent))
  pump()
}

describe('overall deadline', () => {
  it('a body that trickles forever fails at the deadline although the idle timer keeps being reset', async () => {
    const srv = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"time":')
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 10)
      res.on('close', () => clearInterval(t))
    })
    const t = transport(srv.url, { headersTimeoutMs: 1_000, bodyTimeoutMs: 1_000, deadlineMs: 150 })
    const started = Date.now()
    const e = await failure(t.request({ method: 'GET', path: '/v1/info/time' }))
    const elapsed = Date.now() - started
    expect(e).toBeInstanceOf(TransportError)
    expect(e).toMatchObject({ timedOut: true, maybeDelivered: true, path: '/v1/info/time' })
    expect((e as TransportError).message).toContain('150 ms deadline')
    expect(elapsed).toBeGreaterThanOrEqual(140)
    expect(elapsed).toBeLessThan(900) // well before the 1 s idle limits
  })

  it('headers that never come fail at the deadline too, and the transport keeps serving', async () => {
    let hold = true
    const srv = await loopback((_req, res) => {
      if (hold) return // never answers
      res.end('{"ok":true}')
    })
    const t = transport(srv.url, { headersTimeoutMs: 5_000, deadlineMs: 100 })
    const e = await failure(t.request({ method: 'GET', path: '/v1/info/time' }))
    expect(e).toMatchObject({ name: 'TransportError', timedOut: true })
    hold = false
    expect((await t.request({ method: 'GET', path: '/v1/info/ping' })).text).toBe('{"ok":true}')
  })

  it('defaults to the larger idle limit', async () => {
    const srv = await loopback((_req, res) => {
      res.writeHead(200)
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 10)
      res.on('close', () => clearInterval(t))
    })
    const t = transport(srv.url, { headersTimeoutMs: 50, bodyTimeoutMs: 120 })
    const e = await failure(t.request({ method: 'GET', path: '/x' }))
    expect((e as TransportError).message).toContain('120 ms deadline')
  })

  it("the caller's abort still reads as an abort, not a deadline", async () => {
    const srv = await loopback(() => undefined)
    const t = transport(srv.url, { deadlineMs: 5_000 })
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 30)
    const e = await failure(t.request({ method: 'GET', path: '/x', signal: ac.signal }))
    expect(e).toMatchObject({ name: 'TransportError', timedOut: false })
    expect((e as TransportError).message).toContain('aborted')
  })

  it('a signed command whose answer trickles past the deadline is an unknown outcome, sent once', async () => {
    const srv = await loopback((_req, res) => {
      res.writeHead(200)
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 10)
      res.on('close', () => clearInterval(t))
    })
    const t = transport(srv.url, { deadlineMs: 100 })
    const e = await failure(
      callJson(
        { transport: t, clock: systemClock, random: () => 0 },
        {
          request: { method: 'PATCH', path: '/v1/trade/orders', body: { op: 'x' } },
          schema: (await import('zod')).z.unknown(),
          parseErrorBody: () => undefined,
          command: true,
        },
      ),
    )
    expect(e).toBeInstanceOf(UnknownOutcomeError)
    expect(srv.requests).toBe(1)
  })
})

describe('body size cap', () => {
  it('defaults to 8 MiB', () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBe(8 * 1024 * 1024)
  })

  it('a body of exactly the cap is read; one byte more is refused', async () => {
    const srv = await loopback((req, res) => {
      const n = req.url === '/at' ? 4_096 : 4_097
      res.end(Buffer.alloc(n, 0x61))
    })
    const t = transport(srv.url, { maxBodyBytes: 4_096 })
    expect((await t.request({ method: 'GET', path: '/at' })).text).toHaveLength(4_096)
    const e = await failure(t.request({ method: 'GET', path: '/over' }))
    expect(e).toBeInstanceOf(ResponseTooLargeError)
    expect(e).toMatchObject({ path: '/over', limitBytes: 4_096, maybeDelivered: true })
  })

  it('a declared Content-Length over the cap is refused before the body is read', async () => {
    const srv = await loopback((_req, res) => {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) })
      oversend(res, 50 * 1024 * 1024, 64 * 1024, srv.written)
    })
    const t = transport(srv.url, { maxBodyBytes: 1024 * 1024 })
    const e = await failure(t.request({ method: 'GET', path: '/v1/info/time' }))
    expect(e).toBeInstanceOf(ResponseTooLargeError)
    const err = e as ResponseTooLargeError
    expect(err.receivedBytes).toBe(50 * 1024 * 1024)
    expect(err.message).toBe(
      'request to /v1/info/time failed: response body declared as 52428800 bytes, over the 1048576-byte cap',
    )
    await until(() => srv.written.length > 0)
    // The connection was dropped: the server could not push anywhere near the 50 MB.
    expect(srv.written[0]).toBeLessThan(16 * 1024 * 1024)
  })

  it('a chunked body is cut as soon as it passes the cap, and the connection is dropped', async () => {
    const srv = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }) // no length: chunked
      oversend(res, 50 * 1024 * 1024, 64 * 1024, srv.written)
    })
    const t = transport(srv.url, { maxBodyBytes: 1024 * 1024 })
    const e = await failure(t.request({ method: 'GET', path: '/v1/info/index' }))
    expect(e).toBeInstanceOf(ResponseTooLargeError)
    const err = e as ResponseTooLargeError
    expect(err.limitBytes).toBe(1024 * 1024)
    expect(err.receivedBytes).toBeGreaterThan(1024 * 1024)
    expect(err.receivedBytes).toBeLessThanOrEqual(1024 * 1024 + 128 * 1024)
    await until(() => srv.written.length > 0)
    expect(srv.written[0]).toBeLessThan(16 * 1024 * 1024)
  })

  it('an oversized read is not retried', async () => {
    const srv = await loopback((_req, res) => res.end(Buffer.alloc(2_048, 0x61)))
    const t = transport(srv.url, { maxBodyBytes: 1_024 })
    const e = await failure(
      callJson(
        { transport: t, clock: systemClock, random: () => 0 },
        {
          request: { method: 'GET', path: '/v1/info/statistics' },
          schema: (await import('zod')).z.unknown(),
          parseErrorBody: () => undefined,
          retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
        },
      ),
    )
    expect(e).toBeInstanceOf(ResponseTooLargeError)
    expect(srv.requests).toBe(1)
  })

  it('multi-byte UTF-8 split across chunks decodes intact', async () => {
    const text = JSON.stringify({ s: 'é€😀'.repeat(2_000) })
    const srv = await loopback((_req, res) => {
      const buf = Buffer.from(text, 'utf8')
      res.writeHead(200)
      for (let i = 0; i < buf.length; i += 7) res.write(buf.subarray(i, i + 7))
      res.end()
    })
    const t = transport(srv.url)
    expect((await t.request({ method: 'GET', path: '/x' })).text).toBe(text)
  })
})

describe('client-side argument errors', () => {
  it('a header value outside visible ASCII is refused before sending, never echoed, never wedges', async () => {
    const srv = await loopback((_req, res) => res.end('{"ok":true}'))
    const t = transport(srv.url, { connections: 2, deadlineMs: 2_000 })
    const secret = 'sécret-€-value'
    for (let i = 0; i < 20; i++) {
      const e = await failure(
        t.request({ method: 'GET', path: '/v1/account/portfolio', headers: { 'polymarket-secret': secret } }),
      )
      expect(e).toBeInstanceOf(InputValidationError)
      expect((e as Error).message).toContain('polymarket-secret')
      expect((e as Error).message).not.toContain('sécret')
    }
    expect(srv.requests).toBe(0)
    expect((await t.request({ method: 'GET', path: '/v1/info/ping' })).text).toBe('{"ok":true}')
  })

  it('a refused header is not retried by a read', async () => {
    const srv = await loopback((_req, res) => res.end('{}'))
    const inner = transport(srv.url)
    let attempts = 0
    const counting: HttpTransport = {
      origin: inner.origin,
      close: () => inner.close(),
      request: (req) => {
        attempts++
        return inner.request(req)
      },
    }
    const e = await failure(
      callJson(
        { transport: counting, clock: systemClock, random: () => 0 },
        {
          request: { method: 'GET', path: '/v1/account/portfolio', headers: { 'polymarket-secret': 'ü' } },
          schema: (await import('zod')).z.unknown(),
          parseErrorBody: () => undefined,
          retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
        },
      ),
    )
    expect(e).toBeInstanceOf(InputValidationError)
    expect(attempts).toBe(1)
  })

  it("undici's own argument errors are never-sent failures, and the pool is replaced instead of wedging", async () => {
    const srv = await loopback((_req, res) => res.end('{"ok":true}'))
    // Before: after `connections` such failures every later request queued forever.
    const t = transport(srv.url, { connections: 2, deadlineMs: 2_000 })
    for (let i = 0; i < 10; i++) {
      const e = await failure(t.request({ method: 'GET', path: '/bad path€' }))
      expect(e).toMatchObject({ name: 'TransportError', maybeDelivered: false, timedOut: false })
      expect((e as Error).message).toContain('refused by the HTTP client before sending')
    }
    const started = Date.now()
    expect((await t.request({ method: 'GET', path: '/v1/info/ping' })).text).toBe('{"ok":true}')
    expect(Date.now() - started).toBeLessThan(1_000)
  })

  it('refuses a non-positive deadline or cap at construction', () => {
    expect(() => createHttpTransport({ baseUrl: 'http://127.0.0.1:1', deadlineMs: 0 })).toThrow(
      InputValidationError,
    )
    expect(() => createHttpTransport({ baseUrl: 'http://127.0.0.1:1', maxBodyBytes: 0.5 })).toThrow(
      InputValidationError,
    )
  })
})
