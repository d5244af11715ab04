import { createServer } from 'node:net'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Clock, systemClock } from '../../src/clock.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { checkPortFree } from '../../src/preflight/portCheck.ts'
import {
  type CheckLine,
  checkLogLevel,
  preflightFailed,
  runPreflight,
  streamLine,
} from '../../src/preflight/preflight.ts'
import { seededRandom } from '../../src/random.ts'
import { Settings } from '../../src/settings/schema.ts'
import { registerMockProxy } from '../helpers/mockAccount.ts'

let mock: RunningMock
let key: string
let secret: string
const settings = (over: Record<string, unknown> = {}) =>
  Settings.parse({
    instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg' }],
    ops: { port: 0 },
    ...over,
  })

beforeAll(async () => {
  mock = await startMockServer({ port: 0, seed: 3 })
  const account = await registerMockProxy(mock.url, 't')
  key = account.key
  secret = account.credentials.secret
})
afterAll(async () => {
  await mock.close()
})

const run = (o: {
  url?: string
  key?: string
  secret?: string
  settings?: Settings
  maxOrders?: ReadonlyMap<string, number | undefined>
}) =>
  runPreflight({
    maxOrders: o.maxOrders ?? new Map([['BTC-USDC', 4]]),
    settings: o.settings ?? settings(),
    perpsUrl: o.url ?? mock.url,
    proxyPrivateKey: o.key ?? key,
    proxySecret: o.secret ?? secret,
    clock: systemClock,
    random: seededRandom(5),
  })
const byCheck = (lines: CheckLine[]) => Object.fromEntries(lines.map((l) => [l.check, l]))

describe('preflight against the mock over loopback', () => {
  it('passes every check in order for a registered proxy (the tier is informational)', async () => {
    const lines = await run({})
    expect(lines.map((l) => l.check)).toEqual([
      'venue reachable',
      'clock skew',
      'exchange domain',
      'proxy credentials',
      'account readable',
      'instruments listed',
      'foreign orders',
      'leverage and margin mode',
      'dead-man switch',
      'open-order capacity',
      'weight tier',
      'signed self-test: modifyOrders',
      'signed self-test: cancelOrders',
      'ops port free',
    ])
    expect(lines.filter((l) => l.status !== 'ok').map((l) => l.check)).toEqual(['weight tier'])
    expect(byCheck(lines)['dead-man switch']?.detail).toMatch(
      /not armed; triggered 0 of \d+ today, next reset /,
    )
    expect(byCheck(lines)['signed self-test: cancelOrders']?.detail).toContain('signature verified')
    expect(byCheck(lines)['open-order capacity']?.detail).toContain(
      'up to 4 resting order(s) over 1 instrument(s)',
    )
    expect(preflightFailed(lines)).toBe(false)
  })

  it('compares the leverage the account has with the config, and says what the start will set', async () => {
    const want = settings({
      instruments: [{ symbol: 'BTC-USDC', strategy: 'index-peg', leverage: 3, marginMode: 'isolated' }],
    })
    const line = byCheck(await run({ settings: want }))['leverage and margin mode']
    expect(line?.status).toBe('warn')
    expect(line?.detail).toMatch(/the bot's start sets BTC-USDC: .* → 3x isolated/)
  })

  it('warns when the strategies could rest more orders than the account cap or an instrument allows', async () => {
    const over = await run({ maxOrders: new Map([['BTC-USDC', 1_001]]) })
    const line = byCheck(over)['open-order capacity']
    expect(line?.status).toBe('warn')
    // The mock's BTC-USDC allows fewer orders than that: the ladder is trimmed to the venue's count.
    expect(line?.detail).toMatch(/trimmed: BTC-USDC \(1001 > \d+\)/)
    const unknown = await run({ maxOrders: new Map() })
    expect(byCheck(unknown)['open-order capacity']?.detail).toContain(
      "whose strategy gives no maxOrders, counted at the venue's limit: BTC-USDC",
    )
  })

  it('a wrong secret fails the credentials check, skips what depends on it, and never prints the secret', async () => {
    const lines = await run({ secret: 'not-the-secret-0123456789' })
    const c = byCheck(lines)
    expect(c['proxy credentials']?.status).toBe('fail')
    expect(c['proxy credentials']?.detail).toContain('401')
    expect(c['account readable']?.status).toBe('skip')
    expect(c['signed self-test: cancelOrders']?.status).toBe('skip')
    expect(JSON.stringify(lines)).not.toContain('not-the-secret')
    expect(preflightFailed(lines)).toBe(true)
  })

  it('an unregistered key with a valid-looking secret cannot pass', async () => {
    const lines = await run({ key: generatePrivateKey() })
    expect(byCheck(lines)['proxy credentials']?.status).toBe('fail')
  })

  it('an unlisted instrument fails its line', async () => {
    const lines = await run({
      settings: settings({ instruments: [{ symbol: 'NOPE-USDC', strategy: 'index-peg' }] }),
    })
    expect(byCheck(lines)['instruments listed']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('NOPE-USDC'),
    })
    // It says what the venue does list, so the right symbol need not be guessed.
    expect(byCheck(lines)['instruments listed']?.detail).toMatch(/the venue lists .*BTC-USDC/)
  })

  it('a clock beyond the signature window fails its line and nothing is signed or sent', async () => {
    const behind: Clock = { ...systemClock, now: () => Date.now() - 10 * 60_000 }
    const lines = await runPreflight({
      maxOrders: new Map([['BTC-USDC', 4]]),
      settings: settings(),
      perpsUrl: mock.url,
      proxyPrivateKey: key,
      proxySecret: secret,
      clock: behind,
      random: seededRandom(5),
    })
    expect(byCheck(lines)['clock skew']?.status).toBe('fail')
    for (const c of ['signed self-test: modifyOrders', 'signed self-test: cancelOrders'])
      expect(byCheck(lines)[c]).toMatchObject({
        status: 'skip',
        detail: expect.stringContaining('not signed'),
      })
  })

  it('logs failed lines as errors and warnings as warnings', () => {
    expect(checkLogLevel({ check: 'x', status: 'fail', detail: '' })).toBe('error')
    expect(checkLogLevel({ check: 'x', status: 'warn', detail: '' })).toBe('warn')
    expect(checkLogLevel({ check: 'x', status: 'ok', detail: '' })).toBe('info')
  })

  it('an unreachable venue fails the first line and skips the venue checks', async () => {
    const closed = createServer()
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
    const port = (closed.address() as { port: number }).port
    await new Promise<void>((r) => closed.close(() => r()))
    const lines = await run({ url: `http://127.0.0.1:${port}` })
    expect(lines[0]).toMatchObject({ check: 'venue reachable', status: 'fail' })
    expect(lines.slice(1, -1).every((l) => l.status === 'skip')).toBe(true)
  })

  it('a busy ops port names the flag and the config key', async () => {
    const busy = createServer()
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r))
    const port = (busy.address() as { port: number }).port
    try {
      expect(await checkPortFree('127.0.0.1', port)).toBe('is in use')
      const lines = await run({ settings: settings({ ops: { port } }) })
      expect(byCheck(lines)['ops port free']).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(/--ops-port.*ops\.port/),
      })
    } finally {
      await new Promise<void>((r) => busy.close(() => r()))
    }
  })
})

describe('stream address line', () => {
  it('warns when streams are on without PERPS_WS_URL, says ok otherwise', () => {
    const on = settings()
    expect(streamLine(on, undefined)).toEqual([
      'stream address',
      'warn',
      expect.stringContaining('PERPS_WS_URL'),
    ])
    expect(streamLine(on, 'wss://ws.example/v1/ws')[1]).toBe('ok')
    expect(streamLine(settings({ streams: { enabled: false } }), undefined)[1]).toBe('ok')
  })
})
