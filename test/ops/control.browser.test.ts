/**
 * Commands to a running bot, end to end: the real bot on the mock over loopback with its ops server;
 * `perpbot pause | resume | cancel-all | flatten | reload | stop --bot URL` in process, each changing
 * the bot as it says, idempotent, and journaled (an info alert naming what and from where); then the
 * dashboard's buttons in headless Chromium, confirmed, doing the same.
 */
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadAndResolve } from '../../src/bot/startup/resolveConfig.ts'
import { type BotOnMock, startBotOnMock } from '../../src/sim/botOnMock.ts'
import { loadStrategies } from '../../src/strategy/registry.ts'
import { perpbot } from '../cli/perpbotCli.ts'
import { CHROMIUM_ARGS, chromiumPath, waitInPage } from '../helpers/chromium.ts'

let run: BotOnMock | undefined
let browser: Browser | undefined
const alerts: { title: string; severity: string; details?: unknown }[] = []

beforeAll(async () => {
  run = await startBotOnMock({
    mock: { seed: 7, scenario: 'calm', clock: 'accelerated', speed: 20, catalogue: { eventCount: 20 } },
    logLevel: 'warn',
    ops: true,
    onAlert: (a) => void alerts.push(a),
    // `perpbot reload` reads the shipped configuration with SOL-USDC gone and BTC-USDC wider.
    configSource: {
      read: async () => {
        const r = await loadAndResolve({
          configDir: 'config',
          mode: 'dry-run',
          overrides: { 'ops.port': 0 },
          env: {},
        })
        const registry = await loadStrategies()
        const wider = registry.resolve('index-peg', {
          halfSpreadBps: 12,
          levels: 2,
          levelSpacingBps: 6,
          size: '0.01',
          positionCap: '0.2',
        })
        return {
          settings: r.settings,
          strategies: r.strategies
            .filter((s) => s.symbol !== 'SOL-USDC')
            .map((s) => (s.symbol === 'BTC-USDC' ? { ...s, strategy: wider } : s)),
        }
      },
    },
  })
}, 30_000)

afterAll(async () => {
  await run?.stop('test over')
  await browser?.close()
}, 20_000)

async function until(what: string, ok: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const stateOf = (symbol: string) => run?.bot.status().instruments.find((i) => i.symbol === symbol)

describe('commands to a running bot', () => {
  it('pause, resume, cancel-all, flatten, reload and stop from the command line', {
    timeout: 120_000,
  }, async () => {
    if (!run) throw new Error('setup failed')
    const bot = ['--bot', run.bot.opsUrl ?? '']
    await until('quoting', () => stateOf('BTC-USDC')?.state.startsWith('active') === true)

    const p = await perpbot(['pause', '--instrument', 'BTC-USDC', ...bot])
    expect(p).toMatchObject({
      code: 0,
      out: 'pause: paused BTC-USDC: orders cancelled, no quotes until resume',
    })
    await until('BTC-USDC halted', () => stateOf('BTC-USDC')?.state.startsWith('halted') === true)
    expect(stateOf('BTC-USDC')?.reason).toContain('paused by the operator')
    await until('its orders cancelled', () => stateOf('BTC-USDC')?.openOrders === 0)
    expect(stateOf('ETH-USDC')?.state).toMatch(/^active/)
    const status = await perpbot(['status', ...bot])
    expect(status.out).toContain('protections: none configured (config `protections`)')
    expect(status.out).toContain('  held BTC-USDC: paused by the operator')
    expect(await perpbot(['pause', '--instrument', 'BTC-USDC', ...bot])).toMatchObject({
      code: 0,
      out: 'pause: BTC-USDC: already paused',
    })
    const bad = await perpbot(['pause', '--instrument', 'DOGE-USDC', ...bot])
    expect(bad.code).toBe(2)
    expect(bad.err).toContain('not a traded instrument: DOGE-USDC (traded: BTC-USDC, ETH-USDC, SOL-USDC)')

    expect(await perpbot(['resume', ...bot])).toMatchObject({
      code: 0,
      out: 'resume: resumed every instrument',
    })
    await until('BTC-USDC quoting again', () => stateOf('BTC-USDC')?.state.startsWith('active') === true)
    expect(await perpbot(['resume', ...bot])).toMatchObject({
      code: 0,
      out: 'resume: every instrument: not paused',
    })

    expect((await perpbot(['cancel-all', ...bot])).code).toBe(0)
    const f = await perpbot(['flatten', '--instrument', 'ETH-USDC', ...bot])
    expect(f.code).toBe(0)
    expect(f.out).toMatch(/^flatten: ETH-USDC paused; /)
    await until('ETH-USDC halted', () => stateOf('ETH-USDC')?.state.startsWith('halted') === true)
    expect((await perpbot(['resume', '--instrument', 'ETH-USDC', ...bot])).code).toBe(0)

    const r = await perpbot(['reload', ...bot])
    expect(r.code).toBe(0)
    expect(r.out.split('\n')).toEqual([
      'reload: configuration reloaded (2 instrument(s))',
      "  BTC-USDC: index-peg with the file's parameters",
      '  ETH-USDC: unchanged',
      '  SOL-USDC: removed: halted, orders cancelled',
    ])
    await until('SOL-USDC halted', () => stateOf('SOL-USDC')?.state.startsWith('halted') === true)
    expect(stateOf('SOL-USDC')?.reason).toContain('removed from the configuration')

    const stops: string[] = []
    run.bot.control.stopRequested.subscribe((reason) => void stops.push(reason))
    expect(await perpbot(['stop', ...bot])).toMatchObject({
      code: 0,
      out: 'stop: stopping by the exit policy (cancel-all)',
    })
    expect(await perpbot(['stop', ...bot])).toMatchObject({ code: 0, out: 'stop: already stopping' })
    await until('the stop request', () => stops.length === 1)
    expect(stops).toEqual(['stop command (from cli 127.0.0.1)'])

    // Journaled: what, when (the alert's time), from where.
    const operator = alerts.filter((a) => a.title.startsWith('Operator '))
    expect(operator.map((a) => a.title)).toEqual([
      'Operator pause BTC-USDC (from cli 127.0.0.1)',
      'Operator pause BTC-USDC (from cli 127.0.0.1)',
      'Operator pause DOGE-USDC (from cli 127.0.0.1)',
      'Operator resume (from cli 127.0.0.1)',
      'Operator resume (from cli 127.0.0.1)',
      'Operator cancel-all (from cli 127.0.0.1)',
      'Operator flatten ETH-USDC (from cli 127.0.0.1)',
      'Operator resume ETH-USDC (from cli 127.0.0.1)',
      'Operator reload (from cli 127.0.0.1)',
      'Operator stop (from cli 127.0.0.1)',
      'Operator stop (from cli 127.0.0.1)',
    ])
    expect(operator[0]).toMatchObject({ severity: 'info', details: { command: 'pause', changed: true } })
    expect(operator[1]).toMatchObject({ details: { changed: false } })
  })

  it('the dashboard pauses and resumes an instrument, after a confirmation', {
    timeout: 60_000,
  }, async () => {
    if (!run) throw new Error('setup failed')
    browser = await chromium.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_ARGS],
    })
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    const dialogs: string[] = []
    page.on('dialog', (d) => {
      dialogs.push(d.message())
      void d.accept()
    })
    await page.goto(`${run.bot.opsUrl}/`)
    await page.locator('#controls button[data-command="pause"]').waitFor({ timeout: 15_000 })
    await page.selectOption('#control-instrument', 'ETH-USDC')
    await page.click('#controls button[data-command="pause"]')
    await waitInPage(page, `document.querySelector('#control-result').textContent.length > 0`)
    expect(await page.locator('#control-result').textContent()).toBe(
      'paused ETH-USDC: orders cancelled, no quotes until resume',
    )
    expect(dialogs).toEqual(['Pause (ETH-USDC)?'])
    await until(
      'ETH-USDC halted',
      () => stateOf('ETH-USDC')?.reason?.includes('paused by the operator') === true,
    )
    // Declined: nothing is sent.
    page.removeAllListeners('dialog')
    page.on('dialog', (d) => void d.dismiss())
    await page.click('#controls button[data-command="resume"]')
    expect(stateOf('ETH-USDC')?.reason).toContain('paused by the operator')
    expect(
      alerts.filter((a) => a.title === 'Operator pause ETH-USDC (from dashboard 127.0.0.1)'),
    ).toHaveLength(1)
    expect(errors).toEqual([])
  })
})
