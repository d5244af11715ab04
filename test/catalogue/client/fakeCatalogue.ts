/**
 * A scripted catalogue server for client tests: undici MockAgent with net connect disabled, so any
 * request that was not scripted fails the call. Each scripted reply records the exact request path
 * (with its query string, as sent).
 */
import { MockAgent } from 'undici'
import type { Clock } from '../../../src/clock.ts'
import type { CallContext } from '../../../src/http/callJson.ts'
import { createHttpTransport } from '../../../src/http/transport.ts'

export const ORIGIN = 'http://catalogue.test'

/** A clock whose timers fire on the next microtask turn: retries back off without real waiting. */
export const instantClock: Clock = {
  now: () => 0,
  setTimeout: (fn) => {
    queueMicrotask(fn)
    return 0
  },
  clearTimeout: () => {},
}

export interface FakeCatalogue {
  ctx: CallContext
  /** Request paths (with query), in arrival order. */
  requests: string[]
  /** Scripts one reply for the next GET whose path starts with `pathPrefix`. */
  reply(status: number, body: unknown, pathPrefix?: string): void
  /** Scripts one reply with a verbatim body. */
  replyRaw(status: number, text: string, pathPrefix?: string): void
  /** Throws if a scripted reply was not used. */
  assertAllUsed(): void
  close(): Promise<void>
}

export function fakeCatalogue(): FakeCatalogue {
  const agent = new MockAgent()
  agent.disableNetConnect()
  const pool = agent.get(ORIGIN)
  const requests: string[] = []
  const transport = createHttpTransport({ baseUrl: ORIGIN, dispatcher: agent })
  const script = (status: number, text: string, pathPrefix: string): void => {
    pool.intercept({ path: (p) => p.startsWith(pathPrefix), method: 'GET' }).reply((opts) => {
      requests.push(opts.path)
      return {
        statusCode: status,
        data: text,
        responseOptions: { headers: { 'content-type': 'application/json' } },
      }
    })
  }
  return {
    ctx: { transport, clock: instantClock, random: () => 0.5 },
    requests,
    reply: (status, body, pathPrefix = '/') => script(status, JSON.stringify(body), pathPrefix),
    replyRaw: (status, text, pathPrefix = '/') => script(status, text, pathPrefix),
    assertAllUsed: () => agent.assertNoPendingInterceptors(),
    close: async () => {
      await transport.close()
      await agent.close()
    },
  }
}

/** A minimal valid listing event. */
export function wireEvent(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    slug: `event-${id}`,
    title: `Event ${id}`,
    markets: [{ id: `9${id}`, conditionId: `0x${'ab'.repeat(32)}`, outcomes: '["Yes", "No"]' }],
    ...extra,
  }
}
