/**
 * The stream client against the mock's WebSocket over loopback (127.0.0.1): auth, typed pushes,
 * gaps, reconnect with resubscription, stalls, limits, and bounded behaviour against servers that
 * never answer.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { WebSocket } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { InputValidationError } from '../../../src/errors.ts'
import type { RunningMock } from '../../../src/mock/server.ts'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import { createPerpsClient } from '../../../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../../../src/perps/signing/commandSigner.ts'
import { SaltSource } from '../../../src/perps/signing/salt.ts'
import { StreamClient } from '../../../src/perps/stream/streamClient.ts'
import {
  StreamAuthError,
  StreamLimitError,
  StreamServerError,
  StreamSubscriptionError,
} from '../../../src/perps/stream/streamErrors.ts'
import { seededRandom } from '../../../src/random.ts'
import { advance, PROXY, PROXY_PK, SECRET, startStreamMock, streamClient, until } from './streamHarness.ts'

let mock: RunningMock
const clients: StreamClient[] = []

beforeEach(async () => {
  mock = await startStreamMock()
})
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
  await mock.close()
})

function open(extra: Parameters<typeof streamClient>[1] = {}) {
  const made = streamClient(mock, extra)
  clients.push(made.client)
  return made
}

const subscribed = (c: StreamClient) => () => c.health().channels.every((ch) => ch.subscribed)

describe('auth', () => {
  it('authenticates with proxy and secret and receives private pushes', async () => {
    const { client, events } = open({ credentials: { proxy: PROXY, secret: SECRET } })
    client.subscribe(['portfolio', 'balances'])
    client.start()
    await until(() => client.state === 'open', 'open')
    await until(subscribed(client), 'acks')
    await advance(mock, 1_000)
    await until(() => events.push.some((p) => p.kind === 'portfolio'), 'portfolio push')
    const portfolio = events.push.find((p) => p.kind === 'portfolio')
    if (portfolio?.kind !== 'portfolio') expect.unreachable()
    expect(portfolio.data.in_liquidation).toBe(false)
    expect(events.push.find((p) => p.kind === 'balances')).toMatchObject({
      ch: 'balances',
      data: { asset: 'pUSD' },
    })
    expect(events.error).toEqual([])
  })

  it('a refused auth is retried with back-off, reported as definite, and the secret is nowhere in it', async () => {
    const { client, events } = open({ credentials: { proxy: PROXY, secret: 'wrong-secret-xyz' } })
    client.subscribe(['orders'])
    client.start()
    await until(() => events.auth.length >= 1, 'first refusal')
    // The back-off timer runs on the mock's clock: step it until a second attempt is refused too.
    for (let i = 0; i < 20 && events.auth.length < 2; i++) await advance(mock, 1_000)
    await until(() => events.auth.length >= 2, 'second refusal')
    expect(client.state).not.toBe('closed')
    expect(events.auth[0]).toMatchObject({ ok: false, definite: true, code: 'unauthorized', refusals: 1 })
    expect(events.auth[1]).toMatchObject({ ok: false, refusals: 2 })
    expect(client.health().authRefusals).toBeGreaterThanOrEqual(2)
    expect(events.error[0]).toBeInstanceOf(StreamAuthError)
    expect(events.error[0]).toMatchObject({ code: 'unauthorized', definite: true })
    expect(JSON.stringify(events.error) + String(events.error[0]?.stack)).not.toContain('wrong-secret-xyz')
    expect(JSON.stringify(events.auth)).not.toContain('wrong-secret-xyz')
    expect(events.state.slice(0, 3)).toEqual(['connecting', 'down', 'connecting'])
  })

  it('private channels need credentials; unknown channels are refused before sending', () => {
    const { client } = open()
    expect(() => client.subscribe(['orders'])).toThrow(InputValidationError)
    expect(() => client.subscribe(['book::1::20'])).toThrow(InputValidationError)
    expect(client.channels.size).toBe(0)
  })
})

describe('pushes', () => {
  it('subscribes and receives typed market pushes every tick with consecutive sq', async () => {
    const { client, events } = open()
    client.subscribe(['tickers::all', 'bbo::1', 'book::1', 'statistics::1'])
    client.start()
    await until(subscribed(client), 'acks')
    await advance(mock, 3_000)
    await until(() => events.push.filter((p) => p.ch === 'bbo::1').length >= 3, 'bbo pushes')
    const tickers = events.push.filter((p) => p.kind === 'tickers')
    const instruments = mock.exchange.instrumentSpecs().length
    expect(tickers.length).toBeGreaterThanOrEqual(3 * instruments)
    const sq = tickers.map((p) => p.sq)
    expect(sq).toEqual(sq.map((_, i) => i + 1))
    const bbo = events.push.find((p) => p.kind === 'bbo')
    if (bbo?.kind !== 'bbo') expect.unreachable()
    expect(Number(bbo.data.bp)).toBeLessThan(Number(bbo.data.ap))
    expect(events.push.find((p) => p.kind === 'book')).toMatchObject({ iid: 1 })
    // Statistics: once on the first tick, then once per minute.
    expect(events.push.filter((p) => p.kind === 'statistics')).toHaveLength(1)
    const t = tickers.find((p) => p.iid === undefined && p.kind === 'tickers')
    if (t?.kind !== 'tickers') expect.unreachable()
    const snap = mock.exchange.snapshot().markets.find((m) => m.instrument_id === t.data.iid)
    expect(snap).toBeDefined()
    expect(events.fresh).toEqual(expect.arrayContaining(['tickers::all', 'bbo::1', 'book::1']))
    expect(events.gap).toEqual([])
  })

  it('pushes order and fill of a trade right after the command', async () => {
    const { client, events } = open({ credentials: { proxy: PROXY, secret: SECRET } })
    client.subscribe(['orders', 'fills'])
    client.start()
    await until(subscribed(client), 'acks')
    const rest = createPerpsClient({
      baseUrl: mock.url,
      clock: mock.clock,
      random: seededRandom(3),
      credentials: { proxy: PROXY, secret: SECRET },
      signer: new CommandSigner({
        privateKey: PROXY_PK,
        clock: mock.clock,
        salts: new SaltSource(seededRandom(9)),
      }),
    })
    const acks = await rest.createOrders([{ iid: 1, buy: true, qty: '0.01', tif: 'ioc' }])
    await rest.close()
    expect(acks[0]?.status).toBe('ok')
    const oid = acks[0]?.status === 'ok' ? acks[0].oid : -1
    // No clock step: the push follows the exchange's report, not the tick.
    await until(() => events.push.some((p) => p.kind === 'fills'), 'fills push')
    const order = events.push.find((p) => p.kind === 'orders')
    if (order?.kind !== 'orders') expect.unreachable()
    expect(order.data).toMatchObject({ oid, status: 'filled', fill: '0.01', rest: '0' })
    const fills = events.push.find((p) => p.kind === 'fills')
    if (fills?.kind !== 'fills') expect.unreachable()
    expect(fills.data).toHaveLength(1)
    expect(fills.data[0]).toMatchObject({
      oid,
      iid: 1,
      side: 'long',
      qty: '0.01',
      taker: true,
      // The position before the fill.
      psz: '0',
      liq: false,
    })
  })
})

describe('faults', () => {
  it('reports a sequence gap on the channel that lost a push', async () => {
    const { client, events } = open()
    client.subscribe(['bbo::1'])
    client.start()
    await until(subscribed(client), 'acks')
    await advance(mock, 2_000)
    await until(() => events.push.length >= 2, 'pushes')
    mock.setFaults({ rules: [], stream: { sequenceGap: 1 } })
    await advance(mock, 1_000)
    mock.setFaults('none')
    await advance(mock, 1_000)
    await until(() => events.gap.length === 1, 'gap')
    expect(events.gap[0]).toEqual({ channel: 'bbo::1', reason: 'sequence_gap', previous: 2, sq: 4 })
    expect(mock.stream?.counts.sequenceGap).toBe(1)
  })

  it('reconnects after a dropped connection, resubscribes and reports the reconnect as a gap', async () => {
    const { client, events } = open({ credentials: { proxy: PROXY, secret: SECRET } })
    client.subscribe(['tickers::1', 'portfolio'])
    client.start()
    await until(subscribed(client), 'acks')
    await advance(mock, 1_000)
    await until(() => events.fresh.length === 2, 'fresh')
    mock.setFaults({ rules: [], stream: { dropConnection: 1 } })
    await advance(mock, 1_000)
    await until(() => client.state === 'down', 'down')
    mock.setFaults('none')
    expect(events.stale.sort()).toEqual(['portfolio', 'tickers::1'])
    // Back-off: at most 250 ms for the first attempt.
    await advance(mock, 250, 250)
    await until(() => client.state === 'open', 'reopened')
    await until(() => events.gap.length === 2, 'reconnect gaps')
    expect(events.gap.map((g) => `${g.channel}:${g.reason}`).sort()).toEqual([
      'portfolio:reconnect',
      'tickers::1:reconnect',
    ])
    const before = events.push.length
    await advance(mock, 1_000)
    await until(() => events.push.length >= before + 2, 'pushes after reconnect')
    expect(events.push.at(-1)?.sq).toBe(1)
    expect(client.health()).toMatchObject({ state: 'open', reconnects: 1 })
    expect(events.state).toEqual(['connecting', 'open', 'down', 'connecting', 'open'])
  })

  it('calls a silent channel stale, drops a socket silent past its idle bound, and recovers', async () => {
    const { client, events } = open({ idleTimeoutMs: 8_000 })
    client.subscribe(['bbo::2'])
    client.start()
    await until(subscribed(client), 'acks')
    await advance(mock, 1_000)
    await until(() => events.fresh.length === 1, 'fresh')
    mock.setFaults({ rules: [], stream: { stall: { probability: 1, durationMs: 20_000 } } })
    await advance(mock, 1_000)
    mock.setFaults('none')
    await advance(mock, 4_000)
    expect(events.stale).toEqual(['bbo::2'])
    expect(client.state).toBe('open')
    await advance(mock, 5_000)
    // Dropped at +9 s (silent 8 s after the last push); the reconnect may already be under way.
    await until(() => client.health().reconnects === 1, 'dropped as idle')
    expect(events.state.slice(0, 3)).toEqual(['connecting', 'open', 'down'])
    await advance(mock, 1_000, 250)
    await until(() => client.state === 'open', 'reopened')
    await until(subscribed(client), 'resubscribed')
    await advance(mock, 1_000)
    await until(() => events.fresh.length === 2, 'fresh again')
    expect(events.gap.map((g) => g.reason)).toEqual(['reconnect'])
  })

  it('by default, event channels are fresh while subscribed and market channels while pushed', async () => {
    const { client, events } = open({
      staleAfterMs: undefined,
      credentials: { proxy: PROXY, secret: SECRET },
    })
    client.subscribe(['orders', 'fills', 'bbo::1', 'statistics::1'])
    client.start()
    await until(subscribed(client), 'acks')
    expect(events.fresh).toEqual(['orders', 'fills'])
    await advance(mock, 1_000)
    await until(() => events.fresh.length === 4, 'pushes')
    mock.setFaults({ rules: [], stream: { stall: { probability: 1, durationMs: 60_000 } } })
    await advance(mock, 17_000)
    // bbo silent past 15 s; statistics (150 s) and the event channels are not stale.
    expect(events.stale).toEqual(['bbo::1'])
    expect(['orders', 'fills', 'statistics::1'].map((ch) => client.isFresh(ch))).toEqual([true, true, true])
    mock.setFaults({ rules: [], stream: { dropConnection: 1 } })
    await advance(mock, 1_000)
    await until(() => client.state === 'down', 'dropped')
    expect(events.stale.slice(1).sort()).toEqual(['fills', 'orders', 'statistics::1'])
    mock.setFaults('none')
  })

  it('a slow consumer is told and disconnected, and comes back', async () => {
    const { client, events } = open()
    client.subscribe(['tickers::all'])
    client.start()
    await until(subscribed(client), 'acks')
    mock.setFaults({ rules: [], stream: { slowConsumer: 1 } })
    await advance(mock, 1_000)
    await until(() => client.state === 'down', 'down')
    mock.setFaults('none')
    expect(events.error[0]).toBeInstanceOf(StreamServerError)
    expect(events.error[0]).toMatchObject({ code: 'slow_consumer' })
    await advance(mock, 250, 250)
    await until(() => client.state === 'open', 'reopened')
  })
})

describe('limits', () => {
  it('refuses more than 100 channels on one connection, client- and server-side', async () => {
    const { client, events } = open()
    const hundred = Array.from({ length: 100 }, (_, i) => `bbo::${i + 1}`)
    client.subscribe(hundred)
    expect(() => client.subscribe(['bbo::101'])).toThrow(StreamLimitError)
    // The server enforces the same cap for clients that do not.
    const lax = open({ limits: { maxSubscriptions: 101 } })
    lax.client.subscribe([...hundred, 'tickers::all'])
    lax.client.start()
    client.start()
    await until(() => lax.events.error.length === 1, 'refusal')
    expect(lax.events.error[0]).toBeInstanceOf(StreamSubscriptionError)
    expect(lax.events.error[0]).toMatchObject({ channel: 'tickers::all', code: 'subscription_limit' })
    expect(lax.client.channels.size).toBe(100)
    await until(subscribed(client), 'acks')
    expect(events.error).toEqual([])
  })

  it('keeps its sends within the per-minute message budget', async () => {
    const { client } = open({ limits: { maxMessagesPerMinute: 2 } })
    client.subscribe(['bbo::1'])
    client.start()
    await until(subscribed(client), 'first ack')
    client.subscribe(['bbo::2'])
    client.subscribe(['bbo::3'])
    await until(() => client.health().channels.filter((c) => c.subscribed).length === 2, 'second ack')
    expect(client.health().messagesSentLastMinute).toBe(2)
    expect(client.health().channels.find((c) => c.channel === 'bbo::3')?.subscribed).toBe(false)
    await advance(mock, 60_000, 10_000)
    await until(subscribed(client), 'third ack after the window')
  })

  it('the server answers message_rate_limited past 1,000 messages a minute from one IP', async () => {
    const { client, events } = open()
    client.start()
    await until(() => client.state === 'open', 'open')
    // 1,000 frames from the client's IP, then one more.
    const raw = new WebSocket(mock.wsUrl)
    await new Promise((resolve) => raw.addEventListener('open', resolve, { once: true }))
    const replies: string[] = []
    raw.addEventListener('message', (ev) => replies.push(String(ev.data)))
    for (let i = 1; i <= 1_001; i++) raw.send(JSON.stringify({ id: i, req: 'sub', chs: ['bbo::1'] }))
    await until(() => replies.length === 1_001, 'replies')
    raw.close()
    expect(replies.filter((r) => r.includes('message_rate_limited'))).toHaveLength(1)
    expect(JSON.parse(replies.at(-1) ?? '')).toEqual({
      id: 1_001,
      data: { status: 'err', error: 'message_rate_limited' },
    })
    expect(events.error).toEqual([])
  })

  it('refuses a 51st connection from one IP', async () => {
    const sockets: WebSocket[] = []
    const outcomes: string[] = []
    for (let i = 0; i < 51; i++) {
      const ws = new WebSocket(mock.wsUrl)
      sockets.push(ws)
      ws.addEventListener('open', () => outcomes.push('open'))
      ws.addEventListener('error', () => outcomes.push('error'))
      await until(() => outcomes.length === i + 1, `connection ${i + 1}`)
    }
    expect(outcomes.filter((o) => o === 'open')).toHaveLength(50)
    expect(outcomes.at(-1)).toBe('error')
    expect(mock.stream?.connections).toBe(50)
    for (const ws of sockets) ws.close()
  })
})

describe('bounded', () => {
  let server: Server | undefined
  const held: Socket[] = []
  afterEach(async () => {
    for (const s of held.splice(0)) s.destroy()
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    server = undefined
  })

  it('a server that accepts TCP and never answers the upgrade: open times out, back-off, close resolves', async () => {
    server = createServer((s) => held.push(s))
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const client = new StreamClient({
      url: `ws://127.0.0.1:${port}/v1/ws`,
      clock,
      random: seededRandom(1),
      ackTimeoutMs: 5_000,
    })
    const states: string[] = []
    client.onState((s) => states.push(s))
    client.start()
    await until(() => held.length === 1, 'tcp accepted')
    clock.advance(5_000)
    expect(states).toEqual(['connecting', 'down'])
    clock.advance(250)
    expect(states).toEqual(['connecting', 'down', 'connecting'])
    const closing = client.close()
    clock.advance(2_000)
    await closing
    expect(client.state).toBe('closed')
    clock.dispose()
  })

  it('a stalled server never leaves an ack pending: the socket is dropped after ackTimeoutMs', async () => {
    mock.setFaults({ rules: [], stream: { stall: { probability: 1, durationMs: 600_000 } } })
    const { client, events } = open({ ackTimeoutMs: 4_000 })
    client.start()
    await until(() => client.state === 'open', 'open')
    // The stall starts on the next tick; the subscription after it is never answered.
    await advance(mock, 1_000)
    client.subscribe(['bbo::1'])
    await advance(mock, 4_000)
    await until(() => client.state === 'down', 'dropped')
    expect(events.error).toEqual([])
    mock.setFaults('none')
    const closing = client.close()
    mock.clock.advance(2_000)
    await closing
    expect(client.state).toBe('closed')
  })
})
