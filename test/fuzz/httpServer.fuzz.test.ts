/**
 * Fuzz: the mock's HTTP server (src/mock/httpServer.ts) against oversized bodies (413, reading
 * stops), deeply nested JSON (a clear 400 before parsing, no stack overflow) and slow clients (headers
 * or body trickled: a JSON 408 within the timeouts, set low here through the server's options).
 */
import { connect } from 'node:net'
import fc from 'fast-check'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  jsonDepthExceeds,
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  type RunningMockServer,
  startMockHttpServer,
} from '../../src/mock/httpServer.ts'
import { fuzzParams } from './fuzzKit.ts'

const HEADERS_TIMEOUT_MS = 200
const REQUEST_TIMEOUT_MS = 400

let server: RunningMockServer
let handled = 0

beforeAll(async () => {
  server = await startMockHttpServer({
    handler: (req) => {
      handled++
      return { status: 200, body: { ok: true, kind: Array.isArray(req.body) ? 'array' : typeof req.body } }
    },
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  })
})
afterAll(async () => {
  await server?.close()
})

/** A nested JSON text of depth `depth` (arrays and objects mixed), with brackets inside strings too. */
function nested(depth: number, shape: readonly boolean[], noise: string): string {
  let open = ''
  let close = ''
  for (let i = 0; i < depth; i++) {
    const obj = shape[i % shape.length] ?? false
    open += obj ? `{${JSON.stringify(noise)}:` : `[${JSON.stringify(noise)},`
    close = (obj ? '}' : ']') + close
  }
  return `${open}1${close}`
}

/** Raw socket exchange: writes `first`, then each of `rest` every `everyMs`; resolves on close. */
function trickle(
  first: string,
  rest: readonly string[],
  everyMs: number,
): Promise<{ text: string; ms: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    const sock = connect(server.port, '127.0.0.1')
    let text = ''
    let i = 0
    const timer = setInterval(() => {
      if (i < rest.length && !sock.destroyed) sock.write(rest[i++] ?? '')
    }, everyMs)
    // Bound: the test never waits past this, whatever the server does.
    const guard = setTimeout(() => sock.destroy(), 5_000)
    sock.on('data', (d: Buffer) => {
      text += d.toString('utf8')
    })
    sock.on('error', () => undefined)
    sock.on('close', () => {
      clearInterval(timer)
      clearTimeout(guard)
      resolve({ text, ms: performance.now() - started })
    })
    sock.write(first)
  })
}

describe('mock HTTP server: deep nesting', () => {
  it('the depth scan agrees with the real nesting depth, brackets inside strings ignored', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
        fc.string({ maxLength: 6 }).map((s) => `${s}[{"\\`),
        fc.integer({ min: 1, max: 150 }),
        (depth, shape, noise, limit) => {
          expect(jsonDepthExceeds(nested(depth, shape, noise), limit)).toBe(depth > limit)
        },
      ),
      fuzzParams(300),
    )
  })

  it('bodies nested past the limit get a clear 400 and never reach the handler; others do', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.integer({ min: 1, max: MAX_JSON_DEPTH }),
          fc.integer({ min: MAX_JSON_DEPTH + 1, max: 100_000 }),
        ),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
        async (depth, shape) => {
          const before = handled
          const r = await request(`${server.url}/v1/trade/orders`, {
            method: 'POST',
            body: nested(depth, shape, 'x'),
          })
          const body = await r.body.json()
          if (depth <= MAX_JSON_DEPTH) {
            expect(r.statusCode).toBe(200)
            expect(handled).toBe(before + 1)
          } else {
            expect(r.statusCode).toBe(400)
            expect(body).toEqual({
              status: 'err',
              error: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels`,
            })
            expect(handled).toBe(before)
          }
        },
      ),
      fuzzParams(20),
    )
  })

  it('a body of half a million open brackets is refused fast, and the server keeps serving', async () => {
    const started = performance.now()
    const r = await request(`${server.url}/v1/trade/orders`, { method: 'PATCH', body: '['.repeat(500_000) })
    expect(r.statusCode).toBe(400)
    expect(await r.body.json()).toEqual([
      { status: 'err', error: `JSON body nested deeper than ${MAX_JSON_DEPTH} levels` },
    ])
    expect(performance.now() - started).toBeLessThan(3_000)
    const ok = await request(`${server.url}/v1/info/time`)
    expect(ok.statusCode).toBe(200)
    await ok.body.dump()
  })
})

describe('mock HTTP server: oversized bodies', () => {
  it('a declared length over the limit is a 413 before any byte of the body is read', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: MAX_BODY_BYTES + 1, max: 2 ** 40 }), async (declared) => {
        const before = handled
        const { text } = await trickle(
          `POST /v1/account/referral HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n{`,
          [],
          1_000,
        )
        expect(text).toMatch(/^HTTP\/1\.1 413 /)
        expect(text).toContain('{"status":"err","error":"request body too large"}')
        expect(handled).toBe(before)
      }),
      fuzzParams(5),
    )
  })

  it('an endless chunked body gets 413 and the server stops reading (closes) long before the client stops', async () => {
    const before = handled
    const sock = connect(server.port, '127.0.0.1')
    let response = ''
    sock.on('data', (d: Buffer) => {
      response += d.toString('utf8')
    })
    sock.on('error', () => undefined)
    await new Promise<void>((resolve) => sock.once('connect', () => resolve()))
    sock.write('POST /v1/account/referral HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n')
    const chunk = Buffer.alloc(65_536, 0x20)
    const cap = 64 * MAX_BODY_BYTES
    let written = 0
    while (written < cap && !sock.destroyed && !sock.writableEnded) {
      const more = sock.write(`${chunk.length.toString(16)}\r\n`) && sock.write(chunk) && sock.write('\r\n')
      written += chunk.length
      if (!more) {
        // Backpressure: wait for drain or for the server to close.
        await new Promise<void>((resolve) => {
          const done = (): void => resolve()
          sock.once('drain', done)
          sock.once('close', done)
        })
      }
    }
    sock.destroy()
    expect(response).toMatch(/^HTTP\/1\.1 413 /)
    expect(handled).toBe(before)
    // The server read at most the limit plus a few socket buffers before it hung up.
    expect(written).toBeLessThan(16 * MAX_BODY_BYTES)
  })
})

describe('mock HTTP server: slow clients', () => {
  const expect408 = (r: { text: string; ms: number }) => {
    expect(r.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/)
    expect(r.text).toContain('{"status":"err","error":"request timeout"}')
  }

  it('headers trickled past the headers timeout get a JSON 408 and the connection closes', async () => {
    const before = handled
    const r = await trickle('GET /v1/info/time HTTP/1.1\r\n', Array(40).fill('X-Slow: 1\r\n'), 40)
    expect408(r)
    expect(r.ms).toBeLessThan(HEADERS_TIMEOUT_MS * 4)
    expect(handled).toBe(before)
  })

  it('a body trickled past the request timeout gets a JSON 408 and never reaches the handler', async () => {
    const before = handled
    const r = await trickle(
      'POST /v1/account/referral HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n',
      Array(60).fill(' '),
      40,
    )
    expect408(r)
    expect(r.ms).toBeLessThan(REQUEST_TIMEOUT_MS * 4)
    expect(handled).toBe(before)
  })

  it('a connection that sends nothing is closed within the headers timeout', async () => {
    const r = await trickle('', [], 1_000)
    expect(r.ms).toBeLessThan(HEADERS_TIMEOUT_MS * 4)
  })

  it('a keep-alive connection idle past the headers timeout still serves its next request', async () => {
    const sock = connect(server.port, '127.0.0.1')
    let text = ''
    sock.on('data', (d: Buffer) => {
      text += d.toString('utf8')
    })
    await new Promise<void>((resolve) => sock.once('connect', () => resolve()))
    const get = 'GET /v1/info/time HTTP/1.1\r\nHost: x\r\n\r\n'
    sock.write(get)
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 100))
    sock.write(get)
    await new Promise((resolve) => setTimeout(resolve, 100))
    sock.destroy()
    expect(text.match(/HTTP\/1\.1 200 OK/g)).toHaveLength(2)
  })
})
