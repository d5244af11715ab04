/**
 * Behaviour over real loopback HTTP (timeouts, refused connections), read retries and weight
 * charging per attempt, the limiter hooks, and the no-secret-in-errors guarantee.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import {
  ConfigError,
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import { NO_RETRY } from '../../../src/http/callJson.ts'
import { createPerpsContext } from '../../../src/perps/client/context.ts'
import { createPerpsClient, type PerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { redactSecrets } from '../../../src/perps/client/perpsCall.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { OPEN_GATE } from '../../../src/perps/throttle/requestGate.ts'
import { PERPS_WEIGHTS } from '../../../src/perps/weights.ts'
import {
  createHarness,
  FakeClock,
  fixedRandom,
  type Harness,
  OWNER_PK,
  PORTFOLIO_BODY,
  PROXY_ADDRESS,
  PROXY_PK,
  SECRET,
  T0,
} from './harness.ts'

// ---- loopback server ----------------------------------------------------------------------------

interface Loopback {
  url: string
  port: number
  seen: { method: string; url: string; body: string }[]
  held: ServerResponse[]
  close(): Promise<void>
}

/** Records every request; `answer` decides whether to reply (return true) or hold the request open. */
async function startLoopback(
  answer: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<Loopback> {
  const seen: Loopback['seen'] = []
  const held: ServerResponse[] = []
  const server: Server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8')
    })
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body })
      if (!answer(req, res)) held.push(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    held,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.()
})

function loopbackClient(
  url: string,
  extra: Partial<Parameters<typeof createPerpsClient>[0]> = {},
): PerpsClient {
  const clock = new FakeClock()
  const client = createPerpsClient({
    baseUrl: url,
    clock,
    readRetry: NO_RETRY,
    credentials: { proxy: PROXY_ADDRESS, secret: SECRET },
    signer: new CommandSigner({ privateKey: PROXY_PK, clock, salts: fixedRandom(1) }),
    ownerSigner: new CommandSigner({ privateKey: OWNER_PK, clock, salts: fixedRandom(2) }),
    ...extra,
  })
  cleanups.push(() => client.close())
  return client
}

/** Everything a log line or alert could print about an error. */
function renderings(e: unknown): string[] {
  const out: string[] = [String(e), inspect(e, { depth: 10, showHidden: true })]
  let cur: unknown = e
  for (let i = 0; i < 8 && cur !== undefined && cur !== null; i++) {
    if (cur instanceof Error) {
      out.push(cur.message, cur.stack ?? '', JSON.stringify(cur))
      cur = cur.cause
    } else {
      out.push(JSON.stringify(cur) ?? String(cur))
      break
    }
  }
  return out
}

const KEY_MATERIAL = [SECRET, PROXY_PK, PROXY_PK.slice(2), OWNER_PK, OWNER_PK.slice(2)]

function expectNoSecrets(e: unknown): void {
  for (const text of renderings(e)) for (const s of KEY_MATERIAL) expect(text).not.toContain(s)
}

// ---- tests --------------------------------------------------------------------------------------

describe('over loopback HTTP', () => {
  it('sends a read exactly as recorded by a real server', async () => {
    const srv = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ time: 1767225600000 }))
      return true
    })
    cleanups.push(() => srv.close())
    const client = loopbackClient(srv.url)
    expect(await client.getTime()).toEqual({ time: 1767225600000 })
    expect(srv.seen).toEqual([{ method: 'GET', url: '/v1/info/time', body: '' }])
  })

  it('a command whose answer times out is an UnknownOutcomeError after exactly one request', async () => {
    const srv = await startLoopback(() => false)
    cleanups.push(() => srv.close())
    const client = loopbackClient(srv.url, {
      http: { headersTimeoutMs: 100 },
      readRetry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 },
    })
    const e = await client.modifyOrders([{ oid: 1, p: '1', qty: '1' }]).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(UnknownOutcomeError)
    expect((e as UnknownOutcomeError).cause).toBeInstanceOf(TransportError)
    expect((e as UnknownOutcomeError).cause).toMatchObject({ timedOut: true, maybeDelivered: true })
    expect(srv.seen).toHaveLength(1)
    expect(srv.seen[0]?.method).toBe('PATCH')
    expectNoSecrets(e)
  })

  it('a read that times out is a TransportError marked timedOut', async () => {
    const srv = await startLoopback(() => false)
    cleanups.push(() => srv.close())
    const client = loopbackClient(srv.url, { http: { headersTimeoutMs: 100 } })
    const e = await client.getPortfolio().catch((err: unknown) => err)
    expect(e).toBeInstanceOf(TransportError)
    expect(e).toMatchObject({ timedOut: true })
    expectNoSecrets(e)
  })

  it('a refused connection is a TransportError for reads and commands (never delivered)', async () => {
    const srv = await startLoopback(() => true)
    const url = srv.url
    await srv.close()
    const client = loopbackClient(url)
    const read = await client.getCredentials().catch((err: unknown) => err)
    expect(read).toBeInstanceOf(TransportError)
    expect(read).toMatchObject({ maybeDelivered: false })
    expect((read as Error).message).toMatch(/ECONNREFUSED/)
    const cmd = await client.cancelOrders([1]).catch((err: unknown) => err)
    expect(cmd).toBeInstanceOf(TransportError)
    expect(cmd).not.toBeInstanceOf(UnknownOutcomeError)
    const proxy = await client
      .createProxy({ proxy: PROXY_ADDRESS, expiry: T0 + 1000 })
      .catch((err: unknown) => err)
    expect(proxy).toBeInstanceOf(TransportError)
    for (const e of [read, cmd, proxy]) expectNoSecrets(e)
  })
})

describe('read retries', () => {
  let h: Harness
  afterEach(async () => {
    h.agent.assertNoPendingInterceptors()
    await h.close()
  })

  it('retries a 5xx read with jittered backoff on the injected clock and charges every attempt', async () => {
    h = createHarness({ readRetry: { attempts: 3, baseDelayMs: 200, maxDelayMs: 2000 } })
    h.reply({ status: 503, body: { status: 'err', error: 'internal_error' } })
    h.reply({ body: PORTFOLIO_BODY })
    expect(await h.client.getPortfolio()).toEqual(PORTFOLIO_BODY)
    expect(h.requests).toHaveLength(2)
    expect(h.charges).toEqual([
      { endpoint: 'getPortfolio', requestWeight: 2, actionWeight: 0 },
      { endpoint: 'getPortfolio', requestWeight: 2, actionWeight: 0 },
    ])
    // fixed jitter 0.5 of the 200 ms cap
    expect(h.clock.delays).toEqual([100])
  })

  it('gives up after the policy attempts with the last rejection', async () => {
    h = createHarness({ readRetry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 } })
    for (let i = 0; i < 3; i++) h.reply({ status: 502, body: { status: 'err', error: 'internal_error' } })
    const e = await h.client.getIndex('NVDA').catch((err: unknown) => err)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).toMatchObject({ status: 502 })
    expect(h.requests).toHaveLength(3)
  })

  it('does not retry a 429 (the limiter decides), nor a 4xx', async () => {
    h = createHarness({ readRetry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 } })
    h.reply({
      status: 429,
      body: { status: 'err', error: 'ip_rate_limited' },
      headers: { 'retry-after': '1' },
    })
    h.reply({ status: 400, body: { status: 'err', error: 'bad' } })
    await expect(h.client.getFees()).rejects.toBeInstanceOf(RateLimitError)
    await expect(h.client.getFees()).rejects.toMatchObject({ status: 400 })
    expect(h.requests).toHaveLength(2)
  })

  it('a per-call retry policy overrides the context one', async () => {
    h = createHarness({ readRetry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 } })
    h.reply({ status: 503, body: { status: 'err', error: 'internal_error' } })
    await expect(h.client.getTime({ retry: NO_RETRY })).rejects.toMatchObject({ status: 503 })
    expect(h.requests).toHaveLength(1)
  })
})

describe('request gate', () => {
  let h: Harness
  afterEach(async () => {
    await h.close()
  })

  it('a gate that refuses stops the call before the request', async () => {
    h = createHarness({
      gate: {
        admit: () => Promise.reject(new Error('limiter stopped')),
      },
    })
    await expect(h.client.cancelAll()).rejects.toThrow('limiter stopped')
    await expect(h.client.getTime()).rejects.toThrow('limiter stopped')
    expect(h.requests).toHaveLength(0)
  })

  it('a 429 reaches the gate as the RateLimitError its send throws, and the caller gets it too', async () => {
    const seen: unknown[] = []
    h = createHarness({
      gate: {
        admit: async () => ({
          sending: () => undefined,
          settle: async (e?: unknown) => {
            if (e !== undefined) seen.push(e)
          },
          release: () => undefined,
        }),
      },
    })
    h.reply({
      status: 429,
      body: { status: 'err', error: 'ip_rate_limited' },
      headers: { 'retry-after': '2' },
    })
    const e = await h.client.getTime().catch((err: unknown) => err)
    expect(e).toBeInstanceOf(RateLimitError)
    expect((e as RateLimitError).retryAfterMs).toBe(2000)
    expect(seen).toEqual([e])
  })

  it('asks the gate first, then sends, then settles the admission with the answer (the limiter awaits capacity)', async () => {
    const order: string[] = []
    h = createHarness({
      gate: {
        admit: async (info) => {
          order.push(`wait ${info.endpoint}`)
          await new Promise((r) => setImmediate(r))
          order.push('admitted')
          return {
            sending: () => void order.push('sending'),
            settle: async () => void order.push('answered'),
            release: () => void order.push('released'),
          }
        },
      },
    })
    h.respond(() => {
      order.push('sent')
      return { body: { time: 1 } }
    })
    await h.client.getTime()
    expect(order).toEqual(['wait getTime', 'admitted', 'sending', 'sent', 'answered'])
    h.agent.assertNoPendingInterceptors()
  })

  it('passes a command its priority and signal; an admitted batch is signed and sent only when its holder sends it', async () => {
    const seen: { priority: unknown; signal: unknown }[] = []
    const order: string[] = []
    h = createHarness({
      gate: {
        admit: async (info) => {
          seen.push({ priority: info.priority, signal: info.signal })
          order.push('admitted')
          return {
            sending: () => void order.push('sending'),
            settle: async () => void order.push('settled'),
            release: () => void order.push('released'),
          }
        },
      },
    })
    h.respond(() => {
      order.push('sent')
      return { body: [{ status: 'ok', oid: 5 }] }
    })
    const controller = new AbortController()
    const admitted = await h.client.admitted.cancelOrders([5], {
      priority: 'risk',
      signal: controller.signal,
    })
    expect(seen).toEqual([{ priority: 'risk', signal: controller.signal }])
    expect(order).toEqual(['admitted'])
    order.push('held')
    expect(h.requests).toHaveLength(0)
    expect(await admitted.send()).toEqual([{ status: 'ok', oid: 5 }])
    expect(order).toEqual(['admitted', 'held', 'sending', 'sent', 'settled'])
    expect(() => admitted.release()).toThrow(/sent or released once/)
  })

  it('an admitted command released unsent hands its weight back and sends nothing', async () => {
    const order: string[] = []
    h = createHarness({
      gate: {
        admit: async () => ({
          sending: () => void order.push('sending'),
          settle: async () => void order.push('settled'),
          release: () => void order.push('released'),
        }),
      },
    })
    const admitted = await h.client.admitted.modifyOrders([{ oid: 1, p: '1', qty: '1' }], {
      priority: 'quote',
    })
    admitted.release()
    expect(order).toEqual(['released'])
    expect(h.requests).toHaveLength(0)
  })
})

describe("the client's own throttle (plain values)", () => {
  let h: Harness
  afterEach(async () => {
    await h.close()
  })

  it('admits every request through a limiter built from the values, readable on client.throttle', async () => {
    h = createHarness({ gate: undefined, throttle: { requestBudget: 10, headroom: 1, riskReserve: 0 } })
    h.respond(() => ({ body: { time: 1 } }))
    h.respond(() => ({ body: { time: 1 } }))
    await h.client.getTime()
    await h.client.getTime()
    const state = h.client.throttle?.state()
    expect(state?.request.limit).toBe(10)
    expect(state?.request.used).toBe(2 * PERPS_WEIGHTS.getTime.request({}))
    expect(state?.started.read).toBe(2)
  })
})

describe('a client throttle and a gate', () => {
  it('refuses a gate and a throttle of its own together', () => {
    expect(() =>
      createPerpsContext({ baseUrl: 'http://127.0.0.1:1', gate: OPEN_GATE, throttle: {} }),
    ).toThrow(ConfigError)
  })
})

describe('no secret in any error', () => {
  let h: Harness
  afterEach(async () => {
    await h.close()
  })

  it('401 on a header-authenticated read', async () => {
    h = createHarness()
    h.reply({ status: 401, body: { status: 'err', error: 'unauthorized' } })
    const e = await h.client.getPortfolio().catch((err: unknown) => err)
    expect(e).toMatchObject({ status: 401, code: 'unauthorized' })
    expectNoSecrets(e)
  })

  it('a library error that echoes the request headers is scrubbed (cause chain included)', async () => {
    h = createHarness()
    // An interceptor that cannot match: undici's MockNotMatchedError prints the request headers.
    h.agent
      .get('http://perps.test')
      .intercept({ path: '/v1/account/portfolio', headers: { 'x-never': 'sent' } })
      .reply(200, {})
    const e = await h.client.getPortfolio().catch((err: unknown) => err)
    expect(e).toBeInstanceOf(TransportError)
    expectNoSecrets(e)
    // The proof that there was something to scrub: the cause named the header, value redacted.
    const cause = (e as TransportError).cause as Error
    expect(cause.message).toContain('[redacted]')
    expect(cause.message.toLowerCase()).toContain('polymarket-secret')
  })

  it('errors around signed commands never carry key material', async () => {
    h = createHarness()
    h.reply({ status: 400, body: [{ status: 'err', error: 'invalid signature' }] })
    h.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    h.reply({ status: 422, body: { status: 'err', error: 'proxy already exists' } })
    const errors = [
      await h.client.modifyOrders([{ oid: 1, p: '1', qty: '1' }]).catch((err: unknown) => err),
      await h.client.cancelOrders([1]).catch((err: unknown) => err),
      await h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: T0 + 1 }).catch((err: unknown) => err),
    ]
    expect(errors[1]).toBeInstanceOf(UnknownOutcomeError)
    for (const e of errors) {
      expect(e).toBeInstanceOf(Error)
      expectNoSecrets(e)
    }
  })

  it('the client object and its context do not print the secret', () => {
    h = createHarness()
    for (const text of [inspect(h.client, { depth: 6 }), JSON.stringify(h.client.context.credentials)]) {
      expect(text).not.toContain(SECRET)
    }
  })
})

describe('redactSecrets', () => {
  it('rewrites nested strings and stops at cycles', () => {
    const inner = new Error(`header POLYMARKET-SECRET: ${SECRET}`)
    const outer = new TransportError('/x', 'failed', { cause: inner, maybeDelivered: true })
    const loop: Record<string, unknown> = { note: `again ${SECRET}` }
    loop.self = loop
    Object.assign(inner, { extra: loop })
    redactSecrets(outer, [SECRET])
    expect(inner.message).toBe('header POLYMARKET-SECRET: [redacted]')
    expect(inner.stack).not.toContain(SECRET)
    expect(loop.note).toBe('again [redacted]')
  })
})
