/**
 * The mock's `funding` channel across a funding time (the noticed bug: "pushed nothing in a one-hour
 * session though REST showed the charge at the hour"). The session was closed as idle: the mock
 * measured idleness on its own (accelerated or stepped) clock only, so a client pinging on its wall
 * clock was dropped within a wall second or two and never saw the charge. Now a connection is idle
 * only when silent on both clocks: an hour of mock time with no ping keeps it, and the charge at the
 * hour is pushed with REST's values; silent for a wall minute as well, it is still closed.
 */
import { WebSocket } from 'undici'
import { afterEach, expect, it } from 'vitest'
import { type RunningMock, startMockServer } from '../../../src/mock/server.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../../src/perps/signing/salt.ts'
import { seededRandom } from '../../../src/random.ts'
import { advance, OWNER, PROXY, PROXY_PK, SECRET, T0, until } from '../../perps/stream/streamHarness.ts'

let mock: RunningMock | undefined
let ws: WebSocket | undefined
afterEach(async () => {
  ws?.close()
  await mock?.close()
})

async function session(wallNow: () => number) {
  mock = await startMockServer({
    clock: 'stepped',
    startTime: T0,
    seed: 7,
    catalogue: { eventCount: 5 },
    streamWallNow: wallNow,
    exchange: {
      historyMinutes: 5,
      accounts: [{ owner: OWNER, proxies: [{ proxy: PROXY, secret: SECRET, expiry: T0 + 86_400_000 }] }],
    },
  })
  const frames: { ch?: string; id?: number; data?: unknown }[] = []
  const socket = new WebSocket(mock.wsUrl)
  ws = socket
  let closed = false
  socket.addEventListener('message', (ev) => frames.push(JSON.parse(String(ev.data))))
  socket.addEventListener('close', () => {
    closed = true
  })
  await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }))
  const send = (v: unknown): void => socket.send(JSON.stringify(v))
  send({ id: 1, req: 'post', op: { type: 'auth', args: { proxy: PROXY, secret: SECRET } } })
  await until(() => frames.some((f) => f.id === 1), 'auth ack')
  send({ id: 2, req: 'sub', chs: ['funding', 'portfolio'] })
  await until(() => frames.some((f) => f.id === 2), 'sub ack')
  return { mock, frames, closed: () => closed }
}

it('pushes the charge at the hour to a session that pings on its wall clock only', async () => {
  const s = await session(() => 0)
  const rest = createPerpsClient({
    baseUrl: s.mock.url,
    clock: s.mock.clock,
    random: seededRandom(3),
    credentials: { proxy: PROXY, secret: SECRET },
    signer: new CommandSigner({
      privateKey: PROXY_PK,
      clock: s.mock.clock,
      salts: new SaltSource(seededRandom(4)),
    }),
  })
  try {
    await rest.createOrders([{ iid: 1, buy: true, qty: '0.01', tif: 'ioc' }])
    // An hour and a bit of mock time, no ping (the wall clock stands still: a fast mock).
    await advance(s.mock, 3_700_000, 60_000)
    const charged = (await rest.getFunding({})).data
    expect(charged).toHaveLength(1)
    await until(() => s.frames.some((f) => f.ch === 'funding'), 'funding push')
    expect(s.closed()).toBe(false)
    const pushed = s.frames.filter((f) => f.ch === 'funding').map((f) => f.data)
    expect(pushed).toEqual(
      charged.map((c) => ({
        // The payment's id, as on REST (bindings 0.10.0).
        id: c.id,
        iid: c.instrument_id,
        sz: c.size,
        fr: c.funding_rate,
        fund: c.funding,
        fua: c.funding_asset,
        ts: c.timestamp,
      })),
    )
  } finally {
    await rest.close()
  }
})

it('still closes a connection silent past the bound on both clocks', async () => {
  let wall = 0
  const s = await session(() => wall)
  await advance(s.mock, 30_000, 10_000)
  wall = 61_000
  // Silent for 61 s of wall time but only 30 s of mock time: kept.
  await advance(s.mock, 2_000, 1_000)
  expect(s.closed()).toBe(false)
  await advance(s.mock, 40_000, 10_000)
  await until(() => s.closed(), 'idle close')
})
