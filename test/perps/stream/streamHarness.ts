/**
 * Stream tests over real loopback: the mock on a stepped virtual clock, shared by the stream client
 * (its heartbeat, watchdog, back-off) and the mock's push ticks, so time moves only when a test
 * advances it. Waits are for socket I/O only, bounded, and never decide an outcome by elapsed time.
 */
import { type RunningMock, startMockServer } from '../../../src/mock/server.ts'
import type { StreamEventMap } from '../../../src/perps/stream/streamClient.ts'
import { StreamClient, type StreamClientOptions } from '../../../src/perps/stream/streamClient.ts'
import { seededRandom } from '../../../src/random.ts'

export const T0 = 1_767_225_600_000
/** Public Hardhat/Anvil dev keys (protocol-notes a.4; never fund them). */
export const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
export const PROXY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
export const PROXY_PK = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'
export const SECRET = 'stream-test-secret-0123456789abcdef'

export async function startStreamMock(): Promise<RunningMock> {
  return startMockServer({
    clock: 'stepped',
    startTime: T0,
    seed: 7,
    controls: true,
    catalogue: { eventCount: 5 },
    exchange: {
      historyMinutes: 5,
      accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: SECRET, expiry: T0 + 86_400_000 }] }],
    },
  })
}

export function streamClient(
  mock: RunningMock,
  extra: Partial<StreamClientOptions> = {},
): { client: StreamClient; events: Recorded } {
  const client = new StreamClient({
    url: mock.wsUrl,
    clock: mock.clock,
    random: seededRandom(11),
    staleAfterMs: 3_000,
    ...extra,
  })
  return { client, events: record(client) }
}

export type Recorded = { [K in keyof StreamEventMap]: StreamEventMap[K][] }

export function record(client: StreamClient): Recorded {
  const r: Recorded = { push: [], gap: [], state: [], stale: [], fresh: [], error: [], auth: [] }
  client.on('auth', (v) => r.auth.push(v))
  client.on('push', (v) => r.push.push(v))
  client.on('gap', (v) => r.gap.push(v))
  client.on('state', (v) => r.state.push(v))
  client.on('stale', (v) => r.stale.push(v))
  client.on('fresh', (v) => r.fresh.push(v))
  client.on('error', (v) => r.error.push(v))
  return r
}

/** Waits (bounded) for socket I/O to make `cond` true. */
export async function until(cond: () => boolean, what = 'condition', maxMs = 5_000): Promise<void> {
  const deadline = Date.now() + maxMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** Advances the shared clock in steps, letting I/O run between them. */
export async function advance(mock: RunningMock, ms: number, step = 1_000): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    mock.clock.advance(Math.min(step, ms - done))
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}
