import { inspect } from 'node:util'
import { MockAgent } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/errors.ts'
import { createHttpTransport, type HttpTransport } from '../../../src/http/transport.ts'
import {
  apiSecretProblem,
  createPerpsContext,
  DEFAULT_AUTH_HEADER_NAMES,
  ProxyCredentials,
} from '../../../src/perps/client/context.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { getTime } from '../../../src/perps/client/getTime.ts'
import { FakeClock, ORIGIN, PROXY_ADDRESS, SECRET } from './harness.ts'

const agents: MockAgent[] = []
afterEach(async () => {
  while (agents.length > 0) await agents.pop()?.close()
})

function mockAgent(): MockAgent {
  const agent = new MockAgent()
  agent.disableNetConnect()
  agents.push(agent)
  return agent
}

describe('ProxyCredentials', () => {
  it('exposes the secret only through the getter', () => {
    const c = new ProxyCredentials(PROXY_ADDRESS, SECRET)
    expect(c.secret).toBe(SECRET)
    expect(Object.keys(c)).toEqual(['proxy'])
    for (const text of [JSON.stringify(c), String(c), inspect(c), inspect({ nested: { c } }, { depth: 5 })]) {
      expect(text).not.toContain(SECRET)
    }
    expect(JSON.parse(JSON.stringify(c))).toEqual({ proxy: PROXY_ADDRESS, secret: '[redacted]' })
  })

  it('rejects a malformed proxy and an unusable secret without echoing it', () => {
    const bad = `${SECRET}\r\nX-Evil: 1`
    const e = (() => {
      try {
        return new ProxyCredentials('0xabc', bad)
      } catch (err) {
        return err
      }
    })()
    expect(e).toBeInstanceOf(ConfigError)
    expect((e as ConfigError).issues).toHaveLength(2)
    expect(inspect(e, { depth: 5 })).not.toContain(SECRET)
    expect(() => new ProxyCredentials(PROXY_ADDRESS, '')).toThrow(ConfigError)
  })

  it.each([
    ['non-ASCII (undici then wedged its pool)', `${SECRET}é€`],
    ['a space', `${SECRET} x`],
    ['a tab', `${SECRET}\tx`],
    ['too long', 'x'.repeat(1_025)],
  ])('refuses a secret that is not header-safe: %s, without echoing it', (_label, secret) => {
    let err: unknown
    try {
      new ProxyCredentials(PROXY_ADDRESS, secret)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues[0]).toMatch(/^credentials\.secret: /)
    expect(inspect(err, { depth: 5 })).not.toContain(secret.slice(0, 16))
    expect(apiSecretProblem(secret)).toBeDefined()
  })

  it('accepts every visible ASCII character in a secret', () => {
    let visible = ''
    for (let c = 0x21; c <= 0x7e; c++) visible += String.fromCharCode(c)
    expect(new ProxyCredentials(PROXY_ADDRESS, visible).secret).toBe(visible)
  })
})

describe('createPerpsContext', () => {
  it('defaults: POLYMARKET-* header names, READ_RETRY, no credentials or signers', () => {
    const ctx = createPerpsContext({ baseUrl: ORIGIN, http: { dispatcher: mockAgent() } })
    expect(ctx.authHeaderNames).toEqual(DEFAULT_AUTH_HEADER_NAMES)
    expect(ctx.readRetry.attempts).toBe(3)
    expect(ctx.credentials).toBeUndefined()
    expect(ctx.signer).toBeUndefined()
  })

  it('lists every invalid setting in one ConfigError', () => {
    const e = (() => {
      try {
        return createPerpsContext({
          authHeaderNames: { proxy: 'BAD HEADER', secret: 'bad header' },
          defaultExpAfterMs: -5,
          credentials: { proxy: 'nope', secret: SECRET },
        })
      } catch (err) {
        return err
      }
    })()
    expect(e).toBeInstanceOf(ConfigError)
    const issues = (e as ConfigError).issues
    expect(issues).toEqual(
      expect.arrayContaining([
        'authHeaderNames.proxy: not a valid HTTP header name',
        'authHeaderNames.secret: not a valid HTTP header name',
        'authHeaderNames: proxy and secret headers must differ',
        'baseUrl: required when no transport is given',
        'defaultExpAfterMs: must be a positive number of ms',
        'credentials.proxy: expected a 0x-prefixed 20-byte hex address',
      ]),
    )
    expect(inspect(e, { depth: 5 })).not.toContain(SECRET)
  })

  it('an unparseable baseUrl is a ConfigError', () => {
    expect(() => createPerpsContext({ baseUrl: 'not a url' })).toThrow(ConfigError)
  })

  it('endpoint functions can be called directly with a context', async () => {
    const agent = mockAgent()
    agent.get(ORIGIN).intercept({ path: '/v1/info/time', method: 'GET' }).reply(200, { time: 5 })
    const ctx = createPerpsContext({ baseUrl: ORIGIN, http: { dispatcher: agent }, clock: new FakeClock() })
    expect(await getTime(ctx)).toEqual({ time: 5 })
    agent.assertNoPendingInterceptors()
  })
})

describe('createPerpsClient', () => {
  it('closes a transport it created, and leaves a given one open', async () => {
    let closed = 0
    const agent = mockAgent()
    const inner = createHttpTransport({ baseUrl: ORIGIN, dispatcher: agent })
    const shared: HttpTransport = {
      origin: inner.origin,
      request: (r) => inner.request(r),
      close: async () => {
        closed++
      },
    }
    const client = createPerpsClient({ transport: shared })
    await client.close()
    expect(closed).toBe(0)
    expect(client.context.transport).toBe(shared)

    agent.get(ORIGIN).intercept({ path: '/v1/info/time', method: 'GET' }).reply(200, { time: 9 })
    const owning = createPerpsClient({ baseUrl: ORIGIN, http: { dispatcher: agent } })
    expect(await owning.getTime()).toEqual({ time: 9 })
    await owning.close()
  })

  it('binds every endpoint of the weight table', async () => {
    const { PERPS_WEIGHTS } = await import('../../../src/perps/weights.ts')
    const client = createPerpsClient({ baseUrl: ORIGIN, http: { dispatcher: mockAgent() } })
    for (const endpoint of Object.keys(PERPS_WEIGHTS)) {
      expect(typeof (client as unknown as Record<string, unknown>)[endpoint], endpoint).toBe('function')
    }
    for (const pager of ['paginateWithdrawals', 'iterateWithdrawals', 'paginateFunding', 'iterateFunding']) {
      expect(typeof (client as unknown as Record<string, unknown>)[pager], pager).toBe('function')
    }
  })
})
