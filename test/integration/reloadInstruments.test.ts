/**
 * `reload` adding and removing instruments without a restart, end to end: the real bot against the
 * mock over loopback (streams on), started with BTC-USDC and SOL-USDC, neither reading statistics.
 * A reload with SOL-USDC gone, ETH-USDC added on vol-spread (which reads statistics: the statistics
 * input is opened on the stream and the poller) and DOGE-USDC (not listed by the venue): ETH-USDC
 * quotes (its orders rest on the mock), `/status`, the metrics and the dashboard's events list it, SOL-USDC is halted with
 * none of its orders resting, DOGE-USDC gets a line and changes nothing; the same reload again
 * changes nothing; every reload is journaled with where it came from.
 */
import { describe, expect, it, vi } from 'vitest'
import type { Alert } from '../../src/alerts/alert.ts'
import { loadAndResolve } from '../../src/bot/startup/resolveConfig.ts'
import { startBotOnMock } from '../../src/sim/botOnMock.ts'

const BTC = { symbol: 'BTC-USDC', strategy: 'index-peg', params: { size: '0.01', positionCap: '0.2' } }
const SOL = { symbol: 'SOL-USDC', strategy: 'index-peg', params: { size: '2', positionCap: '40' } }
const ETH = {
  symbol: 'ETH-USDC',
  strategy: 'vol-spread',
  params: { size: '0.2', positionCap: '4', volMultiplier: 0.5 },
}
const DOGE = { symbol: 'DOGE-USDC', strategy: 'index-peg', params: { size: '10', positionCap: '100' } }

/** Reads the server-sent events until one contains `needle`; returns that event. */
async function firstEventWith(url: string, needle: string): Promise<string> {
  const abort = new AbortController()
  const res = await fetch(url, { signal: abort.signal })
  const reader = res.body?.getReader()
  if (reader === undefined) throw new Error('no body')
  const decoder = new TextDecoder()
  let text = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) throw new Error(`the stream ended without ${needle}`)
      text += decoder.decode(value, { stream: true })
      const events = text.split('\n\n')
      const hit = events.slice(0, -1).find((e) => e.includes(needle))
      if (hit !== undefined) return hit
    }
  } finally {
    abort.abort()
  }
}

describe('reload: instruments added and removed while running', () => {
  it('an added instrument quotes, a removed one halts with no orders resting, an unknown one changes nothing', async () => {
    const alerts: Alert[] = []
    let file: unknown[] = [BTC, SOL]
    const run = await startBotOnMock({
      mock: { seed: 5, scenario: 'calm', clock: 'accelerated', speed: 20, catalogue: { eventCount: 5 } },
      logLevel: 'warn',
      ops: true,
      overrides: { instruments: file },
      onAlert: (a) => void alerts.push(a),
      configSource: {
        read: () =>
          loadAndResolve({
            configDir: 'config',
            mode: 'dry-run',
            overrides: { 'ops.port': 0, instruments: file },
            env: {},
          }),
      },
    })
    const from = 'cli 127.0.0.1'
    try {
      const { bot, mock } = run
      const owner = mock.exchange.accountOf(bot.proxyAddress)?.owner ?? ''
      const idOf = (symbol: string): number =>
        mock.exchange.instruments().find((i) => i.symbol === symbol)?.instrument_id ?? -1
      const resting = (symbol: string) => mock.exchange.openOrders(owner, idOf(symbol)).length
      const stateOf = (symbol: string) => bot.status().instruments.find((i) => i.symbol === symbol)
      const wait = { timeout: 30_000, interval: 50 }
      await vi.waitFor(() => expect(resting('SOL-USDC')).toBeGreaterThan(0), wait)
      expect(bot.status().details?.inputs).not.toHaveProperty('statistics')
      expect(resting('ETH-USDC')).toBe(0)

      file = [BTC, ETH, DOGE]
      const r = await bot.control.run({ command: 'reload', from })
      // Not ok (the CLI exits 1, the dashboard shows it failed): the file asks for one it cannot trade.
      expect(r).toMatchObject({
        ok: false,
        changed: true,
        message: 'configuration reloaded (3 instrument(s)); 1 added instrument(s) not started',
      })
      expect(r.lines).toEqual([
        'BTC-USDC: unchanged',
        'SOL-USDC: removed: halted, orders cancelled',
        "ETH-USDC: added: vol-spread with the file's parameters, quoting once its inputs arrive",
        expect.stringMatching(
          /^DOGE-USDC: not added: the venue does not list it \(it lists BTC-USDC, ETH-USDC, .*\); nothing changed$/,
        ),
      ])

      // The added instrument's first batch reaches the mock: its orders rest there.
      await vi.waitFor(() => expect(resting('ETH-USDC')).toBeGreaterThan(0), wait)
      expect(stateOf('ETH-USDC')).toMatchObject({ strategy: 'vol-spread' })
      expect(stateOf('ETH-USDC')?.state).toMatch(/^active/)
      // Statistics were read by nobody at start: `statistics::all` is subscribed for it, and once the
      // poller's first read synced it the stream serves them; its own `bbo::{iid}` is streamed too.
      await vi.waitFor(
        () => expect(bot.status().details).toMatchObject({ inputs: { statistics: { source: 'stream' } } }),
        wait,
      )
      await vi.waitFor(
        () => expect(stateOf('ETH-USDC')?.details).toMatchObject({ bboAgeMs: expect.any(Number) }),
        wait,
      )
      // The removed one: halted, nothing of it resting on the venue.
      await vi.waitFor(() => expect(resting('SOL-USDC')).toBe(0), wait)
      expect(stateOf('SOL-USDC')?.state).toMatch(/^halted/)
      expect(stateOf('SOL-USDC')?.reason).toContain('removed from the configuration (reload)')
      // The unknown one: nothing traded under its name.
      expect(bot.status().instruments.map((i) => i.symbol)).toEqual(['BTC-USDC', 'SOL-USDC', 'ETH-USDC'])
      expect(bot.status().control?.held.map((h) => h.symbol)).toEqual(['SOL-USDC'])
      expect(stateOf('BTC-USDC')?.state).toMatch(/^active/)
      // The metrics and the dashboard's timeline (the /events stream's samples) carry it.
      const ops = bot.opsUrl ?? ''
      await vi.waitFor(async () => {
        const metrics = await (await fetch(`${ops}/metrics`)).text()
        expect(metrics).toMatch(/perpbot_instrument_state\{instrument="ETH-USDC",state="active[^"]*"\} 1/)
      }, wait)
      expect(await firstEventWith(`${ops}/events`, '"symbol":"ETH-USDC"')).toContain('"state":"')

      // The same file again: nothing changes, and it says so.
      const again = await bot.control.run({ command: 'reload', from })
      expect(again.changed).toBe(false)
      expect(again.lines?.slice(0, 2)).toEqual(['BTC-USDC: unchanged', 'ETH-USDC: unchanged'])
      expect(bot.status().instruments).toHaveLength(3)

      // Back: SOL-USDC quotes again; ETH-USDC stays.
      file = [BTC, ETH, SOL]
      const back = await bot.control.run({ command: 'reload', from })
      expect(back.lines).toContain('SOL-USDC: back in the configuration: quoting again (unchanged)')
      await vi.waitFor(() => expect(resting('SOL-USDC')).toBeGreaterThan(0), wait)

      // Journaled: what, when, from where.
      const reloads = alerts.filter((a) => a.title === `Operator reload (from ${from})`)
      expect(reloads).toHaveLength(3)
      expect(reloads[0]?.details).toMatchObject({ command: 'reload', from, ok: false, changed: true })
      expect(reloads[2]?.details).toMatchObject({ command: 'reload', from, ok: true, changed: true })
    } finally {
      await run.stop()
    }
  }, 90_000)
})
