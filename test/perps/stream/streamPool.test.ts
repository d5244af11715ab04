/** The stream pool against the mock over loopback: channels spread within the connection limits. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningMock } from '../../../src/mock/server.ts'
import type { StreamGap } from '../../../src/perps/stream/streamClient.ts'
import { StreamLimitError } from '../../../src/perps/stream/streamErrors.ts'
import { StreamPool } from '../../../src/perps/stream/streamPool.ts'
import { seededRandom } from '../../../src/random.ts'
import { advance, PROXY, SECRET, startStreamMock, until } from './streamHarness.ts'

let mock: RunningMock
let pool: StreamPool
beforeEach(async () => {
  mock = await startStreamMock()
  pool = new StreamPool({
    url: mock.wsUrl,
    clock: mock.clock,
    random: seededRandom(2),
    credentials: { proxy: PROXY, secret: SECRET },
    maxConnections: 4,
    maxSubscriptionsPerConnection: 100,
  })
})
afterEach(async () => {
  await pool.close()
  await mock.close()
})

const bbo = (from: number, n: number) => Array.from({ length: n }, (_, i) => `bbo::${from + i}`)
const allSubscribed = () => pool.health().connections.every((c) => c.channels.every((ch) => ch.subscribed))

describe('StreamPool', () => {
  it('puts private channels on their own authenticated socket and spreads public ones 100 a socket', async () => {
    pool.subscribe(['orders', 'portfolio', 'tickers::all', ...bbo(1, 249)])
    pool.start()
    await until(() => pool.state === 'open', 'open')
    await until(allSubscribed, 'acks')
    const h = pool.health()
    expect(h.connections.map((c) => [c.private, c.channels.length])).toEqual([
      [true, 2],
      [false, 100],
      [false, 100],
      [false, 50],
    ])
    expect(mock.stream?.connections).toBe(4)
    const pushes: string[] = []
    pool.on('push', (p) => pushes.push(p.ch))
    await advance(mock, 1_000)
    await until(() => pushes.includes('portfolio') && pushes.includes('bbo::1'), 'pushes from both kinds')
    expect(pool.isFresh('bbo::1')).toBe(true)
    expect(pool.isFresh('bbo::249')).toBe(false) // no such instrument: never pushed
  })

  it('refuses channels that would need more connections, leaving the rest untouched', () => {
    pool.subscribe(['orders', ...bbo(1, 300)])
    expect(() => pool.subscribe(['bbo::301'])).toThrow(StreamLimitError)
    expect(pool.health().connections.map((c) => c.channels.length)).toEqual([1, 100, 100, 100])
  })

  it('reports down and open for the whole pool, and forwards every socket reconnect gap', async () => {
    pool.subscribe(['portfolio', 'bbo::1'])
    const states: string[] = []
    const gaps: StreamGap[] = []
    pool.on('state', (s) => states.push(s))
    pool.on('gap', (g) => gaps.push(g))
    pool.start()
    await until(() => pool.state === 'open', 'open')
    await until(allSubscribed, 'acks')
    mock.setFaults({ rules: [], stream: { dropConnection: 1 } })
    await advance(mock, 1_000)
    await until(() => pool.state === 'down', 'down')
    mock.setFaults('none')
    await advance(mock, 250, 250)
    await until(() => pool.state === 'open' && gaps.length === 2, 'reopened')
    expect(states).toEqual(['connecting', 'open', 'down', 'connecting', 'open'])
    expect(gaps.map((g) => g.channel).sort()).toEqual(['bbo::1', 'portfolio'])
    expect(pool.health().connections.every((c) => c.messagesSentLastMinute <= 125)).toBe(true)
  })
})
